package projections_test

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// failingDeposits is the deposits projection whose session fails its
// n-th batch (left), once: a catch-up that dies half-way through a load
// from zero. With flushAt > 0 it fails instead every flush once it has
// folded flushAt events, counted in applied.
type failingDeposits struct {
	projections.Deposits
	left    *int
	flushAt int
	applied *int
}

func (f failingDeposits) NewSession(fromZero bool) projections.Session {
	return failingSession{Session: f.Deposits.NewSession(fromZero), f: f}
}

type failingSession struct {
	projections.Session
	f failingDeposits
}

var errInjected = errors.New("injected failure")

func (s failingSession) ApplyBatch(ctx context.Context, tx projections.Tx, evs []*projections.Event) error {
	if s.f.left != nil {
		*s.f.left--
		if *s.f.left == 0 {
			return errInjected
		}
	}
	if s.f.applied != nil {
		*s.f.applied += len(evs)
	}
	return s.Session.ApplyBatch(ctx, tx, evs)
}

func (s failingSession) Flush(ctx context.Context, tx projections.Tx) error {
	if s.f.flushAt > 0 && *s.f.applied >= s.f.flushAt {
		return errInjected
	}
	return s.Session.Flush(ctx, tx)
}

// indexes lists the store's secondary indexes.
func indexes(t *testing.T, st projections.Store) []string {
	t.Helper()
	q := `SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'`
	if st.Dialect() == projections.Postgres {
		q = `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%_pkey'`
	}
	tx, err := st.Begin(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(ctxT(t), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// testFromZeroLoad: a catch-up into empty tables drops their secondary
// indexes, folds without them (rows held across batches, read back by id
// across commits) and builds them at the end; the rows equal those of a
// catch-up that had its indexes all along, and one that failed half-way
// gets its indexes back before it goes on.
func testFromZeroLoad(t *testing.T, e env) {
	lg := e.newLog(t)
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 3000, Seed: 7, AppendBatch: 100}, nil); err != nil {
		t.Fatal(err)
	}
	// Small reads, batches and commits: a deposit's events span batches
	// and transactions.
	small := []projections.Option{fastRebuild, projections.WithReadChunk(30), projections.WithBatchSize(100), projections.WithCommitEvery(500)}

	// Reference: the first tenth loaded from zero, the rest folded with
	// every index in place.
	ends, err := lg.EndOffsets(ctx, topics.TopicBridge)
	if err != nil {
		t.Fatal(err)
	}
	tenth := map[string][]int64{topics.TopicBridge: nil}
	for _, e := range ends {
		tenth[topics.TopicBridge] = append(tenth[topics.TopicBridge], e/10)
	}
	ref, _ := e.newStore(t)
	catchUp(t, newRunner(t, lg, ref, builtins(), append(small, projections.WithStopAt(tenth))...))
	refRun := newRunner(t, lg, ref, builtins(), small...)
	catchUp(t, refRun)
	want := digests(t, refRun)
	allIndexes := indexes(t, ref)
	if !slices.Contains(allIndexes, "processed_events_v1_source_hash") || !slices.Contains(allIndexes, "deposits_v1_tx_hash_log_index_chain_id") {
		t.Fatalf("reference store lacks the declared indexes: %v", allIndexes)
	}

	// From zero in one catch-up, small batches and commits, and sessions
	// that flush every few rows (rows flushed earlier are read back by id).
	st, _ := e.newStore(t)
	run := newRunner(t, lg, st, builtins(), small...)
	restore := projections.SetMaxHeldRows(7)
	s := catchUp(t, run)
	restore()
	if s.Records != 3000 || s.Duplicates == 0 || s.Conflicts == 0 {
		t.Fatalf("summary %+v", s)
	}
	if got := indexes(t, st); !slices.Equal(got, allIndexes) {
		t.Fatalf("indexes after a load from zero: %v, want %v", got, allIndexes)
	}
	for name, d := range digests(t, run) {
		if want[name] != d {
			t.Errorf("%s: loaded from zero %s, folded with indexes %s", name, d, want[name])
		}
	}

	// A load from zero that fails after some commits.
	st2, _ := e.newStore(t)
	left := 12 // dies on the twelfth batch with deposits, after some commits
	ps := []projections.Projection{failingDeposits{left: &left}, projections.Withdrawals{}}
	run2 := newRunner(t, lg, st2, ps, small...)
	if _, err := run2.CatchUp(ctx); !errors.Is(err, errInjected) {
		t.Fatalf("catch-up error %v, want the injected failure (%d batches left)", err, left)
	}
	if got := indexes(t, st2); slices.Contains(got, "processed_events_v1_source_hash") || slices.Contains(got, "deposits_v1_status") {
		t.Fatalf("a load from zero kept its indexes: %v", got)
	}
	if count(t, st2, "processed_events_v1") == 0 {
		t.Fatal("nothing was committed before the failure")
	}
	// The same runner goes on: not from zero any more, so the indexes come
	// back first and the rest is folded through them.
	catchUp(t, run2)
	if got := indexes(t, st2); !slices.Equal(got, allIndexes) {
		t.Fatalf("indexes after the failed load went on: %v, want %v", got, allIndexes)
	}
	for name, d := range digests(t, run2) {
		if want[name] != d {
			t.Errorf("%s: after a failed load %s, want %s", name, d, want[name])
		}
	}
}

// logLines records log messages.
type logLines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	var proj string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "projection" {
			proj = a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message+" "+proj)
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

// TestNothingToLoadKeepsIndexes: a relay's first catch-ups see chain
// events but no deposit yet; the deposit tables have nothing to load and
// keep their indexes instead of dropping and building them every time.
func TestNothingToLoadKeepsIndexes(t *testing.T) {
	lg := embeddedLog(t)
	st, _ := sqliteStore(t)
	lines := &logLines{}
	run := newRunner(t, lg, st, append(builtins(), projections.ChainCursors{}), fastRebuild, projections.WithLogger(slog.New(lines)))
	for i := uint64(0); i < 3; i++ {
		appendEv(t, lg, t0, domain.ChainScanned{ChainID: 338, From: 10 * i, To: 10*i + 9, ToHash: domain.Hash32{byte(i)}, Tip: 100})
		catchUp(t, run)
	}
	for _, m := range lines.msgs {
		if strings.HasPrefix(m, "projection loading from zero") && !strings.HasSuffix(m, " processed_events") {
			t.Errorf("%q: a projection with nothing to fold dropped its indexes", m)
		}
	}
	if got := indexes(t, st); !slices.Contains(got, "deposits_v1_status") {
		t.Fatalf("indexes %v", got)
	}
	// The first deposit is loaded from zero.
	appendEv(t, lg, t0, detected(ref(1), 5))
	catchUp(t, run)
	loaded := false
	for _, m := range lines.msgs {
		loaded = loaded || m == "projection loading from zero without its indexes deposits"
	}
	if !loaded {
		t.Fatalf("the first deposit was not loaded from zero: %q", lines.msgs)
	}
	if count(t, st, "deposits_v1") != 1 {
		t.Fatal("deposit not folded")
	}
}

// TestDedupCacheBound: a catch-up from zero of more records than the
// dedup judge's key cache may hold does not load processed_events from
// zero (it would need every key in memory): the table folds through the
// store's engine and its source_hash index, with a warning, while the
// other projections still load from zero. The tables come out as a
// catch-up within the bound makes them, through SQLite's engine and
// through the bulk loader alike.
func TestDedupCacheBound(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 3000, Seed: 12, AppendBatch: 100}, nil); err != nil {
		t.Fatal(err)
	}
	ref, _ := sqliteStore(t)
	refRun := newRunner(t, lg, ref, builtins())
	catchUp(t, refRun)
	want := digests(t, refRun)

	bulk, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "bulk.db"), sqlstore.WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	defer bulk.Close()
	engine, _ := sqliteStore(t)
	for name, st := range map[string]projections.Store{"engine": engine, "bulk": bulk} {
		lines := &logLines{}
		r := newRunner(t, lg, st, builtins(), fastRebuild, projections.WithDedupCacheKeys(1000), projections.WithLogger(slog.New(lines)))
		if s := catchUp(t, r); s.Records != 3000 {
			t.Fatalf("%s: folded %d records, want 3000", name, s.Records)
		}
		warned := slices.ContainsFunc(lines.msgs, func(m string) bool {
			return strings.HasPrefix(m, "processed_events not loaded from zero")
		})
		if !warned {
			t.Fatalf("%s: no warning that processed_events exceeded its key cache: %q", name, lines.msgs)
		}
		for _, m := range lines.msgs {
			if strings.Contains(m, "from zero") && strings.HasSuffix(m, " processed_events") {
				t.Fatalf("%s: processed_events was loaded from zero past the cache's bound: %q", name, m)
			}
		}
		if !slices.Contains(lines.msgs, "projection loading from zero without its indexes deposits") {
			t.Fatalf("%s: deposits did not load from zero beside it: %q", name, lines.msgs)
		}
		if got := digests(t, r); !maps.Equal(got, want) {
			t.Fatalf("%s: digests %v, want %v (a catch-up within the bound)", name, got, want)
		}
		integrityOK(t, st)
	}
}
