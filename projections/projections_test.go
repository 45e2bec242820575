package projections_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// TestProjections runs every behaviour on every log × store combination.
func TestProjections(t *testing.T) {
	forEachEnv(t, func(t *testing.T, e env) {
		t.Run("DuplicatesAreNoOps", func(t *testing.T) { testDuplicates(t, e) })
		t.Run("ConflictsRecordedNotApplied", func(t *testing.T) { testConflicts(t, e) })
		t.Run("ReplayEqualsLive", func(t *testing.T) { testReplayEqualsLive(t, e) })
		t.Run("VersionBumpBuildsBesideAndSwitches", func(t *testing.T) { testVersionBump(t, e) })
		t.Run("RejectAndSkipPolicies", func(t *testing.T) { testPolicies(t, e) })
		t.Run("FromZeroLoadWithoutIndexes", func(t *testing.T) { testFromZeroLoad(t, e) })
		t.Run("TwoRunnersOneStore", func(t *testing.T) { testTwoRunners(t, e) })
		t.Run("PruneDropsRetiredVersions", func(t *testing.T) { testPrune(t, e) })
		t.Run("LogBehindTheStoreIsRefused", func(t *testing.T) { testLogBehind(t, e) })
	})
}

func testDuplicates(t *testing.T, e env) {
	lg := e.newLog(t)
	st, _ := e.newStore(t)
	r := ref(1)
	appendEv(t, lg, t0, detected(r, 500))
	appendEv(t, lg, t0.Add(time.Minute), domain.DepositConfirmed{Ref: r, AtBlock: 105, Confirmation: 5})
	// The indexer restarted and sent the detection again, identical.
	appendEv(t, lg, t0.Add(2*time.Minute), detected(r, 500))
	run := newRunner(t, lg, st, builtins())
	s := catchUp(t, run)
	if s.Records != 3 || s.First != 2 || s.Duplicates != 1 || s.Conflicts != 0 {
		t.Fatalf("summary %+v", s)
	}
	if got := s.Applied["deposits@v1"]; got != 2 {
		t.Fatalf("deposits applied %d events, want 2 (the duplicate is a no-op)", got)
	}
	if n := count(t, st, "processed_events_v1"); n != 2 {
		t.Fatalf("processed_events has %d rows, want 2", n)
	}
	var dups int
	query(t, st, "SELECT duplicates FROM processed_events_v1 WHERE event_source = ?", []any{detected(r, 500).SourceKey()}, &dups)
	if dups != 1 {
		t.Fatalf("duplicates = %d", dups)
	}
	var status, amount, confirmedAt string
	query(t, st, "SELECT status, amount, confirmed_at FROM deposits_v1 WHERE tx_hash = ?", []any{r.TxHash.Hex()}, &status, &amount, &confirmedAt)
	// The late duplicate detection did not move the status back.
	if status != "CONFIRMED" || amount != "500" || confirmedAt != "2026-03-01T12:01:00.000000000Z" {
		t.Fatalf("row: status %s amount %s confirmed_at %s", status, amount, confirmedAt)
	}
	if n := count(t, st, "deposits_v1"); n != 1 {
		t.Fatalf("deposits has %d rows", n)
	}
	before := digests(t, run)
	// Catching up again is a no-op too.
	if s := catchUp(t, run); s.Records != 0 {
		t.Fatalf("second catch-up read %d records", s.Records)
	}
	if after := digests(t, run); after["deposits"] != before["deposits"] {
		t.Fatal("a no-op catch-up changed the digest")
	}
}

