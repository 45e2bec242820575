package twophase_test

import (
	"crypto/ed25519"
	"fmt"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// A member's real key in an attacker's hands: what its link can make an
// honest signer record and check is bounded (issue 34, items 6-9).

// deliverFrom hands raw to member to as having come on link's
// authenticated link, and returns the step's source-proof hand-overs.
func (c *cluster) deliverFrom(to, link twophase.PeerID, raw []byte) []twophase.SigningEvent {
	env, err := twophase.NewOpener(c.group, nil).Open(raw)
	st := c.nodes[to].st.DeliverFrom(link, raw, env, err, c.env(to))
	c.take(to, st)
	return st.Unconfirmed
}

// refusals sums the counts of id's message_rejected records by sender
// and reason.
func (c *cluster) refusals(id twophase.PeerID) (records int, counts map[string]int) {
	counts = map[string]int{}
	for _, f := range c.facts(id, twophase.TypeMessageRejected) {
		m := f.(twophase.MessageRejected)
		records++
		counts[string(m.Sender)+"/"+string(m.Reason)] += m.Count
	}
	return records, counts
}

func observedSum(obs []twophase.Observation, label string) float64 {
	var n float64
	for _, o := range obs {
		if label == "" || o.Label == label {
			n += o.Value
		}
	}
	return n
}

// Envelopes with bad signatures, each naming another sender (members and
// made-up names), and one well signed by another member, all on s4's
// link: every refusal is counted against s4 (never the name the bytes
// claim), the metric counts each, and the log holds a record per reason
// and minute, not per envelope.
func TestLinkRefusalsCountAgainstTheLink(t *testing.T) {
	c := newCluster(t, 4, 3)
	const n = 2000
	for i := 0; i < n; i++ {
		sender := twophase.PeerID(fmt.Sprintf("x%d", i))
		if i%2 == 0 {
			sender = c.ids[i%3]
		}
		e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: c.group.ID(), Sender: sender, Session: 1, Seq: uint64(i + 1),
			Kind: twophase.KindNoVote, Payload: []byte("junk")}
		raw := twophase.Seal(c.idKeys["s4"], &e)
		raw[len(raw)-1] ^= 1
		c.deliverFrom("s1", "s4", raw)
	}
	c.deliverFrom("s1", "s4", c.noVote("s2", event(0), 0, 1)) // s2's, on s4's link
	records, counts := c.refusals("s1")
	if records > 3 {
		t.Fatalf("%d refusal records for %d envelopes, want one per reason", records, n+1)
	}
	for k := range counts {
		if k[:3] != "s4/" {
			t.Fatalf("refusal recorded against %q, want s4: %v", k, counts)
		}
	}
	if counts["s4/"+string(twophase.ReasonLinkMismatch)] != 1 {
		t.Fatalf("the envelope signed by s2 on s4's link was not refused as link_mismatch: %v", counts)
	}
	if got := observedSum(c.observed("s1", twophase.MetricMessagesRejected), ""); got != n+1 {
		t.Fatalf("%v refusals counted, want %d", got, n+1)
	}
	c.advance(61 * time.Second) // the minute's windows end: their counts are recorded
	records, counts = c.refusals("s1")
	total := 0
	for _, v := range counts {
		total += v
	}
	if total != n+1 || records > 5 {
		t.Fatalf("%d refusals in %d records after the minute, want %d in at most 5: %v", total, records, n+1, counts)
	}
}

// Many different proposals of one member for one event and round: the
// first stands, one equivocation is recorded (also after a restart from
// the log), and each is counted.
func TestEquivocationRecordedOncePerSlot(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s2")
	c.queue = nil
	v, _ := ownVote(c, "s2", ev, 0)
	p := c.proposalOf(t, v.Envelope)
	p.Proposer = "s1"
	const n = 200
	for i := 0; i < n; i++ {
		q := p
		tm, _ := twophase.DecodeTemplate(p.Template, 100, 16)
		tm.LockTime = uint64(i)
		q.Template, q.TemplateHash = tm.Encode(), tm.Hash()
		if i == n/2 {
			c.start("s2") // a restart replays the log: the slot stays recorded
		}
		c.deliverFrom("s2", "s1", c.craft("s1", 70, uint64(i+1), twophase.KindProposal, q.Encode()))
	}
	if eq := c.facts("s2", twophase.TypeEquivocation); len(eq) != 1 {
		t.Fatalf("%d equivocations recorded, want 1", len(eq))
	}
	if got := len(c.observed("s2", twophase.MetricEquivocations)); got != n-1 {
		t.Fatalf("%d equivocations counted, want %d", got, n-1)
	}
}

