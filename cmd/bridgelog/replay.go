package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

var replayFlags struct {
	fromOffset  int64
	projections []string
	batch       int
	inPlace     bool
}

var replayCmd = &cobra.Command{
	Use:   "replay [--from-offset N] [--projection NAME]...",
	Short: "Rebuild projections from the log",
	Long: `replay rebuilds projections by folding the log again.

Without --from-offset the named projections (all of them, processed_events
included, when none is named) are emptied and rebuilt from offset 0. With
--from-offset N their checkpoints move back to offset N in every partition
and the events from there are folded again over the existing rows (every
built-in projection folds a repeated event idempotently; processed_events
itself can only be rebuilt from 0).

A full replay (no --from-offset, no --projection) on the SQLite store is
offline: the store is rebuilt into a new file beside it, through the bulk
loader (several times faster than folding through SQLite's engine), and
moved over the live file when it is complete. It needs the store to itself:
stop the relay and other bridgelog commands on --data first; while it runs,
they refuse to open the store. An interrupted offline replay leaves the old
store as it was. Retired projection versions' tables are not carried over.

With --in-place (and always with --from-offset, --projection or PostgreSQL)
the tables are emptied and refilled in the live store: readers see them fill
up again while the rebuild runs. To rebuild beside the live version instead,
bump the projection's Version.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		full := !cmd.Flags().Changed("from-offset") && len(replayFlags.projections) == 0
		if full && engineFlags.store == "sqlite" && !replayFlags.inPlace {
			return replayOffline(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		}
		eng, err := openEngines(cmd.Context())
		if err != nil {
			return err
		}
		defer eng.Close()
		ctx := cmd.Context()
		bar := newProgress(cmd.ErrOrStderr(), "replay")
		r, err := newProjector(ctx, eng, bar.update, replayFlags.batch)
		if err != nil {
			return err
		}
		if cmd.Flags().Changed("from-offset") {
			if replayFlags.fromOffset < 0 {
				return fmt.Errorf("--from-offset %d: must be >= 0", replayFlags.fromOffset)
			}
			err = r.Rewind(ctx, replayFlags.fromOffset, replayFlags.projections...)
		} else {
			err = r.Rebuild(ctx, replayFlags.projections...)
		}
		if err != nil {
			return err
		}
		return catchUpAndPrint(ctx, cmd.OutOrStdout(), "replay", eng.Store, r, bar, nil)
	},
}

// replayOffline rebuilds every projection into a new SQLite file through
// the bulk loader and moves it over the live store (see replay --help).
func replayOffline(ctx context.Context, out, errOut io.Writer) error {
	b, err := buildOffline(ctx, nil, errOut, "offline replay", false)
	if errors.Is(err, sqlstore.ErrStoreInUse) {
		err = fmt.Errorf("%w; or rebuild in the live store with replay --in-place", err)
	}
	if err != nil {
		return err
	}
	return b.print(ctx, out)
}

// offlineBuild is a store built offline: the runner that built it and
// what it folded.
type offlineBuild struct {
	runner *projections.Runner
	sum    projections.Summary
	took   time.Duration
}

// buildOffline rebuilds every projection from lg (nil: the flags' log,
// opened once the store's lock is held) into a new SQLite file through
// the bulk loader and moves it over the live store; what names the build
// in its errors and logs. With ifMissing it builds only a store that does
// not exist: it returns nil if one appeared before it took the lock.
func buildOffline(ctx context.Context, lg topics.Log, errOut io.Writer, what string, ifMissing bool) (*offlineBuild, error) {
	rep, err := sqlstore.BeginReplace(sqlitePath(), slog.Default())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	replaced := false
	defer func() {
		if !replaced {
			if err := rep.Abort(); err != nil {
				slog.Warn(what+": remove the unfinished store", "err", err)
			}
		}
	}()
	if ifMissing {
		if _, err := os.Stat(sqlitePath()); !errors.Is(err, os.ErrNotExist) {
			return nil, err // nil: another process made it meanwhile
		}
	}
	if lg == nil {
		if lg, err = openLog(ctx); err != nil {
			return nil, err
		}
		defer lg.Close()
	}
	slog.Debug(what+": building a new store", "path", rep.Path())
	st, err := sqlstore.OpenSQLite(ctx, rep.Path(), sqlstore.WithBulkLoad())
	if err != nil {
		return nil, err
	}
	bar := newProgress(errOut, what)
	start := time.Now()
	b := &offlineBuild{}
	b.runner, err = newProjector(ctx, &engines{Log: lg, Store: st}, bar.update, replayFlags.batch)
	if err == nil {
		b.sum, err = b.runner.CatchUp(ctx)
	}
	bar.finish()
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%s (the live store is unchanged): %w", what, err)
	}
	if err := rep.Commit(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	replaced = true
	b.took = time.Since(start)
	// The build's memory is garbage now: hand it back before the store is
	// read (a summary reads every row) or the relay starts.
	debug.FreeOSMemory()
	return b, nil
}

// print prints the build's summary over the store it built.
func (b *offlineBuild) print(ctx context.Context, out io.Writer) error {
	// The summary reads every row of the new store once: through a small
	// page cache, so that it does not raise the process's peak.
	live, err := sqlstore.OpenSQLite(ctx, sqlitePath(), sqlstore.WithCacheKiB(summaryCacheKiB))
	if err != nil {
		return err
	}
	defer live.Close()
	return printSummary(ctx, out, "replay", live, b.runner, b.sum, b.took)
}

// summaryCacheKiB is the offline replay summary's SQLite page cache.
const summaryCacheKiB = 2 << 10

var projectFlags struct {
	follow  bool
	batch   int
	bulkMin int64
}

var projectCmd = &cobra.Command{
	Use:     "project [--follow]",
	Aliases: []string{"run"},
	Short:   "Catch the projections up with the log and print a summary",
	Long: `project folds every event the projections have not folded yet (from their
checkpoints), switches projection versions that finished building, and prints
row counts per projection and the dedup counts (source keys, duplicates,
conflicts). With --follow it keeps following the log until interrupted.

Where the SQLite store does not exist yet and the log holds at least
--bulk-build-min records, the store is first built in bulk, as an offline
replay builds one (several times faster than folding through SQLite's
engine); the summary then counts that build's records.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		built, err := buildMissingStore(cmd.Context(), cmd.ErrOrStderr(), projectFlags.bulkMin)
		if err != nil {
			return err
		}
		eng, err := openEngines(cmd.Context())
		if err != nil {
			return err
		}
		defer eng.Close()
		return runProject(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), eng, projectFlags.follow, projectFlags.batch, built)
	},
}