func testConflicts(t *testing.T, e env) {
	lg := e.newLog(t)
	st, _ := e.newStore(t)
	r := ref(2)
	first := appendEv(t, lg, t0, detected(r, 500))[0]
	// Same source key, different amount: a conflicting duplicate.
	second := appendEv(t, lg, t0.Add(time.Minute), detected(r, 999))[0]
	run := newRunner(t, lg, st, builtins())
	s := catchUp(t, run)
	if s.First != 1 || s.Conflicts != 1 || s.Duplicates != 0 {
		t.Fatalf("summary %+v", s)
	}
	var amount string
	query(t, st, "SELECT amount FROM deposits_v1 WHERE tx_hash = ?", []any{r.TxHash.Hex()}, &amount)
	if amount != "500" {
		t.Fatalf("conflicting event was applied: amount %s", amount)
	}
	var src, firstID, conflictID string
	var fOff, cOff int64
	var fPart, cPart int32
	query(t, st, `SELECT event_source, first_event_id, first_partition, first_offset, conflict_event_id, conflict_partition, conflict_offset
		FROM event_conflicts_v1`, nil, &src, &firstID, &fPart, &fOff, &conflictID, &cPart, &cOff)
	if src != detected(r, 0).SourceKey() || firstID == conflictID || fPart != first.Partition || fOff != first.Offset ||
		cPart != second.Partition || cOff != second.Offset {
		t.Fatalf("conflict row: %s %s@%d/%d vs %s@%d/%d (positions %+v %+v)", src, firstID, fPart, fOff, conflictID, cPart, cOff, first, second)
	}
}

func testReplayEqualsLive(t *testing.T, e env) {
	lg := e.newLog(t)
	st, _ := e.newStore(t)
	ctx := ctxT(t)
	// Live: the log grows while the runner catches up in small batches.
	run := newRunner(t, lg, st, builtins(), projections.WithBatchSize(97))
	var total synth.Stats
	for i := 0; i < 3; i++ {
		s, err := synth.Generate(ctx, lg, synth.Config{Events: 700, Seed: uint64(i + 1), AppendBatch: 50}, nil)
		if err != nil {
			t.Fatal(err)
		}
		total.Duplicates += s.Duplicates
		total.Conflicts += s.Conflicts
		catchUp(t, run)
	}
	live := digests(t, run)

	// Replay: a fresh store, one big batch, partitions interleaved differently.
	st2, _ := e.newStore(t)
	run2 := newRunner(t, lg, st2, builtins(), projections.WithBatchSize(5000))
	s := catchUp(t, run2)
	if s.Records != 2100 || s.Duplicates < int64(total.Duplicates) || s.Conflicts < int64(total.Conflicts) {
		t.Fatalf("replay summary %+v, generated %+v", s, total)
	}
	replayed := digests(t, run2)
	for name, d := range live {
		if replayed[name] != d {
			t.Errorf("%s: live digest %s, replayed %s", name, d, replayed[name])
		}
	}
	if count(t, st2, "deposits_v1") == 0 || count(t, st2, projections.Withdrawals{}.Tables()[0].Name) == 0 || count(t, st2, "event_conflicts_v1") == 0 {
		t.Fatal("replay produced empty tables")
	}

	// Rebuild in place gives the same digests again.
	if err := run.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	catchUp(t, run)
	for name, d := range digests(t, run) {
		if live[name] != d {
			t.Errorf("%s: rebuilt in place %s, live was %s", name, d, live[name])
		}
	}
	// Rewinding a projection re-folds events over its rows: idempotent.
	if err := run.Rewind(ctx, 0, "deposits"); err != nil {
		t.Fatal(err)
	}
	if s := catchUp(t, run); s.Applied["deposits@v1"] == 0 {
		t.Fatalf("rewind re-applied nothing: %+v", s)
	}
	if d := digests(t, run)["deposits"]; d != live["deposits"] {
		t.Errorf("deposits after rewind %s, live %s", d, live["deposits"])
	}
	if err := run.Rewind(ctx, 0, projections.ProcessedEventsName); !errors.Is(err, projections.ErrBadProjection) {
		t.Fatalf("rewinding processed_events: %v", err)
	}
}

// depositCount is a test projection: v1 counts deposits per status; v2
// also sums amounts (a new column, so a new version).
type depositCount struct{ v int }

func (d depositCount) Name() string         { return "deposit_count" }
func (d depositCount) Version() int         { return d.v }
func (d depositCount) Topics() []string     { return []string{topics.TopicBridge} }
func (depositCount) KeepsNothingPastBatch() {}
func (d depositCount) table() string        { return projections.Versioned("deposit_count", d.v) }
func (d depositCount) Tables() []projections.Table {
	cols := []projections.Column{{Name: "kind", Type: projections.Text}, {Name: "n", Type: projections.Integer}}
	if d.v >= 2 {
		cols = append(cols, projections.Column{Name: "total", Type: projections.Text})
	}
	return []projections.Table{{Name: d.table(), Columns: cols, PrimaryKey: []string{"kind"}}}
}

