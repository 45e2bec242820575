package kaspanode_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

const fee = 10_000 // sompi; well above simnet's minimum relay fee for these spends

// The client is a signer's ledger (and this test binary links with the
// signer's packages: kaspadtest keeps kaspad's cgo libsecp256k1 out).
var _ signing.Ledger = (*kaspanode.Client)(nil)

// recorder is a Metrics that remembers what it was told.
type recorder struct {
	mu         sync.Mutex
	errors     map[string]int
	reconnects int
	daa        uint64
}

func (r *recorder) RPCError(call string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.errors == nil {
		r.errors = map[string]int{}
	}
	r.errors[call]++
}

func (r *recorder) Reconnected() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reconnects++
}

func (r *recorder) VirtualDAAScore(s uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.daa = s
}

func (r *recorder) snapshot() (errs int, reconnects int, daa uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.errors {
		errs += n
	}
	return errs, r.reconnects, r.daa
}

func newClient(t *testing.T, n *kaspadtest.Node, addr util.Address, m kaspanode.Metrics) *kaspanode.Client {
	t.Helper()
	c, err := kaspanode.New(context.Background(), kaspanode.Config{Node: n.RPC, Network: kaspadtest.Network, Address: addr,
		Metrics: m, PollInterval: 100 * time.Millisecond, MinBackoff: 50 * time.Millisecond, MaxBackoff: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("kaspanode.New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// eventually retries f until it returns nil, failing the test with f's
// last error after timeout.
func eventually(t *testing.T, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func view(t *testing.T, c *kaspanode.Client) twophase.LedgerView {
	t.Helper()
	v, err := c.View(context.Background())
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	return v
}

func status(t *testing.T, c *kaspanode.Client, id twophase.Hash) twophase.PayoutStatus {
	t.Helper()
	st, err := c.PayoutStatus(context.Background(), id)
	if err != nil {
		t.Fatalf("PayoutStatus(%s): %v", id.Short(), err)
	}
	return st
}

// waitAccepted waits until the node reports id accepted (unsettled on
// the way, as the chain catches up with the block that holds it).
func waitAccepted(t *testing.T, c *kaspanode.Client, id twophase.Hash) twophase.PayoutStatus {
	t.Helper()
	var st twophase.PayoutStatus
	eventually(t, time.Minute, func() error {
		var err error
		st, err = c.PayoutStatus(context.Background(), id)
		if err != nil && !errors.Is(err, kaspanode.ErrUnsettled) {
			t.Fatalf("PayoutStatus(%s): %v", id.Short(), err)
		}
		if err != nil || !st.Accepted {
			return fmt.Errorf("payout %s not accepted: %+v, %v", id.Short(), st, err)
		}
		return nil
	})
	return st
}

// mature are the view's outputs that stay spendable after a
// reorganisation of a few blocks (the node's own maturity rule would
// refuse a spend of one at the bare boundary then) and that no pending
// transaction spends, oldest first.
func mature(v twophase.LedgerView) []twophase.UTXO {
	var out []twophase.UTXO
	for _, u := range v.UTXOs {
		if _, spent := v.MempoolSpent[u.Outpoint]; !spent && kaspadtest.SpendableSafely(u, v.VirtualDAAScore) {
			out = append(out, u)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].DAAScore < out[j].DAAScore })
	return out
}

func TestViewListsMinedOutputsAndPendingSpends(t *testing.T) {
	payer, payee := kaspadtest.NewKey(t), kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	mined := n.WaitMature(t, payer.Address, 2)
	m := &recorder{}
	c := newClient(t, n, payer.Address, m)

	v := view(t, c)
	script := payer.Wallet.Script()
	byOutpoint := map[twophase.Outpoint]twophase.UTXO{}
	for _, u := range v.UTXOs {
		byOutpoint[u.Outpoint] = u
		if !u.Coinbase || u.DAAScore == 0 || u.DAAScore > v.VirtualDAAScore || u.Amount == 0 || !u.Script.Equal(script) {
			t.Errorf("mined output %s: %+v at virtual DAA score %d: want a coinbase output of the payer, at most the virtual score", u.Outpoint, u, v.VirtualDAAScore)
		}
	}
	for _, e := range mined {
		u, ok := byOutpoint[e.Outpoint]
		if !ok || u.DAAScore != e.DAAScore || u.Amount != e.Amount {
			t.Errorf("mature output %s (DAA %d, %d sompi) is %+v in the view", e.Outpoint, e.DAAScore, e.Amount, u)
		}
	}
	if len(v.MempoolSpent) != 0 {
		t.Errorf("MempoolSpent = %v before any spend", v.MempoolSpent)
	}
	eventually(t, 30*time.Second, func() error {
		if later := view(t, c); later.VirtualDAAScore <= v.VirtualDAAScore {
			return errors.New("virtual DAA score does not grow")
		}
		return nil
	})
	if _, _, daa := m.snapshot(); daa <= v.VirtualDAAScore {
		t.Errorf("virtual DAA score gauge = %d, want above %d", daa, v.VirtualDAAScore)
	}

	// Two pending spends of the address: kaspad's by-address mempool query
	// lists only one of them; the view must hold both.
	n.StopMiner()
	ready := mature(view(t, c))
	if len(ready) < 2 {
		t.Fatalf("%d mature outputs, want 2", len(ready))
	}
	pending := map[twophase.Outpoint]twophase.Hash{}
	for _, in := range ready[:2] {
		tx := payer.Spend(t, []twophase.UTXO{in}, kaspadtest.Payment{To: payee.Address, Amount: in.Amount - fee})
		if err := c.Submit(context.Background(), kaspadtest.Serialize(t, tx)); err != nil {
			t.Fatalf("Submit: %v", err)
		}
		pending[in.Outpoint] = kaspadtest.TxID(tx)
	}
	v = view(t, c)
	for o, id := range pending {
		if got, ok := v.MempoolSpent[o]; !ok || got != id {
			t.Errorf("MempoolSpent[%s] = %s, %v; want %s", o, got.Short(), ok, id.Short())
		}
		if _, listed := v.Lookup(o); !listed {
			t.Errorf("%s is pending, not spent: the view must still list it", o)
		}
		if st := status(t, c, id); st.Accepted {
			t.Errorf("pending spend %s reported accepted: %+v", id.Short(), st)
		}
	}
	if errs, _, _ := m.snapshot(); errs != 0 {
		t.Errorf("%d rpc errors counted: %v", errs, m.errors)
	}
}

// findOutput is the view's output o, failing the test without it.
func findOutput(t *testing.T, v twophase.LedgerView, o twophase.Outpoint) twophase.UTXO {
	t.Helper()
	u, ok := v.Lookup(o)
	if !ok {
		t.Fatalf("output %s not in the view", o)
	}
	return u
}

func TestPayoutSubmittedAcceptedAndDeepening(t *testing.T) {
	ctx := context.Background()
	payer, payee := kaspadtest.NewKey(t), kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	n.WaitMature(t, payer.Address, 1)
	c := newClient(t, n, payer.Address, &recorder{})

	n.StopMiner() // the payout stays pending while it is looked at
	in := mature(view(t, c))[0]
	tx := payer.Spend(t, []twophase.UTXO{in},
		kaspadtest.Payment{To: payee.Address, Amount: in.Amount / 2},
		kaspadtest.Payment{To: payer.Address, Amount: in.Amount - in.Amount/2 - fee})
	id, raw := kaspadtest.TxID(tx), kaspadtest.Serialize(t, tx)
	conflict := payer.Spend(t, []twophase.UTXO{in}, kaspadtest.Payment{To: payee.Address, Amount: in.Amount - 2*fee})

	if err := c.Submit(ctx, raw); err != nil {
		t.Fatalf("Submit: %v", err)
	}
	if by, ok := view(t, c).MempoolSpent[in.Outpoint]; !ok || by != id {
		t.Fatalf("MempoolSpent[%s] = %s, %v; want the payout %s", in.Outpoint, by.Short(), ok, id.Short())
	}
	if st := status(t, c, id); st.Accepted || st.VirtualDAAScore == 0 {
		t.Fatalf("pending payout: %+v, want not accepted at a virtual DAA score", st)
	}
	if err := c.Submit(ctx, raw); err != nil {
		t.Fatalf("Submit of a payout in the mempool: %v, want nil", err)
	}
	assertRefused(t, c, conflict, "while the payout is pending")
	if err := c.Submit(ctx, []byte{0xde, 0xad}); !errors.Is(err, kaspanode.ErrMalformed) {
		t.Fatalf("Submit of garbage: %v, want ErrMalformed", err)
	}

	n.StartMiner()
	st := waitAccepted(t, c, id)
	if st.DAAScore == 0 || st.VirtualDAAScore < st.DAAScore {
		t.Fatalf("accepted payout: %+v", st)
	}
	change := checkAcceptedView(t, c, id, in.Outpoint)
	// Depth grows as blocks pile on. A busy node can reorganise the tip:
	// the payout is then accepted by another chain block, a DAA score or
	// so away; only the depth below the current acceptance is compared.
	eventually(t, 30*time.Second, func() error {
		later := status(t, c, id)
		if !later.Accepted {
			return fmt.Errorf("the accepted payout is no longer accepted: %+v", later)
		}
		if later.VirtualDAAScore-later.DAAScore <= st.VirtualDAAScore-st.DAAScore {
			return fmt.Errorf("depth does not grow: %+v, first %+v", later, st)
		}
		return nil
	})
	if err := c.Submit(ctx, raw); err != nil {
		t.Fatalf("Submit of an accepted payout: %v, want nil", err)
	}
	assertRefused(t, c, conflict, "after the payout was accepted")

	spendBothOutputs(t, n, c, payer, payee, id, change)
	fresh := newClient(t, n, payer.Address, &recorder{})
	// A new client, scanning the chain from the pruning point, finds the
	// acceptance the following client knows (asked again until both read
	// the same chain, should the tip reorganise between the two).
	eventually(t, 30*time.Second, func() error {
		got, known := status(t, fresh, id), status(t, c, id)
		if !got.Accepted || !known.Accepted || got.DAAScore != known.DAAScore {
			return fmt.Errorf("payout whose outputs are spent, asked of a new client: %+v; the following client: %+v", got, known)
		}
		return nil
	})
}

// checkAcceptedView checks the view of an accepted payout id: its input
// spent, nothing pending, and its change output (index 1) dated by the
// UTXO index near the acceptance, which it returns.
func checkAcceptedView(t *testing.T, c *kaspanode.Client, id twophase.Hash, input twophase.Outpoint) twophase.UTXO {
	t.Helper()
	var change twophase.UTXO
	eventually(t, 30*time.Second, func() error {
		before := status(t, c, id)
		v := view(t, c)
		after := status(t, c, id)
		if !after.Accepted || after.DAAScore != before.DAAScore {
			return fmt.Errorf("acceptance moved while reading the view: %+v, then %+v", before, after)
		}
		if _, ok := v.Lookup(input); ok {
			t.Fatalf("spent input %s still in the view", input)
		}
		if _, ok := v.MempoolSpent[input]; ok {
			t.Fatalf("accepted payout still pending in the view")
		}
		change = findOutput(t, v, twophase.Outpoint{TxID: id, Index: 1})
		// The UTXO index dates the payout's outputs by the virtual that
		// first accepted it, about a block below the accepting chain
		// block; a reorganised tip can move the acceptance a block or so
		// either way.
		if change.Coinbase || change.DAAScore+10 < after.DAAScore || change.DAAScore > after.DAAScore+10 {
			t.Fatalf("change output %+v: want a DAA score near the acceptance's %d, not coinbase", change, after.DAAScore)
		}
		return nil
	})
	return change
}

// spendBothOutputs spends the payout id's outputs at once, as a recipient
// sweeping its withdrawal and the group spending its change do: the
// payout's acceptance must still be found (the UTXO index no longer has
// its outputs).
func spendBothOutputs(t *testing.T, n *kaspadtest.Node, c *kaspanode.Client, payer, payee *kaspadtest.Key, id twophase.Hash, change twophase.UTXO) {
	t.Helper()
	payeeClient := newClient(t, n, payee.Address, &recorder{})
	received := findOutput(t, view(t, payeeClient), twophase.Outpoint{TxID: id, Index: 0})
	sweep := payee.Spend(t, []twophase.UTXO{received}, kaspadtest.Payment{To: payee.Address, Amount: received.Amount - fee})
	respend := payer.Spend(t, []twophase.UTXO{change}, kaspadtest.Payment{To: payer.Address, Amount: change.Amount - fee})
	for _, next := range []*externalapi.DomainTransaction{sweep, respend} {
		if err := c.Submit(context.Background(), kaspadtest.Serialize(t, next)); err != nil {
			t.Fatalf("Submit: %v", err)
		}
		waitAccepted(t, c, kaspadtest.TxID(next))
	}
}

func assertRefused(t *testing.T, c *kaspanode.Client, tx *externalapi.DomainTransaction, when string) {
	t.Helper()
	err := c.Submit(context.Background(), kaspadtest.Serialize(t, tx))
	var refused *kaspanode.RefusedError
	if !errors.Is(err, kaspanode.ErrRefused) || !errors.As(err, &refused) || refused.TxID != kaspadtest.TxID(tx) || refused.Reason == "" {
		t.Fatalf("conflicting spend %s: %v, want a RefusedError with the node's reason", when, err)
	}
	t.Logf("conflicting spend %s refused: %s", when, refused.Reason)
}

func TestClientSurvivesNodeRestart(t *testing.T) {
	payer := kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	m := &recorder{}
	c := newClient(t, n, payer.Address, m)
	before := view(t, c)

	n.Stop()
	eventually(t, 30*time.Second, func() error {
		_, err := c.View(context.Background())
		if !errors.Is(err, kaspanode.ErrUnavailable) {
			return fmt.Errorf("View with the node down: %v, want ErrUnavailable", err)
		}
		return nil
	})
	if _, err := c.PayoutStatus(context.Background(), twophase.Hash{1}); !errors.Is(err, kaspanode.ErrUnavailable) {
		t.Fatalf("PayoutStatus with the node down: %v, want ErrUnavailable", err)
	}
	errs, reconnects, _ := m.snapshot()
	if errs == 0 || reconnects != 0 {
		t.Fatalf("node down: %d rpc errors, %d reconnects; want errors counted, no reconnect", errs, reconnects)
	}

	n.Start()
	eventually(t, time.Minute, func() error {
		v, err := c.View(context.Background())
		if err != nil {
			return err
		}
		if v.VirtualDAAScore < before.VirtualDAAScore {
			return fmt.Errorf("virtual DAA score %d after the restart, %d before", v.VirtualDAAScore, before.VirtualDAAScore)
		}
		return nil
	})
	if _, reconnects, _ := m.snapshot(); reconnects < 1 {
		t.Fatalf("%d reconnects counted, want at least 1", reconnects)
	}
}

func TestNodeOfAnotherNetworkRefused(t *testing.T) {
	key := kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{})
	mainnetAddr, err := util.NewAddressPublicKey(key.Address.ScriptAddress(), util.Bech32PrefixKaspa)
	if err != nil {
		t.Fatal(err)
	}
	_, err = kaspanode.New(context.Background(), kaspanode.Config{Node: n.RPC, Network: "kaspa-mainnet", Address: mainnetAddr})
	if !errors.Is(err, kaspanode.ErrWrongNetwork) {
		t.Fatalf("mainnet client on a simnet node: %v, want ErrWrongNetwork", err)
	}
	t.Logf("refused: %v", err)

	// A group address of another network than the configured one is
	// refused before any node is asked.
	_, err = kaspanode.New(context.Background(), kaspanode.Config{Node: n.RPC, Network: "kaspa-mainnet", Address: key.Address})
	if !errors.Is(err, kaspa.ErrNetwork) {
		t.Fatalf("simnet address on a mainnet client: %v, want kaspa.ErrNetwork", err)
	}
}

func TestLaggingNodeShowsInTheGauge(t *testing.T) {
	miner := kaspadtest.NewKey(t)
	leader := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: miner.Address})
	leader.WaitDAAScore(t, 50, time.Minute)
	follower := kaspadtest.StartNode(t, kaspadtest.Options{Peer: leader})
	follower.WaitDAAScore(t, leader.VirtualDAAScore(t), time.Minute)

	follower.Isolate()
	m := &recorder{}
	newClient(t, follower, miner.Address, m)
	isolatedAt := follower.VirtualDAAScore(t)
	leader.WaitDAAScore(t, isolatedAt+100, time.Minute)
	eventually(t, 10*time.Second, func() error {
		_, _, gauge := m.snapshot()
		if gauge == 0 {
			return errors.New("no virtual DAA score reported")
		}
		if gauge > isolatedAt {
			return fmt.Errorf("isolated node's score grew from %d to %d", isolatedAt, gauge)
		}
		return nil
	})
	if _, _, gauge := m.snapshot(); gauge+100 > leader.VirtualDAAScore(t) {
		t.Fatalf("gauge %d: the isolated node does not lag the leader (%d)", gauge, leader.VirtualDAAScore(t))
	}
}

// A payout in a block the virtual merges is spent in the UTXO index
// before any chain block accepts it: PayoutStatus must not call it
// unaccepted then (its inputs are gone: a signer would take it for dead).
func TestPayoutInABlockNotYetOnTheChainIsUnsettled(t *testing.T) {
	ctx := context.Background()
	payer, payee := kaspadtest.NewKey(t), kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{MineTo: payer.Address})
	n.WaitMature(t, payer.Address, 1)
	c := newClient(t, n, payer.Address, &recorder{})
	n.StopMiner()
	in := mature(view(t, c))[0]
	tx := payer.Spend(t, []twophase.UTXO{in}, kaspadtest.Payment{To: payee.Address, Amount: in.Amount - fee})
	id := kaspadtest.TxID(tx)
	if err := c.Submit(ctx, kaspadtest.Serialize(t, tx)); err != nil {
		t.Fatalf("Submit: %v", err)
	}

	// One block at a time until one holds the payout (the node may hand
	// the miner a template cached from before the payout arrived).
	for blocks := 1; ; blocks++ {
		n.MineBlocks(t, 1)
		st, err := c.PayoutStatus(ctx, id)
		if errors.Is(err, kaspanode.ErrUnsettled) {
			t.Logf("unsettled after %d blocks: %v", blocks, err)
			break
		}
		if err != nil || st.Accepted {
			t.Fatalf("after %d blocks: %+v, %v; want ErrUnsettled before acceptance", blocks, st, err)
		}
		if blocks == 5 {
			t.Fatalf("5 blocks mined, none holds the payout")
		}
	}
	v := view(t, c)
	if _, ok := v.Lookup(in.Outpoint); ok {
		t.Fatalf("input %s still unspent in the UTXO index while the payout is in a merged block", in.Outpoint)
	}
	if _, ok := v.MempoolSpent[in.Outpoint]; ok {
		t.Fatalf("payout in a block still pending in the mempool")
	}

	n.MineBlocks(t, 1) // a chain block on top accepts it
	st := waitAccepted(t, c, id)
	if !st.Accepted || st.DAAScore == 0 || st.VirtualDAAScore < st.DAAScore {
		t.Fatalf("after the next block: %+v, want accepted", st)
	}
}

// A call whose context is already done fails at once, typed, and the
// client goes on.
func TestCancelledCallFailsTyped(t *testing.T) {
	key := kaspadtest.NewKey(t)
	n := kaspadtest.StartNode(t, kaspadtest.Options{})
	c := newClient(t, n, key.Address, &recorder{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.View(ctx); !errors.Is(err, kaspanode.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("View with a cancelled context: %v, want ErrUnavailable wrapping context.Canceled", err)
	}
	if _, err := c.View(context.Background()); err != nil {
		t.Fatalf("View after a cancelled call: %v", err)
	}
}
