package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/signermesh"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// honest are the members whose processes run in the byzantine tests; s3
// is in the attacker's hands.
var honest = []twophase.PeerID{"s1", "s2"}

// TestMaliciousSignerTheftNeverSigned: s3's keys in an attacker's hands.
// For each honest member's proposal it sends that member the same
// template paying an address of its own instead of the recipient (same
// amounts, re-hashed, signed as s3), and a copy claiming to be the other
// honest member's, signed with s3's key. Both honest signers refuse both,
// record why and count it, never sign the theft, and pay the withdrawal
// once between the two of them.
func TestMaliciousSignerTheftNeverSigned(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{skip: []string{"s3"}, fund: 2})
	rogue := startRogueSigner(t, c, "s3")
	thief := newThief(t)
	c.waitFundsDeep(2)
	// Until the rogue has spoken, s1 and s2 hear each other not at all:
	// had they agreed first, its proposal would reach them committed, and
	// a committed signer does not read votes.
	c.proxies[[2]string{"s1", "s2"}].Cut()
	c.burn(payoutSompi(0))
	thefts := map[twophase.Hash]bool{}
	for range honest {
		h := rogue.nextProposal()
		stolen := rogue.theft(h.p, thief.Script())
		thefts[stolen.TemplateHash] = true
		rogue.send(h.from, rogue.seal(twophase.KindProposal, stolen.Encode()))
		other := otherHonest(h.from)
		posing := stolen
		posing.Proposer = other
		rogue.send(h.from, rogue.sealAs(other, twophase.KindProposal, posing.Encode()))
	}
	for _, id := range honest {
		other := otherHonest(id)
		c.waitFact(id, "refusal of s3's theft", twophase.TypeVoteRejected, func(f twophase.Fact) bool {
			r := f.(*twophase.VoteRejected)
			return r.Sender == "s3" && r.Reason == twophase.ReasonForeignOutput && thefts[r.Hash]
		})
		// Counted against the link it came on (s3's), not the member it names.
		c.waitFact(id, "refusal of the proposal posing as "+string(other), twophase.TypeMessageRejected, func(f twophase.Fact) bool {
			r := f.(*twophase.MessageRejected)
			return r.Sender == "s3" && r.Reason == twophase.ReasonBadSignature
		})
		for reason, series := range map[twophase.Reason]string{
			twophase.ReasonForeignOutput: "bridgelog_signer_proposal_validation_failures_total",
			twophase.ReasonBadSignature:  "bridgelog_signer_messages_rejected_total",
		} {
			c.waitMetric(id, series, map[string]string{"signer": string(id), "reason": string(reason)}, 1)
		}
	}
	c.proxies[[2]string{"s1", "s2"}].Heal()
	c.waitPaid(2 * time.Minute)
	c.checkHonestNeverSigned(thefts)
	thief.checkEmpty(c)
}

