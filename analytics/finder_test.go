package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// allKinds are the kinds of audit keys the audit log holds.
var allKinds = []string{projections.KeyAggregate, projections.KeyCorrelation, projections.KeySource,
	projections.KeyEventID, projections.KeyEVMTx, projections.KeyKaspaTx, projections.KeyBatch, projections.KeyLeaf,
	projections.KeySigningEvent}

// ambiguousHash is, in the audit log, both a transaction and a leaf.
var ambiguousHash = domain.Hash32{0xa4, 0xb1}

// appendEvents wraps and appends events, recorded a second apart from at.
func appendEvents(t *testing.T, lg topics.Log, at time.Time, correlation string, evs ...domain.Event) {
	t.Helper()
	cat := topics.DefaultCatalog()
	for i, ev := range evs {
		when := at.Add(time.Duration(i) * time.Second)
		env, topic, err := cat.Wrap(ev, topics.Meta{OccurredAt: when, RecordedAt: when, CorrelationID: correlation})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := env.Message(topics.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lg.Append(ctxT(t), topic, msg); err != nil {
			t.Fatal(err)
		}
	}
}

// newAuditLog is a relay's synthetic log (deposits, withdrawals,
// batches, transactions) with a signer's payout and a hash that is a
// transaction of one event and a leaf of another (and both of a third).
func newAuditLog(t *testing.T, seed uint64) topics.Log {
	t.Helper()
	lg := engines[0].open(t)
	if _, err := synth.Generate(ctxT(t), lg, synth.Config{Events: 3000, Seed: seed, InFlight: 40, RelayEvents: true, BatchLeaves: 8}, nil); err != nil {
		t.Fatal(err)
	}
	addSignerAndAmbiguous(t, lg, t0)
	return lg
}

func addSignerAndAmbiguous(t *testing.T, lg topics.Log, at time.Time) {
	t.Helper()
	id, txid := twophase.Hash{0x51, 0x61}, twophase.Hash{0x7a, 0x58}
	appendEvents(t, lg, at, "withdrawal:kaspa:1",
		twophase.EventRequested{ID: id, Event: twophase.SigningEvent{Source: twophase.SourceRef{TxHash: twophase.Hash{0xe1}}}, Via: "source"},
		twophase.PayoutSubmitted{EventID: id, TxID: txid, Attempt: 1},
		twophase.PayoutOutcome{EventID: id, TxID: txid},
	)
	appendEvents(t, lg, at.Add(time.Minute), "",
		domain.WithdrawalBatched{Ref: domain.LogRef{ChainID: 338, TxHash: ambiguousHash}, SequenceID: "batches:338:0xd1", BatchID: 99, Leaf: ambiguousHash},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: "claim:x", TxHash: ambiguousHash, Status: domain.TxSucceeded, GasUsed: 50_000},
	)
}

// position names a record.
func position(topic string, part, offset uint64) string {
	return fmt.Sprintf("%s/%d@%d", topic, part, offset)
}

// expectedKeys maps every audit key of the log, computed from the log
// directly, to the positions it finds with their kinds (sorted).
func expectedKeys(log []logRecord) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for _, r := range log {
		if r.bad {
			continue
		}
		pos := position(r.rec.Topic, uint64(r.rec.Partition), uint64(r.rec.Offset))
		for _, k := range projections.AuditKeysOf(&r.env, r.body) {
			if out[k.Key] == nil {
				out[k.Key] = map[string][]string{}
			}
			out[k.Key][pos] = append(out[k.Key][pos], k.Kind)
			slices.Sort(out[k.Key][pos])
		}
	}
	return out
}

