package twophase_test

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// newSplitCluster is N = 9, f = 2 (quorum 6) funded so that the honest
// members split 4-3 in round 0: s1-s4 see a fresh large output deep and
// build on it, s5-s7 (their nodes 10 DAA behind) do not see it deep yet
// and build on an older one. s8 and s9 are the Byzantine members.
func newSplitCluster(t *testing.T) *cluster {
	c := newClusterFunded(t, 9, twophase.ProfileBQuorum(9, 2), func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, 2 }, 1,
		func(p *twophase.Params) { p.AnchorStep = 10 })
	for _, id := range []twophase.PeerID{"s5", "s6", "s7"} {
		c.lag[id] = 10
	}
	virtual := c.ledger.View(0).VirtualDAAScore
	c.ledger.Fund(twophase.Outpoint{TxID: sha256.Sum256([]byte("fresh")), Index: 0}, 5_000_000, virtual-25, false)
	return c
}

// ownPrevotes are the templates each member prevoted in round.
func ownPrevotes(c *cluster, ev twophase.SigningEvent, round uint32, ids ...twophase.PeerID) map[twophase.PeerID]twophase.Hash {
	out := map[twophase.PeerID]twophase.Hash{}
	for _, id := range ids {
		if v, ok := ownVote(c, id, ev, round); ok && !v.NoVote {
			out[id] = v.Hash
		}
	}
	return out
}

var honest7 = []twophase.PeerID{"s1", "s2", "s3", "s4", "s5", "s6", "s7"}

// A 4-3 split of the honest members over two templates, with the two
// Byzantine members silent or equivocating, is resolved by the rounds
// that follow (the one-step rule left every member abstaining: both
// templates could have been certified with f fewer votes): the event is
// paid once, every honest member completes it, none abandons it.
func TestProfileBHonestSplitCompletes(t *testing.T) {
	for _, byz := range []string{"silent", "equivocate"} {
		t.Run(byz, func(t *testing.T) {
			c := newSplitCluster(t)
			if byz == "silent" {
				c.crash("s8")
				c.crash("s9")
			} else {
				b := &byzantine{c: c, behaviour: map[twophase.PeerID]string{"s8": "equivocate", "s9": "equivocate"},
					seq: map[twophase.PeerID]uint64{}, rng: rand.New(rand.NewPCG(1, 2))}
				c.rewrite = b.rewrite
			}
			ev := streamEvent(0, 0)
			c.request(ev)
			c.advanceUntil(5*time.Second, "every honest member prevoted in round 0", func() bool {
				return len(ownPrevotes(c, ev, 0, honest7...)) == len(honest7)
			})
			votes := ownPrevotes(c, ev, 0, honest7...)
			split := map[twophase.Hash]int{}
			for _, h := range votes {
				split[h]++
			}
			if len(split) != 2 || (split[votes["s1"]] != 4 && split[votes["s1"]] != 3) {
				t.Fatalf("round 0 prevotes %v: want the honest members split 4-3 over two templates", votes)
			}
			c.advanceUntil(2*time.Minute, "every honest member completed the event", func() bool {
				for _, id := range honest7 {
					if c.phase(id, ev) != twophase.PhaseCompleted {
						return false
					}
				}
				return true
			})
			for _, id := range honest7 {
				if n := len(c.facts(id, twophase.TypeAbandoned)); n != 0 {
					t.Errorf("%s abandoned the event", id)
				}
			}
			if n := c.payouts(ev); n != 1 {
				t.Fatalf("paid %d times", n)
			}
			c.checkSafety()
		})
	}
}

// prevoteAs is plan p moved to round and re-signed as member id's
// prevote, sealed in a session of the test's.
func (c *cluster) prevoteAs(t *testing.T, p twophase.Proposal, id twophase.PeerID, round uint32, seq uint64) []byte {
	t.Helper()
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		t.Fatal(err)
	}
	p.Proposer, p.Round = id, round
	p.LockSig = twophase.SignPrevote(c.idKeys[id], c.group.ID(), twophase.LockMsgOf(p, tm))
	return c.craft(id, 77, seq, twophase.KindProposal, p.Encode())
}

// precommitAs seals member id's precommit of plan p's lock message.
func (c *cluster) precommitAs(t *testing.T, p twophase.Proposal, id twophase.PeerID, seq uint64) []byte {
	t.Helper()
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		t.Fatal(err)
	}
	m := twophase.LockMsgOf(p, tm)
	pc := twophase.Precommit{EventID: p.EventID(), Epoch: p.Epoch, Round: p.Round, Voter: id, Lock: m,
		LockSig: twophase.SignLock(c.idKeys[id], c.group.ID(), m), TimestampNs: c.now.UnixNano()}
	return c.craft(id, 77, seq, twophase.KindPrecommit, pc.Encode())
}

func ownPrecommit(c *cluster, id twophase.PeerID, ev twophase.SigningEvent, round uint32) (twophase.PrecommitAccepted, bool) {
	for _, f := range c.facts(id, twophase.TypePrecommitAccepted) {
		if p := f.(twophase.PrecommitAccepted); p.Own && p.EventID == ev.ID() && p.Round == round {
			return p, true
		}
	}
	return twophase.PrecommitAccepted{}, false
}

// deliver hands member to one envelope.
func (c *cluster) deliver(to twophase.PeerID, raw []byte) {
	c.take(to, c.nodes[to].st.Deliver(raw, c.env(to)))
}

