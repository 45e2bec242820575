package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// A relay or `project` started where the SQLite store is missing (a new
// worker on an existing log, a store deleted to recover) would fold the
// whole log through SQLite's engine, at less than half the bulk loader's
// rate (BENCHMARKS.md). So a missing store over a log of at least
// --bulk-build-min records is first built as an offline replay builds
// one, then opened as usual.

// bulkBuildMinDefault is --bulk-build-min's default: below it the engine
// path takes seconds, and a second file, its sync and its rename are not
// worth it.
const bulkBuildMinDefault = 100_000

// addBulkBuildFlag registers --bulk-build-min on cmd.
func addBulkBuildFlag(cmd *cobra.Command, min *int64) {
	cmd.Flags().Int64Var(min, "bulk-build-min", bulkBuildMinDefault,
		"build a missing SQLite store in bulk first (as an offline replay does) when the log holds at least this many records; 0: never")
}

// buildMissingStore builds the SQLite store offline when it does not
// exist and the log holds at least min records. It returns nil when it
// built nothing.
func buildMissingStore(ctx context.Context, errOut io.Writer, min int64) (*offlineBuild, error) {
	if min < 0 {
		return nil, fmt.Errorf("--bulk-build-min %d: must be >= 0", min)
	}
	if engineFlags.store != "sqlite" || min == 0 {
		return nil, nil
	}
	if _, err := os.Stat(sqlitePath()); !errors.Is(err, os.ErrNotExist) {
		return nil, err // nil: the store exists
	}
	lg, err := openLog(ctx)
	if err != nil {
		return nil, err
	}
	defer lg.Close()
	n, err := projectedRecords(ctx, lg)
	if err != nil || n < min {
		return nil, err
	}
	slog.Info("store missing: building it from the log in bulk", "path", sqlitePath(), "records", n, "bulk_build_min", min)
	if os.Getenv("GOGC") == "" {
		// The build's heap is a rebuild's (see rebuilds): the relay keeps
		// Go's default target for its own run, not for this.
		defer debug.SetGCPercent(debug.SetGCPercent(projections.GCPercent))
	}
	b, err := buildOffline(ctx, lg, errOut, "first build", true)
	if err != nil {
		return nil, fmt.Errorf("%w (or start with --bulk-build-min 0 to fold through SQLite's engine)", err)
	}
	if b != nil {
		slog.Info("store built in bulk", "path", sqlitePath(), "records", b.sum.Records, "took", b.took.Round(1e6))
	}
	return b, nil
}

// projectedRecords counts the records in the topics the projections read.
func projectedRecords(ctx context.Context, lg topics.Log) (int64, error) {
	read := map[string]bool{}
	for _, p := range projectionSet() {
		for _, t := range p.Topics() {
			read[t] = true
		}
	}
	var n int64
	for t := range read {
		ends, err := lg.EndOffsets(ctx, t)
		if err != nil {
			return 0, fmt.Errorf("end offsets of %s: %w", t, err)
		}
		for _, e := range ends {
			n += e
		}
	}
	return n, nil
}
