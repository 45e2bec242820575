package projections_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/merkle"
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

// TestToAnchorNamesMarkedLeaves: the batch to anchor comes with the leaves
// whose withdrawal already carries its withdrawal.batched mark, so the
// anchorer appends only the marks a crash kept the batcher from
// appending; on SQLite and on PostgreSQL.
func TestToAnchorNamesMarkedLeaves(t *testing.T) {
	pg := pgtest.Start(t)
	for name, open := range map[string]func(*testing.T) (projections.Store, func() projections.Store){
		"sqlite": sqliteStore, "postgres": postgresStore(pg)} {
		t.Run(name, func(t *testing.T) { testToAnchorMarked(t, open) })
	}
}

func testToAnchorMarked(t *testing.T, open func(*testing.T) (projections.Store, func() projections.Store)) {
	lg := embeddedLog(t)
	ctx := ctxT(t)
	s := domain.Settlement{ChainID: 338, Distributor: domain.Address{0xd1}}
	var pending []domain.PendingWithdrawal
	for i := byte(1); i <= 3; i++ {
		r := ref(i)
		appendEv(t, lg, t0, domain.WithdrawalDetected{Ref: r, Contract: domain.Address{9}, BlockNumber: 100, BlockHash: domain.Hash32{0xbb},
			OnChainID: uint64(i), Withdrawer: domain.Address{1}, Amount: domain.AmountFromUint64(1000), Recipient: domain.Address{2}},
			domain.WithdrawalConfirmed{Ref: r, AtBlock: 110})
		pending = append(pending, domain.PendingWithdrawal{Ref: r, TxID: uint64(i), Funder: domain.Address{1}, Recipient: domain.Address{2},
			Amount: domain.AmountFromUint64(1000)})
	}
	b, err := domain.PlanBatch(s, domain.SequenceState{}, pending, domain.BatchPolicy{MaxSize: 3}, t0.Add(time.Hour), merkle.BatchLeaf, merkle.BatchRoot)
	if err != nil || b == nil {
		t.Fatalf("batch %v: %v", b, err)
	}
	appendEv(t, lg, t0, *b)
	st, _ := open(t)
	run := newRunner(t, lg, st, append(builtins(), projections.Batches{}, projections.TxIntents{}))
	reader := projections.BridgeReader{Store: st}
	marked := func() map[uint32]bool {
		t.Helper()
		catchUp(t, run)
		task, err := reader.ToAnchor(ctx, s)
		if err != nil || task == nil || task.Batch.BatchID != b.BatchID {
			t.Fatalf("task %+v: %v, want batch %d", task, err, b.BatchID)
		}
		return task.Marked
	}
	if got := marked(); len(got) != 0 {
		t.Fatalf("marked leaves %v before any mark", got)
	}
	// The first leaf's mark, and a mark of another batch on the second.
	l0, l1 := b.Leaves[0], b.Leaves[1]
	appendEv(t, lg, t0, domain.WithdrawalBatched{Ref: l0.Withdrawal, SequenceID: s.SequenceID(), BatchID: b.BatchID, LeafIndex: l0.Index, Leaf: l0.Leaf},
		domain.WithdrawalBatched{Ref: l1.Withdrawal, SequenceID: s.SequenceID(), BatchID: b.BatchID + 1, LeafIndex: l1.Index, Leaf: l1.Leaf})
	if got := marked(); len(got) != 1 || !got[l0.Index] {
		t.Fatalf("marked leaves %v, want only leaf %d", got, l0.Index)
	}
}
