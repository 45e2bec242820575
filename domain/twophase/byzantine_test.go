package twophase_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// theft turns a proposal into one that pays the same amount to another
// address (the proposer's own, say), re-hashed so that only the payout
// check can catch it.
func theft(t *testing.T, c *cluster, p twophase.Proposal) twophase.Proposal {
	t.Helper()
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		t.Fatal(err)
	}
	thief, _ := simledgerScript("sim:thief")
	for i := range tm.Outputs {
		if !tm.Outputs[i].Script.Equal(c.group.ChangeScript) {
			tm.Outputs[i].Script = thief
		}
	}
	p.Template = tm.Encode()
	p.TemplateHash = twophase.TemplateHash(p.Template)
	return p
}

// A malicious member proposes a template paying itself, and a colluding
// second vote for it: honest signers reject both before storing them,
// never sign, and pay the event correctly.
func TestMaliciousProposalNeverSigned(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s1")
	v, _ := ownVote(c, "s1", ev, 0)
	c.queue = nil
	bad := theft(t, c, c.proposalOf(t, v.Envelope))
	bad.Proposer = "s1"
	raw := c.craft("s1", 99, 1, twophase.KindProposal, bad.Encode())
	c.request(ev, "s2", "s3")
	c.queue = nil // only the forged proposal reaches s2 and s3 first
	for _, id := range []twophase.PeerID{"s2", "s3"} {
		c.take(id, c.nodes[id].st.Deliver(raw, c.env(id)))
		rej := c.facts(id, twophase.TypeVoteRejected)
		if len(rej) != 1 || rej[0].(twophase.VoteRejected).Reason != twophase.ReasonForeignOutput {
			t.Fatalf("%s: rejections %v, want one foreign_output", id, rej)
		}
	}
	c.advance(10 * time.Second)
	for _, id := range c.ids {
		for _, f := range c.facts(id, twophase.TypeTemplateSigned) {
			if f.(twophase.TemplateSigned).Hash == bad.TemplateHash {
				t.Fatalf("%s signed the theft", id)
			}
		}
	}
	if c.payouts(ev) != 1 {
		t.Fatal("the event was not paid once")
	}
	thief, _ := simledgerScript("sim:thief")
	for _, a := range c.ledger.AcceptedPayouts() {
		for _, o := range a.Template.Outputs {
			if o.Script.Equal(thief) {
				t.Fatal("the thief was paid")
			}
		}
	}
}

// A commit with forged evidence: fewer than a quorum, a proposal signed
// by the wrong key, a quorum made of one member counted twice, or votes
// for a theft. No honest signer fast-forwards or signs.
func TestForgedCommitEvidence(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s1")
	v, _ := ownVote(c, "s1", ev, 0)
	c.queue = nil
	good := c.proposalOf(t, v.Envelope)
	stolen := theft(t, c, good)
	s1Theft := c.craft("s1", 50, 1, twophase.KindProposal, stolen.Encode())
	stolen2 := stolen
	stolen2.Proposer = "s3"
	s3Theft := c.craft("s3", 50, 1, twophase.KindProposal, stolen2.Encode())
	forgedKey := stolen2
	forgedKey.Proposer = "s2"
	s2ByS1 := twophase.Envelope{Version: twophase.ProtocolVersion, Group: c.group.ID(), Sender: "s2", Session: 50, Seq: 2,
		Kind: twophase.KindProposal, Payload: forgedKey.Encode()}
	forged := twophase.Seal(c.idKeys["s1"], &s2ByS1) // s1 signs as s2
	cases := map[string][][]byte{
		"too few":       {v.Envelope},
		"counted twice": {v.Envelope, v.Envelope},
		"wrong key":     {s1Theft, forged},
		"theft":         {s1Theft, s3Theft},
	}
	c.request(ev, "s2")
	c.queue = nil
	seq := uint64(10)
	for name, evidence := range cases {
		hash := stolen.TemplateHash
		if name == "too few" || name == "counted twice" {
			hash = good.TemplateHash
		}
		seq++
		cm := twophase.Commit{EventID: ev.ID(), Round: 0, TemplateHash: hash, Evidence: evidence}
		before := badEvidence(c.observed("s2", twophase.MetricValidationFailures))
		c.take("s2", c.nodes["s2"].st.Deliver(c.craft("s1", 60, seq, twophase.KindCommit, cm.Encode()), c.env("s2")))
		if n := badEvidence(c.observed("s2", twophase.MetricValidationFailures)); n != before+1 {
			t.Errorf("%s: not refused as bad evidence (%d counted, was %d)", name, n, before)
		}
		if len(c.facts("s2", twophase.TypeCommitted)) != 0 || len(c.facts("s2", twophase.TypeTemplateSigned)) != 0 {
			t.Fatalf("%s: s2 committed or signed on forged evidence", name)
		}
	}
	// s1's commits of one slot refused for one reason: one record.
	if rej := c.facts("s2", twophase.TypeVoteRejected); len(rej) != 1 || rej[0].(twophase.VoteRejected).Reason != twophase.ReasonBadEvidence {
		t.Errorf("refusals recorded %v, want one bad_evidence", rej)
	}
}

