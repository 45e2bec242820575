// Package kaspadproc runs kaspad simnet nodes and kaspaminer as child
// processes: it builds both from the kaspad version bridgelog requires
// (once per machine, cached), starts a node with --utxoindex on loopback
// ports in a data directory it is given, mines to an address, waits for
// a DAA score or for mature coinbase outputs, lists an address's outputs
// and submits transactions, and stops everything. `bridgelog devnet` and
// the tests (through kaspadtest) use it.
//
// It talks to the node through kaspanode's connection code, and links
// neither go-secp256k1 nor txscript: a binary with go-ethereum can use it.
package kaspadproc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// Network is the network the nodes run on, as bridgelog's configs name it.
const Network = "kaspa-simnet"

// CoinbaseMaturity is simnet's: a coinbase output is spendable once its
// DAA score plus this is below the virtual DAA score.
var CoinbaseMaturity = dagconfig.SimnetParams.BlockCoinbaseMaturity

// deadPeer is where an isolated node connects to meet nobody.
const deadPeer = "127.0.0.1:1"

// Grace periods between SIGINT and SIGKILL: kaspad closes its database.
const (
	nodeGrace  = 30 * time.Second
	minerGrace = 5 * time.Second
)

// ErrNode: a node or miner that would not start, or an operation its
// state does not allow.
var ErrNode = errors.New("kaspad node")

// Options shape a node.
type Options struct {
	// Dir is the node's directory, required: its data (Dir/kaspad), the
	// miner's home and each run's output (kaspad-N.out, miner-N.out).
	Dir string
	// RPC and P2P are the node's gRPC and peer listen addresses
	// (host:port; default a free loopback port each, chosen once, so they
	// stay across restarts).
	RPC, P2P string
	// MineTo, when set, runs a miner mining to this simnet address
	// alongside the node (kaspaminer --miningaddr).
	MineTo util.Address
	// BlocksPerSecond caps the miner (default 20: coinbase maturity in
	// about 5 s without taking a whole core).
	BlocksPerSecond float64
	// Peer, when set, is the P2P address of the only node this one
	// connects to (kaspad --connect); it syncs the peer's chain.
	Peer string
	// Isolated starts the node cut off from every peer (see Isolate).
	Isolated bool
	// StartTimeout bounds how long Start waits for the RPC to answer
	// (default 60 s).
	StartTimeout time.Duration
	// Logger gets a debug line per process started or stopped (default
	// slog.Default()).
	Logger *slog.Logger
}

// Node is a kaspad simnet node and its miner. Its addresses and data
// directory stay the same across Stop and Start. Safe for concurrent
// use; Start holds the node until its RPC answers (cancel its context to
// abandon it).
type Node struct {
	bins Binaries
	opts Options
	log  *slog.Logger

	mu         sync.Mutex
	node       *childproc.Process
	miner      *childproc.Process
	isolated   bool
	hidden     string // the P2P address of the node while isolated
	runs       int    // node starts, naming their output files
	minerRuns  int    // miner starts, likewise
	lastOutput string // the latest node run's output file
	lastMiner  string // the latest miner run's output file
}

// NewNode prepares a node of bins (Build) without starting it.
func NewNode(bins Binaries, opts Options) (*Node, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("%w: Options.Dir is empty", ErrNode)
	}
	if !bins.present() {
		return nil, fmt.Errorf("%w: no kaspad or kaspaminer at %s, %s (use Build)", ErrNode, bins.Kaspad, bins.Miner)
	}
	if opts.MineTo != nil && !opts.MineTo.IsForPrefix(dagconfig.SimnetParams.Prefix) {
		return nil, fmt.Errorf("%w: MineTo %s is not a %s address", kaspa.ErrNetwork, opts.MineTo, Network)
	}
	if opts.BlocksPerSecond <= 0 {
		opts.BlocksPerSecond = 20
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	if opts.RPC == "" {
		opts.RPC = ports[0]
	}
	if opts.P2P == "" {
		opts.P2P = ports[1]
	}
	if err := os.MkdirAll(opts.Dir, ownerfs.DirMode); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	return &Node{bins: bins, opts: opts, log: opts.Logger, isolated: opts.Isolated, hidden: ports[2]}, nil
}

// freePorts finds count distinct free loopback ports.
func freePorts(count int) ([]string, error) {
	ports, err := childproc.FreeLoopbackPorts(count)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	out := make([]string, len(ports))
	for i, p := range ports {
		out[i] = "127.0.0.1:" + strconv.Itoa(p)
	}
	return out, nil
}

