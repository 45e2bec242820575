// Command bridgelog is the relayer, signing coordinator and operator tool.
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
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
	Short: "Event-sourced cross-chain bridge relayer and M-of-N signing coordinator",
	Long: `bridgelog follows chains, turns every observation and decision into an
immutable event on an append-only log, and keeps its state tables as
projections of that log, rebuilt by replay.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

// globalFlags are shared by every subcommand.
var globalFlags struct {
	logLevel string
}

func init() {
	rootCmd.PersistentFlags().StringVar(&globalFlags.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	rootCmd.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		var lvl slog.Level
		if err := lvl.UnmarshalText([]byte(globalFlags.logLevel)); err != nil {
			return fmt.Errorf("--log-level: %w", err)
		}
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl})))
		return nil
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := rootCmd.ExecuteContext(ctx)
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