func (d depositCount) Apply(ctx context.Context, tx projections.Tx, ev *projections.Event) error {
	dd, ok := ev.Body.(*domain.DepositDetected)
	if !ok {
		return nil
	}
	if d.v == 1 {
		_, err := tx.Exec(ctx, `INSERT INTO `+d.table()+` (kind, n) VALUES ('detected', 1)
			ON CONFLICT (kind) DO UPDATE SET n = `+d.table()+`.n + 1`)
		return err
	}
	// Load, decide, save: amounts are exact decimals, summed in Go.
	var n int64
	total := "0"
	err := tx.QueryRow(ctx, `SELECT n, total FROM `+d.table()+` WHERE kind = 'detected'`).Scan(&n, &total)
	if err != nil && !errors.Is(err, errNoRows) {
		return err
	}
	sum, err := domain.ParseAmount(total)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+d.table()+` (kind, n, total) VALUES ('detected', ?, ?)
		ON CONFLICT (kind) DO UPDATE SET n = excluded.n, total = excluded.total`, n+1, sum.Add(dd.Amount).String())
	return err
}

func testVersionBump(t *testing.T, e env) {
	lg := e.newLog(t)
	st, _ := e.newStore(t)
	ctx := ctxT(t)
	appendEv(t, lg, t0, detected(ref(1), 10), detected(ref(2), 20), detected(ref(1), 10))
	v1 := newRunner(t, lg, st, []projections.Projection{depositCount{1}})
	catchUp(t, v1)
	var n int64
	query(t, st, "SELECT n FROM deposit_count_v1", nil, &n)
	if n != 2 {
		t.Fatalf("v1 counted %d", n)
	}

	// A new binary with v2 (and still v1's code): v2 builds beside v1.
	appendEv(t, lg, t0.Add(time.Hour), detected(ref(3), 30))
	both := newRunner(t, lg, st, []projections.Projection{depositCount{1}, depositCount{2}})
	tx, _ := st.Begin(ctx)
	if v, err := projections.LiveVersion(ctx, tx, "deposit_count"); err != nil || v != 1 {
		t.Fatalf("before catch-up live version %d, %v", v, err)
	}
	states, _ := projections.Versions(ctx, tx)
	tx.Rollback()
	if !hasState(states, "deposit_count", 2, projections.StateBuilding) {
		t.Fatalf("v2 not building: %+v", states)
	}
	s := catchUp(t, both)
	if len(s.Switched) != 1 || s.Switched[0] != "deposit_count@v2" {
		t.Fatalf("switched %v", s.Switched)
	}
	var total string
	query(t, st, "SELECT n, total FROM deposit_count_v2", nil, &n, &total)
	if n != 3 || total != "60" {
		t.Fatalf("v2 rebuilt from 0: n=%d total=%s", n, total)
	}
	// The old version was kept up to date until the switch, then kept as is.
	query(t, st, "SELECT n FROM deposit_count_v1", nil, &n)
	if n != 3 {
		t.Fatalf("v1 beside v2 counted %d", n)
	}
	tx, _ = st.Begin(ctx)
	states, _ = projections.Versions(ctx, tx)
	live, _ := projections.LiveVersion(ctx, tx, "deposit_count")
	tx.Rollback()
	if live != 2 || !hasState(states, "deposit_count", 1, projections.StateRetired) {
		t.Fatalf("after switch: live %d, states %+v", live, states)
	}
	// After the switch the retired version is no longer folded.
	appendEv(t, lg, t0.Add(2*time.Hour), detected(ref(4), 40))
	catchUp(t, both)
	query(t, st, "SELECT n FROM deposit_count_v1", nil, &n)
	if n != 3 {
		t.Fatalf("retired v1 still folded: %d", n)
	}
	// An older binary refuses a store whose live version it does not know.
	if _, err := projections.NewRunner(ctx, lg, st, []projections.Projection{depositCount{1}}, projections.WithLogger(quiet())); !errors.Is(err, projections.ErrStoreNewer) {
		t.Fatalf("old binary on new store: %v", err)
	}
}

func hasState(states []projections.VersionState, name string, v int, state string) bool {
	for _, s := range states {
		if s.Projection == name && s.Version == v && s.State == state {
			return true
		}
	}
	return false
}