// runProject catches the projections up and prints the summary, which
// counts built's records too when the store was just built offline.
func runProject(ctx context.Context, out, errOut io.Writer, eng *engines, follow bool, batch int, built *offlineBuild) error {
	bar := newProgress(errOut, "project")
	r, err := newProjector(ctx, eng, bar.update, batch)
	if err != nil {
		return err
	}
	if err := catchUpAndPrint(ctx, out, "project", eng.Store, r, bar, built); err != nil {
		return err
	}
	if !follow {
		return nil
	}
	slog.Info("following the log", "projections", len(r.Projections()))
	return r.Follow(ctx, func(s projections.Summary) {
		slog.Info("projections caught up", "records", s.Records, "first", s.First,
			"duplicates", s.Duplicates, "conflicts", s.Conflicts, "skipped", s.Skipped, "switched", strings.Join(s.Switched, ","))
	})
}

// newProjector builds the runner over the flags' engines.
func newProjector(ctx context.Context, eng *engines, progress func(projections.Progress), batch int) (*projections.Runner, error) {
	opts := []projections.Option{projections.WithProgress(progress)}
	if batch > 0 {
		opts = append(opts, projections.WithBatchSize(batch))
	}
	return projections.NewRunner(ctx, eng.Log, eng.Store, projectionSet(), runnerOptions(opts...)...)
}

// catchUpAndPrint catches r up (the bar showing progress) and prints the
// summary: the tail of both replay and project (what names which). A
// store built offline just before (built, else nil) counts in the summary.
func catchUpAndPrint(ctx context.Context, w io.Writer, what string, st projections.Store, r *projections.Runner, bar *progress, built *offlineBuild) error {
	start := time.Now()
	sum, err := r.CatchUp(ctx)
	bar.finish()
	if err != nil {
		return err
	}
	took := time.Since(start)
	if built != nil {
		sum.Add(built.sum)
		took += built.took
	}
	return printSummary(ctx, w, what, st, r, sum, took)
}

