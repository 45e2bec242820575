package twophase_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// noVote seals a no-vote of voter for ev's round, as voter would.
func (c *cluster) noVote(voter twophase.PeerID, ev twophase.SigningEvent, round uint32, seq uint64) []byte {
	nv := twophase.NoVote{EventID: ev.ID(), Round: round, Voter: voter, Reason: twophase.ReasonTimeoutNoQuorum, TimestampNs: c.now.UnixNano()}
	return c.craft(voter, 99, seq, twophase.KindNoVote, nv.Encode())
}

// syncAnswer seals a sync response of from holding votes of ev's round.
func (c *cluster) syncAnswer(from twophase.PeerID, ev twophase.SigningEvent, round uint32, seq uint64, votes ...[]byte) []byte {
	resp := twophase.SyncResponse{States: []twophase.SyncState{{EventID: ev.ID(), Phase: twophase.PhaseProposing, Round: round, Votes: votes}}}
	return c.craft(from, 99, seq, twophase.KindSyncResponse, resp.Encode())
}

func (c *cluster) round(id twophase.PeerID, ev twophase.SigningEvent) uint32 {
	e, _ := c.nodes[id].st.Event(ev.ID())
	return e.Round
}

// advanceUntil moves time a tick at a time until cond holds, or fails.
func (c *cluster) advanceUntil(within time.Duration, what string, cond func() bool) {
	c.t.Helper()
	end := c.now.Add(within)
	for !cond() {
		if !c.now.Before(end) {
			c.t.Fatalf("not within %v: %s", within, what)
		}
		c.advance(c.params.Tick)
	}
}

