package twophase_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// A payout accepted between the signer's two reads of its node (its
// status, then the view) must not look dead: its inputs are gone because
// it spent them. The signer reads the view first, so the status it reads
// after says accepted.
func TestPayoutAcceptedBetweenReadsIsNotPaidAgain(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev)
	c.flush() // votes, commit, signatures: the payout waits in the mempool
	if c.ledger.Pending() != 1 {
		t.Fatalf("%d payouts pending, want the event's one", c.ledger.Pending())
	}
	before := c.ledger.Status(c.committedTx(t, "s1", ev), 0)
	c.now = c.now.Add(c.params.Tick)
	c.ledger.AdvanceTo(c.now) // a block accepts it
	racy := func(statusErr error) twophase.Env {
		viewRead := false
		return twophase.Env{Now: c.now,
			View: func() (twophase.LedgerView, error) { viewRead = true; return c.ledger.View(0), nil },
			Payout: func(tx twophase.Hash) (twophase.PayoutStatus, error) {
				if statusErr != nil {
					return twophase.PayoutStatus{}, statusErr
				}
				if !viewRead {
					return before, nil // read before the block
				}
				return c.ledger.Status(tx, 0), nil
			}}
	}
	st := c.nodes["s1"].st
	for _, env := range []twophase.Env{racy(nil), racy(errors.New("node: not settled yet"))} {
		c.take("s1", st.Tick(env))
		c.take("s1", st.LedgerChanged(env))
		if failed := c.facts("s1", twophase.TypeRoundFailed); len(failed) > 0 {
			t.Fatalf("s1 failed the round of its accepted payout: %+v", failed[0])
		}
	}
	c.advance(10 * time.Second)
	if n := c.payouts(ev); n != 1 {
		t.Fatalf("%d payouts, want 1", n)
	}
	c.checkSafety()
}

// committedTx is the transaction id of the template id committed for ev.
func (c *cluster) committedTx(t *testing.T, id twophase.PeerID, ev twophase.SigningEvent) twophase.Hash {
	t.Helper()
	e, ok := c.nodes[id].st.Event(ev.ID())
	if !ok || e.Phase != twophase.PhaseCommitted {
		t.Fatalf("%s: event not committed (%s)", id, e.Phase)
	}
	tmpl, ok := e.Template(e.Canonical)
	if !ok {
		t.Fatalf("%s: committed template unknown", id)
	}
	return c.config(id).Rules.TxID(tmpl)
}
