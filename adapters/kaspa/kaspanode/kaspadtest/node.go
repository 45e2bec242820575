package kaspadtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/app/appmessage"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/infrastructure/network/rpcclient"
	"github.com/kaspanet/kaspad/util"
)

// CoinbaseMaturity is simnet's: a coinbase output is spendable once its
// DAA score plus this is below the virtual DAA score.
var CoinbaseMaturity = dagconfig.SimnetParams.BlockCoinbaseMaturity

// Network is simnet as bridgelog's configs name it.
const Network = "kaspa-simnet"

// Options shape a node.
type Options struct {
	// MineTo, when set, runs a miner mining to this address alongside the
	// node (kaspaminer --miningaddr).
	MineTo util.Address
	// BlocksPerSecond caps the miner (default 20: maturity in about 5 s
	// without taking a whole core).
	BlocksPerSecond float64
	// Peer, when set, is the only node this one connects to (kaspad
	// --connect); it syncs the peer's chain.
	Peer *Node
}

// Node is a kaspad simnet node (and its miner) run by a test. Its RPC and
// P2P addresses and data directory stay the same across Stop and Start.
type Node struct {
	t    testing.TB
	bins Binaries
	opts Options
	dir  string

	// RPC is the node's gRPC address (host:port), P2P its peer address.
	RPC, P2P string

	mu        sync.Mutex
	node      *process
	miner     *process
	isolated  bool
	runs      int // node starts, naming their output files
	minerRuns int
}

// StartNode builds kaspad if needed and starts a simnet node with
// --utxoindex on free loopback ports (and its miner when opts.MineTo is
// set), waiting until its RPC answers. Everything stops when the test
// ends, also when it fails (then the node's last output is logged).
func StartNode(t testing.TB, opts Options) *Node {
	t.Helper()
	if opts.BlocksPerSecond == 0 {
		opts.BlocksPerSecond = 20
	}
	n := &Node{t: t, bins: Build(t), opts: opts, dir: t.TempDir(), RPC: freePort(t), P2P: freePort(t)}
	t.Cleanup(func() {
		if t.Failed() {
			n.logTail()
		}
		n.Stop()
	})
	n.Start()
	return n
}

// freePort reserves a loopback port by listening on it and letting go.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("kaspadtest: no free loopback port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Start starts the node (and its miner) again after Stop, on the same
// data directory and ports. It is a no-op on a running node.
func (n *Node) Start() {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.node != nil {
		return
	}
	args := []string{"--simnet", "--utxoindex", "--appdir=" + filepath.Join(n.dir, "kaspad"),
		"--rpclisten=" + n.RPC, "--nodnsseed",
		// Without it a node that has no synced peer refuses mined blocks
		// ("node is in IBD").
		"--allow-submit-block-when-not-synced"}
	switch {
	case n.isolated:
		// Connect-only to a port nobody listens on, and not listening:
		// the node keeps its chain and meets no peer.
		args = append(args, "--connect="+deadPeer(n.t), "--nolisten")
	case n.opts.Peer != nil:
		args = append(args, "--listen="+n.P2P, "--connect="+n.opts.Peer.P2P)
	default:
		args = append(args, "--listen="+n.P2P)
	}
	n.runs++
	p, err := startProcess(n.bins.Kaspad, args, filepath.Join(n.dir, fmt.Sprintf("kaspad-%d.out", n.runs)), nil)
	if err != nil {
		n.t.Fatalf("kaspadtest: %v", err)
	}
	n.node = p
	if err := n.waitRPC(p); err != nil {
		n.stopLocked()
		n.t.Fatalf("kaspadtest: kaspad did not come up: %v\n%s", err, tail(p.out, 40))
	}
	if n.opts.MineTo != nil {
		n.startMinerLocked()
	}
}

// deadPeer is a loopback address nothing listens on.
func deadPeer(t testing.TB) string { return freePort(t) }

// Stop stops the miner, then the node (SIGINT, so it closes its database;
// killed if it takes over 30 s). Safe to call twice.
func (n *Node) Stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopLocked()
}

func (n *Node) stopLocked() {
	if n.miner != nil {
		n.miner.stop(5 * time.Second)
		n.miner = nil
	}
	if n.node != nil {
		n.node.stop(30 * time.Second)
		n.node = nil
	}
}

// Restart stops and starts the node (and its miner).
func (n *Node) Restart() {
	n.t.Helper()
	n.Stop()
	n.Start()
}

// Isolate restarts the node cut off from every peer, miner stopped: it
// keeps the chain it has and lags behind a peer that goes on mining.
func (n *Node) Isolate() {
	n.t.Helper()
	n.Stop()
	n.mu.Lock()
	n.isolated, n.opts.MineTo = true, nil
	n.mu.Unlock()
	n.Start()
}

// StopMiner stops the node's miner; the node keeps running.
func (n *Node) StopMiner() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.miner != nil {
		n.miner.stop(5 * time.Second)
		n.miner = nil
	}
}

// StartMiner starts the miner again after StopMiner (a node started
// without MineTo has none).
func (n *Node) StartMiner() {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.miner == nil && n.node != nil && n.opts.MineTo != nil {
		n.startMinerLocked()
	}
}

func (n *Node) startMinerLocked() {
	n.t.Helper()
	p, err := n.runMiner()
	if err != nil {
		n.t.Fatalf("kaspadtest: %v", err)
	}
	n.miner = p
}

