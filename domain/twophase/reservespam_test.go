package twophase_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// reserveProposal seals s4's proposal of the reserve event of nonce n,
// with a template of the split's shape (what it pays is not what the
// members refuse it for).
func (c *cluster) reserveProposal(n, seq uint64) []byte {
	p := c.params.WithDefaults()
	ev := twophase.ReserveEvent(n, p)
	t := twophase.Template{Outputs: make([]twophase.TemplateOutput, p.ReserveOutputs)}
	for i := range t.Outputs {
		t.Outputs[i] = twophase.TemplateOutput{Amount: 1000, Script: c.group.ChangeScript}
	}
	enc := t.Encode()
	pr := twophase.Proposal{Event: ev, Template: enc, TemplateHash: twophase.TemplateHash(enc), Proposer: "s4",
		TimestampNs: c.now.UnixNano(), Anchor: &twophase.Anchor{TipScore: 1000}}
	return c.craft("s4", 99, seq, twophase.KindProposal, pr.Encode())
}

// splits counts the accepted payouts that split an output into the
// reserve's outputs.
func (c *cluster) splits(outputs int) int {
	n := 0
	for _, a := range c.ledger.AcceptedPayouts() {
		if len(a.Template.Outputs) == outputs {
			n++
		}
	}
	return n
}

func (c *cluster) reserveEvents(id twophase.PeerID) int {
	n := 0
	for _, f := range c.facts(id, twophase.TypeEventRequested) {
		if f.(twophase.EventRequested).Event.IsReserve() {
			n++
		}
	}
	return n
}

// refusedAs reports how many of id's refusal records give reason r (a
// vote of an event not stored is recorded in its sender's refusal
// window), and whether each was counted under
// proposal_validation_failures.
func (c *cluster) refusedAs(id twophase.PeerID, r twophase.Reason) (facts, counted int) {
	for _, f := range c.facts(id, twophase.TypeVoteRejected) {
		if f.(twophase.VoteRejected).Reason == r {
			facts++
		}
	}
	for _, f := range c.facts(id, twophase.TypeMessageRejected) {
		if f.(twophase.MessageRejected).Reason == r {
			facts += f.(twophase.MessageRejected).Count
		}
	}
	for _, o := range c.observed(id, twophase.MetricValidationFailures) {
		if o.Label == string(r) {
			counted++
		}
	}
	return facts, counted
}

// A Byzantine member's reserve proposals are checked before anything is
// stored: one for a far nonce and one for the next nonce while the
// members' views hold enough outputs are both refused (reserve_nonce,
// reserve_not_due), recorded and counted; no event is created, nothing
// is split, and events are paid as before.
func TestReserveSpamRefusedBeforeStored(t *testing.T) {
	const outputs = 8
	edit := func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, 1 }
	c := newClusterFunded(t, 4, 3, edit, 20, func(p *twophase.Params) { p.AnchorStep, p.ReserveOutputs = 10, outputs })
	c.crash("s4")
	for i, n := range []uint64{twophase.FirstNonce + 1000, twophase.FirstNonce} {
		for _, id := range []twophase.PeerID{"s1", "s2", "s3"} {
			c.take(id, c.nodes[id].st.Deliver(c.reserveProposal(n, uint64(i+1)), c.env(id)))
		}
	}
	c.advance(20 * time.Second)
	for _, id := range []twophase.PeerID{"s1", "s2", "s3"} {
		if n := c.reserveEvents(id); n != 0 {
			t.Fatalf("%s created %d reserve events from a peer's proposals", id, n)
		}
		for _, r := range []twophase.Reason{twophase.ReasonReserveNonce, twophase.ReasonReserveNotDue} {
			if f, m := c.refusedAs(id, r); f != 1 || m != 1 {
				t.Fatalf("%s: %d refusals recorded and %d counted as %s, want 1 and 1", id, f, m, r)
			}
		}
	}
	if n := c.splits(outputs); n != 0 {
		t.Fatalf("%d splits of a reserve no member needed", n)
	}
	ev := streamEvent(0, 0)
	c.request(ev, "s1", "s2", "s3")
	c.advance(20 * time.Second)
	if got := c.payouts(ev); got != 1 {
		t.Fatalf("event paid %d times after the spam", got)
	}
	c.checkProfileB([]twophase.PeerID{"s1", "s2", "s3"})
}

// With a split due (one funded output), a far-nonce reserve proposal is
// refused and does not hold the reserve off: the members split once, at
// the stream's next nonce, and then pay events from the split.
func TestReserveFarNonceDoesNotDisableReserve(t *testing.T) {
	const outputs = 8
	edit := func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, 1 }
	c := newClusterFunded(t, 4, 3, edit, 1, func(p *twophase.Params) { p.AnchorStep, p.ReserveOutputs = 10, outputs })
	c.crash("s4")
	for _, id := range []twophase.PeerID{"s1", "s2", "s3"} {
		c.take(id, c.nodes[id].st.Deliver(c.reserveProposal(twophase.FirstNonce+5, 1), c.env(id)))
		if f, m := c.refusedAs(id, twophase.ReasonReserveNonce); f != 1 || m != 1 {
			t.Fatalf("%s: %d refusals recorded and %d counted as reserve_nonce, want 1 and 1", id, f, m)
		}
	}
	c.advance(30 * time.Second)
	if n := c.splits(outputs); n != 1 {
		t.Fatalf("%d splits, want 1", n)
	}
	for _, id := range []twophase.PeerID{"s1", "s2", "s3"} {
		if n := c.reserveEvents(id); n != 1 {
			t.Fatalf("%s holds %d reserve events, want 1 (the split)", id, n)
		}
	}
	ev := streamEvent(0, 0)
	c.request(ev, "s1", "s2", "s3")
	c.advance(30 * time.Second)
	if got := c.payouts(ev); got != 1 {
		t.Fatalf("event paid %d times", got)
	}
	c.checkProfileB([]twophase.PeerID{"s1", "s2", "s3"})
}
