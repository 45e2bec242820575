package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
)

// evmCallTimeout bounds every call to a signer's EVM node, its dial too.
const evmCallTimeout = 10 * time.Second

// A node that does not answer is dialled again after nodeRetryFirst,
// then after twice as long each time, up to nodeRetryMax: a node that
// comes back is used within nodeRetryMax, and one that stays down costs
// one attempt that often.
const (
	nodeRetryFirst = time.Second
	nodeRetryMax   = 30 * time.Second
)

// nextRetry is the wait after one that was wait.
func nextRetry(wait time.Duration) time.Duration {
	if wait == 0 {
		return nodeRetryFirst
	}
	return min(2*wait, nodeRetryMax)
}

// dialUntil calls dial at once and then with a growing pause (nextRetry)
// until it succeeds or ctx ends. dial records its own failures.
func dialUntil(ctx context.Context, dial func(context.Context) error) {
	var wait time.Duration
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if dial(ctx) == nil || ctx.Err() != nil {
			return
		}
		wait = nextRetry(wait)
	}
}

// ErrEVMNodeDown: the signer's EVM node has not answered on its chain
// since the signer started (no client yet).
var ErrEVMNodeDown = errors.New("evm node not connected")

// evmNode is the signer's EVM node as its source and proofs read it
// (signingsource.Chain). Until a dial succeeds every read fails, so the
// signer proves nothing and thus votes on and signs nothing it has not
// seen; connect dials in the background meanwhile. Each dial, and each
// Tip once connected (the indexer asks every poll), is one round of the
// evm_node health step and sets bridgelog_evm_node_up, so an outage
// later on is seen the same way.
type evmNode struct {
	url     string
	chainID uint64 // the configured one; Dial refuses a node on another
	health  *handlers.StepHealth
	up      func(bool)

	mu      sync.Mutex
	client  *evmchain.Client
	dialErr error
	ready   chan struct{} // closed once client is set
}

func newEVMNode(c signerChain, health *handlers.StepHealth, up func(bool)) *evmNode {
	return &evmNode{url: c.RPC, chainID: c.ChainID, health: health, up: up, ready: make(chan struct{})}
}

// connect dials the node until it answers on the configured chain, with
// a growing pause between attempts; each failure is a round of the
// evm_node step (logged once per outage by StepHealth).
func (n *evmNode) connect(ctx context.Context) error {
	dialUntil(ctx, func(ctx context.Context) error {
		c, err := evmchain.Dial(ctx, evmchain.Config{URL: n.url, ChainID: n.chainID, CallTimeout: evmCallTimeout})
		if ctx.Err() != nil {
			if c != nil {
				c.Close()
			}
			return ctx.Err()
		}
		n.health.Track(ctx, stepEVMNode, err)
		n.up(err == nil)
		n.mu.Lock()
		n.client, n.dialErr = c, err
		n.mu.Unlock()
		if err == nil {
			close(n.ready)
		}
		return err
	})
	return nil
}

// current is the connected client, or why there is none.
func (n *evmNode) current() (*evmchain.Client, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client != nil {
		return n.client, nil
	}
	if n.dialErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrEVMNodeDown, n.dialErr)
	}
	return nil, ErrEVMNodeDown
}

// close closes the client, if any.
func (n *evmNode) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.client != nil {
		n.client.Close()
		n.client = nil
	}
}

func (n *evmNode) ChainID() uint64 { return n.chainID }

// Tip is also the node's health probe once connected (a cancelled call
// says nothing of the node).
func (n *evmNode) Tip(ctx context.Context) (uint64, error) {
	c, err := n.current()
	if err != nil {
		return 0, err
	}
	tip, err := c.Tip(ctx)
	if ctx.Err() == nil {
		n.health.Track(ctx, stepEVMNode, err)
		n.up(err == nil)
	}
	return tip, err
}

func (n *evmNode) HashAt(ctx context.Context, h uint64) (domain.Hash32, error) {
	c, err := n.current()
	if err != nil {
		return domain.Hash32{}, err
	}
	return c.HashAt(ctx, h)
}

func (n *evmNode) BlockTime(ctx context.Context, h uint64) (time.Time, error) {
	c, err := n.current()
	if err != nil {
		return time.Time{}, err
	}
	return c.BlockTime(ctx, h)
}

func (n *evmNode) Logs(ctx context.Context, from, to uint64, addrs []domain.Address) ([]types.Log, error) {
	c, err := n.current()
	if err != nil {
		return nil, err
	}
	return c.Logs(ctx, from, to, addrs)
}

func (n *evmNode) Receipt(ctx context.Context, tx domain.Hash32) (*types.Receipt, error) {
	c, err := n.current()
	if err != nil {
		return nil, err
	}
	return c.Receipt(ctx, tx)
}

// connected says whether a dial has succeeded.
func (n *evmNode) connected() bool {
	select {
	case <-n.ready:
		return true
	default:
		return false
	}
}

// nodeStates are the signer's two nodes as /status, the console and
// /healthz show them: each node's address and, while it fails, since
// when and why. A node not dialled yet is not up either.
func (p *signerProcess) nodeStates() []statusNode {
	nodes := []statusNode{{Name: stepKaspaNode, Address: p.set.node}, {Name: stepEVMNode, Address: p.set.chain.RPC}}
	connected := []bool{len(p.nodeClient) > 0, p.evm.connected()}
	for i := range nodes {
		n := &nodes[i]
		o, failing := p.health.Outage(n.Name)
		n.Up = !failing && connected[i]
		switch {
		case failing:
			n.Since = timePtr(o.Since)
			if o.LastErr != nil {
				n.Error = o.LastErr.Error()
			}
		case !connected[i]:
			n.Error = "not connected yet"
		}
	}
	return nodes
}

// ready is /healthz's answer: nil while both nodes answer, else each
// failing node's name, address and error. The signer serves, and keeps
// its links, either way; it signs nothing while a node is down.
func (p *signerProcess) ready() error {
	var errs []error
	for _, n := range p.nodeStates() {
		if !n.Up {
			errs = append(errs, fmt.Errorf("%s %s down: %s", nodeKind(n.Name), n.Address, n.Error))
		}
	}
	return errors.Join(errs...)
}

// nodeKind is "evm node" or "kaspa node" for a node step's name.
func nodeKind(step string) string {
	switch step {
	case stepEVMNode:
		return "evm node"
	case stepKaspaNode:
		return "kaspa node"
	}
	return step
}