// Equivocation: a member sends two different proposals in one round.
// The first stands, the second is recorded as proof and counted.
func TestEquivocation(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s2")
	c.queue = nil
	v, _ := ownVote(c, "s2", ev, 0)
	p := c.proposalOf(t, v.Envelope)
	p.Proposer = "s1"
	first := c.craft("s1", 70, 1, twophase.KindProposal, p.Encode())
	other := p
	other.Template = append([]byte(nil), p.Template...)
	tm, _ := twophase.DecodeTemplate(other.Template, 100, 16)
	tm.LockTime = 1
	other.Template, other.TemplateHash = tm.Encode(), tm.Hash()
	second := c.craft("s1", 70, 2, twophase.KindProposal, other.Encode())
	c.take("s2", c.nodes["s2"].st.Deliver(first, c.env("s2")))
	c.take("s2", c.nodes["s2"].st.Deliver(second, c.env("s2")))
	eq := c.facts("s2", twophase.TypeEquivocation)
	if len(eq) != 1 {
		t.Fatalf("%d equivocations recorded, want 1", len(eq))
	}
	e := eq[0].(twophase.Equivocation)
	if e.Voter != "s1" || e.FirstHash != p.TemplateHash || e.SecondHash != other.TemplateHash {
		t.Fatalf("equivocation %+v", e)
	}
	for _, b := range c.nodes["s2"].st.Votes(ev.ID(), 0) {
		if b.Voter == "s1" && b.Hash != p.TemplateHash {
			t.Fatal("the second vote replaced the first")
		}
	}
}

// Invalid proposals are rejected before storage with their reason.
func TestInvalidProposalsRejected(t *testing.T) {
	c := newCluster(t, 3, 2, func(p *twophase.Params) {})
	ev := event(0)
	c.request(ev, "s2")
	c.queue = nil
	v, _ := ownVote(c, "s2", ev, 0)
	base := c.proposalOf(t, v.Envelope)
	base.Proposer = "s1"
	mutate := map[twophase.Reason]func(p *twophase.Proposal){
		twophase.ReasonHashMismatch:     func(p *twophase.Proposal) { p.TemplateHash[0] ^= 1 },
		twophase.ReasonProposerMismatch: func(p *twophase.Proposal) { p.Proposer = "s3" },
		twophase.ReasonWrongPayout: func(p *twophase.Proposal) {
			tm, _ := twophase.DecodeTemplate(p.Template, 100, 16)
			tm.Outputs[0].Amount--
			tm.Outputs[1].Amount++
			p.Template, p.TemplateHash = tm.Encode(), tm.Hash()
		},
		twophase.ReasonFeeOutOfBounds: func(p *twophase.Proposal) {
			tm, _ := twophase.DecodeTemplate(p.Template, 100, 16)
			tm.Outputs[1].Amount -= 500_000
			p.Template, p.TemplateHash = tm.Encode(), tm.Hash()
		},
		twophase.ReasonStructure: func(p *twophase.Proposal) { p.Inputs = nil },
	}
	seq := uint64(0)
	for want, f := range mutate {
		p := base
		p.Template = append([]byte(nil), base.Template...)
		f(&p)
		seq++
		before := len(c.facts("s2", twophase.TypeVoteRejected))
		c.take("s2", c.nodes["s2"].st.Deliver(c.craft("s1", 80, seq, twophase.KindProposal, p.Encode()), c.env("s2")))
		rej := c.facts("s2", twophase.TypeVoteRejected)
		if len(rej) != before+1 {
			t.Errorf("%s: not rejected", want)
			continue
		}
		if got := rej[len(rej)-1].(twophase.VoteRejected).Reason; got != want {
			t.Errorf("rejected as %s, want %s", got, want)
		}
	}
	if bs := c.nodes["s2"].st.Votes(ev.ID(), 0); len(bs) != 1 {
		t.Fatalf("%d votes stored, want only s2's own", len(bs))
	}
}

// Envelopes that fail before the protocol: a replay, a wrong signature,
// another group, another protocol version, an unknown sender, garbage.
func TestEnvelopeRejections(t *testing.T) {
	c := newCluster(t, 3, 2)
	payload := twophase.NoVote{Voter: "s1"}.Encode()
	ok := c.craft("s1", 5, 1, twophase.KindNoVote, payload)
	wrongGroup := twophase.Envelope{Version: twophase.ProtocolVersion, Sender: "s1", Session: 5, Seq: 2, Kind: twophase.KindNoVote, Payload: payload}
	wrongVersion := twophase.Envelope{Version: 9, Group: c.group.ID(), Sender: "s1", Session: 5, Seq: 3, Kind: twophase.KindNoVote, Payload: payload}
	unknown := twophase.Envelope{Version: twophase.ProtocolVersion, Group: c.group.ID(), Sender: "mallory", Session: 5, Seq: 4, Kind: twophase.KindNoVote, Payload: payload}
	badSig := append([]byte(nil), ok...)
	badSig[len(badSig)-1] ^= 1
	cases := []struct {
		raw  []byte
		want twophase.Reason
	}{
		{ok, ""},
		{ok, twophase.ReasonReplayed},
		{badSig, twophase.ReasonBadSignature},
		{twophase.Seal(c.idKeys["s1"], &wrongGroup), twophase.ReasonWrongGroup},
		{twophase.Seal(c.idKeys["s1"], &wrongVersion), twophase.ReasonWrongVersion},
		{twophase.Seal(c.idKeys["s1"], &unknown), twophase.ReasonUnknownSender},
		{[]byte("garbage"), twophase.ReasonMalformed},
		{make([]byte, twophase.MaxEnvelopeBytes+1), twophase.ReasonOversized},
	}
	for _, tc := range cases {
		st := c.nodes["s2"].st.Deliver(tc.raw, c.env("s2"))
		var got twophase.Reason
		for _, m := range st.Metrics {
			if m.Name == twophase.MetricMessagesRejected {
				got = twophase.Reason(m.Label)
			}
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// badEvidence counts the refusals observed as bad_evidence.
func badEvidence(obs []twophase.Observation) int {
	n := 0
	for _, o := range obs {
		if o.Label == string(twophase.ReasonBadEvidence) {
			n++
		}
	}
	return n
}
