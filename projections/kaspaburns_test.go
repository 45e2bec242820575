package projections_test

import (
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestWithdrawalsToKaspa: a burn toward Kaspa is unconfirmed once
// detected and listed as confirmed only when confirmed in the block the
// row holds; a reorged sighting is neither; the same log seen again in
// another block starts over there; a burn that makes no signing event is
// never listed. Listing is by nonce, per stream, past a nonce. A replay
// in other batches gives the same table. On SQLite and PostgreSQL.
func TestWithdrawalsToKaspa(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { withdrawalsToKaspa(t, sqliteStore) })
	t.Run("postgres", func(t *testing.T) { withdrawalsToKaspa(t, postgresStore(pgtest.Start(t))) })
}

func withdrawalsToKaspa(t *testing.T, newStore func(t *testing.T) (projections.Store, func() projections.Store)) {
	ctx := ctxT(t)
	lg := embeddedLog(t)
	st, _ := newStore(t)
	run := newRunner(t, lg, st, projections.BurnSourceProjections())
	rd := projections.BridgeReader{Store: st}
	token, other := domain.Address{0x70}, domain.Address{0x71}
	stream := domain.BurnStream(338, token)
	burn := func(id uint64, contract domain.Address, block uint64, fork byte) domain.WithdrawalToKaspaDetected {
		return domain.WithdrawalToKaspaDetected{Ref: domain.LogRef{ChainID: 338, TxHash: domain.Hash32{byte(id), byte(contract[0])}, LogIndex: 1},
			Contract: contract, BlockNumber: block, BlockHash: domain.Hash32{fork, byte(block)}, OnChainID: id, Withdrawer: domain.Address{1},
			Amount: domain.AmountFromUint64(id * 3 * domain.WeiPerSompi), Recipient: "kaspa:q" + string(rune('a'+id))}
	}
	confirm := func(b domain.WithdrawalToKaspaDetected) domain.Event {
		return domain.Observed{Ref: b.Ref, Kind: domain.ObservedWithdrawalToKaspa, BlockNumber: b.BlockNumber, BlockHash: b.BlockHash}.Confirmed(b.BlockNumber + 5)
	}
	reorg := func(b domain.WithdrawalToKaspaDetected) domain.Event {
		return domain.Observed{Ref: b.Ref, Kind: domain.ObservedWithdrawalToKaspa, BlockNumber: b.BlockNumber, BlockHash: b.BlockHash}.Reorged(domain.Hash32{0xee})
	}
	one, two, three, four := burn(1, token, 10, 0xa), burn(2, token, 11, 0xa), burn(3, token, 12, 0xa), burn(4, token, 13, 0xa)
	twoAgain := burn(2, token, 14, 0xb)
	notSompi := burn(9, token, 15, 0xa)
	notSompi.Amount = domain.AmountFromUint64(domain.WeiPerSompi + 1)
	elsewhere := burn(1, other, 10, 0xa)

	steps := []struct {
		name        string
		evs         []domain.Event
		after       uint64
		unconfirmed []uint64 // block numbers
		confirmed   []uint64 // nonces
	}{
		{"detected", []domain.Event{one, two, three, four, notSompi, elsewhere}, 0, []uint64{10, 10, 11, 12, 13}, nil},
		{"confirmed out of order", []domain.Event{confirm(three), confirm(one), confirm(elsewhere)}, 0, []uint64{11, 13}, []uint64{1, 3}},
		{"past a nonce", nil, 1, []uint64{11, 13}, []uint64{3}},
		{"reorged", []domain.Event{reorg(two)}, 0, []uint64{13}, []uint64{1, 3}},
		{"a stale confirmation of the reorged block", []domain.Event{confirm(two)}, 0, []uint64{13}, []uint64{1, 3}},
		{"seen again in another block", []domain.Event{twoAgain}, 0, []uint64{13, 14}, []uint64{1, 3}},
		{"confirmed there", []domain.Event{confirm(twoAgain), confirm(four)}, 0, nil, []uint64{1, 2, 3, 4}},
	}
	for _, s := range steps {
		appendEv(t, lg, t0, s.evs...)
		catchUp(t, run)
		obs, err := rd.Unconfirmed(ctx, 338)
		if err != nil {
			t.Fatal(err)
		}
		var blocks []uint64
		for _, o := range obs {
			if o.Kind != domain.ObservedWithdrawalToKaspa {
				t.Fatalf("%s: observation of kind %s", s.name, o.Kind)
			}
			blocks = append(blocks, o.BlockNumber)
		}
		if !slices.Equal(blocks, s.unconfirmed) {
			t.Fatalf("%s: unconfirmed in blocks %v, want %v", s.name, blocks, s.unconfirmed)
		}
		burns, err := rd.ConfirmedBurns(ctx, stream, s.after, 10)
		if err != nil {
			t.Fatal(err)
		}
		var nonces []uint64
		for _, b := range burns {
			nonces = append(nonces, b.OnChainID)
		}
		if !slices.Equal(nonces, s.confirmed) {
			t.Fatalf("%s: confirmed nonces %v, want %v", s.name, nonces, s.confirmed)
		}
	}
	burns, err := rd.ConfirmedBurns(ctx, stream, 0, 2)
	if err != nil || len(burns) != 2 || !sameBurn(burns[0], one) || !sameBurn(burns[1], twoAgain) {
		t.Fatalf("first page %+v (%v), want the burns as detected: %+v, %+v", burns, err, one, twoAgain)
	}
	if bs, _ := rd.ConfirmedBurns(ctx, domain.BurnStream(338, other), 0, 10); len(bs) != 1 || !sameBurn(bs[0], elsewhere) {
		t.Fatalf("the other contract's stream: %+v", bs)
	}

	scratch, _ := sqliteStore(t)
	replay := newRunner(t, lg, scratch, projections.BurnSourceProjections(), projections.WithBatchSize(3))
	catchUp(t, replay)
	if live, rebuilt := digests(t, run), digests(t, replay); live["withdrawals_to_kaspa"] == "" || live["withdrawals_to_kaspa"] != rebuilt["withdrawals_to_kaspa"] {
		t.Fatalf("digests: live %v, rebuilt %v", live, rebuilt)
	}
}

func sameBurn(a, b domain.WithdrawalToKaspaDetected) bool {
	return a.Ref == b.Ref && a.Contract == b.Contract && a.BlockNumber == b.BlockNumber && a.BlockHash == b.BlockHash &&
		a.OnChainID == b.OnChainID && a.Withdrawer == b.Withdrawer && a.Amount.Cmp(b.Amount) == 0 && a.Recipient == b.Recipient
}
