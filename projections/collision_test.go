package projections_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// TestSourceHashCollisions: with a source hash under which most keys
// collide, the dedup judge still tells keys apart by the full key. The
// verdicts and every lifecycle row equal those under the real hash, on a
// load from zero (keys found through the in-memory cache; into a plain and
// a bulk-loading store) and on the catch-up after it, which re-reads the
// whole first part again (keys found through the source_hash index).
func TestSourceHashCollisions(t *testing.T) {
	ctx := ctxT(t)
	type result struct {
		sums    []projections.Summary
		digests map[string]string
		rows    map[string]int64
	}
	run := func(hash func(string) int64, opts ...sqlstore.SQLiteOption) result {
		if hash != nil {
			defer projections.SetKeyHash(hash)()
		}
		lg := embeddedLog(t)
		gen := func(seed uint64) {
			cfg := synth.Config{Events: 1500, Seed: seed, DuplicateRate: 0.1, ConflictRate: 0.05}
			if _, err := synth.Generate(ctx, lg, cfg, nil); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(t.TempDir(), "p.db")
		res := result{digests: map[string]string{}, rows: map[string]int64{}}
		gen(1)
		for round := range 2 {
			var o []sqlstore.SQLiteOption
			if round == 0 {
				o = opts
			} else {
				gen(1) // every key again: duplicates of stored rows
				gen(2)
			}
			st, err := sqlstore.OpenSQLite(context.Background(), path, o...)
			if err != nil {
				t.Fatal(err)
			}
			r := newRunner(t, lg, st, builtins(), projections.WithBatchSize(97), projections.WithCommitEvery(500))
			sum, err := r.CatchUp(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sum.Applied, sum.Switched = nil, nil
			res.sums = append(res.sums, sum)
			ds, err := r.Digests(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				for _, td := range d.Tables {
					res.rows[td.Table] = td.Rows
					if d.Projection != projections.ProcessedEventsName { // it stores the hash itself
						res.digests[td.Table] = td.SHA
					}
				}
			}
			st.Close()
		}
		return res
	}
	want := run(nil)
	if want.sums[1].Duplicates < 1500 || want.sums[0].Conflicts == 0 {
		t.Fatalf("the log does not repeat keys enough to test anything: %+v", want.sums)
	}
	collide := func(key string) int64 { return int64(len(key) % 3) }
	for name, got := range map[string]result{
		"plain": run(collide),
		"bulk":  run(collide, sqlstore.WithBulkLoad()),
	} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s store with colliding hashes:\n got %+v\nwant %+v", name, got, want)
		}
	}
}