type countingMetrics struct {
	projections.NopMetrics
	mu      sync.Mutex // the runner decodes on two goroutines
	skipped map[string]int
	errors  map[string]int
}

func (m *countingMetrics) Error(projection string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.errors == nil {
		m.errors = map[string]int{}
	}
	m.errors[projection]++
}

func (m *countingMetrics) Skipped(reason string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.skipped[reason] += n
}

func testPolicies(t *testing.T, e env) {
	lg := e.newLog(t)
	ctx := ctxT(t)
	appendEv(t, lg, t0, detected(ref(1), 1))
	// Garbage on the bridge topic, then an event of a type this binary
	// does not know, then a good one.
	bad, err := lg.Append(ctx, topics.TopicBridge, topics.Message{Key: []byte(ref(1).DepositID()), Value: []byte("not msgpack")})
	if err != nil {
		t.Fatal(err)
	}
	unknown := topics.Envelope{ID: "u1", Type: "deposit.teleported", SchemaVersion: 1, SourceKey: "x", PartitionKey: "x", Payload: []byte{0x80}}
	msg, _ := unknown.Message(topics.Limits{})
	if _, err := lg.Append(ctx, topics.TopicBridge, msg); err != nil {
		t.Fatal(err)
	}
	appendEv(t, lg, t0, detected(ref(2), 2))

	st, _ := e.newStore(t)
	r := newRunner(t, lg, st, builtins())
	_, err = r.CatchUp(ctx)
	var de *projections.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, topics.ErrMalformed) || de.Position != bad[0] {
		t.Fatalf("reject policy: %v (want a DecodeError at %+v)", err, bad[0])
	}

	st2, _ := e.newStore(t)
	m := &countingMetrics{skipped: map[string]int{}}
	r2 := newRunner(t, lg, st2, builtins(), projections.WithPolicy(topics.Skip), projections.WithMetrics(m))
	s := catchUp(t, r2)
	if s.Skipped != 2 || m.skipped["malformed"] != 1 || m.skipped["unknown_type"] != 1 || s.Applied["deposits@v1"] != 2 {
		t.Fatalf("skip policy: summary %+v metrics %v", s, m.skipped)
	}
}

// TestNewerStoreFormatRefused: a store written by a newer binary is
// refused with a typed error naming it and both formats, untouched.
func TestNewerStoreFormatRefused(t *testing.T) {
	ctx := ctxT(t)
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "p.db")
		st, err := sqlstore.OpenSQLite(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sqlstore.SetFormatForTest(ctx, st, projections.StoreFormat+1); err != nil {
			t.Fatal(err)
		}
		st.Close()
		before := snapshot(t, path)
		_, err = sqlstore.OpenSQLite(ctx, path)
		var tooNew *projections.StoreTooNewError
		if !errors.As(err, &tooNew) || !errors.Is(err, projections.ErrStoreTooNew) ||
			tooNew.Where != path || tooNew.Found != projections.StoreFormat+1 || tooNew.Supported != projections.StoreFormat {
			t.Fatalf("open newer store: %v", err)
		}
		if after := snapshot(t, path); after != before {
			t.Fatal("refused store was modified")
		}
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.Start(t).NewDB(t)
		st, err := sqlstore.OpenPostgres(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if err := sqlstore.SetFormatForTest(ctx, st, 7); err != nil {
			t.Fatal(err)
		}
		st.Close()
		_, err = sqlstore.OpenPostgres(ctx, dsn)
		var tooNew *projections.StoreTooNewError
		if !errors.As(err, &tooNew) || tooNew.Found != 7 {
			t.Fatalf("open newer store: %v", err)
		}
		// Nothing touched: the format is still the newer one.
		pgtest.Exec(t, dsn, "UPDATE store_meta SET meta_value = meta_value WHERE meta_key = 'format' AND meta_value = '7'")
	})
}

func snapshot(t *testing.T, path string) string {
	t.Helper()
	var s string
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		s += string(b)
	}
	return s
}

