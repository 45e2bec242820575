package signingsource

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/topics"
)

// TestBurnsHandedOnceInIDOrderAfterDepth: burns toward Kaspa are detected
// at once, handed over only once depth deep, in id order, with the
// stream, nonce, sompi and source they make, and once: later rounds hand
// nothing again. A signer restarted on its log hands them over again
// (its requester is idempotent). The token's other logs are not recorded
// on the signer's log.
func TestBurnsHandedOnceInIDOrderAfterDepth(t *testing.T) {
	const depth = 3
	r := newRig(t, depth, nil)
	amounts := []*big.Int{tokens(2), new(big.Int).Mul(big.NewInt(123_456_789), sompi)}
	first := r.burn(amounts[0], alice)
	if _, err := r.users.Burn(r.ctx, devchain.DevKey(1), tokens(1), r.bridge.Distributor); err != nil {
		t.Fatal(err) // a lock-side withdrawal of the same token
	}
	second := r.burn(amounts[1], bob)
	want := []request{{r.expected(first, 1, amounts[0], alice), ViaSource}, {r.expected(second, 2, amounts[1], bob), ViaSource}}

	r.round()
	if got := len(r.events(topics.TopicBridge, domain.TypeWithdrawalToKaspaDetected)); got != 2 {
		t.Fatalf("%d burns detected, want 2", got)
	}
	if got := r.events(topics.TopicBridge, domain.TypeWithdrawalDetected); len(got) != 0 {
		t.Fatalf("the signer's log records the token's lock-side withdrawal: %+v", got)
	}
	// The first burn is depth deep once the tip is depth blocks above it.
	for tip := r.tipNumber(); tip < first.BlockNumber.Uint64()+depth; tip = r.tipNumber() {
		if got := r.req.taken(); len(got) != 0 {
			t.Fatalf("handed over at tip %d, burns in blocks %d and %d, depth %d: %+v", tip, first.BlockNumber, second.BlockNumber, depth, got)
		}
		r.mine(1)
		r.round()
	}
	r.mine(depth)
	r.round()
	r.round()
	if got := r.req.taken(); !slices.Equal(got, want) {
		t.Fatalf("handed over %+v, want %+v", got, want)
	}
	if got := len(r.events(topics.TopicBridge, domain.TypeWithdrawalToKaspaConfirmed)); got != 2 {
		t.Fatalf("%d confirmations on the log, want 2", got)
	}

	r.src = r.newSource(r.client)
	r.round()
	if got := r.req.taken(); !slices.Equal(got[2:], want) {
		t.Fatalf("a restarted source handed over %+v, want %+v again", got[2:], want)
	}
}

// TestReorgedBurnNeverHandedOver: a burn seen in a block that a reorg
// replaced is recorded as reorged and never handed over; the same
// transaction mined again elsewhere is handed over once, from there. The
// burn follows a lock-side withdrawal of the same holder in the block
// before; mined again together in one block, the burn's log has another
// index, so its first sighting stays a log of its own to decide on.
func TestReorgedBurnNeverHandedOver(t *testing.T) {
	const depth = 3
	r := newRig(t, depth, nil)
	tx, err := r.users.Burn(r.ctx, devchain.DevKey(1), tokens(1), r.bridge.Distributor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.chain.WaitMined(r.ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	rc := r.burn(tokens(5), alice)
	old := burnLog(t, rc)
	r.round()
	if err := r.chain.ReorgWith(r.ctx, devchain.ReorgOptions{Depth: 2, Delay: 1}); err != nil {
		t.Fatal(err)
	}
	again, err := r.client.Receipt(r.ctx, domain.Hash32(rc.TxHash))
	if err != nil || again == nil {
		t.Fatalf("burn not mined again after the reorg: %v, %v", again, err)
	}
	if again.BlockHash == rc.BlockHash || burnLog(t, again).Index == old.Index {
		t.Fatalf("burn mined again as log %d of block %s, was log %d of %s", burnLog(t, again).Index, again.BlockHash, old.Index, rc.BlockHash)
	}
	for range depth + 1 {
		r.mine(1)
		r.round()
	}

	reorged := r.events(topics.TopicBridge, domain.TypeWithdrawalToKaspaReorged)
	if len(reorged) != 1 {
		t.Fatalf("reorged events %+v, want one", reorged)
	}
	if e := reorged[0].(*domain.WithdrawalToKaspaReorged); e.BlockHash != domain.Hash32(rc.BlockHash) || e.Ref.LogIndex != uint32(old.Index) {
		t.Fatalf("reorged %+v, want log %d of block %s", e, old.Index, rc.BlockHash)
	}
	want := []request{{r.expected(again, 1, tokens(5), alice), ViaSource}}
	if got := r.req.taken(); !slices.Equal(got, want) {
		t.Fatalf("handed over %+v, want only the burn in its new block %+v", got, want)
	}
}

// gapChain is a node whose log lists leave out one transaction's logs
// (a faulty RPC provider): the indexer moves past them unseen.
type gapChain struct {
	Chain
	drop types.Log // TxHash of the transaction whose logs are left out
	on   bool
}

func (c *gapChain) Logs(ctx context.Context, from, to uint64, addrs []domain.Address) ([]types.Log, error) {
	logs, err := c.Chain.Logs(ctx, from, to, addrs)
	if !c.on {
		return logs, err
	}
	return slices.DeleteFunc(logs, func(l types.Log) bool { return l.TxHash == c.drop.TxHash }), err
}

// TestHoleIsNotWaitedFor: on one chain ids are mined in order, so the
// confirmation depth alone never confirms id 2 before id 1; a node that
// left id 1's log out of a response does. Id 2 is handed over (the
// protocol stalls the stream at the hole, not the source); once an
// operator's rescan finds id 1, it is handed over too.
func TestHoleIsNotWaitedFor(t *testing.T) {
	const depth = 2
	var gap *gapChain
	r := newRig(t, depth, func(c Chain) Chain { gap = &gapChain{Chain: c, on: true}; return gap })
	one := r.burn(tokens(1), alice)
	gap.drop.TxHash = one.TxHash
	two := r.burn(tokens(2), bob)
	r.mine(depth)
	r.round()
	r.round()
	if got := r.req.nonces(); !slices.Equal(got, []uint64{2}) {
		t.Fatalf("handed over nonces %v, want [2] (1 is a hole)", got)
	}

	gap.on = false
	rescan := domain.ChainRescanRequested{ChainID: devchain.ChainID, From: one.BlockNumber.Uint64(), Reason: "test: lost logs",
		RequestedBy: "test", RequestID: "1"}
	if _, err := r.app.Append(r.ctx, handlers.Cause{}, rescan); err != nil {
		t.Fatal(err)
	}
	r.round()
	r.round()
	want := []request{{r.expected(two, 2, tokens(2), bob), ViaSource}, {r.expected(one, 1, tokens(1), alice), ViaSource}}
	if got := r.req.taken(); !slices.Equal(got, want) {
		t.Fatalf("handed over %+v, want %+v", got, want)
	}
}

func (r *rig) tipNumber() uint64 {
	r.t.Helper()
	n, err := r.client.Tip(r.ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	return n
}

func TestNewRefusesAnIncompleteConfig(t *testing.T) {
	_, err := New(Config{Contracts: []domain.Address{{1}}})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "[Chain Decoder Appender Reader Projector Requester]") {
		t.Fatalf("New with only contracts: %v", err)
	}
}
