package projections_test

import (
	"context"
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// keepsEvents breaks the rule of [projections.BatchScoped]: it keeps each
// event, and its source key (a string into the log's read buffer), past
// its batch. It writes nothing.
type keepsEvents struct {
	keys *[]string
	evs  *[]*projections.Event
}

func (keepsEvents) Name() string                { return "keeps_events" }
func (keepsEvents) Version() int                { return 1 }
func (keepsEvents) Topics() []string            { return []string{topics.TopicBridge} }
func (keepsEvents) Tables() []projections.Table { return nil }

func (k keepsEvents) Apply(_ context.Context, _ projections.Tx, ev *projections.Event) error {
	*k.keys = append(*k.keys, ev.Envelope.SourceKey)
	*k.evs = append(*k.evs, ev)
	return nil
}

// declaresScoped is keepsEvents claiming, wrongly, to be BatchScoped.
type declaresScoped struct{ keepsEvents }

func (declaresScoped) KeepsNothingPastBatch() {}

// TestRecycleOnlyBatchScoped: a catch-up reuses its read memory only when
// every projection declares it keeps nothing past a batch. A projection
// that does not declare it keeps intact strings and events across many
// batches; the same projection declaring it wrongly sees the reused
// (poisoned, see TestMain) memory, which shows the reuse is what the
// declaration turns on.
func TestRecycleOnlyBatchScoped(t *testing.T) {
	lg := embeddedLog(t)
	var want []string
	for i := range 400 {
		d := detected(domain.LogRef{ChainID: 338, TxHash: domain.Hash32{0xab, byte(i), byte(i >> 8)}, LogIndex: uint32(i)}, uint64(i+1))
		want = append(want, d.SourceKey())
		appendEv(t, lg, t0, d)
	}
	slices.Sort(want)
	run := func(t *testing.T, p func(keepsEvents) projections.Projection) (keys, evKeys []string) {
		st, _ := sqliteStore(t)
		k := keepsEvents{keys: &keys, evs: new([]*projections.Event)}
		r := newRunner(t, lg, st, []projections.Projection{p(k)},
			fastRebuild, projections.WithBatchSize(16), projections.WithReadChunk(16))
		if s := catchUp(t, r); s.Records != int64(len(want)) {
			t.Fatalf("read %d records, want %d", s.Records, len(want))
		}
		for _, ev := range *k.evs {
			evKeys = append(evKeys, ev.Envelope.SourceKey)
		}
		slices.Sort(keys)
		slices.Sort(evKeys)
		return keys, evKeys
	}
	t.Run("undeclared", func(t *testing.T) {
		keys, evKeys := run(t, func(k keepsEvents) projections.Projection { return k })
		if !slices.Equal(keys, want) {
			t.Fatalf("kept source keys changed after their batches: %d of %d differ", differing(keys, want), len(want))
		}
		if !slices.Equal(evKeys, want) {
			t.Fatalf("kept events changed after their batches: %d of %d differ", differing(evKeys, want), len(want))
		}
	})
	t.Run("declared", func(t *testing.T) {
		keys, evKeys := run(t, func(k keepsEvents) projections.Projection { return declaresScoped{k} })
		if slices.Equal(keys, want) && slices.Equal(evKeys, want) {
			t.Fatal("a BatchScoped projection's events were not read into reused memory")
		}
	})
}

// differing counts the positions where two sorted lists differ.
func differing(a, b []string) int {
	n := max(len(a), len(b)) - min(len(a), len(b))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