// RPC is the node's gRPC address (host:port).
func (n *Node) RPC() string { return n.opts.RPC }

// P2P is the node's peer address (host:port), what another node's
// Options.Peer names.
func (n *Node) P2P() string { return n.opts.P2P }

// Dir is the node's directory.
func (n *Node) Dir() string { return n.opts.Dir }

// Start starts the node, waits until its RPC answers, and starts the
// miner when Options.MineTo is set and the node is not isolated. A no-op
// on a running node. On failure the error holds the end of the node's
// output, and nothing is left running.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.node != nil {
		return nil
	}
	args := []string{"--simnet", "--utxoindex", "--appdir=" + filepath.Join(n.opts.Dir, "kaspad"),
		"--rpclisten=" + n.opts.RPC, "--nodnsseed",
		// Without it a node that has no synced peer refuses mined blocks
		// ("node is in IBD").
		"--allow-submit-block-when-not-synced"}
	switch {
	case n.isolated:
		// Connect-only to a port nothing listens on (nor binds: it is
		// privileged), and listening on a port of its own no peer knows: the
		// node keeps its chain and meets no peer. (kaspad ignores
		// --nolisten and listens on :16511 without --listen.)
		args = append(args, "--connect="+deadPeer, "--listen="+n.hidden)
	case n.opts.Peer != "":
		args = append(args, "--listen="+n.opts.P2P, "--connect="+n.opts.Peer)
	default:
		args = append(args, "--listen="+n.opts.P2P)
	}
	n.runs++
	out := filepath.Join(n.opts.Dir, fmt.Sprintf("kaspad-%d.out", n.runs))
	p, err := childproc.Start(n.bins.Kaspad, args, out, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNode, err)
	}
	n.node, n.lastOutput = p, out
	if err := n.waitRPC(ctx, p); err != nil {
		n.stopLocked()
		return fmt.Errorf("%w: kaspad on %s did not come up: %w\n%s", ErrNode, n.opts.RPC, err, childproc.Tail(out, 40))
	}
	n.log.Debug("kaspad started", "rpc", n.opts.RPC, "p2p", n.opts.P2P, "pid", p.Pid(),
		"isolated", n.isolated, "output", out)
	if n.opts.MineTo != nil && !n.isolated {
		if err := n.startMinerLocked(); err != nil {
			n.stopLocked()
			return err
		}
	}
	return nil
}

// waitRPC waits until the node answers GetInfo, its process exits, ctx
// ends or StartTimeout passes.
func (n *Node) waitRPC(ctx context.Context, p *childproc.Process) error {
	ctx, cancel := context.WithTimeout(ctx, n.opts.StartTimeout)
	defer cancel()
	for {
		if p.Exited() {
			return fmt.Errorf("kaspad exited: %v", p.Err())
		}
		s, err := kaspanode.Open(ctx, n.opts.RPC, 2*time.Second)
		if err == nil {
			_, err = s.Info(ctx)
			s.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no RPC answer (%v): %w", err, ctx.Err())
		case <-p.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop stops the miner, then the node: SIGINT, then SIGKILL after a grace
// period (5 s for the miner, 30 s for the node). The error says what had
// to be killed. Safe to call twice and on a node never started.
func (n *Node) Stop() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stopLocked()
}

func (n *Node) stopLocked() error {
	var errs []error
	if n.miner != nil {
		errs = append(errs, n.miner.Stop(minerGrace))
		n.miner = nil
	}
	if n.node != nil {
		errs = append(errs, n.node.Stop(nodeGrace))
		n.log.Debug("kaspad stopped", "rpc", n.opts.RPC, "exit", n.node.Err())
		n.node = nil
	}
	return errors.Join(errs...)
}

// Restart stops and starts the node (and its miner).
func (n *Node) Restart(ctx context.Context) error {
	if err := n.Stop(); err != nil {
		return err
	}
	return n.Start(ctx)
}

// Isolate restarts the node cut off from every peer, its miner stopped:
// it keeps the chain it has and falls behind a peer that goes on mining.
func (n *Node) Isolate(ctx context.Context) error {
	return n.restartAs(ctx, true)
}

// Rejoin restarts an isolated node with its peer (and its miner) again.
func (n *Node) Rejoin(ctx context.Context) error {
	return n.restartAs(ctx, false)
}

func (n *Node) restartAs(ctx context.Context, isolated bool) error {
	if err := n.Stop(); err != nil {
		return err
	}
	n.mu.Lock()
	n.isolated = isolated
	n.mu.Unlock()
	return n.Start(ctx)
}

// StopMiner stops the node's miner; the node keeps running.
func (n *Node) StopMiner() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.miner == nil {
		return nil
	}
	err := n.miner.Stop(minerGrace)
	n.miner = nil
	return err
}

// StartMiner starts the miner again after StopMiner. A no-op while it
// runs; an error on a node that is not running or has no MineTo.
func (n *Node) StartMiner() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.miner != nil {
		return nil
	}
	if err := n.canMineLocked(); err != nil {
		return err
	}
	return n.startMinerLocked()
}