// printSummary prints a line per projection (version, state, rows) and a
// final line with what the catch-up folded, in how long and at what rate;
// what names the command on that line.
func printSummary(ctx context.Context, w io.Writer, what string, st projections.Store, r *projections.Runner, s projections.Summary, took time.Duration) error {
	tx, err := st.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	states := map[string]string{}
	vs, err := projections.Versions(ctx, tx)
	if err != nil {
		return err
	}
	for _, v := range vs {
		states[fmt.Sprintf("%s@v%d", v.Projection, v.Version)] = v.State
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range r.Projections() {
		line, err := projectionLine(ctx, tx, p)
		if err != nil {
			return err
		}
		label := fmt.Sprintf("%s@v%d", p.Name(), p.Version())
		fmt.Fprintf(tw, "%s\t%s\t%s\n", label, states[label], line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, v := range s.Switched {
		fmt.Fprintf(w, "switched to %s\n", v)
	}
	rate := ""
	if took > 0 && s.Records > 0 {
		rate = fmt.Sprintf(", %.0f events/s", float64(s.Records)/took.Seconds())
	}
	fmt.Fprintf(w, "%s: folded %d records in %v%s: %d first, %d duplicates, %d conflicts, %d skipped\n",
		what, s.Records, took.Round(time.Millisecond), rate, s.First, s.Duplicates, s.Conflicts, s.Skipped)
	return nil
}

// projectionLine says how many rows p holds: in each table where it has
// several, and with the dedup counts for processed_events.
func projectionLine(ctx context.Context, tx projections.StoreTx, p projections.Projection) (string, error) {
	rows, err := projections.TableRows(ctx, tx, p)
	if err != nil {
		return "", err
	}
	var total int64
	names := make([]string, 0, len(rows))
	for t, n := range rows {
		names = append(names, t)
		total += n
	}
	line := fmt.Sprintf("%d rows", total)
	if p.Name() == projections.ProcessedEventsName {
		keys, dups, conflicts, err := projections.DedupTotals(ctx, tx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s\t%d source keys, %d duplicates ignored, %d conflicts recorded", line, keys, dups, conflicts), nil
	}
	if len(names) > 1 {
		sort.Strings(names)
		for i, t := range names {
			names[i] = fmt.Sprintf("%s %d", t, rows[t])
		}
		line += "\t" + strings.Join(names, ", ")
	}
	return line, nil
}

// progress draws a progress bar (events/s, ETA) once a catch-up has work.
type progress struct {
	w    io.Writer // nil: draw nothing
	desc string
	bar  *progressbar.ProgressBar
}

// newProgress draws on w, unless w is a file that is not a terminal: a bar
// redrawn with carriage returns is noise in a log file or a pipe.
func newProgress(w io.Writer, desc string) *progress {
	if f, ok := w.(*os.File); ok && !isTerminal(f) {
		w = nil
	}
	return &progress{w: w, desc: desc}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) update(pr projections.Progress) {
	if p.w == nil {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(pr.Total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("events"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	_ = p.bar.Set64(pr.Done)
}

// finish clears the bar: the line it took is free for what follows.
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

func init() {
	replayCmd.Flags().Int64Var(&replayFlags.fromOffset, "from-offset", 0, "re-fold from this offset (every partition) over the existing rows instead of rebuilding from 0")
	replayCmd.Flags().StringSliceVar(&replayFlags.projections, "projection", nil, "projection to replay (repeatable; default all)")
	replayCmd.Flags().BoolVar(&replayFlags.inPlace, "in-place", false, "rebuild in the live store (readers see the tables refill) instead of offline into a new file")
	replayCmd.Flags().IntVar(&replayFlags.batch, "batch", 0, "events folded per batch (default 2500; one transaction spans batches up to 50,000 events)")
	projectCmd.Flags().BoolVar(&projectFlags.follow, "follow", false, "keep following the log (live mode) until interrupted")
	projectCmd.Flags().IntVar(&projectFlags.batch, "batch", 0, "events folded per batch (default 2500; one transaction spans batches up to 50,000 events)")
	addBulkBuildFlag(projectCmd, &projectFlags.bulkMin)
	rootCmd.AddCommand(replayCmd, projectCmd)
	rebuilds(replayCmd, projectCmd)
}
