package twophase_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// fundRecent adds a large output created at daa: deep for signers whose
// view is far enough along, not yet for those lagging.
func (c *cluster) fundRecent(tag string, amount, daa uint64) twophase.Outpoint {
	op := twophase.Outpoint{TxID: sha256.Sum256([]byte(tag))}
	c.ledger.Fund(op, amount, daa, false)
	return op
}

func committedHash(t *testing.T, c *cluster, id twophase.PeerID, ev twophase.SigningEvent) twophase.Hash {
	t.Helper()
	for _, f := range c.facts(id, twophase.TypeCommitted) {
		if cm := f.(twophase.Committed); cm.EventID == ev.ID() {
			return cm.Hash
		}
	}
	t.Fatalf("%s never committed %s", id, ev.ID().Short())
	return twophase.Hash{}
}

func ownVote(c *cluster, id twophase.PeerID, ev twophase.SigningEvent, round uint32) (twophase.VoteAccepted, bool) {
	for _, f := range c.facts(id, twophase.TypeVoteAccepted) {
		if v := f.(twophase.VoteAccepted); v.Own && v.EventID == ev.ID() && v.Round == round {
			return v, true
		}
	}
	return twophase.VoteAccepted{}, false
}

// Divergent proposals: one signer's view holds an output the others do
// not see yet; the two that agree form the quorum and the third follows.
func TestDivergentProposals(t *testing.T) {
	c := newCluster(t, 3, 2)
	c.fundRecent("big", 50_000_000, 1000) // deep at DAA 1020
	c.now = c.now.Add(2 * time.Second)
	c.ledger.AdvanceTo(c.now) // DAA 1020
	c.lag["s2"], c.lag["s3"] = 10, 10
	ev := event(0)
	c.request(ev)
	c.flush()
	v1, _ := ownVote(c, "s1", ev, 0)
	v2, _ := ownVote(c, "s2", ev, 0)
	v3, _ := ownVote(c, "s3", ev, 0)
	if v1.Hash == v2.Hash || v2.Hash != v3.Hash {
		t.Fatalf("votes s1 %s s2 %s s3 %s: want s1 apart, s2 = s3", v1.Hash.Short(), v2.Hash.Short(), v3.Hash.Short())
	}
	c.advance(5 * time.Second)
	for _, id := range c.ids {
		if h := committedHash(t, c, id, ev); h != v2.Hash {
			t.Errorf("%s committed %s, want the quorum's %s", id, h.Short(), v2.Hash.Short())
		}
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s", id, c.phase(id, ev))
		}
	}
	if len(c.facts("s1", twophase.TypeRoundFailed)) != 0 {
		t.Error("a round failed although a quorum agreed in round 0")
	}
	c.checkSafety()
}

// Timeout without quorum: three different views, no hash has two votes;
// the round fails, nothing is committed in it, and the retry (views
// converged) commits.
func TestTimeoutWithoutQuorumRetries(t *testing.T) {
	c := newCluster(t, 3, 2)
	c.fundRecent("big-a", 50_000_000, 1000)
	c.fundRecent("big-b", 40_000_000, 990)
	c.now = c.now.Add(2 * time.Second)
	c.ledger.AdvanceTo(c.now) // DAA 1020: a deep at 1020, b at 1010
	c.lag["s2"], c.lag["s3"] = 5, 15
	ev := event(0)
	c.request(ev)
	c.flush()
	seen := map[twophase.Hash]bool{}
	for _, id := range c.ids {
		v, ok := ownVote(c, id, ev, 0)
		if !ok {
			t.Fatalf("%s did not vote", id)
		}
		seen[v.Hash] = true
	}
	if len(seen) != 3 {
		t.Fatalf("%d distinct votes, want 3", len(seen))
	}
	c.lag["s2"], c.lag["s3"] = 0, 0 // the nodes catch up
	c.advance(15 * time.Second)
	for _, id := range c.ids {
		fails := c.facts(id, twophase.TypeRoundFailed)
		if len(fails) == 0 || fails[0].(twophase.RoundFailed).Reason != twophase.ReasonTimeoutNoQuorum {
			t.Fatalf("%s: round 0 did not fail on its timeout: %v", id, fails)
		}
		cm := c.facts(id, twophase.TypeCommitted)
		if len(cm) != 1 || cm[0].(twophase.Committed).Round == 0 {
			t.Fatalf("%s: commits %v, want one in a later round", id, cm)
		}
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s", id, c.phase(id, ev))
		}
	}
	if c.payouts(ev) != 1 {
		t.Fatal("not paid once")
	}
	c.checkSafety()
}

