package twophase_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// newClusterB is a Profile B group of n members tolerating f Byzantine,
// the least quorum (2f+1 at N = 3f+1), anchoring every 10 DAA scores (a second of the test
// ledger).
func newClusterB(t tb, n, f int, mutate ...func(*twophase.Params)) *cluster {
	t.Helper()
	edit := func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, f }
	return newClusterOf(t, n, twophase.ProfileBQuorum(n, f), edit, append([]func(*twophase.Params){func(p *twophase.Params) { p.AnchorStep = 10 }}, mutate...)...)
}

// streamEvent is event n of stream s.
func streamEvent(s, n uint64) twophase.SigningEvent {
	return twophase.SigningEvent{Stream: fmt.Sprintf("evm:1337:bridge/%d", s), Nonce: n + twophase.FirstNonce,
		Destination: fmt.Sprintf("sim:user-%d-%d", s, n), Amount: 50_000 + 100*s + n, Source: twophase.SourceRef{Chain: "evm:1337", Block: 100 + n}}
}

// certs collects every lock certificate the honest members accepted:
// event -> template hashes, and outpoint -> the events reserving it.
func (c *cluster) certs(honest []twophase.PeerID) (map[twophase.Hash]map[twophase.Hash]bool, map[twophase.Outpoint]map[twophase.Hash]bool) {
	byEvent := map[twophase.Hash]map[twophase.Hash]bool{}
	byOutpoint := map[twophase.Outpoint]map[twophase.Hash]bool{}
	for _, id := range honest {
		for _, f := range c.facts(id, twophase.TypeLockCertAccepted) {
			a := f.(twophase.LockCertAccepted)
			if byEvent[a.EventID] == nil {
				byEvent[a.EventID] = map[twophase.Hash]bool{}
			}
			byEvent[a.EventID][a.TemplateHash] = true
			for _, o := range a.Outpoints {
				if byOutpoint[o] == nil {
					byOutpoint[o] = map[twophase.Hash]bool{}
				}
				byOutpoint[o][a.EventID] = true
			}
		}
	}
	return byEvent, byOutpoint
}

// checkProfileB asserts Profile B's invariants over the honest members:
// one certified template per event, no outpoint reserved by two events'
// certificates, one signed template per event and member (checkSafety).
func (c *cluster) checkProfileB(honest []twophase.PeerID) {
	c.t.Helper()
	c.checkCerts(honest)
	c.checkSafety()
}

// checkCerts: over the members named, one certified template per event
// and no outpoint reserved by two events' certificates.
func (c *cluster) checkCerts(honest []twophase.PeerID) {
	c.t.Helper()
	byEvent, byOutpoint := c.certs(honest)
	for ev, hs := range byEvent {
		if len(hs) > 1 {
			c.t.Errorf("event %s has %d certified templates", ev.Short(), len(hs))
		}
	}
	for o, evs := range byOutpoint {
		if len(evs) > 1 {
			c.t.Errorf("outpoint %s reserved by %d events' certificates", o, len(evs))
		}
	}
}

// Events of four streams run at once: each is paid exactly once under a
// lock certificate, certificates of different events never share an
// outpoint, and several events hold certificates at the same time; with
// as few outputs as events the plans' salted selections collide, and the
// members' own locks keep them apart.
func TestProfileBPaysConcurrentEvents(t *testing.T) {
	for _, funds := range []int{20, 4} {
		t.Run(fmt.Sprintf("%d outputs", funds), func(t *testing.T) { payConcurrentEvents(t, funds) })
	}
}

func payConcurrentEvents(t *testing.T, funds int) {
	edit := func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, 1 }
	c := newClusterFunded(t, 4, 3, edit, funds, func(p *twophase.Params) { p.AnchorStep = 10 })
	var evs []twophase.SigningEvent
	for s := uint64(0); s < 4; s++ {
		for n := uint64(0); n < 2; n++ {
			evs = append(evs, streamEvent(s, n))
		}
	}
	for _, ev := range evs {
		c.request(ev)
	}
	for i := 0; i < 60; i++ {
		c.advance(c.params.Tick)
		c.checkProfileB(c.ids)
	}
	for _, ev := range evs {
		if got := c.payouts(ev); got != 1 {
			t.Errorf("event %s paid %d times", ev.ID().Short(), got)
		}
	}
	// Concurrency: the first four certificates (one per stream) came
	// before the first payout completed.
	certs, firstDone := 0, -1
	for i, f := range c.nodes["s1"].log {
		switch f.EventType() {
		case twophase.TypeLockCertAccepted:
			if firstDone < 0 {
				certs++
			}
		case twophase.TypeCompleted:
			if firstDone < 0 {
				firstDone = i
			}
		}
	}
	if certs < 4 {
		t.Errorf("%d certificates before the first completion, want the 4 streams' heads at once", certs)
	}
	if got := c.observed("s1", twophase.MetricLockCertsAccepted); len(got) != len(evs) {
		t.Errorf("lock_certs_accepted_total observed %d times, want %d", len(got), len(evs))
	}
}