// TestDigestSameOnBothStores: the same log folded into SQLite and into
// PostgreSQL gives byte-identical digests.
func TestDigestSameOnBothStores(t *testing.T) {
	lg := embeddedLog(t)
	if _, err := synth.Generate(ctxT(t), lg, synth.Config{Events: 1500, Seed: 42}, nil); err != nil {
		t.Fatal(err)
	}
	sq, _ := sqliteStore(t)
	pg, _ := postgresStore(pgtest.Start(t))(t)
	a := newRunner(t, lg, sq, builtins())
	b := newRunner(t, lg, pg, builtins())
	catchUp(t, a)
	catchUp(t, b)
	da, db := digests(t, a), digests(t, b)
	if len(da) != 3 {
		t.Fatalf("digests %v", da)
	}
	for name, d := range da {
		if db[name] != d {
			t.Errorf("%s: sqlite %s, postgres %s", name, d, db[name])
		}
	}
}

// TestFoldOrderIndependent: the lifecycle fold gives the same row
// whatever order its events arrive in.
func TestFoldOrderIndependent(t *testing.T) {
	r := ref(9)
	evs := []domain.Event{
		detected(r, 77),
		domain.DepositConfirmed{Ref: r, AtBlock: 105, Confirmation: 5},
		domain.DepositFailed{Ref: r, Reason: "out of gas"},
		domain.DepositMinted{Ref: r, MintTxHash: domain.Hash32{5}, GasUsed: 61000, BlockNumber: 110},
	}
	orders := [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}, {2, 0, 3, 1}}
	var want string
	for _, o := range orders {
		lg := embeddedLog(t)
		for _, i := range o {
			appendEv(t, lg, t0.Add(time.Duration(i)*time.Minute), evs[i])
		}
		st, _ := sqliteStore(t)
		run := newRunner(t, lg, st, builtins())
		catchUp(t, run)
		var status, mintedAt, reason string
		var gas int64
		query(t, st, "SELECT status, minted_at, error_reason, gas_used FROM deposits_v1", nil, &status, &mintedAt, &reason, &gas)
		// Minted outranks failed: the chain is the fact.
		if status != "MINTED" || reason != "out of gas" || gas != 61000 {
			t.Fatalf("order %v: %s %s %s %d", o, status, mintedAt, reason, gas)
		}
		// The row id is the position of the first event, so compare the
		// other columns through a digest of a projection without it.
		var row string
		query(t, st, `SELECT status || amount || confirmed_at || minted_at || mint_tx_hash || failed_at || detected_at FROM deposits_v1`, nil, &row)
		if want == "" {
			want = row
		} else if row != want {
			t.Fatalf("order %v gave %s, want %s", o, row, want)
		}
	}
}

// TestFollowLiveMode: Follow keeps folding events appended after it
// started, until its context ends.
func TestFollowLiveMode(t *testing.T) {
	lg := embeddedLog(t)
	st, _ := sqliteStore(t)
	r := newRunner(t, lg, st, builtins(), projections.WithPollInterval(20*time.Millisecond))
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan error, 1)
	go func() { done <- r.Follow(ctx, nil) }()
	rf := ref(7)
	appendEv(t, lg, t0, detected(rf, 5))
	appendEv(t, lg, t0.Add(time.Minute), domain.DepositConfirmed{Ref: rf, AtBlock: 105, Confirmation: 5})
	deadline := time.Now().Add(30 * time.Second)
	for {
		var status string
		tx, err := st.Begin(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		err = tx.QueryRow(ctxT(t), "SELECT status FROM deposits_v1").Scan(&status)
		tx.Rollback()
		if err == nil && status == "CONFIRMED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live mode did not fold the events: status %q, %v", status, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Follow returned %v after cancel", err)
	}
}