func (n *Node) canMineLocked() error {
	switch {
	case n.node == nil:
		return fmt.Errorf("%w: the node on %s is not running", ErrNode, n.opts.RPC)
	case n.opts.MineTo == nil:
		return fmt.Errorf("%w: the node on %s has no MineTo address", ErrNode, n.opts.RPC)
	}
	return nil
}

func (n *Node) startMinerLocked() error {
	p, err := n.runMiner()
	if err != nil {
		return err
	}
	n.miner = p
	n.log.Debug("kaspaminer started", "rpc", n.opts.RPC, "mine_to", n.opts.MineTo.String(),
		"blocks_per_second", n.opts.BlocksPerSecond, "pid", p.Pid(), "output", p.Output())
	return nil
}

// MineBlocks mines exactly count blocks to MineTo (kaspaminer
// --numblocks) and returns once the miner handed them to the node; the
// continuous miner must be stopped.
func (n *Node) MineBlocks(ctx context.Context, count int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.canMineLocked(); err != nil {
		return err
	}
	if n.miner != nil {
		return fmt.Errorf("%w: MineBlocks with the miner running; StopMiner first", ErrNode)
	}
	blocks := func() (uint64, error) {
		var c uint64
		err := n.session(ctx, func(s *kaspanode.Session) (err error) { c, err = s.BlockCount(ctx); return err })
		return c, err
	}
	before, err := blocks()
	if err != nil {
		return err
	}
	p, err := n.runMiner("--numblocks=" + strconv.Itoa(count))
	if err != nil {
		return err
	}
	select {
	case <-p.Done():
		// The exit status does not tell: kaspaminer can exit 1 after
		// mining them all, when its notification goroutine panics on the
		// closing connection. The node's block count does.
		after, err := blocks()
		if err != nil {
			return err
		}
		if after < before+uint64(count) {
			return fmt.Errorf("%w: kaspaminer --numblocks=%d (%v) took the node from %d to %d blocks\n%s",
				ErrNode, count, p.Err(), before, after, childproc.Tail(p.Output(), 20))
		}
		return nil
	case <-ctx.Done():
		_ = p.Stop(minerGrace)
		return fmt.Errorf("%w: mining %d blocks: %w\n%s", ErrNode, count, ctx.Err(), childproc.Tail(p.Output(), 20))
	}
}

// runMiner starts kaspaminer mining to MineTo on the node.
func (n *Node) runMiner(extra ...string) (*childproc.Process, error) {
	args := append([]string{"--simnet", "--rpcserver=" + n.opts.RPC, "--miningaddr=" + n.opts.MineTo.String(),
		"--mine-when-not-synced", "--target-blocks-per-second=" + strconv.FormatFloat(n.opts.BlocksPerSecond, 'f', -1, 64)}, extra...)
	home := filepath.Join(n.opts.Dir, "miner-home") // kaspaminer logs under $HOME/.kaspaminer
	if err := os.MkdirAll(home, ownerfs.DirMode); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	n.minerRuns++
	out := filepath.Join(n.opts.Dir, fmt.Sprintf("miner-%d.out", n.minerRuns))
	p, err := childproc.Start(n.bins.Miner, args, out, []string{"HOME=" + home})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNode, err)
	}
	n.lastMiner = out
	return p, nil
}

// OutputTail is the end (lines lines each) of the latest node run's and
// miner run's output, each under its file name.
func (n *Node) OutputTail(lines int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var s string
	for _, out := range []string{n.lastOutput, n.lastMiner} {
		if out != "" {
			s += fmt.Sprintf("%s:\n%s\n", filepath.Base(out), childproc.Tail(out, lines))
		}
	}
	return s
}
