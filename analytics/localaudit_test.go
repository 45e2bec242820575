package analytics_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// TestLocalFinder: over an embedded log as a relay writes it (duplicates
// and conflicts included), folded into a SQLite store, the local finder
// gives for a sample of keys of every kind exactly the matches the log
// says (computed here from the records, not through the store), in
// recorded order, a hash in any case with or without 0x the same; a key
// of nothing finds nothing; a hit whose record does not have the key (a
// hash collision in the index) is left out; an index of records the log
// does not hold is refused.
func TestLocalFinder(t *testing.T) {
	ctx := ctxT(t)
	lg := synthLog(t, 1)
	st := projectLog(t, lg)
	f := analytics.NewLocalFinder(projections.BridgeReader{Store: st}, lg, nil)
	log := readLog(t, lg)
	keys := sampleAuditKeys(log, 5)
	for _, kind := range []string{projections.KeyAggregate, projections.KeySource, projections.KeyEventID,
		projections.KeyEVMTx, projections.KeyBatch, projections.KeyLeaf} {
		if !slices.ContainsFunc(keys, func(k projections.AuditKey) bool { return k.Kind == kind }) {
			t.Fatalf("the log has no key of kind %s", kind)
		}
	}
	dups := 0
	for _, k := range keys {
		want := auditFromLog(log, k.Key)
		got, err := f.Find(ctx, k.Key)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s:\n got %+v\nwant %+v", k.Kind, k.Key, got, want)
		}
		if len(got) > 1 && got[0].Type == got[1].Type && got[0].SourceKey == got[1].SourceKey {
			dups++
		}
	}
	if dups == 0 {
		t.Fatal("no sampled key found a re-sent event: the sample misses duplicates")
	}
	var tx string
	for _, k := range keys {
		if k.Kind == projections.KeyEVMTx {
			tx = k.Key
		}
	}
	upper, _ := f.Find(ctx, strings.ToUpper(strings.TrimPrefix(tx, "0x")))
	if want := auditFromLog(log, tx); !reflect.DeepEqual(upper, want) {
		t.Fatalf("%s in upper case: %d matches, want %d", tx, len(upper), len(want))
	}
	if got, err := f.Find(ctx, "withdrawal:evm:1:0xnothing:0"); err != nil || len(got) != 0 {
		t.Fatalf("a key of nothing: %v, %v", got, err)
	}

	// A hit whose record lacks the key (another key with the same hash)
	// is no match.
	want := auditFromLog(log, tx)
	first := want[0]
	elsewhere := log[0].rec.Position()
	if slices.ContainsFunc(want, func(m analytics.AuditMatch) bool {
		return m.Topic == elsewhere.Topic && m.Offset == uint64(elsewhere.Offset)
	}) {
		t.Fatalf("the log's first record has the key %s", tx)
	}
	colliding := analytics.NewLocalFinder(extraHit{projections.BridgeReader{Store: st}, projections.AuditHit{Position: elsewhere, Kind: first.Kinds[0]}}, lg, nil)
	if got, err := colliding.Find(ctx, tx); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("with a colliding hit: %d matches (want %d), %v", len(got), len(want), err)
	}
	// An index of records the log does not hold is refused.
	empty, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if _, err := analytics.NewLocalFinder(projections.BridgeReader{Store: st}, empty, nil).Find(ctx, tx); !errors.Is(err, analytics.ErrAuditIndexStale) {
		t.Fatalf("an index of records not on the log: %v, want ErrAuditIndexStale", err)
	}
}

// extraHit adds a hit to an index's every answer.
type extraHit struct {
	analytics.AuditIndex
	hit projections.AuditHit
}

func (x extraHit) AuditHits(ctx context.Context, key string) ([]projections.AuditHit, error) {
	hits, err := x.AuditIndex.AuditHits(ctx, key)
	return append(hits, x.hit), err
}

// synthLog is an embedded log of 3,000 events as a relay writes them
// (transactions, batches, claims; some events re-sent, a few in
// conflict), the same for the same seed.
func synthLog(t *testing.T, seed uint64) topics.Log {
	t.Helper()
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	cfg := synth.Config{Events: 3000, Seed: seed, InFlight: 50, RelayEvents: true, BatchLeaves: 8}
	if _, err := synth.Generate(ctxT(t), lg, cfg, nil); err != nil {
		t.Fatal(err)
	}
	return lg
}

// projectLog folds lg into a new SQLite store with every projection the
// relay keeps (audit_keys among them), as a relay's data directory has it.
func projectLog(t *testing.T, lg topics.Log) projections.Store {
	t.Helper()
	ctx := ctxT(t)
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r, err := projections.NewRunner(ctx, lg, st, projections.RelayProjections())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// sampleAuditKeys picks up to perKind keys of every kind from the log's
// records (the first ones seen, by topic and position), and the source
// key of every re-sent event among the first perKind of them.
func sampleAuditKeys(log []logRecord, perKind int) []projections.AuditKey {
	var out []projections.AuditKey
	taken := map[string]int{}
	seen := map[string]bool{}
	resent := 0
	for _, r := range log {
		if r.bad {
			continue
		}
		if seen[r.env.SourceKey] && resent < perKind {
			out = append(out, projections.AuditKey{Key: r.env.SourceKey, Kind: projections.KeySource})
			resent++
		}
		seen[r.env.SourceKey] = true
		for _, k := range projections.AuditKeysOf(&r.env, r.body) {
			if taken[k.Kind] < perKind {
				out = append(out, k)
				taken[k.Kind]++
			}
		}
	}
	return out
}

// auditFromLog is what a [analytics.Finder] must give for key over log,
// worked out from the records themselves: every record that has the key,
// with the kinds it has it as (sorted), as a row the sink would write,
// ordered by recorded_ms, topic, partition, offset.
func auditFromLog(log []logRecord, key string) []analytics.AuditMatch {
	key = projections.NormalizeAuditKey(key)
	cat := topics.DefaultCatalog()
	var out []analytics.AuditMatch
	for _, r := range log {
		if r.bad {
			continue
		}
		var kinds []string
		for _, k := range projections.AuditKeysOf(&r.env, r.body) {
			if k.Key == key {
				kinds = append(kinds, k.Kind)
			}
		}
		if len(kinds) == 0 {
			continue
		}
		slices.Sort(kinds)
		row := analytics.RowOf(cat, &r.rec)
		out = append(out, analytics.AuditMatch{Kinds: kinds, AuditRow: analytics.AuditRow{
			Topic: row.Topic, Partition: row.Partition, Offset: row.Offset,
			RecordedAt: row.RecordedAt.UTC().Truncate(1e9), RecordedMs: row.RecordedMs,
			Type: row.Type, SourceKey: row.SourceKey, EventID: row.EventID, AggregateID: row.AggregateID,
			Correlation: row.CorrelationID, Payload: row.Payload, DecodeError: row.DecodeError,
		}})
	}
	slices.SortFunc(out, func(a, b analytics.AuditMatch) int { return analytics.CompareRecorded(a.AuditRow, b.AuditRow) })
	return out
}