// Timeout with zero proposals: no output is deep enough anywhere. Nobody
// proposes, every round fails, and after the last round the event is
// Abandoned; nothing is signed.
func TestTimeoutWithZeroProposalsAbandons(t *testing.T) {
	c := newCluster(t, 3, 2, func(p *twophase.Params) { p.MinInputDepth = 100_000 })
	ev := event(0)
	c.request(ev)
	c.advance(2 * c.params.WithDefaults().MaxTimeToAbandon())
	for _, id := range c.ids {
		if p := c.phase(id, ev); p != twophase.PhaseAbandoned {
			t.Errorf("%s: %s, want Abandoned", id, p)
		}
		if n := len(c.facts(id, twophase.TypeTemplateSigned)); n != 0 {
			t.Errorf("%s signed %d templates", id, n)
		}
		fails := c.facts(id, twophase.TypeRoundFailed)
		if len(fails) != int(c.params.WithDefaults().Retry.MaxRetries) {
			t.Errorf("%s: %d failed rounds before abandoning, want %d", id, len(fails), c.params.WithDefaults().Retry.MaxRetries)
		}
		for _, f := range fails {
			if r := f.(twophase.RoundFailed).Reason; r != twophase.ReasonNoDeepUTXOs {
				t.Errorf("%s: round failed for %s", id, r)
			}
		}
	}
	if c.payouts(ev) != 0 {
		t.Fatal("paid")
	}
}

// Late joiner: s3 learns the event only after s1 and s2 committed and
// paid; it fast-forwards on their evidence and completes without a round
// of its own.
func TestLateJoiner(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s1", "s2")
	c.advance(3 * time.Second)
	if c.payouts(ev) != 1 {
		t.Fatal("s1 and s2 did not pay")
	}
	c.request(ev, "s3")
	c.advance(3 * time.Second)
	if p := c.phase("s3", ev); p != twophase.PhaseCompleted {
		t.Fatalf("s3: %s, want Completed", p)
	}
	if c.payouts(ev) != 1 {
		t.Fatal("paid twice")
	}
	c.checkSafety()
}

// Out-of-order messages: every message is delivered in reverse order of
// sending; the outcome is the same.
func TestOutOfOrderMessages(t *testing.T) {
	c := newCluster(t, 5, 3)
	ev := event(0)
	c.request(ev)
	for i, j := 0, len(c.queue)-1; i < j; i, j = i+1, j-1 {
		c.queue[i], c.queue[j] = c.queue[j], c.queue[i]
	}
	c.advance(10 * time.Second)
	for _, id := range c.ids {
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s", id, c.phase(id, ev))
		}
	}
	if c.payouts(ev) != 1 {
		t.Fatal("not paid once")
	}
	c.checkSafety()
}

// Restart mid-propose: s2 crashes after recording its vote but before it
// leaves; rebuilt from its log it sends the same vote, never another.
func TestRestartMidPropose(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s2")
	v, ok := ownVote(c, "s2", ev, 0)
	if !ok {
		t.Fatal("s2 did not vote")
	}
	c.queue = nil // the vote never left
	c.crash("s2")
	c.request(ev, "s1", "s3")
	c.flush()
	c.start("s2")
	c.request(ev, "s2")
	c.advance(10 * time.Second)
	votes := 0
	for _, f := range c.facts("s2", twophase.TypeVoteAccepted) {
		if w := f.(twophase.VoteAccepted); w.Own && w.Round == 0 && w.EventID == ev.ID() {
			votes++
			if w.Hash != v.Hash {
				t.Fatalf("s2 voted %s after the restart, %s before", w.Hash.Short(), v.Hash.Short())
			}
		}
	}
	if votes != 1 {
		t.Fatalf("s2 recorded %d votes in round 0", votes)
	}
	for _, id := range c.ids {
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s", id, c.phase(id, ev))
		}
	}
	c.checkSafety()
}