// N = 4, f = 1: s1 alone is up and sees a polka for its plan X in round
// 0 (s2 and s3 prevote it), so it precommits X and is locked on it; no
// certificate forms. Restarted from its log, it is still locked: shown a
// round 1 where s2 and s3 prevote another plan Y (the most prevoted
// there, and not a polka), it prevotes X again, never Y. When s4's
// prevote makes Y a polka of round 1, later than its lock, it precommits
// Y in round 1 and prevotes Y in round 2.
func TestProfileBLockHoldsUntilALaterPolka(t *testing.T) {
	c := newClusterB(t, 4, 1)
	for _, id := range []twophase.PeerID{"s2", "s3", "s4"} {
		c.crash(id)
	}
	ev := streamEvent(0, 0)
	c.request(ev, "s1")
	c.advanceUntil(5*time.Second, "s1 prevoted in round 0", func() bool { _, ok := ownVote(c, "s1", ev, 0); return ok })
	own, _ := ownVote(c, "s1", ev, 0)
	x := c.proposalOf(t, own.Envelope)
	c.deliver("s1", c.prevoteAs(t, x, "s2", 0, 1))
	c.deliver("s1", c.prevoteAs(t, x, "s3", 0, 1))
	if pc, ok := ownPrecommit(c, "s1", ev, 0); !ok || pc.Nil || pc.Hash != x.TemplateHash {
		t.Fatalf("after a polka for X in round 0, s1's precommit is %+v (%v), want X", pc, ok)
	}
	c.advanceUntil(10*time.Second, "round 0 failed at s1", func() bool { return c.phase("s1", ev) == twophase.PhaseFailed })

	c.crash("s1")
	c.start("s1")
	y := c.replan(t, x, "s2")
	if y.TemplateHash == x.TemplateHash {
		t.Fatal("no second plan")
	}
	c.deliver("s1", c.prevoteAs(t, y, "s2", 1, 2))
	c.deliver("s1", c.prevoteAs(t, y, "s3", 1, 2))
	if r := c.round("s1", ev); r != 1 {
		t.Fatalf("s1 in round %d after f+1 votes of round 1, want 1", r)
	}
	v, ok := ownVote(c, "s1", ev, 1)
	if !ok || v.NoVote || v.Hash != x.TemplateHash {
		t.Fatalf("locked on X, s1 prevoted %s in round 1 (no-vote %v), want X %s", v.Hash.Short(), v.NoVote, x.TemplateHash.Short())
	}
	c.deliver("s1", c.prevoteAs(t, y, "s4", 1, 1))
	if pc, ok := ownPrecommit(c, "s1", ev, 1); !ok || pc.Nil || pc.Hash != y.TemplateHash {
		t.Fatalf("after a polka for Y in round 1, s1's precommit is %+v (%v), want Y", pc, ok)
	}
	c.advanceUntil(20*time.Second, "s1 prevoted in round 2", func() bool { _, ok := ownVote(c, "s1", ev, 2); return ok })
	if v, _ := ownVote(c, "s1", ev, 2); v.NoVote || v.Hash != y.TemplateHash {
		t.Fatalf("after a polka for Y in round 1, s1 prevoted %s in round 2 (no-vote %v), want Y", v.Hash.Short(), v.NoVote)
	}
	if n := len(c.facts("s1", twophase.TypeLockCertAccepted)); n != 0 {
		t.Fatalf("%d certificates from one member's precommits", n)
	}
}

// A member's second, different precommit of a round is an equivocation:
// recorded once with its envelope as evidence, each counted, and the
// first stands.
func TestProfileBEquivocatingPrecommitIsEvidence(t *testing.T) {
	c := newClusterB(t, 4, 1)
	for _, id := range []twophase.PeerID{"s2", "s3", "s4"} {
		c.crash(id)
	}
	ev := streamEvent(0, 0)
	c.request(ev, "s1")
	c.advanceUntil(5*time.Second, "s1 prevoted in round 0", func() bool { _, ok := ownVote(c, "s1", ev, 0); return ok })
	own, _ := ownVote(c, "s1", ev, 0)
	x := c.proposalOf(t, own.Envelope)
	y := c.replan(t, x, "s4")
	c.deliver("s1", c.precommitAs(t, x, "s4", 1))
	second := c.precommitAs(t, y, "s4", 2)
	c.deliver("s1", second)
	// More of the same slot are counted, not recorded again: the first
	// proof is enough, and a flood must not grow the log.
	c.deliver("s1", c.precommitAs(t, y, "s4", 3))
	var eq []twophase.Equivocation
	for _, f := range c.facts("s1", twophase.TypeEquivocation) {
		eq = append(eq, f.(twophase.Equivocation))
	}
	if len(eq) != 1 || !eq[0].Precommit || eq[0].Voter != "s4" || eq[0].FirstHash != x.TemplateHash ||
		eq[0].SecondHash != y.TemplateHash || string(eq[0].Envelope) != string(second) {
		t.Fatalf("equivocation facts %+v, want one of s4's precommits, X then Y, with the second envelope", eq)
	}
	if n := len(c.observed("s1", twophase.MetricEquivocations)); n < 2 {
		t.Errorf("%d equivocations counted, want each of the 2", n)
	}
	stored := 0
	for _, f := range c.facts("s1", twophase.TypePrecommitAccepted) {
		if p := f.(twophase.PrecommitAccepted); p.Voter == "s4" {
			stored++
			if p.Hash != x.TemplateHash {
				t.Errorf("s4's stored precommit is %s, want the first (X)", p.Hash.Short())
			}
		}
	}
	if stored != 1 {
		t.Fatalf("%d precommits of s4 stored, want 1", stored)
	}
}
