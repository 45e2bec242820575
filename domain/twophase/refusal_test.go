package twophase_test

import (
	"crypto/ed25519"
	"errors"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// An event the group will never pay is Refused at every member with the
// same reason, before anyone votes for it; the stream's next nonce is
// paid; a quorum's certificate verifies against the group's keys.
func TestUnpayableEventIsRefused(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*twophase.SigningEvent)
		reason twophase.Reason
	}{
		{"not an address", func(e *twophase.SigningEvent) { e.Destination = "kaspa:qqnotours" }, twophase.RefusedNotAnAddress},
		{"own address", func(e *twophase.SigningEvent) { e.Destination = simledger.GroupAddress("test") }, twophase.RefusedOwnAddress},
		{"zero amount", func(e *twophase.SigningEvent) { e.Amount = 0 }, twophase.RefusedBelowMinimum},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, 3, 2)
			bad, next := event(0), event(1)
			tc.edit(&bad)
			c.request(bad)
			c.request(next)
			c.advance(20 * time.Second)
			for _, id := range c.ids {
				e, ok := c.nodes[id].st.Event(bad.ID())
				if !ok || e.Phase != twophase.PhaseRefused || e.Refusal == nil || e.Refusal.Reason != tc.reason {
					t.Fatalf("%s: unpayable event %+v, want Refused for %s", id, e.Refusal, tc.reason)
				}
				if !e.Refusal.Certified {
					t.Errorf("%s: refusal not certified", id)
				}
				for _, typ := range []string{twophase.TypeVoteAccepted, twophase.TypeTemplateSigned, twophase.TypeRoundStarted} {
					for _, f := range c.facts(id, typ) {
						if f.AggregateID() == twophase.EventAggregate(bad.ID()) {
							t.Errorf("%s: %s for the refused event", id, typ)
						}
					}
				}
				if p := c.phase(id, next); p != twophase.PhaseCompleted {
					t.Errorf("%s: next nonce %s, want Completed", id, p)
				}
				if got := c.observed(id, twophase.MetricEventsRefused); len(got) != 1 || got[0].Label != string(tc.reason) {
					t.Errorf("%s: refused metric %+v", id, got)
				}
				if st := c.nodes[id].st.Streams(); len(st) != 1 || st[0].Blocked || st[0].Next != next.Nonce+1 {
					t.Errorf("%s: streams %+v, want past both nonces", id, st)
				}
				c.checkCertificate(id, bad, tc.reason)
			}
			if c.payouts(next) != 1 {
				t.Fatal("the next nonce was not paid once")
			}
			c.checkSafety()
		})
	}
}

// checkCertificate verifies id's recorded certificate of ev with
// domain.VerifyRefusal, and that one member's signature is not enough.
func (c *cluster) checkCertificate(id twophase.PeerID, ev twophase.SigningEvent, reason twophase.Reason) {
	c.t.Helper()
	certs := c.facts(id, twophase.TypeRefusalCertified)
	if len(certs) != 1 {
		c.t.Fatalf("%s: %d certificates", id, len(certs))
	}
	rc := certs[0].(twophase.RefusalCertified)
	group := c.group.ID().Hex()
	cert := simledger.RefusalFor(group, ev, "", reason)
	keys := map[string]ed25519.PublicKey{}
	for _, m := range c.group.Members {
		keys[string(m.ID)] = m.IdentityKey
	}
	for _, s := range rc.Signatures {
		cert.Signatures = append(cert.Signatures, domain.MemberSignature{Member: string(s.Signer), Signature: s.Signature})
	}
	if err := domain.VerifyRefusal(cert, group, keys, c.group.Quorum); err != nil {
		c.t.Errorf("%s: certificate does not verify: %v", id, err)
	}
	cert.Signatures = cert.Signatures[:1]
	if err := domain.VerifyRefusal(cert, group, keys, c.group.Quorum); !errors.Is(err, domain.ErrCertificateQuorum) {
		c.t.Errorf("%s: one signature verifies: %v", id, err)
	}
}

// A member that learns the refused event late (its source lagging) still
// gets a certificate: the others answer its signature with theirs.
func TestRefusalCertifiedForLateMember(t *testing.T) {
	c := newCluster(t, 3, 2)
	bad := event(0)
	bad.Destination = "kaspa:qqnotours"
	c.request(bad, "s1", "s2")
	c.advance(10 * time.Second)
	c.request(bad, "s3")
	c.advance(5 * time.Second)
	e, _ := c.nodes["s3"].st.Event(bad.ID())
	if e.Phase != twophase.PhaseRefused || !e.Refusal.Certified || len(e.Refusal.Sigs) < 2 {
		t.Fatalf("late member: %s, %+v", e.Phase, e.Refusal)
	}
	c.checkCertificate("s3", bad, twophase.RefusedNotAnAddress)
}

// A refused event is terminal: an operator's reset says so, and a
// replayed log rebuilds the verdict.
func TestRefusedIsTerminal(t *testing.T) {
	c := newCluster(t, 3, 2)
	bad := event(0)
	bad.Amount = 0
	c.request(bad)
	c.advance(5 * time.Second)
	_, err := c.nodes["s1"].st.AdminReset(bad.ID(), "op", "retry", c.env("s1"))
	if !errors.Is(err, twophase.ErrEventRefused) || !errors.Is(err, twophase.ErrAdmin) {
		t.Fatalf("reset of a refused event: %v", err)
	}
	c.crash("s1")
	c.start("s1")
	if p := c.phase("s1", bad); p != twophase.PhaseRefused {
		t.Fatalf("after replay: %s", p)
	}
	if st := c.nodes["s1"].st.Streams(); len(st) != 1 || st[0].Next != bad.Nonce+1 {
		t.Fatalf("after replay: streams %+v", st)
	}
}
