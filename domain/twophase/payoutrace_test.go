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

// The same race when a signer signs: a member that learns the commit
// after the others' payout was accepted must not read the payout's status
// before its view, nor take an input gone for spent elsewhere while the
// status cannot be read, or it fails the round of a payout already made.
func TestCommitLearntAfterPayoutAcceptedIsNotFailed(t *testing.T) {
	for _, statusErr := range []error{nil, errors.New("node: not settled yet")} {
		c := newCluster(t, 3, 2)
		var toS3 []msg
		c.drop = func(from, to twophase.PeerID, kind twophase.Kind) bool { return to == "s3" }
		c.pick = func(n int) int {
			if m := c.queue[0]; m.to == "s3" && m.kind == twophase.KindCommit {
				toS3 = append(toS3, m)
			}
			return 0
		}
		ev := event(0)
		c.request(ev)
		c.flush() // s1 and s2 commit, sign and submit; s3 hears nothing
		if c.ledger.Pending() != 1 || len(toS3) == 0 {
			t.Fatalf("%d payouts pending, %d commits for s3; want 1 and some", c.ledger.Pending(), len(toS3))
		}
		before := c.ledger.Status(c.committedTx(t, "s1", ev), 0)
		c.now = c.now.Add(c.params.Tick)
		c.ledger.AdvanceTo(c.now) // a block accepts it
		viewRead := false
		racy := twophase.Env{Now: c.now,
			View: func() (twophase.LedgerView, error) { viewRead = true; return c.ledger.View(0), nil },
			Payout: func(tx twophase.Hash) (twophase.PayoutStatus, error) {
				switch {
				case statusErr != nil:
					return twophase.PayoutStatus{}, statusErr
				case !viewRead:
					return before, nil // read before the block
				}
				return c.ledger.Status(tx, 0), nil
			}}
		c.take("s3", c.nodes["s3"].st.Deliver(toS3[0].raw, racy))
		if failed := c.facts("s3", twophase.TypeRoundFailed); len(failed) > 0 {
			t.Fatalf("status error %v: s3 failed the round of the accepted payout: %+v", statusErr, failed[0])
		}
		if got := c.phase("s3", ev); got != twophase.PhaseCommitted {
			t.Fatalf("status error %v: s3 is %s after the commit, want Committed", statusErr, got)
		}
		c.drop, c.pick = nil, nil
		c.advance(10 * time.Second)
		if got := c.phase("s3", ev); got != twophase.PhaseCompleted {
			t.Fatalf("status error %v: s3 is %s, want Completed", statusErr, got)
		}
		if n := c.payouts(ev); n != 1 {
			t.Fatalf("status error %v: %d payouts, want 1", statusErr, n)
		}
		c.checkSafety()
	}
}