// TestForgedCommitEvidenceRefused: s3's keys in an attacker's hands. It
// tells each honest member it committed its theft of that member's
// template, with evidence that is no quorum: its own vote alone, a vote
// posing as the other honest member's under s3's signature, its own vote
// twice; and it commits the honest template itself on its own vote
// counted twice. No honest signer fast-forwards to any of them or signs
// the theft; each refusal is counted, the first recorded with its reason; the
// withdrawal is paid once.
func TestForgedCommitEvidenceRefused(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{skip: []string{"s3"}, fund: 2})
	rogue := startRogueSigner(t, c, "s3")
	thief := newThief(t)
	c.waitFundsDeep(2)
	// A signer committed to the real template would still refuse the
	// forged commits, but as conflicts of its own: keep s1 and s2 apart
	// until they have judged them in Proposing.
	c.proxies[[2]string{"s1", "s2"}].Cut()
	c.burn(payoutSompi(0))
	thefts := map[twophase.Hash]bool{}
	for range honest {
		h := rogue.nextProposal()
		stolen := rogue.theft(h.p, thief.Script())
		thefts[stolen.TemplateHash] = true
		own := rogue.seal(twophase.KindProposal, stolen.Encode())
		other := otherHonest(h.from)
		posing := stolen
		posing.Proposer = other
		forged := rogue.sealAs(other, twophase.KindProposal, posing.Encode())
		fair := h.p
		fair.Proposer = rogue.id
		ownFair := rogue.seal(twophase.KindProposal, fair.Encode())
		for _, cm := range []struct {
			hash     twophase.Hash
			evidence [][]byte
		}{
			{stolen.TemplateHash, [][]byte{own}},
			{stolen.TemplateHash, [][]byte{forged, own}},
			{stolen.TemplateHash, [][]byte{own, own}},
			{h.p.TemplateHash, [][]byte{ownFair, ownFair}},
		} {
			commit := twophase.Commit{EventID: h.p.EventID(), Epoch: h.p.Epoch, Round: h.p.Round, TemplateHash: cm.hash, Evidence: cm.evidence}
			rogue.send(h.from, rogue.seal(twophase.KindCommit, commit.Encode()))
		}
	}
	// Each piece of evidence fails its own check: the theft's template
	// fails validation before its voters are counted, so the vote counted
	// twice is caught on the honest template.
	wants := []string{
		"1 signed proposals, a quorum is 2",
		"proposal 0: bad_signature",
		"the template fails validation: foreign_output",
		"s3 counted twice",
	}
	// Each is counted; the log records the first of the slot and reason
	// (s3 may send as many as it likes).
	for _, id := range honest {
		c.waitMetric(id, "bridgelog_signer_proposal_validation_failures_total",
			map[string]string{"signer": string(id), "reason": string(twophase.ReasonBadEvidence)}, len(wants))
		c.waitFact(id, "refusal of s3's commit", twophase.TypeVoteRejected, func(f twophase.Fact) bool {
			r := f.(*twophase.VoteRejected)
			return r.Sender == "s3" && r.Reason == twophase.ReasonBadEvidence && slices.ContainsFunc(wants, func(w string) bool {
				return strings.Contains(r.Detail, w)
			})
		})
	}
	c.proxies[[2]string{"s1", "s2"}].Heal()
	c.waitPaid(2 * time.Minute)
	for _, id := range honest {
		for _, f := range c.rawFacts(string(id), twophase.TypeCommitted) {
			if cm := f.(*twophase.Committed); cm.From == rogue.id || thefts[cm.Hash] {
				t.Errorf("%s committed %s on s3's word (%s from %q)", id, cm.Hash.Short(), cm.Trigger, cm.From)
			}
		}
	}
	c.checkHonestNeverSigned(thefts)
	thief.checkEmpty(c)
}