// MineBlocks mines exactly count blocks to MineTo (kaspaminer
// --numblocks) and returns once the node took them; the miner must be
// stopped.
func (n *Node) MineBlocks(t testing.TB, count int) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.node == nil || n.opts.MineTo == nil:
		t.Fatalf("kaspadtest: MineBlocks needs a running node started with MineTo")
	case n.miner != nil:
		t.Fatalf("kaspadtest: MineBlocks with the miner running; call StopMiner first")
	}
	p, err := n.runMiner("--numblocks=" + strconv.Itoa(count))
	if err != nil {
		t.Fatalf("kaspadtest: %v", err)
	}
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("kaspadtest: kaspaminer --numblocks=%d: %v\n%s", count, p.err, tail(p.out, 20))
		}
	case <-time.After(time.Minute):
		p.stop(time.Second)
		t.Fatalf("kaspadtest: mining %d blocks took over a minute\n%s", count, tail(p.out, 20))
	}
}

// runMiner starts kaspaminer mining to MineTo on the node.
func (n *Node) runMiner(extra ...string) (*process, error) {
	args := append([]string{"--simnet", "--rpcserver=" + n.RPC, "--miningaddr=" + n.opts.MineTo.String(), "--mine-when-not-synced",
		"--target-blocks-per-second=" + strconv.FormatFloat(n.opts.BlocksPerSecond, 'f', -1, 64)}, extra...)
	home := filepath.Join(n.dir, "miner-home") // kaspaminer logs under $HOME/.kaspaminer
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	n.minerRuns++
	return startProcess(n.bins.Miner, args, filepath.Join(n.dir, fmt.Sprintf("miner-%d.out", n.minerRuns)), []string{"HOME=" + home})
}

// waitRPC waits until the node answers GetInfo, or its process exits.
func (n *Node) waitRPC(p *process) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("kaspad exited: %v", p.err)
		default:
		}
		if c, err := net.DialTimeout("tcp", n.RPC, time.Second); err == nil {
			c.Close()
			err := n.withRPC(func(c *rpcclient.RPCClient) error {
				_, err := c.GetInfo()
				return err
			})
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no RPC answer on %s within 60 s", n.RPC)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// withRPC runs f with a kaspad RPC client open only for that long (the
// node runs meanwhile: the harness never stops it under a client, which
// rpcclient's reconnect logic does not survive).
func (n *Node) withRPC(f func(*rpcclient.RPCClient) error) error {
	c, err := rpcclient.NewRPCClient(n.RPC)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetTimeout(10 * time.Second)
	return f(c)
}

// VirtualDAAScore is the node's virtual DAA score now.
func (n *Node) VirtualDAAScore(t testing.TB) uint64 {
	t.Helper()
	var score uint64
	if err := n.withRPC(func(c *rpcclient.RPCClient) error {
		info, err := c.GetBlockDAGInfo()
		if err == nil {
			score = info.VirtualDAAScore
		}
		return err
	}); err != nil {
		t.Fatalf("kaspadtest: GetBlockDAGInfo on %s: %v", n.RPC, err)
	}
	return score
}

// WaitDAAScore waits until the node's virtual DAA score reaches min.
func (n *Node) WaitDAAScore(t testing.TB, min uint64, timeout time.Duration) uint64 {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if s := n.VirtualDAAScore(t); s >= min {
			return s
		} else if time.Now().After(deadline) {
			t.Fatalf("kaspadtest: node %s at virtual DAA score %d, not %d, after %s", n.RPC, s, min, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// WaitMature waits (up to 2 minutes) until addr holds at least count
// mature coinbase outputs (DAA score + CoinbaseMaturity below the virtual
// DAA score) and returns those outputs.
func (n *Node) WaitMature(t testing.TB, addr util.Address, count int) []*appmessage.UTXOsByAddressesEntry {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var mature []*appmessage.UTXOsByAddressesEntry
		err := n.withRPC(func(c *rpcclient.RPCClient) error {
			info, err := c.GetBlockDAGInfo()
			if err != nil {
				return err
			}
			r, err := c.GetUTXOsByAddresses([]string{addr.String()})
			if err != nil {
				return err
			}
			for _, e := range r.Entries {
				if e.UTXOEntry.IsCoinbase && e.UTXOEntry.BlockDAAScore+CoinbaseMaturity < info.VirtualDAAScore {
					mature = append(mature, e)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("kaspadtest: reading %s's outputs on %s: %v", addr, n.RPC, err)
		}
		if len(mature) >= count {
			return mature
		}
		if time.Now().After(deadline) {
			t.Fatalf("kaspadtest: %d of %d mature coinbase outputs at %s after 2 minutes (is the miner running?)\n%s",
				len(mature), count, addr, n.minerTail())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (n *Node) minerTail() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.miner == nil {
		return "(no miner)"
	}
	return tail(n.miner.out, 20)
}

// logTail logs the end of the node's and miner's output.
func (n *Node) logTail() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range []*process{n.node, n.miner} {
		if p != nil {
			n.t.Logf("kaspadtest: %s:\n%s", filepath.Base(p.out), tail(p.out, 30))
		}
	}
}

// process is a child process with its output in a file.
type process struct {
	cmd  *exec.Cmd
	out  string
	done chan struct{}
	err  error
}

func startProcess(bin string, args []string, out string, env []string) (*process, error) {
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &process{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// stop interrupts the process and kills it if it has not exited within
// grace.
func (p *process) stop(grace time.Duration) {
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail is the last lines of a file.
func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	parts := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return string(bytes.Join(parts, []byte("\n")))
}
