// Package kaspadtest runs real kaspad simnet nodes and miners for tests:
// a testing.TB wrapper over kaspadproc (a failure fails the test, the
// processes stop when the test ends, and a failed test logs the end of
// their output), and a single-key wallet over kaspa.Wallet to spend the
// mined outputs. Neither links go-secp256k1, so a test binary with
// go-ethereum can use it.
package kaspadtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspadproc"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// CoinbaseMaturity is simnet's: a coinbase output is spendable once its
// DAA score plus this is below the virtual DAA score.
var CoinbaseMaturity = kaspadproc.CoinbaseMaturity

// SpendableSafely reports whether an output stays spendable at a virtual
// DAA score after a reorganisation of a few blocks
// (kaspadproc.SpendableSafely): what a test spends, so that the node's
// own maturity rule cannot refuse it.
var SpendableSafely = kaspadproc.SpendableSafely

// Network is simnet as bridgelog's configs name it.
const Network = kaspadproc.Network

// Binaries are the paths of the built kaspad and kaspaminer.
type Binaries = kaspadproc.Binaries

// Build returns kaspad and kaspaminer (kaspadproc.Build), failing the
// test with the reason and the fix when they cannot be built.
func Build(t testing.TB) Binaries {
	t.Helper()
	bins, err := kaspadproc.Build(context.Background(), logWriter{t})
	if err != nil {
		t.Fatalf("kaspadtest: %v", err)
	}
	return bins
}

// logWriter writes the build's progress line to the test log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Options shape a node.
type Options struct {
	// MineTo, when set, runs a miner mining to this address alongside the
	// node (kaspaminer --miningaddr).
	MineTo util.Address
	// BlocksPerSecond caps the miner (default 20).
	BlocksPerSecond float64
	// Peer, when set, is the only node this one connects to (kaspad
	// --connect); it syncs the peer's chain.
	Peer *Node
}

// Node is a kaspad simnet node (and its miner) run by a test. Its RPC and
// P2P addresses and data directory stay the same across Stop and Start.
type Node struct {
	// Proc is the node itself, for what the wrapper does not cover.
	Proc *kaspadproc.Node
	// RPC is the node's gRPC address (host:port), P2P its peer address.
	RPC, P2P string
	t        testing.TB
}

// StartNode builds kaspad if needed and starts a simnet node with
// --utxoindex on free loopback ports in a temporary directory (and its
// miner when opts.MineTo is set). Everything stops when the test ends;
// a failed test logs the end of the node's and the miner's output.
func StartNode(t testing.TB, opts Options) *Node {
	t.Helper()
	po := kaspadproc.Options{Dir: t.TempDir(), MineTo: opts.MineTo, BlocksPerSecond: opts.BlocksPerSecond}
	if opts.Peer != nil {
		po.Peer = opts.Peer.P2P
	}
	p, err := kaspadproc.NewNode(Build(t), po)
	if err != nil {
		t.Fatalf("kaspadtest: %v", err)
	}
	n := &Node{Proc: p, RPC: p.RPC(), P2P: p.P2P(), t: t}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kaspadtest: node %s:\n%s", n.RPC, p.OutputTail(30))
		}
		if err := p.Stop(); err != nil {
			t.Errorf("kaspadtest: %v", err)
		}
	})
	n.Start()
	return n
}

// check fails the test on err.
func (n *Node) check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("kaspadtest: %v", err)
	}
}

// Start starts the node (and its miner) again after Stop, on the same
// data directory and ports. A no-op on a running node.
func (n *Node) Start() {
	n.t.Helper()
	n.check(n.t, n.Proc.Start(context.Background()))
}

// Stop stops the miner, then the node. Safe to call twice.
func (n *Node) Stop() {
	n.t.Helper()
	n.check(n.t, n.Proc.Stop())
}

// Restart stops and starts the node (and its miner).
func (n *Node) Restart() {
	n.t.Helper()
	n.check(n.t, n.Proc.Restart(context.Background()))
}

// Isolate restarts the node cut off from every peer, miner stopped: it
// keeps the chain it has and lags behind a peer that goes on mining.
func (n *Node) Isolate() {
	n.t.Helper()
	n.check(n.t, n.Proc.Isolate(context.Background()))
}

// Rejoin restarts an isolated node with its peer and miner again.
func (n *Node) Rejoin() {
	n.t.Helper()
	n.check(n.t, n.Proc.Rejoin(context.Background()))
}

// StopMiner stops the node's miner; the node keeps running.
func (n *Node) StopMiner() {
	n.t.Helper()
	n.check(n.t, n.Proc.StopMiner())
}

// StartMiner starts the miner again after StopMiner.
func (n *Node) StartMiner() {
	n.t.Helper()
	n.check(n.t, n.Proc.StartMiner())
}

// MineBlocks mines exactly count blocks to MineTo (within a minute) and
// returns once the node took them; the miner must be stopped.
func (n *Node) MineBlocks(t testing.TB, count int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n.check(t, n.Proc.MineBlocks(ctx, count))
}

// VirtualDAAScore is the node's virtual DAA score now.
func (n *Node) VirtualDAAScore(t testing.TB) uint64 {
	t.Helper()
	s, err := n.Proc.VirtualDAAScore(context.Background())
	n.check(t, err)
	return s
}

// WaitDAAScore waits until the node's virtual DAA score reaches min.
func (n *Node) WaitDAAScore(t testing.TB, min uint64, timeout time.Duration) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s, err := n.Proc.WaitDAAScore(ctx, min)
	n.check(t, err)
	return s
}

// WaitMature waits (up to 2 minutes) until addr holds at least count
// outputs that stay spendable after a reorganisation of a few blocks and
// returns them, oldest first (kaspadproc.Node.WaitMature).
func (n *Node) WaitMature(t testing.TB, addr util.Address, count int) []twophase.UTXO {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	utxos, err := n.Proc.WaitMature(ctx, addr, count)
	n.check(t, err)
	return utxos
}
