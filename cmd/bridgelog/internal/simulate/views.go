package simulate

import (
	"context"
	"slices"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// nodeLedger is one signer's node: the shared ledger seen with the node's
// lag, where outputs the node received late look created at the score it
// saw them (--diverge), as Kaspa nodes may disagree for a while on what
// is spendable (seed 001, 1.4).
type nodeLedger struct {
	simledger.Node
	n     *node
	depth uint64 // MinInputDepth
	w     *world
}

// Submit hands a payout to the ledger, unless --lose-payout loses it.
func (l nodeLedger) Submit(ctx context.Context, tx []byte) error {
	if l.w != nil && l.w.losePayout(tx) {
		return nil // the node says it took it, and never relays it
	}
	return l.Node.Submit(ctx, tx)
}

// View is the lagging node's view with its late outputs made shallow.
func (l nodeLedger) View(ctx context.Context) (twophase.LedgerView, error) {
	v, err := l.Node.View(ctx)
	if err != nil || len(l.n.late) == 0 {
		return v, err
	}
	v.UTXOs = slices.Clone(v.UTXOs)
	for i, u := range v.UTXOs {
		seen, ok := l.n.late[u.Outpoint]
		switch {
		case !ok || u.DAAScore >= seen:
		case seen+l.depth <= v.VirtualDAAScore:
			delete(l.n.late, u.Outpoint) // deep even as seen late: nothing left to diverge on
		default:
			v.UTXOs[i].DAAScore = seen
		}
	}
	return v, nil
}

// diverge makes the nodes of half the honest signers (other than the
// proposer) see op as created now: until it is deep in their view they
// build templates without it, and sign one spending it only then.
func (w *world) diverge(proposer twophase.PeerID, op twophase.Outpoint) {
	var others []*node
	for _, id := range w.ids {
		if n := w.nodes[id]; n.adv == nil && id != proposer {
			others = append(others, n)
		}
	}
	w.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	for _, n := range others[:min(len(others), w.honest()/2)] {
		if n.late == nil {
			n.late = map[twophase.Outpoint]uint64{}
		}
		n.late[op] = w.ledger.DAA()
	}
	w.check.diverged++
}