// N = 4, one Byzantine member (s4, otherwise silent): s1 and s2 hold the
// event in round `join` without a quorum (s3 is down); s3 comes back and,
// before anything else, gets s4's signed no-vote for round 3, the last.
// Were s3 to start there, it would no-vote every round before and the
// event would end Abandoned. The no-vote is refused (future_round): s3
// starts at round 0, catches up to `join` on its peers' evidence, and the
// event completes everywhere, paid once. Profile B (f = 1) joins in
// round 0; Profile A (quorum 3 of 4) in round 2, after two failed rounds
// (Profile B's lock rules leave rounds after a 2-of-4 split to no-votes).
func TestFarAheadNoVoteDoesNotAbandon(t *testing.T) {
	for _, tc := range []struct {
		name string
		join uint32
		make func() *cluster
	}{
		{"profile B, f=1, round 0", 0, func() *cluster {
			return newClusterB(t, 4, 1, func(p *twophase.Params) { p.ProposalTimeout = 10 * time.Second })
		}},
		{"profile A, quorum 3 of 4, round 2", 2, func() *cluster { return newCluster(t, 4, 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.make()
			c.t = t
			farAheadNoVote(t, c, tc.join)
		})
	}
}

func farAheadNoVote(t *testing.T, c *cluster, join uint32) {
	c.crash("s3")
	c.crash("s4")
	ev := event(0)
	c.request(ev)
	c.advanceUntil(30*time.Second, "s1 and s2 proposing in the round s3 joins", func() bool {
		return c.round("s1", ev) == join && c.round("s2", ev) == join && c.phase("s1", ev) == twophase.PhaseProposing &&
			c.phase("s2", ev) == twophase.PhaseProposing
	})
	c.start("s3")
	c.request(ev, "s3")
	c.take("s3", c.nodes["s3"].st.Deliver(c.noVote("s4", ev, 3, 1), c.env("s3")))
	if r := c.round("s3", ev); r != 0 {
		t.Fatalf("s3 holds the event in round %d after one member's vote, want 0", r)
	}
	refused := false
	for _, f := range c.facts("s3", twophase.TypeVoteRejected) {
		v := f.(twophase.VoteRejected)
		refused = refused || (v.Sender == "s4" && v.Round == 3 && v.Reason == twophase.ReasonFutureRound)
	}
	if !refused {
		t.Fatal("s4's vote for round 3 was not refused as future_round")
	}
	c.advanceUntil(30*time.Second, "the event completed at s1, s2, s3", func() bool {
		return c.phase("s1", ev) == twophase.PhaseCompleted && c.phase("s2", ev) == twophase.PhaseCompleted &&
			c.phase("s3", ev) == twophase.PhaseCompleted
	})
	for _, id := range []twophase.PeerID{"s1", "s2", "s3"} {
		if n := len(c.facts(id, twophase.TypeAbandoned)); n != 0 {
			t.Fatalf("%s abandoned the event", id)
		}
	}
	if c.payouts(ev) != 1 {
		t.Fatal("the event was not paid once")
	}
	c.checkSafety()
}

// A sync response nobody asked for is refused whole, with its reason,
// recorded and counted: its far-ahead vote moves nothing.
func TestUnrequestedSyncResponseRefused(t *testing.T) {
	c := newClusterB(t, 4, 1, func(p *twophase.Params) { p.ProposalTimeout = 10 * time.Second })
	c.crash("s3") // no quorum: s1 stays in round 0
	c.crash("s4")
	ev := event(0)
	c.request(ev, "s1", "s2")
	c.advanceUntil(5*time.Second, "s1 in round 0", func() bool { return c.phase("s1", ev) == twophase.PhaseProposing })
	c.take("s1", c.nodes["s1"].st.Deliver(c.syncAnswer("s4", ev, 3, 1, c.noVote("s4", ev, 3, 2)), c.env("s1")))
	if r := c.round("s1", ev); r != 0 {
		t.Fatalf("s1 moved to round %d on an unrequested answer", r)
	}
	var refused bool
	for _, f := range c.facts("s1", twophase.TypeMessageRejected) {
		m := f.(twophase.MessageRejected)
		refused = refused || (m.Sender == "s4" && m.Reason == twophase.ReasonUnrequestedSync)
	}
	if !refused {
		t.Fatal("the unrequested answer was not recorded as unrequested_sync")
	}
	counted := false
	for _, o := range c.observed("s1", twophase.MetricMessagesRejected) {
		counted = counted || o.Label == string(twophase.ReasonUnrequestedSync)
	}
	if !counted {
		t.Fatal("the unrequested answer was not counted")
	}
	if len(c.facts("s1", twophase.TypeVoteRejected)) != 0 {
		t.Fatal("a vote of the unrequested answer was handled")
	}
}

// An answer to a request this signer sent moves it to a later round only
// when its votes show Quorum-1 other members there: one member's vote
// for round 3 does not; no-votes of s2, s3 and s4 in round 2 do.
func TestSyncAnswerMovesRoundOnQuorumEvidence(t *testing.T) {
	c := newClusterB(t, 4, 1, func(p *twophase.Params) { p.ProposalTimeout = 10 * time.Second })
	c.crash("s3") // no quorum: s1 stays in round 0
	ev := event(0)
	c.request(ev, "s1", "s2")
	asked := 0
	c.drop = func(from, to twophase.PeerID, kind twophase.Kind) bool {
		if from == "s1" && to == "s4" && kind == twophase.KindSyncRequest {
			asked++
		}
		return from == "s4" // s4 answers only as the test makes it
	}
	c.advanceUntil(5*time.Second, "s1 asks s4", func() bool { return asked > 0 })
	c.take("s1", c.nodes["s1"].st.Deliver(c.syncAnswer("s4", ev, 3, 1, c.noVote("s4", ev, 3, 2)), c.env("s1")))
	if r := c.round("s1", ev); r != 0 || c.phase("s1", ev) != twophase.PhaseProposing {
		t.Fatalf("s1 %s in round %d after one member's vote for round 3, want Proposing in round 0", c.phase("s1", ev), r)
	}
	asked = 0
	c.advanceUntil(5*time.Second, "s1 asks s4 again", func() bool { return asked > 0 })
	votes := [][]byte{c.noVote("s2", ev, 2, 3), c.noVote("s3", ev, 2, 4), c.noVote("s4", ev, 2, 5)}
	c.take("s1", c.nodes["s1"].st.Deliver(c.syncAnswer("s4", ev, 2, 6, votes...), c.env("s1")))
	if r := c.round("s1", ev); r != 2 {
		t.Fatalf("s1 in round %d after a quorum's evidence of round 2, want 2", r)
	}
}
