package projections_test

import (
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// TestBatchesOnBothStores: a relay log's batches fold into the same rows
// on SQLite and on PostgreSQL (where 64 leaves or more go through COPY),
// one batch_leaves row per leaf, re-sent batches changing nothing.
func TestBatchesOnBothStores(t *testing.T) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	cfg := synth.Config{Events: 6000, Seed: 23, InFlight: 80, AppendBatch: 200, RelayEvents: true, BatchLeaves: 100, DuplicateRate: 0.05}
	if _, err := synth.Generate(ctx, lg, cfg, nil); err != nil {
		t.Fatal(err)
	}
	ps := []projections.Projection{projections.Batches{}}
	lite, _ := sqliteStore(t)
	liteRun := newRunner(t, lg, lite, ps)
	catchUp(t, liteRun)
	pgStore, _ := postgresStore(pgtest.Start(t))(t)
	pgRun := newRunner(t, lg, pgStore, ps)
	catchUp(t, pgRun)
	if a, b := digests(t, liteRun)["batches"], digests(t, pgRun)["batches"]; a != b {
		t.Fatalf("batches digest %s on SQLite, %s on PostgreSQL", a, b)
	}
	batches, leaves := count(t, lite, "batches_v1"), count(t, lite, "batch_leaves_v1")
	if batches < 3 || leaves != 100*batches {
		t.Fatalf("%d batches with %d leaves, want 100 leaves each", batches, leaves)
	}
	if n := count(t, pgStore, "batch_leaves_v1"); n != leaves {
		t.Fatalf("PostgreSQL has %d leaves, SQLite %d", n, leaves)
	}
}