// Proposals for events this signer has never seen: no vote refusal is
// recorded, the refusals are counted in the link's window, and the
// source proofs asked for stay within the member's budget.
func TestMadeUpEventsCostNoRecord(t *testing.T) {
	c := newCluster(t, 4, 3)
	ev := event(0)
	c.request(ev, "s2")
	c.queue = nil
	v, _ := ownVote(c, "s2", ev, 0)
	p := c.proposalOf(t, v.Envelope)
	p.Proposer = "s4"
	const n = 2000
	proofs := 0
	for i := 0; i < n; i++ {
		q := p
		q.Event.Destination = fmt.Sprintf("sim:made-up-%d", i)
		proofs += len(c.deliverFrom("s1", "s4", c.craft("s4", 70, uint64(i+1), twophase.KindProposal, q.Encode())))
	}
	if rej := c.facts("s1", twophase.TypeVoteRejected); len(rej) != 0 {
		t.Fatalf("%d vote refusals recorded for made-up events, want none", len(rej))
	}
	if records, counts := c.refusals("s1"); records > 2 || counts["s4/"+string(twophase.ReasonUnknownEvent)] != 1 {
		t.Fatalf("%d refusal records %v, want the first unknown_event and the first proof_budget", records, counts)
	}
	if proofs == 0 || proofs > 16 {
		t.Fatalf("%d source proofs asked for %d made-up events at once, want 1..16", proofs, n)
	}
	if got := observedSum(c.observed("s1", twophase.MetricValidationFailures), string(twophase.ReasonUnknownEvent)); got != n {
		t.Fatalf("%v unknown_event refusals counted, want %d", got, n)
	}
}

// A sync response full of relayed votes costs at most
// syncChecksPerVoter signature checks a voter.
func TestSyncResponseVerificationBudget(t *testing.T) {
	c := newCluster(t, 4, 3)
	ev := event(0)
	c.request(ev)
	c.queue = nil
	checks := 0
	cfg := c.config("s2")
	cfg.Verify = func(pub ed25519.PublicKey, msg, sig []byte) bool {
		checks++
		return ed25519.Verify(pub, msg, sig)
	}
	st, err := twophase.NewState(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.nodes["s2"].log {
		st.Apply(f)
	}
	c.nodes["s2"].st = st
	c.take("s2", st.Start(c.env("s2")))
	c.queue = nil
	c.deliverFrom("s2", "s4", c.noVote("s4", ev, 1, 1)) // a round ahead: s2 asks s4
	asked := false
	for _, m := range c.queue {
		asked = asked || (m.from == "s2" && m.to == "s4" && m.kind == twophase.KindSyncRequest)
	}
	if !asked {
		t.Fatal("s2 did not ask s4 for the event's state")
	}
	var votes [][]byte
	for i := 0; i < 320; i++ { // the most a state may hold
		votes = append(votes, c.noVote("s4", ev, uint32(i%8), uint64(100+i)))
	}
	checks = 0
	c.deliverFrom("s2", "s4", c.syncAnswer("s4", ev, 1, 5000, votes...))
	if checks > 2 {
		t.Fatalf("%d signature checks for one voter's 320 relayed votes, want at most 2", checks)
	}
	if _, counts := c.refusals("s2"); counts["s4/"+string(twophase.ReasonSyncBudget)] == 0 {
		t.Fatalf("the relayed votes past the budget were not refused: %v", counts)
	}
}

// A log written before the budgets (several equivocations and vote
// refusals of one slot, refusals naming whatever sender an envelope
// claimed) replays; the slot stays recorded.
func TestOldRefusalFactsReplay(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev, "s2")
	c.queue = nil
	v, _ := ownVote(c, "s2", ev, 0)
	p := c.proposalOf(t, v.Envelope)
	p.Proposer = "s1"
	first := c.craft("s1", 70, 1, twophase.KindProposal, p.Encode())
	c.deliverFrom("s2", "s1", first)
	nd := c.nodes["s2"]
	for i := range 3 {
		nd.log = append(nd.log,
			twophase.Equivocation{EventID: ev.ID(), Round: 0, Voter: "s1", FirstHash: p.TemplateHash, SecondHash: twophase.Hash{byte(i + 1)}},
			twophase.VoteRejected{EventID: ev.ID(), Round: 0, Sender: "s1", Reason: twophase.ReasonFeeOutOfBounds, Digest: twophase.Hash{byte(i + 1)}},
			twophase.MessageRejected{Sender: twophase.PeerID(fmt.Sprint("claimed-", i)), Kind: "envelope", Reason: twophase.ReasonBadSignature, Count: 1})
	}
	c.start("s2")
	tm, _ := twophase.DecodeTemplate(p.Template, 100, 16)
	tm.LockTime = 7
	p.Template, p.TemplateHash = tm.Encode(), tm.Hash()
	before := len(c.facts("s2", twophase.TypeEquivocation))
	c.deliverFrom("s2", "s1", c.craft("s1", 70, 2, twophase.KindProposal, p.Encode()))
	if n := len(c.facts("s2", twophase.TypeEquivocation)); n != before {
		t.Fatalf("%d equivocations recorded after the replay, want none more than the log's %d", n-before, before)
	}
	if got := len(c.observed("s2", twophase.MetricEquivocations)); got != 1 {
		t.Fatalf("%d equivocations counted, want 1", got)
	}
}
