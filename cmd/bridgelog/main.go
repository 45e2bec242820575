// Command bridgelog is the bridge relayer and its operator tool.
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/projections"
)

// exitError carries a specific process exit code up to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

var rootCmd = &cobra.Command{
	Use:   "bridgelog",
	Short: "Event-sourced cross-chain bridge relayer",
	Long: `bridgelog follows the chains in its relay config, turns every observation
and decision into an immutable event on an append-only log (embedded, or
Kafka), and keeps its state tables as projections of that log (SQLite or
PostgreSQL), rebuilt by replay. The relay confirms deposits and mints them,
batches withdrawals into merkle trees, anchors their roots and claims every
leaf; each transaction is signed by one of the wallets whose keys the relay
config holds. The other commands look at the log and the projections, check
them against each other, and rebuild them.

Commands print their results on standard output. Log lines go to standard
error: state changes, warnings and errors at the default --log-level info,
and the internal steps as well at --log-level debug.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

// globalFlags are shared by every subcommand.
var globalFlags struct {
	logLevel       string
	cpuProfile     string
	dedupCacheKeys int
}

// stopCPUProfile ends the profile --cpu-profile started; nil if none runs.
var stopCPUProfile func() error

func init() {
	pf := rootCmd.PersistentFlags()
	pf.StringVar(&globalFlags.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	pf.StringVar(&globalFlags.cpuProfile, "cpu-profile", "", "write a CPU profile of the command to this file (read it with go tool pprof BINARY FILE)")
	pf.IntVar(&globalFlags.dedupCacheKeys, "dedup-cache-keys", projections.DefaultDedupCacheKeys,
		"most source keys the dedup judge keeps in memory: a rebuild from zero of more records than this is several times slower, a higher bound costs memory (README)")
	rootCmd.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		var lvl slog.Level
		if err := lvl.UnmarshalText([]byte(globalFlags.logLevel)); err != nil {
			return fmt.Errorf("--log-level: %w", err)
		}
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl})))
		if globalFlags.dedupCacheKeys <= 0 {
			return fmt.Errorf("--dedup-cache-keys %d: want a positive number", globalFlags.dedupCacheKeys)
		}
		slog.Debug("collector target", "gc_percent", tuneGC(os.Getenv, cmd.Annotations[gcAnnotation] == gcRebuild))
		if globalFlags.cpuProfile != "" {
			return startCPUProfile(globalFlags.cpuProfile)
		}
		return nil
	}
}

// gcAnnotation, set to gcRebuild on a command (see [rebuilds]), gives it
// the rebuild's collector target.
const (
	gcAnnotation = "gc-target"
	gcRebuild    = "rebuild"
)

// rebuilds marks commands that fold the log in one go and exit: their heap
// is a rebuild's (key cache, read slabs, stages), which
// [projections.GCPercent] keeps lower at no cost in speed. The relay and
// the other long-running commands keep Go's default: in 4 alternating
// pairs of devnet runs their user CPU was ≈ 8% higher at 70% than at 100%,
// for ≈ 6 MB less memory (BENCHMARKS.md).
func rebuilds(cmds ...*cobra.Command) {
	for _, c := range cmds {
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[gcAnnotation] = gcRebuild
	}
}

// tuneGC sets the collector's target to [projections.GCPercent] for a
// command that rebuilds, unless the environment's GOGC chose one, and
// returns the target in force.
func tuneGC(getenv func(string) string, rebuild bool) int {
	if getenv("GOGC") != "" || !rebuild {
		p := debug.SetGCPercent(-1) // read it back: Go parsed GOGC at start
		debug.SetGCPercent(p)
		return p
	}
	debug.SetGCPercent(projections.GCPercent)
	return projections.GCPercent
}

// runnerOptions adds what the global flags set for every projection runner.
func runnerOptions(opts ...projections.Option) []projections.Option {
	return append(opts, projections.WithDedupCacheKeys(globalFlags.dedupCacheKeys))
}

// startCPUProfile profiles the process into path until main stops it.
func startCPUProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	stopCPUProfile = func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpu-profile %s: %w", path, err)
		}
		return nil
	}
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := rootCmd.ExecuteContext(ctx)
	if stopCPUProfile != nil { // before any exit, or the profile is cut short
		err = errors.Join(err, stopCPUProfile())
	}
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "bridgelog:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}
