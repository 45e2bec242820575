package projections_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// TestBulkLoad: a SQLite store opened for bulk loading stages a load
// from zero and writes its tables at the end as b-tree pages; the tables
// equal those folded through SQLite's engine, digest for digest, with the
// same indexes; SQLite calls the file sound; the store then goes on like
// any other (indexes in use) and reopens as a normal store. A bulk load
// that fails leaves a store every later open refuses.
func TestBulkLoad(t *testing.T) {
	for _, e := range []struct {
		name     string
		newLog   func(t *testing.T) topics.Log
		pageSize int // 0: SQLite's default, 4096
	}{
		{"embedded", embeddedLog, 0},
		{"kafka", kafkaLog, 0},
		// The pages built outside SQLite at another size than the default.
		{"embedded/16KiB-pages", embeddedLog, 16 << 10},
	} {
		t.Run(e.name, func(t *testing.T) { testBulkLoad(t, e.newLog, e.pageSize) })
	}
}

func testBulkLoad(t *testing.T, newLog func(t *testing.T) topics.Log, pageSize int) {
	lg := newLog(t)
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 3000, Seed: 11, AppendBatch: 100}, nil); err != nil {
		t.Fatal(err)
	}
	// Small reads, batches and commits, and sessions that flush every few
	// rows: deposits span batches and commits, and rows flushed earlier
	// are read back from the stage by id.
	small := []projections.Option{fastRebuild, projections.WithReadChunk(30), projections.WithBatchSize(100), projections.WithCommitEvery(500)}
	defer projections.SetMaxHeldRows(7)()

	ref, _ := sqliteStore(t)
	refRun := newRunner(t, lg, ref, builtins(), small...)
	catchUp(t, refRun)
	want := digests(t, refRun)
	wantIndexes := indexes(t, ref)

	// Half the log loaded from zero in bulk, the rest folded through the
	// built tables and their indexes: duplicates and conflicts of keys of
	// the first half, lifecycles that go on across the boundary.
	ends, err := lg.EndOffsets(ctx, topics.TopicBridge)
	if err != nil {
		t.Fatal(err)
	}
	half := map[string][]int64{topics.TopicBridge: nil}
	for _, e := range ends {
		half[topics.TopicBridge] = append(half[topics.TopicBridge], e/2)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "bulk.db")
	opts := []sqlstore.SQLiteOption{sqlstore.WithBulkLoad(), sqlstore.WithWrittenDigests()}
	if pageSize != 0 {
		opts = append(opts, sqlstore.WithPageSize(pageSize))
	}
	st, err := sqlstore.OpenSQLite(ctx, path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(projections.BulkLoader); !ok {
		t.Fatalf("%T is not a bulk loader", st)
	}
	staged := []string{"processed_events_v1", "event_conflicts_v1", "deposits_v1", projections.Withdrawals{}.Tables()[0].Name}
	lines := &logLines{}
	first := newRunner(t, lg, st, builtins(), append(small, projections.WithStopAt(half), projections.WithLogger(slog.New(lines)))...)
	s := catchUp(t, first)
	if s.Duplicates == 0 || s.Conflicts == 0 || s.Applied["deposits@v1"] == 0 || s.Applied[withdrawalsLabel()] == 0 {
		t.Fatalf("first half: %+v", s)
	}
	written := 0
	for _, m := range lines.msgs {
		if m == "projection tables written with their indexes processed_events" || m == "projection tables written with their indexes deposits" {
			written++
		}
	}
	if written != 2 {
		t.Fatalf("the load did not go through the bulk loader: %q", lines.msgs)
	}
	// The digests the load took of the rows as it wrote them are those
	// read back through SQL: a reference store folded to the same point
	// through SQLite's engine gives them, and so does the built file read
	// by an ordinary transaction.
	for _, name := range staged {
		if _, ok := writtenDigest(t, st, name); !ok {
			t.Fatalf("no written digest of %s after the load", name)
		}
	}
	halfRef, _ := sqliteStore(t)
	halfRun := newRunner(t, lg, halfRef, builtins(), append(small, projections.WithStopAt(half))...)
	catchUp(t, halfRun)
	wantHalf := digests(t, halfRun)
	for name, d := range digests(t, first) {
		if wantHalf[name] != d {
			t.Errorf("%s: written digest %s, folded through SQLite %s", name, d, wantHalf[name])
		}
	}
	for _, name := range staged {
		w, _ := writtenDigest(t, st, name)
		if r := readDigest(t, st, name); r != w {
			t.Errorf("%s: written digest %+v, read back %+v", name, w, r)
		}
	}
	if !slices.Contains(lines.msgs, "projections fold beside the dedup judge ") {
		t.Fatalf("the folds did not run beside the judge: %q", lines.msgs)
	}
	if got := indexes(t, st); !slices.Equal(got, wantIndexes) {
		t.Fatalf("indexes after the bulk load: %v, want %v", got, wantIndexes)
	}
	integrityOK(t, st)
	var gotPageSize int
	query(t, st, "PRAGMA page_size", nil, &gotPageSize)
	if want := cmp.Or(pageSize, 4096); gotPageSize != want {
		t.Fatalf("page size %d, want %d", gotPageSize, want)
	}
	if spills, _ := filepath.Glob(filepath.Join(dir, "*.spill")); len(spills) > 0 {
		t.Fatalf("spill files left after the load: %v", spills)
	}

	rest := newRunner(t, lg, st, builtins(), small...)
	s = catchUp(t, rest)
	if s.Duplicates == 0 || s.Records == 0 {
		t.Fatalf("second half: %+v", s)
	}
	// Folding on wrote to the tables: their written digests are dropped.
	for _, name := range []string{"processed_events_v1", "deposits_v1", projections.Withdrawals{}.Tables()[0].Name} {
		if d, ok := writtenDigest(t, st, name); ok {
			t.Fatalf("%s still has its written digest %+v after more rows were folded into it", name, d)
		}
	}
	for name, d := range digests(t, rest) {
		if want[name] != d {
			t.Errorf("%s: bulk-loaded then folded %s, folded through SQLite %s", name, d, want[name])
		}
	}
	integrityOK(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// An ordinary open (WAL) of the built file.
	again, err := sqlstore.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	run := newRunner(t, lg, again, builtins(), fastRebuild)
	if s := catchUp(t, run); s.Records != 0 {
		t.Fatalf("the reopened store folded %d records again", s.Records)
	}
	for name, d := range digests(t, run) {
		if want[name] != d {
			t.Errorf("%s: reopened %s, want %s", name, d, want[name])
		}
	}
	integrityOK(t, again)
}

// TestBulkLoadFailure: a bulk load that fails half-way refuses further
// work, and every later open of its file is refused, naming it, with
// nothing changed; its spill files are removed.
func TestBulkLoadFailure(t *testing.T) {
	left := 8
	failedBulkLoad(t, bulkFailureLog(t), failingDeposits{left: &left})
}

// TestBulkLoadFlushFailure: a session's flush runs on the folds'
// goroutine while the runner commits and goes on; its failure, the last
// commit's included, still fails the catch-up and leaves a refused store.
func TestBulkLoadFlushFailure(t *testing.T) {
	lg := bulkFailureLog(t)
	// A clean load counts the events the deposits session folds.
	total := 0
	st, err := sqlstore.OpenSQLite(ctxT(t), filepath.Join(t.TempDir(), "clean.db"), sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	ps := []projections.Projection{failingDeposits{applied: &total}, projections.Withdrawals{}}
	if _, err := newRunner(t, lg, st, ps, bulkFailureOpts...).CatchUp(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if total < 500 {
		t.Fatalf("deposits folded %d events; the log should give more", total)
	}
	for _, at := range []int{total / 2, total} { // half-way; the last commit's flush
		t.Run(fmt.Sprintf("from event %d of %d", at, total), func(t *testing.T) {
			applied := 0
			failedBulkLoad(t, lg, failingDeposits{applied: &applied, flushAt: at})
		})
	}
}

// bulkFailureOpts make the failure tests' loads commit and flush often.
var bulkFailureOpts = []projections.Option{fastRebuild, projections.WithReadChunk(30), projections.WithBatchSize(100), projections.WithCommitEvery(300)}

// bulkFailureLog is the small log the failure tests load.
func bulkFailureLog(t *testing.T) topics.Log {
	t.Helper()
	lg := embeddedLog(t)
	if _, err := synth.Generate(ctxT(t), lg, synth.Config{Events: 2000, Seed: 12, AppendBatch: 100}, nil); err != nil {
		t.Fatal(err)
	}
	return lg
}

// failedBulkLoad loads lg into a new bulk store with deposits failing as
// set, wants the injected failure, and checks what the load leaves.
func failedBulkLoad(t *testing.T, lg topics.Log, deposits failingDeposits) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "bulk.db")
	st, err := sqlstore.OpenSQLite(ctxT(t), path, sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	run := newRunner(t, lg, st, []projections.Projection{deposits, projections.Withdrawals{}}, bulkFailureOpts...)
	if _, err := run.CatchUp(ctxT(t)); !errors.Is(err, errInjected) {
		t.Fatalf("catch-up error %v, want the injected failure", err)
	}
	refusesFailedBulkLoad(t, run, st, dir, path)
}

// refusesFailedBulkLoad checks what a failed bulk load leaves: the store
// refuses more work, its spills are gone once closed, and every later
// open refuses the file, naming it, without changing it.
func refusesFailedBulkLoad(t *testing.T, run *projections.Runner, st projections.Store, dir, path string) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := run.CatchUp(ctx); !errors.Is(err, sqlstore.ErrBulkLoadFailed) {
		t.Fatalf("second catch-up error %v, want ErrBulkLoadFailed", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if spills, _ := filepath.Glob(filepath.Join(dir, "*.spill")); len(spills) > 0 {
		t.Fatalf("spill files left after close: %v", spills)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]sqlstore.SQLiteOption{nil, {sqlstore.WithBulkLoad()}} {
		_, err := sqlstore.OpenSQLite(context.Background(), path, opts...)
		if !errors.Is(err, sqlstore.ErrIncompleteBulkLoad) {
			t.Fatalf("open of a half-built store: %v, want ErrIncompleteBulkLoad", err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error %q does not name the file", err)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Fatal("a refused open changed the file")
	}
}

// integrityOK runs SQLite's full integrity check.
func integrityOK(t *testing.T, st projections.Store) {
	t.Helper()
	var res string
	query(t, st, "PRAGMA integrity_check", nil, &res)
	if res != "ok" {
		t.Fatalf("integrity_check: %s", res)
	}
}

const bulkCrashEnv = "BRIDGELOG_BULK_CRASH_CHILD"

// TestBulkLoadCrash kills, with SIGKILL at random moments of the load (the
// first child shows how long one takes), processes that bulk-load a store
// from a 20,000-event log. Every killed store is either
// refused on open, naming it as half-built, or (killed before anything
// was staged, or after the load finished) opens and catches up to exactly
// the digests of a clean rebuild, and SQLite finds it sound. A new bulk
// open of a killed store's path removes the spill files the kill left.
func TestBulkLoadCrash(t *testing.T) {
	if dir := os.Getenv(bulkCrashEnv); dir != "" {
		bulkCrashChild(t, dir)
		return
	}
	ctx := ctxT(t)
	dir := t.TempDir()
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"), embeddedlog.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 20000, Seed: 21, AppendBatch: 500}, nil); err != nil {
		t.Fatal(err)
	}
	clean, _ := sqliteStore(t)
	want := digests(t, func() *projections.Runner { r := newRunner(t, lg, clean, builtins()); catchUp(t, r); return r }())
	lg.Close()

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	refused := 0
	// How long a child takes to start its catch-up and to finish, measured
	// by the first. Most kills land in between, where the load is: a
	// child's start-up (the test binary, the log's open) is much of its
	// time, and kills spread over all of it missed the load too often.
	var begin, whole time.Duration
	path, started, done := filepath.Join(dir, "bulk.db"), filepath.Join(dir, "started"), filepath.Join(dir, "done")
	for i := 0; i < 13; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBulkLoadCrash$")
		cmd.Env = append(os.Environ(), bulkCrashEnv+"="+dir)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// (The first child is not killed early: it measures. Every fourth
		// is killed anywhere, start-up included.)
		delay := begin + time.Duration(rng.Int64N(int64(whole-begin)+1))
		if i%4 == 0 {
			delay = time.Duration(rng.Int64N(int64(whole) + 1))
		}
		if whole == 0 {
			for time.Since(start) < time.Minute {
				if _, err := os.Stat(started); err == nil && begin == 0 {
					begin = time.Since(start)
				}
				if _, err := os.Stat(done); err == nil {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			whole = time.Since(start)
		} else {
			time.Sleep(delay)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		os.Remove(done)
		os.Remove(started)
		st, err := sqlstore.OpenSQLite(ctx, path)
		outcome := "opened, caught up, digests equal"
		switch {
		case errors.Is(err, sqlstore.ErrIncompleteBulkLoad):
			refused++
			outcome = "refused as half-built"
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("refusal %q does not name the store", err)
			}
		case err != nil:
			t.Fatalf("kill %d after %v: open: %v\n%s", i, delay, err, out.String())
		default:
			lg, err := embeddedlog.Open(filepath.Join(dir, "log"), embeddedlog.WithLogger(quiet()))
			if err != nil {
				t.Fatal(err)
			}
			r := newRunner(t, lg, st, builtins(), fastRebuild)
			catchUp(t, r)
			for name, d := range digests(t, r) {
				if want[name] != d {
					t.Fatalf("kill %d after %v: %s digest %s, a clean rebuild gives %s", i, delay, name, d, want[name])
				}
			}
			integrityOK(t, st)
			st.Close()
			lg.Close()
		}
		// A bulk open of the same path (as the next build would) removes
		// the spill files a kill left, and judges the store the same way.
		if spills, _ := filepath.Glob(path + ".stage-*"); len(spills) > 0 {
			b, berr := sqlstore.OpenSQLite(ctx, path, sqlstore.WithBulkLoad())
			if errors.Is(berr, sqlstore.ErrIncompleteBulkLoad) != (outcome != "opened, caught up, digests equal") {
				t.Fatalf("kill %d: a bulk open says %v, a plain one %q", i, berr, outcome)
			}
			if berr == nil {
				b.Close()
			}
			if left, _ := filepath.Glob(path + ".stage-*"); len(left) > 0 {
				t.Fatalf("kill %d: spill files left after a bulk open: %v", i, left)
			}
		}
		for _, f := range []string{path, path + "-journal", path + "-wal", path + "-shm"} {
			os.Remove(f)
		}
		t.Logf("kill %2d after %4v: %s", i, delay, outcome)
	}
	if refused < 3 {
		t.Fatalf("only %d of 12 kills landed inside a bulk load (a child starts its catch-up after %v, ends after %v): the test shows too little", refused, begin, whole)
	}
}

// bulkCrashChild bulk-loads dir/bulk.db from dir/log until killed.
func bulkCrashChild(t *testing.T, dir string) {
	ctx := context.Background()
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"), embeddedlog.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "bulk.db"), sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	r, err := projections.NewRunner(ctx, lg, st, builtins(), fastRebuild, projections.WithLogger(quiet()),
		projections.WithBatchSize(200), projections.WithCommitEvery(2000))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "started"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {} // wait for the kill
}

// writtenDigest is the digest a bulk-loading store took of table as it
// wrote it, if it still has one.
func writtenDigest(t *testing.T, st projections.Store, table string) (projections.TableDigest, bool) {
	t.Helper()
	tx, err := st.Begin(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	w, ok := tx.(projections.WrittenDigests)
	if !ok {
		t.Fatalf("%T does not keep written digests", tx)
	}
	return w.WrittenDigest(table)
}

// readDigest digests table by reading its rows back, whatever the store
// kept.
func readDigest(t *testing.T, st projections.Store, table string) projections.TableDigest {
	t.Helper()
	tx, err := st.Begin(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, p := range append([]projections.Projection{projections.ProcessedEvents{}}, builtins()...) {
		for _, tb := range p.Tables() {
			if tb.Name == table {
				d, err := projections.DigestOf(ctxT(t), sqlOnly{tx}, oneTable{p, tb})
				if err != nil {
					t.Fatal(err)
				}
				return d.Tables[0]
			}
		}
	}
	t.Fatalf("no projection has table %s", table)
	return projections.TableDigest{}
}

// sqlOnly hides everything of a transaction but its SQL.
type sqlOnly struct{ projections.Tx }

// oneTable is a projection narrowed to one of its tables.
type oneTable struct {
	projections.Projection
	t projections.Table
}

func (o oneTable) Tables() []projections.Table { return []projections.Table{o.t} }

// TestBulkLoadThenFoldOnSameRunner: the runner that bulk-loaded a store
// folds more events later against the tables the store wrote, finding
// the load's keys through the source_hash index the load built (its key
// cache is dropped once the load is done); duplicates of keys of the load
// are still told apart, digest for digest as through SQLite's engine.
func TestBulkLoadThenFoldOnSameRunner(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	gen := func(events int) {
		t.Helper()
		if _, err := synth.Generate(ctx, lg, synth.Config{Events: events, Seed: 11, AppendBatch: 100}, nil); err != nil {
			t.Fatal(err)
		}
	}
	gen(2000)
	small := []projections.Option{fastRebuild, projections.WithReadChunk(30), projections.WithBatchSize(100), projections.WithCommitEvery(500)}
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "bulk.db"), sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lines := &logLines{}
	run := newRunner(t, lg, st, builtins(), append(small, projections.WithLogger(slog.New(lines)))...)
	catchUp(t, run)
	if !slices.Contains(lines.msgs, "projection tables written with their indexes processed_events") {
		t.Fatalf("the load did not go through the bulk loader: %q", lines.msgs)
	}
	gen(500) // the same generator again: the keys of the load once more
	s := catchUp(t, run)
	if s.Records == 0 || s.Duplicates+s.Conflicts == 0 {
		t.Fatalf("second catch-up: %+v", s)
	}
	ref, _ := sqliteStore(t)
	refRun := newRunner(t, lg, ref, builtins(), small...)
	catchUp(t, refRun)
	want := digests(t, refRun)
	for name, d := range digests(t, run) {
		if want[name] != d {
			t.Errorf("%s: bulk-loaded then folded by the same runner %s, folded through SQLite %s", name, d, want[name])
		}
	}
	integrityOK(t, st)
}

// withdrawalsLabel is how the runner names the withdrawals projection.
func withdrawalsLabel() string {
	return fmt.Sprintf("withdrawals@v%d", projections.Withdrawals{}.Version())
}