// An equivocating member (s4) sends one plan to half the group and
// another (other inputs, both with valid lock signatures) to the other
// half: no split commit, one payout.
func TestProfileBEquivocatorNeverSplits(t *testing.T) {
	c := newClusterB(t, 4, 1)
	ev := streamEvent(0, 0)
	c.request(ev, "s4")
	c.tickOnly("s4")
	v, _ := ownVote(c, "s4", ev, 0)
	c.queue = nil
	good := c.proposalOf(t, v.Envelope)
	other := c.replan(t, good, "s4")
	for i, to := range []twophase.PeerID{"s1", "s2", "s3"} {
		p := good
		if i == 0 {
			p = other
		}
		c.queue = append(c.queue, msg{from: "s4", to: to, kind: twophase.KindProposal, raw: c.craft("s4", 50, uint64(10+i), twophase.KindProposal, p.Encode())})
	}
	c.request(ev, "s1", "s2", "s3")
	c.advance(30 * time.Second)
	if got := c.payouts(ev); got != 1 {
		t.Fatalf("paid %d times", got)
	}
	c.checkProfileB([]twophase.PeerID{"s1", "s2", "s3"})
}

// tickOnly moves time a tick and runs member id's tick alone, nothing
// delivered: Profile B locks an event a tick after it learnt of it.
func (c *cluster) tickOnly(id twophase.PeerID) {
	c.now = c.now.Add(c.params.Tick)
	c.ledger.AdvanceTo(c.now)
	c.take(id, c.nodes[id].st.Tick(c.env(id)))
}

// replan rebuilds a plan on other inputs (the last funded output instead
// of the first), re-hashed and lock-signed by member id: a valid-looking
// second plan for the same (event, round).
func (c *cluster) replan(t tb, p twophase.Proposal, id twophase.PeerID) twophase.Proposal {
	t.Helper()
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		t.Fatal(err)
	}
	// Another deep group output of at least the same amount.
	for _, u := range c.ledger.View(0).UTXOs {
		if u.Outpoint != tm.Inputs[0].Outpoint && u.Amount >= tm.Inputs[0].Amount && u.DAAScore < 500 {
			return c.spending(p, tm, u, id)
		}
	}
	return c.spending(p, tm, twophase.UTXO{Outpoint: tm.Inputs[0].Outpoint, Amount: tm.Inputs[0].Amount, DAAScore: p.Inputs[0].DAAScore}, id)
}

// spending is plan p (of template tm) with its first input replaced by u,
// the change absorbing the difference in amount, re-hashed and
// lock-signed by member id.
func (c *cluster) spending(p twophase.Proposal, tm twophase.Template, u twophase.UTXO, id twophase.PeerID) twophase.Proposal {
	in := tm.Inputs[0]
	tm.Inputs = slices.Clone(tm.Inputs)
	tm.Outputs = slices.Clone(tm.Outputs)
	tm.Inputs[0].Outpoint, tm.Inputs[0].Amount = u.Outpoint, u.Amount
	for i := range tm.Outputs {
		if tm.Outputs[i].Script.Equal(c.group.ChangeScript) {
			tm.Outputs[i].Amount += u.Amount - in.Amount
		}
	}
	p.Inputs = slices.Clone(p.Inputs)
	p.Inputs[0].DAAScore = u.DAAScore
	p.Template = tm.Encode()
	p.TemplateHash = twophase.TemplateHash(p.Template)
	p.LockSig = twophase.SignPrevote(c.idKeys[id], c.group.ID(), twophase.LockMsgOf(p, tm))
	return p
}