// A partition of 2 and 3 of 5 signers (quorum 3): the 3 commit and pay,
// the 2 cannot; after the heal the 2 learn the commit and complete.
func TestPartitionHeals(t *testing.T) {
	c := newCluster(t, 5, 3)
	minority := map[twophase.PeerID]bool{"s1": true, "s2": true}
	c.drop = func(from, to twophase.PeerID, _ twophase.Kind) bool { return minority[from] != minority[to] }
	ev := event(0)
	c.request(ev)
	c.advance(6 * time.Second)
	if c.payouts(ev) != 1 {
		t.Fatal("the majority did not pay")
	}
	for id := range minority {
		if p := c.phase(id, ev); p == twophase.PhaseCommitted || p == twophase.PhaseCompleted {
			t.Fatalf("%s is %s inside a minority partition", id, p)
		}
	}
	c.drop = nil
	c.advance(10 * time.Second)
	for _, id := range c.ids {
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s after the heal", id, c.phase(id, ev))
		}
	}
	if c.payouts(ev) != 1 {
		t.Fatal("paid twice")
	}
	c.checkSafety()
}

// Duplicate proposals are idempotent: every message delivered twice.
func TestDuplicateProposals(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev)
	c.queue = append(c.queue, c.queue...)
	c.advance(5 * time.Second)
	for _, id := range c.ids {
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s", id, c.phase(id, ev))
		}
		if n := len(c.facts(id, twophase.TypeEquivocation)); n != 0 {
			t.Errorf("%s: %d equivocations from duplicates", id, n)
		}
	}
	c.checkSafety()
}

// A proposal for a Completed event is ignored.
func TestProposalForCompletedEvent(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev)
	c.advance(5 * time.Second)
	v, _ := ownVote(c, "s1", ev, 0)
	before := len(c.nodes["s2"].log)
	replay := c.craft("s1", 7, 1, twophase.KindProposal, c.proposalPayload(t, v.Envelope, 0))
	c.take("s2", c.nodes["s2"].st.Deliver(replay, c.env("s2")))
	for _, f := range c.nodes["s2"].log[before:] {
		if f.EventType() != twophase.TypeMessageRejected {
			t.Fatalf("a proposal for a completed event recorded %s", f.EventType())
		}
	}
	if c.phase("s2", ev) != twophase.PhaseCompleted {
		t.Fatal("phase moved")
	}
}

// Conflicting commit: a signer committed to one hash receives evidence of
// a quorum for another (members who equivocated, outside Profile A's
// assumption). It records the conflict, counts it, and never switches nor
// signs the other.
func TestConflictingCommit(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s1", "s2")
	c.flush()
	first := committedHash(t, c, "s1", ev)
	v, _ := ownVote(c, "s1", ev, 0)
	other := c.proposalOf(t, v.Envelope)
	tm, _ := twophase.DecodeTemplate(other.Template, 100, 16)
	tm.LockTime = 7
	other.Template, other.TemplateHash = tm.Encode(), tm.Hash()
	var evidence [][]byte
	for i, id := range []twophase.PeerID{"s2", "s3"} {
		p := other
		p.Proposer = id
		evidence = append(evidence, c.craft(id, 90, uint64(i+1), twophase.KindProposal, p.Encode()))
	}
	cm := twophase.Commit{EventID: ev.ID(), Round: 0, TemplateHash: other.TemplateHash, Evidence: evidence}
	st := c.nodes["s1"].st.Deliver(c.craft("s3", 91, 1, twophase.KindCommit, cm.Encode()), c.env("s1"))
	c.take("s1", st)
	conflicts := c.facts("s1", twophase.TypeCommitConflict)
	if len(conflicts) != 1 || conflicts[0].(twophase.CommitConflict).RemoteHash != other.TemplateHash {
		t.Fatalf("conflicts %v", conflicts)
	}
	counted := false
	for _, m := range st.Metrics {
		counted = counted || m.Name == twophase.MetricSplitBrainWarnings
	}
	if !counted {
		t.Fatal("the conflict was not counted")
	}
	e, _ := c.nodes["s1"].st.Event(ev.ID())
	if e.Canonical != first {
		t.Fatal("the commitment switched")
	}
	for _, f := range c.facts("s1", twophase.TypeTemplateSigned) {
		if f.(twophase.TemplateSigned).Hash != first {
			t.Fatal("signed the other hash")
		}
	}
}

