package kaspadproc

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// callTimeout bounds each RPC call to the node.
const callTimeout = 10 * time.Second

// pollInterval is how often the waits ask the node again.
const pollInterval = 200 * time.Millisecond

// session runs f with a connection to the node open only for that long:
// a node stopped between calls leaves no connection behind.
func (n *Node) session(ctx context.Context, f func(*kaspanode.Session) error) error {
	s, err := kaspanode.Open(ctx, n.opts.RPC, callTimeout)
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s)
}

// VirtualDAAScore is the node's virtual DAA score now.
func (n *Node) VirtualDAAScore(ctx context.Context) (uint64, error) {
	var score uint64
	err := n.session(ctx, func(s *kaspanode.Session) error {
		var err error
		score, err = s.VirtualDAAScore(ctx)
		return err
	})
	return score, err
}

// WaitDAAScore waits until the node's virtual DAA score reaches min and
// returns it; an error when ctx ends first or the node does not answer.
func (n *Node) WaitDAAScore(ctx context.Context, min uint64) (uint64, error) {
	for {
		s, err := n.VirtualDAAScore(ctx)
		switch {
		case err != nil:
			return 0, err
		case s >= min:
			return s, nil
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("%w: node %s at virtual DAA score %d, not %d: %w", ErrNode, n.opts.RPC, s, min, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// UTXOs lists the unspent outputs of the addresses in the node's UTXO
// index, ordered by outpoint: outpoint, amount, script, DAA score and
// whether it is a coinbase output.
func (n *Node) UTXOs(ctx context.Context, addresses ...util.Address) ([]twophase.UTXO, error) {
	encoded := make([]string, len(addresses))
	for i, a := range addresses {
		encoded[i] = a.String()
	}
	var out []twophase.UTXO
	err := n.session(ctx, func(s *kaspanode.Session) error {
		var err error
		out, err = s.UTXOs(ctx, encoded...)
		return err
	})
	return out, err
}

// Spendable reports whether an output can be spent at the virtual DAA
// score: any output but a coinbase output younger than CoinbaseMaturity.
func Spendable(u twophase.UTXO, virtualDAAScore uint64) bool {
	return !u.Coinbase || u.DAAScore+CoinbaseMaturity < virtualDAAScore
}

// ReorgMargin is how many DAA scores past coinbase maturity an output
// must be before a wait calls it spendable. A busy node reorganises its
// selected chain now and then: a coinbase output is then accepted by
// another chain block, dated a little later, and the node's UTXO index
// may still show the earlier date. An output at the bare maturity
// boundary by the index can be immature by the node's own rule.
const ReorgMargin = 20

// SpendableSafely reports whether u stays spendable at virtualDAAScore
// after a reorganisation of a few blocks (ReorgMargin).
func SpendableSafely(u twophase.UTXO, virtualDAAScore uint64) bool {
	return !u.Coinbase || (virtualDAAScore > ReorgMargin && Spendable(u, virtualDAAScore-ReorgMargin))
}

// spendable reads addr's outputs and the virtual DAA score, and returns
// the outputs that ok calls spendable at that score, oldest first.
func (n *Node) spendable(ctx context.Context, addr util.Address, ok func(twophase.UTXO, uint64) bool) (all, ready []twophase.UTXO, err error) {
	err = n.session(ctx, func(s *kaspanode.Session) error {
		// The score first: an output listed after it is at most as old
		// as the score says.
		virtual, err := s.VirtualDAAScore(ctx)
		if err != nil {
			return err
		}
		if all, err = s.UTXOs(ctx, addr.String()); err != nil {
			return err
		}
		for _, u := range all {
			if ok(u, virtual) {
				ready = append(ready, u)
			}
		}
		return nil
	})
	// Oldest first: the outputs furthest from any reorganisation.
	sort.SliceStable(ready, func(i, j int) bool { return ready[i].DAAScore < ready[j].DAAScore })
	return all, ready, err
}

// WaitMature waits until addr holds at least count outputs that stay
// spendable after a reorganisation of a few blocks (SpendableSafely:
// mined coinbase outputs ReorgMargin past maturity, any other output at
// once) and returns all of them, oldest first. An error when ctx ends
// first (with the miner's last output) or the node does not answer.
func (n *Node) WaitMature(ctx context.Context, addr util.Address, count int) ([]twophase.UTXO, error) {
	for {
		_, ready, err := n.spendable(ctx, addr, SpendableSafely)
		if err != nil {
			return nil, err
		}
		if len(ready) >= count {
			return ready, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %d of %d spendable outputs at %s on %s (is the miner running?): %w\n%s",
				ErrNode, len(ready), count, addr, n.opts.RPC, ctx.Err(), n.OutputTail(20))
		case <-time.After(pollInterval):
		}
	}
}

// Balance is what addr holds in sompi: in all its outputs, and in those
// spendable now.
func (n *Node) Balance(ctx context.Context, addr util.Address) (total, spendable uint64, err error) {
	all, ready, err := n.spendable(ctx, addr, Spendable)
	if err != nil {
		return 0, 0, err
	}
	for _, u := range all {
		total += u.Amount
	}
	for _, u := range ready {
		spendable += u.Amount
	}
	return total, spendable, nil
}

// Submit hands a signed transaction to the node (kaspanode.Session.Submit):
// a *kaspanode.RefusedError when the node refuses it.
func (n *Node) Submit(ctx context.Context, tx *externalapi.DomainTransaction) error {
	return n.session(ctx, func(s *kaspanode.Session) error { return s.Submit(ctx, tx) })
}