// A plan whose inputs another event's certificate reserves is refused
// with outpoint_locked and counted; so are plans without a valid lock
// signature and plans whose anchor the receiver's node has not reached
// or that fell behind the depth policy.
func TestProfileBRefusesBadPlans(t *testing.T) {
	c := newClusterB(t, 4, 1)
	first := streamEvent(0, 0)
	c.request(first)
	c.advance(c.params.Tick) // locked, certified and submitted; not yet in a block
	if c.phase("s1", first) != twophase.PhaseCommitted && c.phase("s1", first) != twophase.PhaseCompleted {
		t.Fatalf("first event is %v", c.phase("s1", first))
	}
	certs := c.facts("s1", twophase.TypeLockCertAccepted)
	if len(certs) != 1 {
		t.Fatalf("%d certificates", len(certs))
	}
	reserved := certs[0].(twophase.LockCertAccepted).Outpoints[0]
	certified, _ := c.templateOf(certs[0].(twophase.LockCertAccepted).TemplateHash)

	second := streamEvent(1, 0)
	c.request(second, "s4")
	c.tickOnly("s4")
	v, _ := ownVote(c, "s4", second, 0)
	c.queue = nil
	p := c.proposalOf(t, v.Envelope)
	tm, _ := twophase.DecodeTemplate(p.Template, 100, 16)
	// Spend the reserved output instead, as the certified template spends
	// it (funded at DAA score 100).
	lockedPlan := c.spending(p, tm, twophase.UTXO{Outpoint: reserved, Amount: certified.Inputs[0].Amount, DAAScore: 100}, "s4")

	unsigned := c.proposalOf(t, v.Envelope)
	unsigned.LockSig = nil
	forged := c.proposalOf(t, v.Envelope)
	forged.LockSig = twophase.SignPrevote(c.idKeys["s3"], c.group.ID(), twophase.LockMsgOf(forged, tm)) // s3's key, s4's plan
	resign := func(p twophase.Proposal) twophase.Proposal {
		orig, _ := twophase.DecodeTemplate(p.Template, 100, 16)
		p.LockSig = twophase.SignPrevote(c.idKeys["s4"], c.group.ID(), twophase.LockMsgOf(p, orig))
		return p
	}
	virtual := c.ledger.View(0).VirtualDAAScore
	ahead := c.proposalOf(t, v.Envelope)
	ahead.Anchor = &twophase.Anchor{TipScore: virtual + 1000}
	stale := c.proposalOf(t, v.Envelope)
	stale.Anchor = &twophase.Anchor{TipScore: virtual - c.params.WithDefaults().MaxAnchorAge - 1}
	shallow := c.proposalOf(t, v.Envelope)
	shallow.Inputs[0].DAAScore = shallow.Anchor.TipScore // created at the anchor: not deep there
	noAnchor := c.proposalOf(t, v.Envelope)
	noAnchor.Anchor = nil

	c.request(second, "s1")
	cases := []struct {
		p    twophase.Proposal
		want twophase.Reason
	}{
		{lockedPlan, twophase.ReasonOutpointLocked},
		{unsigned, twophase.ReasonBadLockSignature},
		{forged, twophase.ReasonBadLockSignature},
		{resign(ahead), twophase.ReasonAnchorUnknown},
		{resign(stale), twophase.ReasonAnchorStale},
		{resign(shallow), twophase.ReasonShallowAtAnchor},
		{resign(noAnchor), twophase.ReasonAnchorMissing},
	}
	recorded := map[twophase.Reason]bool{} // a slot's refusal is recorded once a reason
	for i, cs := range cases {
		before := len(c.facts("s1", twophase.TypeVoteRejected))
		c.take("s1", c.nodes["s1"].st.Deliver(c.craft("s4", 60, uint64(i+1), twophase.KindProposal, cs.p.Encode()), c.env("s1")))
		rej := c.facts("s1", twophase.TypeVoteRejected)
		switch {
		case recorded[cs.want] && len(rej) != before:
			t.Errorf("case %d: %s recorded again: %v", i, cs.want, rej[before:])
		case !recorded[cs.want] && (len(rej) != before+1 || rej[len(rej)-1].(twophase.VoteRejected).Reason != cs.want):
			t.Errorf("case %d: rejections %v, want %s", i, rej[before:], cs.want)
		}
		recorded[cs.want] = true
	}
	if len(c.observed("s1", twophase.MetricOutpointLockConflicts)) == 0 {
		t.Error("outpoint_lock_conflicts_total not counted")
	}
}

// Members refuse to start a Profile B group that cannot tolerate its f.
func TestProfileBGroupQuorumMath(t *testing.T) {
	for _, n := range []int{4, 7, 10, 19, 20} {
		f := (n - 1) / 3
		c := newClusterB(t, n, f)
		q := c.group.Quorum
		if n == 3*f+1 && q != 2*f+1 {
			t.Fatalf("N=%d: quorum %d, want 2f+1 = %d", n, q, 2*f+1)
		}
		if 2*q-n < f+1 || q > n-f {
			t.Fatalf("N=%d f=%d quorum %d: quorums share %d members", n, f, q, 2*q-n)
		}
		for _, bad := range []func(g *twophase.Group){
			func(g *twophase.Group) { g.Faults = f + 1 },     // N < 3f+1
			func(g *twophase.Group) { g.Quorum = q - 1 },     // two quorums share only f
			func(g *twophase.Group) { g.Quorum = n - f + 1 }, // out of reach with f silent
		} {
			g := c.group
			bad(&g)
			if err := g.Validate(); err == nil {
				t.Errorf("N=%d accepted faults %d quorum %d", n, g.Faults, g.Quorum)
			}
		}
	}
}

