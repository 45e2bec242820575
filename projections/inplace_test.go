package projections_test

import (
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// TestInPlaceRebuildEqualsFast: a runner given no rebuilder
// (WithRebuilder(nil)) loads empty tables by folding every batch through
// SQL, on a store that could bulk load: it keeps the tables' indexes
// throughout, stages nothing, and ends with the tables a fast rebuild
// gives, digest for digest.
func TestInPlaceRebuildEqualsFast(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 2000, Seed: 11, AppendBatch: 100}, nil); err != nil {
		t.Fatal(err)
	}
	small := []projections.Option{projections.WithReadChunk(30), projections.WithBatchSize(100), projections.WithCommitEvery(500)}
	open := func(name string) projections.Store {
		st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), name), sqlstore.WithBulkLoad())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}

	fast := newRunner(t, lg, open("fast.db"), builtins(), append(small, fastRebuild)...)
	catchUp(t, fast)
	want := digests(t, fast)

	st := open("inplace.db")
	lines := &logLines{}
	run := newRunner(t, lg, st, builtins(), append(small, projections.WithRebuilder(nil), projections.WithLogger(slog.New(lines)))...)
	before := indexes(t, st)
	restore := projections.SetMaxHeldRows(7)
	s := catchUp(t, run)
	restore()
	if s.Records != 2000 {
		t.Fatalf("folded %d records, want 2000", s.Records)
	}
	for _, m := range lines.msgs {
		if m == "projection loading from zero without its indexes processed_events" || m == "projection loading from zero through the store's bulk loader deposits" {
			t.Fatalf("a runner without a rebuilder loaded from zero: %q", m)
		}
	}
	if got := indexes(t, st); !slices.Equal(got, before) || !slices.Contains(got, "processed_events_v1_source_hash") {
		t.Fatalf("indexes after an in-place load: %v, want %v", got, before)
	}
	got := digests(t, run)
	if len(got) != len(want) {
		t.Fatalf("%d digests, want %d", len(got), len(want))
	}
	for name, d := range got {
		if want[name] != d {
			t.Errorf("%s: folded in place %s, rebuilt fast %s", name, d, want[name])
		}
	}
}
