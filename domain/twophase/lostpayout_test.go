package twophase_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// A payout every member signed whose input is then spent by another
// transaction, or taken away by a reorg, never lands. Once that is at
// least PayoutDepth deep each signer records the proof (PayoutVoided),
// and only then signs a new template on fresh inputs: the event is paid
// once.
func TestSignedPayoutLostIsVoidedThenPaidOnce(t *testing.T) {
	for _, how := range []string{"spent elsewhere", "reorganised away"} {
		t.Run(how, func(t *testing.T) {
			c := newCluster(t, 3, 2)
			ev := event(0)
			c.request(ev)
			c.flush() // votes, commit, signatures: the payout waits in the mempool
			tx := c.committedTx(t, "s1", ev)
			e, _ := c.nodes["s1"].st.Event(ev.ID())
			first := e.Canonical
			tmpl, _ := e.Template(first)
			lost := tmpl.Inputs[0].Outpoint
			var spender twophase.Hash
			if how == "spent elsewhere" {
				spender = c.ledger.SpendElsewhere(lost)
			} else if !c.ledger.Invalidate(lost) {
				t.Fatal("the input could not be reorganised away")
			}
			at := c.ledger.DAA()
			for _, id := range c.ids { // not deep yet: no proof, nothing new signed
				c.take(id, c.nodes[id].st.Tick(c.env(id)))
				if v := c.facts(id, twophase.TypePayoutVoided); len(v) > 0 {
					t.Fatalf("%s voided the payout at once: %+v", id, v[0])
				}
			}
			c.advance(40 * time.Second)
			for _, id := range c.ids {
				voids := c.facts(id, twophase.TypePayoutVoided)
				if len(voids) != 1 {
					t.Fatalf("%s recorded %d voids, want 1", id, len(voids))
				}
				v := voids[0].(twophase.PayoutVoided)
				if v.TemplateHash != first || v.TxID != tx || v.Outpoint != lost || v.SpentBy != spender || v.AtDAAScore != at ||
					v.VirtualDAAScore < at+c.params.PayoutDepth {
					t.Errorf("%s: void %+v, want template %s, input %s spent by %s at %d, %d deep", id, v, first.Short(), lost,
						spender.Short(), at, c.params.PayoutDepth)
				}
				signed := c.facts(id, twophase.TypeTemplateSigned)
				if len(signed) != 2 || signed[0].(twophase.TemplateSigned).Hash != first {
					t.Fatalf("%s signed %d templates, want the lost one then a new one", id, len(signed))
				}
				second := signed[1].(twophase.TemplateSigned)
				if second.Hash == first || second.After != 1 || second.SourceKey() == signed[0].SourceKey() {
					t.Errorf("%s: second signature %+v", id, second)
				}
				if got := c.phase(id, ev); got != twophase.PhaseCompleted {
					t.Errorf("%s is %s, want Completed", id, got)
				}
			}
			if n := c.payouts(ev); n != 1 {
				t.Fatalf("%d payouts of the event, want 1", n)
			}
			c.checkSafety()
		})
	}
}

// A payout the node dropped (or refused for its fee) has all its inputs
// unspent: it may still confirm, so it is sent again as it is, and no
// other template is signed.
func TestDroppedPayoutIsSentAgainNotReplaced(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev)
	c.flush()
	tx := c.committedTx(t, "s1", ev)
	if !c.ledger.Drop(tx) {
		t.Fatal("the payout was not pending")
	}
	c.advance(30 * time.Second)
	attempts := 0
	for _, id := range c.ids {
		if v := c.facts(id, twophase.TypePayoutVoided); len(v) > 0 {
			t.Errorf("%s voided a payout that can still confirm: %+v", id, v[0])
		}
		if n := len(c.facts(id, twophase.TypeTemplateSigned)); n != 1 {
			t.Errorf("%s signed %d templates, want 1", id, n)
		}
		for _, f := range c.facts(id, twophase.TypePayoutSubmitted) {
			if s := f.(twophase.PayoutSubmitted); s.TxID != tx {
				t.Errorf("%s submitted %s, want the signed payout %s again", id, s.TxID.Short(), tx.Short())
			} else if s.Attempt > 1 {
				attempts++
			}
		}
		if got := c.phase(id, ev); got != twophase.PhaseCompleted {
			t.Errorf("%s is %s, want Completed", id, got)
		}
	}
	if attempts == 0 {
		t.Error("nobody sent the dropped payout again")
	}
	accepted := c.ledger.AcceptedPayouts()
	if len(accepted) != 1 || accepted[0].TxID != tx || c.payouts(ev) != 1 {
		t.Fatalf("accepted %v, want the signed payout %s once", accepted, tx.Short())
	}
	c.checkSafety()
}