// keysByKind picks up to n keys of each kind (the first ones in key
// order, so the pick is the same every run).
func keysByKind(want map[string]map[string][]string, n int) map[string][]string {
	sorted := make([]string, 0, len(want))
	for k := range want {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	out := map[string][]string{}
	for _, key := range sorted {
		for _, kinds := range want[key] {
			for _, kind := range kinds {
				if len(out[kind]) < n && !slices.Contains(out[kind], key) {
					out[kind] = append(out[kind], key)
				}
			}
		}
	}
	return out
}

// checkFind looks key up and compares the matches with the log's: the
// same positions, each once with its kinds, in recorded order, with the
// event's fields as the log has them.
func checkFind(t *testing.T, finder analytics.Finder, log map[string]logRecord, want map[string][]string, key string) {
	t.Helper()
	got, err := finder.Find(ctxT(t), key)
	if err != nil {
		t.Fatalf("find %s: %v", key, err)
	}
	gotKinds := map[string][]string{}
	for i, m := range got {
		pos := position(m.Topic, uint64(m.Partition), uint64(m.Offset))
		if _, twice := gotKinds[pos]; twice {
			t.Errorf("find %s: %s returned twice", key, pos)
		}
		gotKinds[pos] = m.Kinds
		r := log[pos]
		if m.EventID != r.env.ID || m.Type != r.env.Type || m.AggregateID != r.env.AggregateID ||
			m.Correlation != r.env.CorrelationID || m.SourceKey != r.env.SourceKey || m.RecordedMs != r.env.RecordedAt.UnixMilli() {
			t.Errorf("find %s: %s is %+v, the log has %+v", key, pos, m.AuditRow, r.env)
		}
		if !strings.HasPrefix(m.Payload, "{") {
			t.Errorf("find %s: %s payload %q", key, pos, m.Payload)
		}
		if i > 0 && analytics.CompareRecorded(got[i-1].AuditRow, m.AuditRow) >= 0 {
			t.Errorf("find %s: %s comes after %s/%d@%d", key, pos, got[i-1].Topic, got[i-1].Partition, got[i-1].Offset)
		}
	}
	if !reflect.DeepEqual(gotKinds, want) {
		t.Errorf("find %s:\n got %v\nwant %v", key, gotKinds, want)
	}
}

func byPosition(log []logRecord) map[string]logRecord {
	out := map[string]logRecord{}
	for _, r := range log {
		out[position(r.rec.Topic, uint64(r.rec.Partition), uint64(r.rec.Offset))] = r
	}
	return out
}

// checkFinder looks up to perKind keys of every kind up in the
// warehouse and checks them against the log; it returns the kinds it
// met.
func checkFinder(t *testing.T, wh analytics.Warehouse, log []logRecord, perKind int) map[string][]string {
	t.Helper()
	want := expectedKeys(log)
	at := byPosition(log)
	finder := analytics.NewWarehouseFinder(wh)
	picked := keysByKind(want, perKind)
	for _, keys := range picked {
		for _, key := range keys {
			checkFind(t, finder, at, want[key], key)
		}
	}
	return picked
}

func unmigratedWarehouse(t *testing.T, srv *chtest.Server) *clickhouse.Warehouse {
	t.Helper()
	wh, err := clickhouse.Open(ctxT(t), srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	return wh
}

// TestFinder sinks a log holding every kind of key and finds keys of
// each kind, an ambiguous key, a key written in another case, and keys
// that match nothing.
func TestFinder(t *testing.T) {
	srv := chtest.Start(t)
	lg := newAuditLog(t, 3)
	wh := unmigratedWarehouse(t, srv)
	ctx := ctxT(t)
	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := analytics.NewSink(lg, wh, analytics.Config{Batch: 700}).CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	log := readLog(t, lg)
	picked := checkFinder(t, wh, log, 15)
	for _, kind := range allKinds {
		if len(picked[kind]) == 0 {
			t.Errorf("no key of kind %s in the log", kind)
		}
	}
	finder := analytics.NewWarehouseFinder(wh)

	t.Run("ambiguous", func(t *testing.T) {
		// Upper case without 0x: normalized before the lookup.
		got, err := finder.Find(ctx, strings.ToUpper(ambiguousHash.Hex()[2:]))
		if err != nil {
			t.Fatal(err)
		}
		var kinds [][]string
		for _, m := range got {
			kinds = append(kinds, m.Kinds)
		}
		want := [][]string{{projections.KeyEVMTx, projections.KeyLeaf}, {projections.KeyEVMTx}}
		if !reflect.DeepEqual(kinds, want) || got[0].Type != domain.TypeWithdrawalBatched || got[1].Type != domain.TypeClaimOutcome {
			t.Fatalf("ambiguous hash: %d matches with kinds %v, want a batched withdrawal %v then an outcome %v", len(got), kinds, want[0], want[1])
		}
	})

	t.Run("no match", func(t *testing.T) {
		for _, key := range []string{"deposit:evm:338:0xnothing:0", "   ", ambiguousHash.Hex()[:40]} {
			got, err := finder.Find(ctx, key)
			if err != nil || len(got) != 0 {
				t.Errorf("find %q: %d matches, %v; want none", key, len(got), err)
			}
		}
	})
}

// TestFinderDeduplicatesARewrite: a sink that died after the rows and
// keys of a batch, before its checkpoint, writes them again; every
// event those rows hold is still found once, with each kind once.
func TestFinderDeduplicatesARewrite(t *testing.T) {
	srv := chtest.Start(t)
	lg := newAuditLog(t, 4)
	wh := unmigratedWarehouse(t, srv)
	ctx := ctxT(t)
	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	// Without merges the copies stay in separate parts, as they do on a
	// busy server until a merge happens to meet them.
	for _, table := range []string{analytics.AuditEventsTable, analytics.KeysTable} {
		if err := wh.Exec(ctx, "SYSTEM STOP MERGES "+table); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := analytics.NewSink(lg, &failingCheckpoints{Warehouse: wh}, analytics.Config{Batch: 600}).CatchUp(ctx); err == nil {
		t.Fatal("the injected checkpoint failure did not stop the sink")
	}
	if _, err := analytics.NewSink(lg, wh, analytics.Config{Batch: 600}).CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := wh.Query(ctx, `SELECT topic, log_partition, log_offset FROM `+analytics.AuditEventsTable+
		` GROUP BY topic, log_partition, log_offset HAVING count() > 1 ORDER BY topic, log_partition, log_offset`)
	if err != nil {
		t.Fatal(err)
	}
	twice := map[string]bool{}
	for rows.Next() {
		var topic string
		var part uint32
		var off uint64
		if err := rows.Scan(&topic, &part, &off); err != nil {
			t.Fatal(err)
		}
		twice[position(topic, uint64(part), off)] = true
	}
	rows.Close()
	if len(twice) != 600 {
		t.Fatalf("%d events written twice, want the 600 of the first batch", len(twice))
	}
	var keyRows, distinct uint64
	row, err := wh.Query(ctx, `SELECT count(), uniqExact(key, kind, topic, log_partition, log_offset) FROM `+analytics.KeysTable)
	if err != nil {
		t.Fatal(err)
	}
	if !row.Next() || row.Scan(&keyRows, &distinct) != nil || keyRows <= distinct {
		t.Fatalf("keys table: %d rows, %d distinct; want some written twice", keyRows, distinct)
	}
	row.Close()

	// Every key of the events written twice.
	log := readLog(t, lg)
	want, at := expectedKeys(log), byPosition(log)
	finder := analytics.NewWarehouseFinder(wh)
	checked := 0
	for pos := range twice {
		r := at[pos]
		for _, k := range projections.AuditKeysOf(&r.env, r.body) {
			checkFind(t, finder, at, want[k.Key], k.Key)
			checked++
		}
		if checked > 300 {
			break
		}
	}
}

// keysDropped is a sink of schema version 1: it writes no audit rows
// and knows no table to fill them in from.
type keysDropped struct{ analytics.Warehouse }

func (w keysDropped) Query(ctx context.Context, q string, args ...any) (analytics.Rows, error) {
	if strings.Contains(q, analytics.AuditBackfillTable) {
		return noRows{}, nil
	}
	return w.Warehouse.Query(ctx, q, args...)
}

type noRows struct{}

func (noRows) Next() bool        { return false }
func (noRows) Scan(...any) error { return nil }
func (noRows) Err() error        { return nil }
func (noRows) Close() error      { return nil }

func (w keysDropped) Insert(ctx context.Context, table string, cols []string, rows [][]any) error {
	if table == analytics.KeysTable || table == analytics.AuditEventsTable {
		return nil
	}
	return w.Warehouse.Insert(ctx, table, cols, rows)
}

func (w keysDropped) InsertColumns(ctx context.Context, table string, cols []string, values []any) error {
	if table == analytics.KeysTable || table == analytics.AuditEventsTable {
		return nil
	}
	return w.Warehouse.InsertColumns(ctx, table, cols, values)
}

// TestFinderAfterMigrationFromV1: a warehouse filled at schema version 1
// has events without keys; after the migration the next catch-up writes
// their keys from the log (once), sinks the new records with theirs, and
// every key finds its events, old and new.
func TestFinderAfterMigrationFromV1(t *testing.T) {
	srv := chtest.Start(t)
	ctx := ctxT(t)
	lg := engines[0].open(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 2000, Seed: 5, InFlight: 40, RelayEvents: true, BatchLeaves: 8}, nil); err != nil {
		t.Fatal(err)
	}
	old := len(readLog(t, lg))
	wh := unmigratedWarehouse(t, srv)
	if err := analytics.MigrateTo(ctx, wh, t0, 1); err != nil {
		t.Fatal(err)
	}
	if st, err := analytics.NewSink(lg, keysDropped{wh}, analytics.Config{Batch: 500}).CatchUp(ctx); err != nil || st.Records != old {
		t.Fatalf("version-1 sink: %+v, %v", st, err)
	}
	addSignerAndAmbiguous(t, lg, t0)
	log := readLog(t, lg)

	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	st, err := analytics.NewSink(lg, wh, analytics.Config{Batch: 500}).CatchUp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.AuditBackfilled != old || st.Records != len(log)-old {
		t.Fatalf("after the migration: %+v; want the keys of %d old records and %d new records", st, old, len(log)-old)
	}
	picked := checkFinder(t, wh, log, 15)
	for _, kind := range allKinds {
		if len(picked[kind]) == 0 {
			t.Errorf("no key of kind %s in the log", kind)
		}
	}
	// The old records' keys are written once: the next sink has nothing
	// left to fill in.
	if st, err := analytics.NewSink(lg, wh, analytics.Config{}).CatchUp(ctx); err != nil || st != (analytics.Stats{}) {
		t.Fatalf("next catch-up: %+v, %v; want nothing to do", st, err)
	}
}

// TestFinderUnreachable: a warehouse that does not answer gives an
// error that says so, not an empty answer.
func TestFinderUnreachable(t *testing.T) {
	finder := analytics.NewWarehouseFinder(&alwaysDropping{})
	got, err := finder.Find(ctxT(t), "deposit:evm:338:0xab:0")
	if !errors.Is(err, net.ErrClosed) || got != nil {
		t.Fatalf("find over a dropped connection: %v, %v; want net.ErrClosed", got, err)
	}
}
