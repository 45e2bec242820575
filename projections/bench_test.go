package projections_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// benchLog returns an embedded log of n generated events, with the
// relayer's own events if relay (see [synth.Config.RelayEvents]). It is
// built once per machine under the temp dir (generating a million events
// takes longer than folding them) and reused while its marker file says
// it is complete.
func benchLog(b *testing.B, n int, relay bool) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("bridgelog-bench-log-%d-v2", n))
	if relay {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("bridgelog-bench-log-relay-%d-v3", n))
	}
	marker := filepath.Join(dir, "complete")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	lg, err := embeddedlog.Open(dir, embeddedlog.WithLogger(quiet()))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := synth.Generate(context.Background(), lg, synth.Config{Events: n, Seed: 1, AppendBatch: 5000, RelayEvents: relay}, nil); err != nil {
		b.Fatal(err)
	}
	if err := lg.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d events in %v into %s", n, time.Since(start), dir)
	return dir
}

// peakRSS reads VmHWM (peak resident set) in bytes.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeakRSS resets VmHWM so generation does not count (Linux).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func benchRebuild(b *testing.B, n int, opts ...sqlstore.SQLiteOption) {
	benchRebuildSet(b, n, false, opts...)
}

// benchRebuildSet is benchRebuild; with relay, of the log with the
// relayer's events into every projection the relay keeps.
func benchRebuildSet(b *testing.B, n int, relay bool, opts ...sqlstore.SQLiteOption) {
	benchRebuildInto(b, n, relay, func(b *testing.B) projections.Store {
		st, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "p.db"), opts...)
		if err != nil {
			b.Fatal(err)
		}
		return st
	})
}

func benchRebuildInto(b *testing.B, n int, relay bool, open func(*testing.B) projections.Store) {
	dir := benchLog(b, n, relay)
	lg, err := embeddedlog.Open(dir, embeddedlog.WithLogger(quiet()))
	if err != nil {
		b.Fatal(err)
	}
	defer lg.Close()
	ctx := context.Background()
	if os.Getenv("GOGC") == "" { // as the binary runs
		defer debug.SetGCPercent(debug.SetGCPercent(projections.GCPercent))
	}
	resetPeakRSS()
	b.ResetTimer()
	var records int64
	var took time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st := open(b)
		ps := builtins()
		if relay {
			ps = projections.RelayProjections()
		}
		logger := quiet()
		if os.Getenv("BENCH_LOG") != "" { // BENCH_LOG=1 shows the runner's log (phase timings)
			logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
		}
		ropts := []projections.Option{fastRebuild, projections.WithLogger(logger)}
		// BENCH_BATCH=n / BENCH_COMMIT=n try another batch size / commit interval.
		if v, _ := strconv.Atoi(os.Getenv("BENCH_BATCH")); v > 0 {
			ropts = append(ropts, projections.WithBatchSize(v))
		}
		if v, _ := strconv.Atoi(os.Getenv("BENCH_COMMIT")); v > 0 {
			ropts = append(ropts, projections.WithCommitEvery(v))
		}
		r, err := projections.NewRunner(ctx, lg, st, ps, ropts...)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		s, err := r.CatchUp(ctx)
		if err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		b.StopTimer()
		if s.Records != int64(n) {
			b.Fatalf("rebuilt %d records, want %d", s.Records, n)
		}
		records += s.Records
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(records)/took.Seconds(), "events/s")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peakRSS_MB")
}

// BenchmarkRebuild1M: a full rebuild of a 1,000,000-event generated log
// (embedded engine) into SQLite: processed_events, deposits, withdrawals.
func BenchmarkRebuild1M(b *testing.B) { benchRebuild(b, 1_000_000) }

// BenchmarkRebuild100k is the same on a tenth of the log, for quick runs.
func BenchmarkRebuild100k(b *testing.B) { benchRebuild(b, 100_000) }

// BenchmarkRebuild1MBulk is the same rebuild into a SQLite store opened
// for bulk loading (verify's scratch store): the rows are staged while the
// runner folds and written as b-tree pages at the end.
func BenchmarkRebuild1MBulk(b *testing.B) { benchRebuild(b, 1_000_000, sqlstore.WithBulkLoad()) }

// BenchmarkRebuild1MRelayBulk is the bulk rebuild of a log as a running
// relay writes it (see [synth.Config.RelayEvents]: besides the
// lifecycles, transaction intents and outcomes, chain scans and batches)
// into every projection the relay keeps; chain_cursors and batches go
// through SQLite's engine, their keys cannot be staged.
func BenchmarkRebuild1MRelayBulk(b *testing.B) {
	benchRebuildSet(b, 1_000_000, true, sqlstore.WithBulkLoad())
}

// BenchmarkRebuild100kRelayBulk is the same on a tenth of that log.
func BenchmarkRebuild100kRelayBulk(b *testing.B) {
	benchRebuildSet(b, 100_000, true, sqlstore.WithBulkLoad())
}

// BenchmarkRebuild100kBulk is the bulk rebuild of a tenth of the log.
func BenchmarkRebuild100kBulk(b *testing.B) { benchRebuild(b, 100_000, sqlstore.WithBulkLoad()) }

// BenchmarkRebuild1MPostgres is the same rebuild into PostgreSQL (a
// throwaway cluster the benchmark starts; the server's processes share
// the machine's cores with the runner).
func BenchmarkRebuild1MPostgres(b *testing.B) {
	c := pgtest.Start(b)
	benchRebuildInto(b, 1_000_000, false, func(b *testing.B) projections.Store {
		st, err := sqlstore.OpenPostgres(context.Background(), c.NewDB(b))
		if err != nil {
			b.Fatal(err)
		}
		return st
	})
}