// testLogBehind: a store that has folded further than the log it is given
// now reaches (a log truncated or restored from an older copy, a topic
// created again, another log) is refused with a typed error naming the
// projection, topic, partition and both offsets, and counted; nothing in
// the store changes. Folding on would have skipped the records appended
// next at offsets the checkpoints already cover. A partition the log
// does not have is refused the same way, and so is another log that
// reaches past every checkpoint: its records are not the store's.
func testLogBehind(t *testing.T, e env) {
	ctx := ctxT(t)
	old := e.newLog(t)
	if _, err := synth.Generate(ctx, old, synth.Config{Events: 600, Seed: 5}, nil); err != nil {
		t.Fatal(err)
	}
	st, _ := e.newStore(t)
	catchUp(t, newRunner(t, old, st, builtins()))
	want := digests(t, newRunner(t, old, st, builtins()))

	short := e.newLog(t)
	if _, err := synth.Generate(ctx, short, synth.Config{Events: 200, Seed: 6}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		lg   topics.Log
		end  func(lb *projections.LogBehindError) bool
	}{
		{"shorter log", short, func(lb *projections.LogBehindError) bool { return lb.End >= 0 && lb.End < lb.Checkpoint }},
		{"missing partition", onePartition{old}, func(lb *projections.LogBehindError) bool { return lb.End == -1 && lb.Partition > 0 }},
	} {
		m := &countingMetrics{}
		_, err := newRunner(t, c.lg, st, builtins(), projections.WithMetrics(m)).CatchUp(ctx)
		var lb *projections.LogBehindError
		if !errors.As(err, &lb) || !errors.Is(err, projections.ErrLogBehind) {
			t.Fatalf("%s: catch-up gave %v, want a LogBehindError", c.name, err)
		}
		if !c.end(lb) || lb.Projection == "" || lb.Topic == "" {
			t.Fatalf("%s: %+v", c.name, lb)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("%s/%d up to offset %d", lb.Topic, lb.Partition, lb.Checkpoint)) || !strings.Contains(msg, lb.Projection) {
			t.Fatalf("%s: the error does not name the partition and offsets: %s", c.name, msg)
		}
		if m.errors[lb.Projection] != 1 {
			t.Fatalf("%s: errors counted %v, want one for %s", c.name, m.errors, lb.Projection)
		}
	}
	// Another log that reaches past every checkpoint: the last event the
	// dedup table recorded as first in a partition is not the log's.
	longer := e.newLog(t)
	if _, err := synth.Generate(ctx, longer, synth.Config{Events: 1500, Seed: 7}, nil); err != nil {
		t.Fatal(err)
	}
	m := &countingMetrics{}
	_, err := newRunner(t, longer, st, builtins(), projections.WithMetrics(m)).CatchUp(ctx)
	var ol *projections.OtherLogError
	if !errors.As(err, &ol) || !errors.Is(err, projections.ErrOtherLog) {
		t.Fatalf("another, longer log: catch-up gave %v, want an OtherLogError", err)
	}
	if ol.StoreEventID == "" || ol.LogEventID == "" || ol.StoreEventID == ol.LogEventID || !strings.Contains(err.Error(), ol.StoreEventID) {
		t.Fatalf("another, longer log: %+v (%v)", ol, err)
	}
	if m.errors["processed_events@v1"] != 1 {
		t.Fatalf("another, longer log: errors counted %v", m.errors)
	}
	if got := digests(t, newRunner(t, old, st, builtins())); !maps.Equal(got, want) {
		t.Fatalf("the refused catch-ups changed the store: %v, want %v", got, want)
	}
	// CheckLog, which verify runs on the live store, says the same
	// without a runner.
	checkLog := func(lg topics.Log) error {
		t.Helper()
		tx, err := st.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		return projections.CheckLog(ctx, tx, lg)
	}
	for _, c := range []struct {
		lg   topics.Log
		want error
	}{{short, projections.ErrLogBehind}, {onePartition{old}, projections.ErrLogBehind}, {longer, projections.ErrOtherLog}, {old, nil}} {
		if err := checkLog(c.lg); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Fatalf("CheckLog: %v, want %v", err, c.want)
		}
	}
	// The right log still passes, and folds what was appended since.
	if _, err := synth.Generate(ctx, old, synth.Config{Events: 100, Seed: 8}, nil); err != nil {
		t.Fatal(err)
	}
	if s := catchUp(t, newRunner(t, old, st, builtins())); s.Records != 100 {
		t.Fatalf("the store's own log: folded %d records, want the 100 appended", s.Records)
	}
	// The remedy the error names: a store built from the shorter log.
	fresh, _ := e.newStore(t)
	if s := catchUp(t, newRunner(t, short, fresh, builtins())); s.Records == 0 {
		t.Fatalf("a store built from the shorter log folded nothing: %+v", s)
	}
}

// onePartition is a log whose topics seem to have one partition only.
type onePartition struct{ topics.Log }

func (l onePartition) EndOffsets(ctx context.Context, topic string) ([]int64, error) {
	ends, err := l.Log.EndOffsets(ctx, topic)
	return ends[:min(len(ends), 1)], err
}
