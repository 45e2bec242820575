package kaspadproc_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspadproc"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

const kas = 100_000_000

// startNode builds kaspad and starts a node in a temporary directory,
// stopped when the test ends (its output logged when the test failed).
func startNode(t *testing.T, opts kaspadproc.Options) *kaspadproc.Node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bins, err := kaspadproc.Build(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	n, err := kaspadproc.NewNode(bins, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node %s:\n%s", n.RPC(), n.OutputTail(30))
		}
		if err := n.Stop(); err != nil {
			t.Error(err)
		}
	})
	if err := n.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return n
}

func wallet(t *testing.T) *kaspa.Wallet {
	t.Helper()
	w, err := kaspa.NewRandomWallet(kaspadproc.Network)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestNodeAcceptsAWalletSpendOfMinedCoins: mined coinbase outputs of a
// wallet mature, a spend of two of them at the minimum fee rate is
// accepted and its outputs show in the UTXO index (spendable at once, as
// they are no coinbase); a second spend of the same outputs is refused.
func TestNodeAcceptsAWalletSpendOfMinedCoins(t *testing.T) {
	payer, payee := wallet(t), wallet(t)
	n := startNode(t, kaspadproc.Options{MineTo: payer.Address()})
	ctx := within(t, 3*time.Minute)

	mature, err := n.WaitMature(ctx, payer.Address(), 2)
	if err != nil {
		t.Fatal(err)
	}
	virtual, err := n.VirtualDAAScore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range mature {
		if !u.Coinbase || !u.Script.Equal(payer.Script()) || u.Amount == 0 || u.DAAScore+kaspadproc.CoinbaseMaturity >= virtual {
			t.Fatalf("mature output %+v at virtual DAA score %d: want a mature coinbase output of the payer", u, virtual)
		}
	}
	total, spendable, err := n.Balance(ctx, payer.Address())
	if err != nil {
		t.Fatal(err)
	}
	if spendable < mature[0].Amount+mature[1].Amount || total < spendable {
		t.Fatalf("balance %d, spendable %d: below the two mature outputs", total, spendable)
	}

	if err := n.StopMiner(); err != nil {
		t.Fatal(err)
	}
	ins := mature[:2]
	tx, err := payer.SpendAtFeeRate(ins, []kaspa.Payment{{To: payee.Address(), Amount: 3 * kas}}, kaspa.MinimumFeeRate)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Submit(ctx, tx); err != nil {
		t.Fatalf("Submit: %v", err)
	}
	double, err := payer.SpendAtFeeRate(ins, []kaspa.Payment{{To: payee.Address(), Amount: 2 * kas}}, kaspa.MinimumFeeRate)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Submit(ctx, double); !errors.Is(err, kaspanode.ErrRefused) {
		t.Fatalf("double spend: %v, want refused", err)
	}
	if err := n.StartMiner(); err != nil {
		t.Fatal(err)
	}

	id := twophase.Hash(*consensushashing.TransactionID(tx).ByteArray())
	var got []twophase.UTXO
	for len(got) == 0 {
		if got, err = n.UTXOs(ctx, payee.Address(), payer.Address()); err != nil {
			t.Fatal(err)
		}
		got = outputsOf(got, id)
		if len(got) == 0 {
			select {
			case <-ctx.Done():
				t.Fatalf("the spend %s is not in the UTXO index: %v", id.Short(), ctx.Err())
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	if len(got) != len(tx.Outputs) {
		t.Fatalf("%d outputs of the spend in the index, it has %d", len(got), len(tx.Outputs))
	}
	for _, u := range got {
		o := tx.Outputs[u.Outpoint.Index]
		if u.Coinbase || u.Amount != o.Value || !u.Script.Equal(twophase.Script{Version: o.ScriptPublicKey.Version, Bytes: o.ScriptPublicKey.Script}) {
			t.Fatalf("output %s is %+v, the spend has %+v", u.Outpoint, u, o)
		}
	}
	total, spendable, err = n.Balance(ctx, payee.Address())
	if err != nil || total != 3*kas || spendable != 3*kas {
		t.Fatalf("payee balance %d, spendable %d (%v): want 3 KAS, all spendable", total, spendable, err)
	}
}

// outputsOf are the outputs of transaction id among us.
func outputsOf(us []twophase.UTXO, id twophase.Hash) []twophase.UTXO {
	var out []twophase.UTXO
	for _, u := range us {
		if u.Outpoint.TxID == id {
			out = append(out, u)
		}
	}
	return out
}

// TestStopAndStartKeepChainAndAddresses: a stopped node does not answer;
// started again it answers on the same address with the chain it had:
// every block it held. (Not its virtual DAA score: a restarted node
// resolves its virtual again and, with many tips, can land a score below
// the one it reported before.)
func TestStopAndStartKeepChainAndAddresses(t *testing.T) {
	n := startNode(t, kaspadproc.Options{MineTo: wallet(t).Address()})
	ctx := within(t, 2*time.Minute)
	if _, err := n.WaitDAAScore(ctx, 20); err != nil {
		t.Fatal(err)
	}
	if err := n.StopMiner(); err != nil {
		t.Fatal(err)
	}
	before := blockCount(ctx, t, n)
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := n.VirtualDAAScore(ctx); !errors.Is(err, kaspanode.ErrUnavailable) {
		t.Fatalf("stopped node: %v, want unavailable", err)
	}
	if err := n.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if after := blockCount(ctx, t, n); after < before {
		t.Fatalf("restarted node holds %d blocks, held %d", after, before)
	}
	after, err := n.VirtualDAAScore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.WaitDAAScore(ctx, after+10); err != nil {
		t.Fatalf("the miner does not mine after the restart: %v", err)
	}
}

// blockCount is how many blocks the node holds.
func blockCount(ctx context.Context, t *testing.T, n *kaspadproc.Node) uint64 {
	t.Helper()
	s, err := kaspanode.Open(ctx, n.RPC(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.BlockCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStartFailureShowsTheOutput: a node that cannot take its RPC port
// exits, and Start says so with the end of its output.
func TestStartFailureShowsTheOutput(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	bins, err := kaspadproc.Build(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := kaspadproc.NewNode(bins, kaspadproc.Options{Dir: t.TempDir(), RPC: taken.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Stop()
	err = n.Start(within(t, time.Minute))
	// The end of the output is kaspad's own reason.
	if !errors.Is(err, kaspadproc.ErrNode) || !strings.Contains(err.Error(), "kaspad exited") ||
		!strings.Contains(err.Error(), "bind: address already in use") {
		t.Fatalf("Start on a taken port: %v", err)
	}
}

// TestIsolateAndRejoin: isolated followers fall behind their mining
// peer, and one catches up once it rejoins. Two are isolated at once:
// neither may take a port the other needs.
func TestIsolateAndRejoin(t *testing.T) {
	leader := startNode(t, kaspadproc.Options{MineTo: wallet(t).Address()})
	followers := []*kaspadproc.Node{startNode(t, kaspadproc.Options{Peer: leader.P2P()}), startNode(t, kaspadproc.Options{Peer: leader.P2P()})}
	ctx := within(t, 3*time.Minute)
	if _, err := leader.WaitDAAScore(ctx, 30); err != nil {
		t.Fatal(err)
	}
	isolatedAt := uint64(0)
	for _, f := range followers {
		if _, err := f.WaitDAAScore(ctx, 30); err != nil {
			t.Fatalf("follower does not sync: %v", err)
		}
		if err := f.Isolate(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := f.VirtualDAAScore(ctx)
		if err != nil {
			t.Fatal(err)
		}
		isolatedAt = max(isolatedAt, s)
	}
	lead, err := leader.WaitDAAScore(ctx, isolatedAt+60)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range followers {
		if s, err := f.VirtualDAAScore(ctx); err != nil || s+50 > lead {
			t.Fatalf("isolated follower %d at %d (%v), leader at %d: it does not lag", i, s, err, lead)
		}
	}
	if err := followers[0].Rejoin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := followers[0].WaitDAAScore(ctx, lead); err != nil {
		t.Fatalf("rejoined follower does not catch up with %d: %v", lead, err)
	}
}
