package projections_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestKaspaDeposits: kaspa_deposits@v1 holds each deposit as its events
// leave it (detected, confirmed or refused in the block the row holds,
// reorged, seen again elsewhere), the indexer's cursor and the issued
// addresses; its readers give the open deposits, those of given blocks
// and the recipients; a repeated event changes nothing, and a replay in
// other batches gives the same tables. On SQLite and PostgreSQL.
func TestKaspaDeposits(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { kaspaDeposits(t, sqliteStore) })
	t.Run("postgres", func(t *testing.T) { kaspaDeposits(t, postgresStore(pgtest.Start(t))) })
}

func kaspaDeposits(t *testing.T, newStore func(t *testing.T) (projections.Store, func() projections.Store)) {
	ctx := ctxT(t)
	lg := embeddedLog(t)
	st, _ := newStore(t)
	ps := []projections.Projection{projections.KaspaDeposits{}}
	run := newRunner(t, lg, st, ps)
	rd := projections.BridgeReader{Store: st}
	alice := domain.Address{0xa1}
	b1, b2, b3 := domain.Hash32{0xb1}, domain.Hash32{0xb2}, domain.Hash32{0xb3}
	op := func(i byte) domain.KaspaOutpoint {
		return domain.KaspaOutpoint{TxID: domain.Hash32{i}, Index: uint32(i)}
	}
	det := func(i byte, block domain.Hash32, daa uint64, refusal string) domain.KaspaDepositDetected {
		return domain.KaspaDepositDetected{Outpoint: op(i), Amount: 1000 * uint64(i), Recipient: alice, Block: block, DAAScore: daa, Refusal: refusal}
	}
	appendEv(t, lg, t0,
		domain.KaspaDepositAddressIssued{Network: "kaspa-simnet", GroupAddress: "kaspasim:g", Recipient: alice, Address: "kaspasim:a"},
		domain.KaspaDepositAddressIssued{Network: "kaspa-simnet", GroupAddress: "kaspasim:g", Recipient: alice, Address: "kaspasim:a"},
		domain.KaspaDepositAddressIssued{Network: "kaspa-mainnet", GroupAddress: "kaspa:g", Recipient: domain.Address{0xb0}, Address: "kaspa:b"},
		det(1, b1, 100, ""), det(2, b1, 100, domain.KaspaRefusalBelowMinimum), det(3, b2, 120, ""),
		domain.KaspaChainScanned{Network: "kaspa-simnet", Seq: 1, To: b2, VirtualDAAScore: 121, Added: 2, Deposits: 3},
		domain.KaspaDepositConfirmed{Outpoint: op(1), Block: b1, VirtualDAAScore: 400, Depth: 300},
		domain.KaspaDepositRefused{Outpoint: op(2), Block: b1, Reason: domain.KaspaRefusalBelowMinimum, VirtualDAAScore: 400},
		domain.KaspaDepositConfirmed{Outpoint: op(3), Block: domain.Hash32{0xb4}, VirtualDAAScore: 400, Depth: 300}, // another block: stale
	)
	catchUp(t, run)
	seq, cur, found, err := rd.KaspaCursor(ctx, "kaspa-simnet")
	if err != nil || !found || seq != 1 || cur != b2 {
		t.Fatalf("cursor %d %s %v (%v)", seq, cur.Hex(), found, err)
	}
	if _, _, found, _ := rd.KaspaCursor(ctx, "kaspa-mainnet"); found {
		t.Fatal("a cursor on a network never scanned")
	}
	if rs, err := rd.KaspaDepositRecipients(ctx, "kaspa-simnet"); err != nil || !slices.Equal(rs, []domain.Address{alice}) {
		t.Fatalf("recipients %v (%v)", rs, err)
	}
	open, err := rd.KaspaOpenDeposits(ctx)
	if err != nil || len(open) != 1 || open[0].Outpoint != op(3) || open[0].Block != b2 || open[0].DAAScore != 120 || open[0].Final {
		t.Fatalf("open %+v (%v), want deposit 3 in b2", open, err)
	}
	inB1, err := rd.KaspaDepositsInBlocks(ctx, []domain.Hash32{b1, b3})
	slices.SortFunc(inB1, func(a, b domain.KaspaDepositSighting) int { return int(a.Outpoint.Index) - int(b.Outpoint.Index) })
	if err != nil || len(inB1) != 2 || !inB1[0].Final || !inB1[1].Final || inB1[1].Refusal != domain.KaspaRefusalBelowMinimum {
		t.Fatalf("in b1 %+v (%v), want deposits 1 and 2, final", inB1, err)
	}

	// b2 leaves the chain; deposit 3 comes back in b3 and is confirmed there.
	appendEv(t, lg, t0,
		domain.KaspaDepositReorged{Outpoint: op(3), Block: b2},
		det(3, b3, 130, ""),
		domain.KaspaChainScanned{Network: "kaspa-simnet", Seq: 2, From: b2, To: b3, VirtualDAAScore: 131, Added: 1, Removed: 1, Deposits: 1},
		domain.KaspaDepositConfirmed{Outpoint: op(3), Block: b2, VirtualDAAScore: 500, Depth: 300}, // the old block: stale
	)
	catchUp(t, run)
	counts, err := rd.KaspaDepositCounts(ctx)
	want := map[string]int64{projections.KaspaDepositConfirmed: 1, projections.KaspaDepositRefused: 1, projections.KaspaDepositDetected: 1}
	if err != nil || !maps.Equal(counts, want) {
		t.Fatalf("counts %v (%v), want %v", counts, err, want)
	}
	appendEv(t, lg, t0, domain.KaspaDepositConfirmed{Outpoint: op(3), Block: b3, VirtualDAAScore: 500, Depth: 300},
		domain.KaspaDepositReorged{Outpoint: op(1), Block: b1, WasFinal: true})
	catchUp(t, run)
	rows, err := rd.KaspaDepositList(ctx, 10)
	if err != nil || len(rows) != 3 {
		t.Fatalf("list %+v (%v)", rows, err)
	}
	status := map[string]string{}
	for _, r := range rows {
		status[r.Outpoint] = r.Status
	}
	if status[op(1).Key()] != projections.KaspaDepositReorged || status[op(3).Key()] != projections.KaspaDepositConfirmed ||
		status[op(2).Key()] != projections.KaspaDepositRefused {
		t.Fatalf("statuses %v", status)
	}
	if _, cur, _, _ := rd.KaspaCursor(ctx, "kaspa-simnet"); cur != b3 {
		t.Fatalf("cursor %s, want b3", cur.Hex())
	}

	scratch, _ := sqliteStore(t)
	replay := newRunner(t, lg, scratch, ps, projections.WithBatchSize(3))
	catchUp(t, replay)
	if live, rebuilt := digests(t, run), digests(t, replay); live["kaspa_deposits"] == "" || live["kaspa_deposits"] != rebuilt["kaspa_deposits"] {
		t.Fatalf("digests: live %v, rebuilt %v", live, rebuilt)
	}
}