// The deep UTXO reserve: a Profile B group funded with one large output
// splits it, while idle, into ReserveOutputs outputs through the
// protocol (a certificate, a payout to itself), and then pays events of
// several streams at once from them; a member whose view does not need
// the split still joins it on its peers' plans.
func TestProfileBReserveSplitsForConcurrency(t *testing.T) {
	const outputs = 8
	edit := func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, 1 }
	c := newClusterFunded(t, 4, 3, edit, 1, func(p *twophase.Params) { p.AnchorStep, p.ReserveOutputs = 10, outputs })
	c.advance(20 * time.Second)
	var splits int
	for _, a := range c.ledger.AcceptedPayouts() {
		if len(a.Template.Outputs) == outputs {
			splits++
			for _, o := range a.Template.Outputs {
				if !o.Script.Equal(c.group.ChangeScript) {
					t.Fatalf("the split pays outside the group")
				}
			}
		}
	}
	if splits != 1 {
		t.Fatalf("%d splits, want 1 (idle, one deep output, a reserve of %d)", splits, outputs)
	}
	for _, id := range c.ids {
		reqs := c.facts(id, twophase.TypeEventRequested)
		if len(reqs) != 1 || !reqs[0].(twophase.EventRequested).Event.IsReserve() {
			t.Fatalf("%s requested %v", id, reqs)
		}
	}
	c.advance(10 * time.Second) // the split's outputs deepen
	var evs []twophase.SigningEvent
	for s := uint64(0); s < 4; s++ {
		evs = append(evs, streamEvent(s, 0))
	}
	for _, ev := range evs {
		c.request(ev)
	}
	c.advance(30 * time.Second)
	for _, ev := range evs {
		if got := c.payouts(ev); got != 1 {
			t.Errorf("event %s paid %d times", ev.ID().Short(), got)
		}
	}
	c.checkProfileB(c.ids)
	// No second split: the reserve holds enough deep outputs still.
	reserves := 0
	for _, f := range c.facts("s1", twophase.TypeEventRequested) {
		if f.(twophase.EventRequested).Event.IsReserve() {
			reserves++
		}
	}
	if reserves != 1 {
		t.Errorf("%d reserve events", reserves)
	}
}

// Two events whose salted selections start from the same output,
// requested in opposite orders at two halves of the group: every member
// gives the output to the earlier event, so the votes do not split and
// both are paid.
func TestProfileBConcurrentEventsSplitByRequestOrderStillPay(t *testing.T) {
	c := newClusterB(t, 4, 1)
	cfg := c.config("s1")
	p := cfg.Params.WithDefaults()
	view := c.ledger.View(0)
	view.VirtualDAAScore -= view.VirtualDAAScore % p.AnchorStep
	first := map[twophase.Outpoint]twophase.SigningEvent{}
	var x, y twophase.SigningEvent
	for s := uint64(0); s < 200 && x.Stream == ""; s++ {
		ev := streamEvent(s, 0)
		id := ev.ID()
		_, ins, _, err := twophase.BuildTemplate(twophase.BuildRequest{Event: ev, Group: cfg.Group, Params: p, Policy: cfg.Policy,
			Rules: cfg.Rules, Salt: &id}, view)
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := first[ins[0].Outpoint]; ok {
			x, y = other, ev
		}
		first[ins[0].Outpoint] = ev
	}
	if x.Stream == "" {
		t.Fatal("no two events start from the same output")
	}
	c.request(x, "s1", "s2")
	c.request(y, "s3", "s4")
	c.request(y, "s1", "s2")
	c.request(x, "s3", "s4")
	c.advance(2 * time.Minute)
	for _, ev := range []twophase.SigningEvent{x, y} {
		if got := c.payouts(ev); got != 1 {
			t.Errorf("event %s paid %d times; phases %s", ev.ID().Short(), got, c.describe(ev))
		}
	}
	for _, id := range c.ids {
		if n := len(c.facts(id, twophase.TypeRoundFailed)); n != 0 {
			t.Errorf("%s failed %d rounds: the votes split", id, n)
		}
	}
	c.checkProfileB(c.ids)
}