// TestHandshakeRefusals: whoever answers at s3's address with another
// protocol version, or in another group, is refused by s1 and s2 and
// refuses them, each side counting it by peer and outcome and naming
// what differs in its status; first in-process posers with s3's key,
// then a real signer process whose config has another quorum.
func TestHandshakeRefusals(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{skip: []string{"s3"}, fund: 1})
	s3 := c.member("s3")
	setup, err := loadSignerConfig(s3.config)
	if err != nil {
		t.Fatal(err)
	}
	group := setup.protocol.Group
	poser := func(version uint16, g twophase.Group) *signermesh.Mesh {
		m, err := signermesh.New(signermesh.Config{Self: "s3", Identity: setup.protocol.Identity, Group: g, ProtocolVersion: version,
			ListenAddr: s3.listen, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}

	v1, v2 := twophase.ProtocolVersion, twophase.ProtocolVersion+1
	m := poser(v2, group)
	c.waitRefused([]string{"s1", "s2"}, "s3", signermesh.OutcomeWrongVersion,
		fmt.Sprintf("peer s3 speaks protocol version %d, this signer %d", v2, v1))
	waitPoserRefused(t, m, fmt.Sprintf("speaks protocol version %d, this signer %d", v1, v2))
	m.Close()

	other := group
	other.Quorum = 3
	m = poser(v1, other)
	c.waitRefused([]string{"s1", "s2"}, "s3", signermesh.OutcomeWrongGroup,
		fmt.Sprintf("peer s3 is in group %s, this signer in %s: the same members under Profile A (quorum 3), this signer's under Profile A (quorum 2)",
			other.ID(), group.ID()))
	waitPoserRefused(t, m, fmt.Sprintf("is in group %s, this signer in %s: the same members under Profile A (quorum 2), this signer's under Profile A (quorum 3)",
		group.ID(), other.ID()))
	m.Close()

	// The real process: its config asks all three signatures, so its
	// multisig address differs too.
	keys := make([][]byte, len(group.Members))
	for i, mem := range group.Members {
		keys[i] = mem.PayoutKey
	}
	rules, err := kaspa.NewRules(group.Network, keys, 3)
	if err != nil {
		t.Fatal(err)
	}
	c.editConfig("s3", func(cfg *signerConfig) {
		cfg.Group.Quorum, cfg.Group.ChangeAddress = 3, rules.Address().String()
	})
	changed, err := loadSignerConfig(s3.config)
	if err != nil {
		t.Fatal(err)
	}
	g3 := changed.protocol.Group.ID()
	if g3 == group.ID() {
		t.Fatal("another quorum left the group id as it was")
	}
	c.start("s3")
	c.waitRefused([]string{"s1", "s2"}, "s3", signermesh.OutcomeWrongGroup,
		fmt.Sprintf("peer s3 is in group %s, this signer in %s", g3, group.ID()))
	for _, id := range []string{"s1", "s2"} {
		c.waitRefused([]string{"s3"}, id, signermesh.OutcomeWrongGroup,
			fmt.Sprintf("peer %s is in group %s, this signer in %s", id, group.ID(), g3))
	}
}

// otherHonest is the honest member that is not id.
func otherHonest(id twophase.PeerID) twophase.PeerID {
	if id == honest[0] {
		return honest[1]
	}
	return honest[0]
}

// waitFundsDeep waits until the group holds n outputs deep enough to
// spend: a signer without them casts no vote in the first round, and
// with a member silent it may vote in no later round either. A Profile
// B group builds at an anchor up to AnchorStep behind the tip: its
// outputs must be deep there.
func (c *signerCluster) waitFundsDeep(n int) {
	c.t.Helper()
	cfg := c.setup(c.group.members[0].id).protocol
	depth := cfg.Params.MinInputDepth
	margin := 2 * depth
	if cfg.Group.Profile == twophase.ProfileB {
		margin += cfg.Params.AnchorStep
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		s, err := c.kaspa.session(ctx)
		if err != nil {
			c.t.Fatal(err)
		}
		virtual, verr := s.VirtualDAAScore(ctx)
		us, uerr := s.UTXOs(ctx, c.group.address)
		s.Close()
		if err := errors.Join(verr, uerr); err != nil {
			c.t.Fatal(err)
		}
		deep := 0
		for _, u := range us {
			if u.DAAScore+margin <= virtual {
				deep++
			}
		}
		if deep >= n {
			return
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("the group holds %d outputs %d deep, want %d", deep, margin, n)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// checkHonestNeverSigned fails the test when an honest member signed one
// of the thefts, or two templates for one event.
func (c *signerCluster) checkHonestNeverSigned(thefts map[twophase.Hash]bool) {
	c.t.Helper()
	signed := 0
	for _, id := range honest {
		for ev, hashes := range c.signedTemplates(string(id)) {
			for _, h := range hashes {
				if thefts[h] {
					c.t.Errorf("%s signed the theft %s", id, h.Short())
				}
				if h != hashes[0] {
					c.t.Errorf("%s signed two templates for event %s", id, ev.Short())
				}
			}
			signed++
		}
	}
	if signed == 0 {
		c.t.Error("no honest member signed the payout")
	}
}

// waitFact waits until member id's log holds a fact of type typ that
// match accepts.
func (c *signerCluster) waitFact(id twophase.PeerID, what, typ string, match func(twophase.Fact) bool) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, f := range c.rawFacts(string(id), typ) {
			if match(f) {
				return
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s's log has no %s", id, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// waitRefused waits until each of sides counts a handshake with peer
// refused for outcome and its status shows peer not connected, with
// lastError detail.
func (c *signerCluster) waitRefused(sides []string, peer string, outcome signermesh.Outcome, detail string) {
	c.t.Helper()
	handshakes := "bridgelog_signer_mesh_handshakes_total"
	for _, side := range sides {
		deadline := time.Now().Add(30 * time.Second)
		for {
			// Status is asked once the signer serves HTTP: before, it
			// would read a log the signer may not have made yet.
			var p statusPeer
			running := false
			n, err := c.scrapeMetric(twophase.PeerID(side), handshakes, map[string]string{"peer": peer, "outcome": string(outcome)})
			if err == nil {
				p, running = c.peerStatus(side, peer)
			}
			if n > 0 && running && p.Connected != nil && !*p.Connected && p.LastError == detail {
				break
			}
			if time.Now().After(deadline) {
				c.t.Fatalf("%s: %v handshakes with %s refused as %s (%v); running %v, last error %q\nwant the last error %q",
					side, n, peer, outcome, err, running, p.LastError, detail)
			}
			time.Sleep(250 * time.Millisecond)
		}
		// Both ends send their hello before they read the other's, so
		// each refuses on what it reads, never learning of the other's
		// refusal first; and no link comes up.
		for _, o := range []signermesh.Outcome{signermesh.OutcomeOK, signermesh.OutcomeRefusedByPeer} {
			if n := c.metric(twophase.PeerID(side), handshakes, map[string]string{"peer": peer, "outcome": string(o)}); n != 0 {
				c.t.Errorf("%s counted %v handshakes with %s as %s", side, n, peer, o)
			}
		}
	}
}

// peerStatus is peer as `signer status --json` of member id shows it,
// and whether the signer answered (else the status is its log's).
func (c *signerCluster) peerStatus(id, peer string) (statusPeer, bool) {
	c.t.Helper()
	stdout, _ := runCommand(c.t, c.bin, 0, "signer", "status", "--json", "--config", c.member(id).config)
	var doc signerStatusDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		c.t.Fatalf("signer status --json of %s: %v\n%s", id, err, stdout)
	}
	for _, p := range doc.Peers {
		if p.ID == peer {
			return p, doc.Running
		}
	}
	c.t.Fatalf("signer %s's status lists no peer %s", id, peer)
	return statusPeer{}, false
}

// waitPoserRefused waits until the in-process mesh m shows both honest
// members not connected, refused as "peer ID detail".
func waitPoserRefused(t *testing.T, m *signermesh.Mesh, detail string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range honest {
		for {
			var s signermesh.PeerStatus
			for _, p := range m.Peers() {
				if p.ID == id {
					s = p
				}
			}
			want := "peer " + string(id) + " " + detail
			if !s.Connected && s.LastError == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the poser's link to %s: %+v, want the last error %q", id, s, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// waitMetric waits until the series name{labels} of member id counts at
// least least: a signer counts a decision just after its log holds it,
// so a reader of the log may be first.
func (c *signerCluster) waitMetric(id twophase.PeerID, name string, labels map[string]string, least int) {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := c.metric(id, name, labels)
		if v >= float64(least) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: %s%v is %v, want at least %d", id, name, labels, v, least)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// metric is the value of the series name{labels} (exactly those labels)
// on member id's /metrics; 0 when there is no such series.
func (c *signerCluster) metric(id twophase.PeerID, name string, labels map[string]string) float64 {
	c.t.Helper()
	v, err := c.scrapeMetric(id, name, labels)
	if err != nil {
		c.t.Fatal(err)
	}
	return v
}

func (c *signerCluster) scrapeMetric(id twophase.PeerID, name string, labels map[string]string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.member(string(id)).http+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", id, err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", id, err)
	}
	for _, m := range fams[name].GetMetric() {
		if labelsAre(m, labels) {
			return m.GetCounter().GetValue() + m.GetGauge().GetValue(), nil
		}
	}
	return 0, nil
}

func labelsAre(m *dto.Metric, want map[string]string) bool {
	if len(m.GetLabel()) != len(want) {
		return false
	}
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
			return false
		}
	}
	return true
}