// Timeout with partial proposals: three of five signers are down, so
// the round holds two votes, no quorum. It fails on its timeout without a
// commit, the round advances, and once the others are back the event is
// paid.
func TestTimeoutWithPartialProposals(t *testing.T) {
	c := newCluster(t, 5, 3)
	for _, id := range []twophase.PeerID{"s3", "s4", "s5"} {
		c.crash(id)
	}
	ev := event(0)
	c.request(ev)
	c.advance(c.params.WithDefaults().ProposalTimeout + c.params.Tick)
	for _, id := range []twophase.PeerID{"s1", "s2"} {
		if len(c.facts(id, twophase.TypeCommitted)) != 0 {
			t.Fatalf("%s committed with two of five votes", id)
		}
		f := c.facts(id, twophase.TypeRoundFailed)
		if len(f) != 1 || f[0].(twophase.RoundFailed).Reason != twophase.ReasonTimeoutNoQuorum {
			t.Fatalf("%s: round failures %v", id, f)
		}
	}
	for _, id := range []twophase.PeerID{"s3", "s4", "s5"} {
		c.start(id)
	}
	c.request(ev)
	c.advance(20 * time.Second)
	for _, id := range c.ids {
		if c.phase(id, ev) != twophase.PhaseCompleted {
			t.Errorf("%s: %s", id, c.phase(id, ev))
		}
	}
	if c.payouts(ev) != 1 {
		t.Fatal("not paid once")
	}
	c.checkSafety()
}

// Abandoned after max retries, and GC: an event that can never gather a
// quorum ends Abandoned after 1 + max_retries rounds, within the bound of
// section 15.2, and stays (it holds its stream); a completed event is
// forgotten after the retention, and a late proposal for it changes
// nothing.
func TestAbandonedAfterMaxRetriesAndGC(t *testing.T) {
	c := newCluster(t, 3, 2, func(p *twophase.Params) { p.Retention = 5 * time.Second })
	ev := event(0)
	c.request(ev)
	c.advance(3 * time.Second)
	if c.phase("s1", ev) != twophase.PhaseCompleted {
		t.Fatal("not completed")
	}
	v, _ := ownVote(c, "s2", ev, 0)
	c.advance(10 * time.Second)
	if _, ok := c.nodes["s1"].st.Event(ev.ID()); ok {
		t.Fatal("a completed event outlived its retention")
	}
	before := len(c.nodes["s1"].log)
	c.take("s1", c.nodes["s1"].st.Deliver(c.craft("s2", 77, 1, twophase.KindProposal, c.proposalPayload(t, v.Envelope, 0)), c.env("s1")))
	if len(c.nodes["s1"].log) != before {
		t.Fatalf("a proposal for a collected, completed event recorded %v", c.nodes["s1"].log[before:])
	}

	lone := event(1)
	c.crash("s2")
	c.crash("s3")
	start := c.now
	c.request(lone, "s1")
	bound := c.params.WithDefaults().MaxTimeToAbandon()
	c.advance(bound + 2*c.params.Tick)
	if p := c.phase("s1", lone); p != twophase.PhaseAbandoned {
		t.Fatalf("s1: %s after the bound, want Abandoned", p)
	}
	ab := c.facts("s1", twophase.TypeAbandoned)
	if len(ab) != 1 {
		t.Fatalf("abandoned %d times", len(ab))
	}
	if at := time.Unix(0, ab[0].(twophase.Abandoned).AtNs); at.Sub(start) > bound+c.params.Tick {
		t.Fatalf("abandoned after %v, bound %v", at.Sub(start), bound)
	}
	starts := 0
	for _, f := range c.facts("s1", twophase.TypeRoundStarted) {
		if f.(twophase.RoundStarted).EventID == lone.ID() {
			starts++
		}
	}
	if max := int(c.params.WithDefaults().MaxRounds()); starts > max {
		t.Fatalf("%d rounds, at most %d", starts, max)
	}
	c.advance(time.Minute)
	if _, ok := c.nodes["s1"].st.Event(lone.ID()); !ok {
		t.Fatal("an abandoned event was collected: it must hold its stream for an operator")
	}
}
