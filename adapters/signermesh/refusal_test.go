package signermesh

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// refusal is what one side must log and count.
type refusal struct {
	side    twophase.PeerID
	peer    twophase.PeerID // the metric's peer label
	outcome Outcome
	err     string
	// linked: the pair also has a proper link, which the refusal must not
	// disturb.
	linked bool
}

// A peer of another version, group or key, or of no member at all, is
// refused by both ends of the link, each saying who and what differs,
// and no link comes up. A key is refused in TLS; a version or group,
// between members that proved their keys, in the hello.
func TestHandshakeRefusals(t *testing.T) {
	tests := []struct {
		name string
		// run starts the members and returns what each side must report.
		run func(t *testing.T, c *cluster) []refusal
	}{
		{"another protocol version", func(t *testing.T, c *cluster) []refusal {
			c.start(c.config("s1"))
			cfg := c.config("s2")
			cfg.ProtocolVersion = twophase.ProtocolVersion + 1
			c.start(cfg)
			v1, v2 := twophase.ProtocolVersion, twophase.ProtocolVersion+1
			return []refusal{
				{"s1", "s2", OutcomeWrongVersion, fmt.Sprintf("peer s2 speaks protocol version %d, this signer %d", v2, v1), false},
				{"s2", "s1", OutcomeWrongVersion, fmt.Sprintf("peer s1 speaks protocol version %d, this signer %d", v1, v2), false},
			}
		}},
		{"another group", func(t *testing.T, c *cluster) []refusal {
			c.start(c.config("s1"))
			cfg := c.config("s2")
			cfg.Group.Network = "elsewhere"
			c.start(cfg)
			g1, g2 := c.g.Group.ID(), cfg.Group.ID()
			return []refusal{
				{"s1", "s2", OutcomeWrongGroup, fmt.Sprintf("peer s2 is in group %s, this signer in %s", g2, g1), false},
				{"s2", "s1", OutcomeWrongGroup, fmt.Sprintf("peer s1 is in group %s, this signer in %s", g1, g2), false},
			}
		}},
		{"a key that is not the configured one", func(t *testing.T, c *cluster) []refusal {
			// s2 is an impostor without s2's private key: s1 dials it,
			// it dials s3, and both refuse it in TLS.
			c.start(c.config("s1"))
			c.start(c.config("s3"))
			cfg := c.config("s2")
			cfg.Identity = otherKey("impostor")
			c.startUnchecked(cfg)
			shown := fmt.Sprintf("presented identity key %x…, which no member of the group has", cfg.Identity.Public().(ed25519.PublicKey)[:4])
			return []refusal{
				// s1 dialled s2 and blames it
				{"s1", "s2", OutcomeBadProof, fmt.Sprintf("peer s2 did not prove the identity key the group lists for it (%x…): it %s",
					c.g.Identity["s2"].Public().(ed25519.PublicKey)[:4], shown), false},
				// s3 is dialled by the impostor, which proves nothing: s3
				// blames no member and tells it nothing
				{"s3", "", Outcome(RefusalTLSUnknownKey), shown, false},
				// the impostor saw s1 prove its key, then refuse its own
				{"s2", "s1", OutcomeRefusedByPeer, "peer s1 refused this signer's TLS handshake: remote error: tls: bad certificate", false},
				{"s2", "s3", OutcomeRefusedByPeer, "peer s3 refused this signer's TLS handshake: remote error: tls: bad certificate", false},
			}
		}},
		{"a member whose identity key the others' group does not list", func(t *testing.T, c *cluster) []refusal {
			// s2 replaced its identity key and runs the group that lists
			// the new one; s1 and s3 still run the group with the old key.
			// s1 and s3 refuse s2's new key in TLS; s2 sees them refuse
			// it: a key replacement takes every member's config.
			c.start(c.config("s1"))
			c.start(c.config("s3"))
			cfg := c.config("s2")
			cfg.Identity = otherKey("s2-replaced")
			cfg.Group.Members = slices.Clone(cfg.Group.Members)
			for i, m := range cfg.Group.Members {
				if m.ID == "s2" {
					m.IdentityKey = cfg.Identity.Public().(ed25519.PublicKey)
					cfg.Group.Members[i] = m
				}
			}
			c.start(cfg)
			shown := fmt.Sprintf("presented identity key %x…, which no member of the group has", cfg.Identity.Public().(ed25519.PublicKey)[:4])
			return []refusal{
				{"s1", "s2", OutcomeBadProof, fmt.Sprintf("peer s2 did not prove the identity key the group lists for it (%x…): it %s",
					c.g.Identity["s2"].Public().(ed25519.PublicKey)[:4], shown), false},
				{"s3", "", Outcome(RefusalTLSUnknownKey), shown, false},
				{"s2", "s1", OutcomeRefusedByPeer, "peer s1 refused this signer's TLS handshake: remote error: tls: bad certificate", false},
				{"s2", "s3", OutcomeRefusedByPeer, "peer s3 refused this signer's TLS handshake: remote error: tls: bad certificate", false},
			}
		}},
		{"an id not in the group", func(t *testing.T, c *cluster) []refusal {
			// s0 knows the group and the addresses but is not in it; as
			// the smaller id it dials s1, which refuses its key in TLS.
			c.start(c.config("s1"))
			c.start(c.config("s2"))
			c.bind("s0", "127.0.0.1:0")
			cfg := c.config("s0")
			cfg.Identity = otherKey("outsider")
			c.startUnchecked(cfg)
			return []refusal{
				{"s1", "", Outcome(RefusalTLSUnknownKey),
					fmt.Sprintf("presented identity key %x…, which no member of the group has", cfg.Identity.Public().(ed25519.PublicKey)[:4]), false},
				{"s0", "s1", OutcomeRefusedByPeer, "peer s1 refused this signer's TLS handshake: remote error: tls: bad certificate", false},
			}
		}},
		{"an address that answers as another member", func(t *testing.T, c *cluster) []refusal {
			// s1's address book sends it to s3 when it dials s2: s1
			// proves its key, s3 proves its own, and s1 refuses a key
			// that is not s2's.
			cfg := c.config("s1")
			cfg.Peers["s2"] = c.addrs["s3"]
			c.start(cfg)
			c.start(c.config("s3"))
			return []refusal{
				{"s1", "s2", OutcomeUnexpectedPeer, fmt.Sprintf("the address %s of member s2 presented the identity key of member s3", c.addrs["s3"]), false},
				// s1 also dials s3 as s3: that link is up
				{"s3", "s1", OutcomeRefusedByPeer, "peer s1 refused this signer's TLS handshake: remote error: tls: bad certificate", true},
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, "s1", "s2", "s3")
			checkRefusals(t, c, tc.run(t, c))
		})
	}
}

// Two members of one group but for its profile (s2 configured for
// Profile B, f = 1, the others for Profile A, quorum 3 of 4 in both):
// their group ids differ, and each side's refusal says that it is the
// profile, not the members, and that a group runs one profile. A member
// configured with another quorum is told that instead.
func TestHandshakeRefusesAnotherProfile(t *testing.T) {
	c := newCluster(t, "s1", "s2", "s3", "s4")
	if c.g.Group.Profile != twophase.ProfileA || c.g.Group.Quorum != 3 {
		t.Fatalf("the cluster's group is Profile %s with quorum %d, want A with 3", c.g.Group.Profile, c.g.Group.Quorum)
	}
	c.start(c.config("s1"))
	b := c.config("s2")
	b.Group.Profile, b.Group.Faults = twophase.ProfileB, 1
	c.start(b)
	q := c.config("s3")
	q.Group.Quorum = 4
	c.start(q)
	a, bID, qID := c.g.Group.ID(), b.Group.ID(), q.Group.ID()
	const onA, onB, onQ = "Profile A (quorum 3)", "Profile B (f = 1, quorum 3)", "Profile A (quorum 4)"
	differ := func(peer twophase.PeerID, theirs, ours twophase.Hash, theirProfile, ourProfile, tail string) string {
		return fmt.Sprintf("peer %s is in group %s, this signer in %s: the same members under %s, this signer's under %s%s",
			peer, theirs, ours, theirProfile, ourProfile, tail)
	}
	const one = "; a group runs one profile"
	checkRefusals(t, c, []refusal{
		{"s1", "s2", OutcomeWrongGroup, differ("s2", bID, a, onB, onA, one), false},
		{"s2", "s1", OutcomeWrongGroup, differ("s1", a, bID, onA, onB, one), false},
		{"s2", "s3", OutcomeWrongGroup, differ("s3", qID, bID, onQ, onB, one), false},
		{"s1", "s3", OutcomeWrongGroup, differ("s3", qID, a, onQ, onA, ""), false},
		{"s3", "s1", OutcomeWrongGroup, differ("s1", a, qID, onA, onQ, ""), false},
	})
}

// checkRefusals waits for each refusal to be logged and counted by its
// side, and checks that no pair refused completed a handshake.
func checkRefusals(t *testing.T, c *cluster, want []refusal) {
	t.Helper()
	for _, w := range want {
		if w.peer == "" {
			checkUnauthenticated(t, c, w)
			continue
		}
		log := c.logs[w.side]
		waitFor(t, fmt.Sprintf("%s to refuse %s (%s)", w.side, w.peer, w.outcome), func() bool {
			_, ok := log.find("handshake refused", map[string]string{"outcome": string(w.outcome), "peer": string(w.peer)})
			return ok
		})
		r, _ := log.find("handshake refused", map[string]string{"outcome": string(w.outcome), "peer": string(w.peer)})
		if r.attrs["err"] != w.err {
			t.Errorf("%s logged %q\nwant %q", w.side, r.attrs["err"], w.err)
		}
		if r.attrs["signer"] != string(w.side) {
			t.Errorf("%s's refusal logged as signer %q", w.side, r.attrs["signer"])
		}
		if n := c.metrics[w.side].get("handshake", string(w.peer), string(w.outcome)); n == 0 {
			t.Errorf("%s did not count its refusal of %q: %s", w.side, w.peer, c.metrics[w.side])
		}
	}
	for _, w := range want {
		if n := c.metrics[w.side].get("handshake", string(w.peer), string(OutcomeOK)); n != 0 && !w.linked {
			t.Errorf("%s counted %d completed handshakes with %s", w.side, n, w.peer)
		}
	}
}

// checkUnauthenticated waits for a refusal before authentication: logged
// (rate limited) and counted by reason, against no member.
func checkUnauthenticated(t *testing.T, c *cluster, w refusal) {
	t.Helper()
	log := c.logs[w.side]
	want := map[string]string{"reason": string(w.outcome)}
	waitFor(t, fmt.Sprintf("%s to refuse an unauthenticated peer (%s)", w.side, w.outcome), func() bool {
		_, ok := log.find("connection refused before authentication", want)
		return ok
	})
	r, _ := log.find("connection refused before authentication", want)
	if !strings.HasSuffix(r.attrs["err"], w.err) {
		t.Errorf("%s logged %q\nwant it to end %q", w.side, r.attrs["err"], w.err)
	}
	if n := c.metrics[w.side].get("refused", string(w.outcome)); n == 0 {
		t.Errorf("%s did not count the refusal: %s", w.side, c.metrics[w.side])
	}
	for _, m := range c.g.Members {
		if n := c.metrics[w.side].get("handshake", string(m.ID), string(w.outcome)); n != 0 {
			t.Errorf("%s blamed member %s for an unauthenticated refusal: %s", w.side, m.ID, c.metrics[w.side])
		}
	}
}

// otherKey is an identity key no member has.
func otherKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("signermesh-test/" + name))
	return ed25519.NewKeyFromSeed(seed[:])
}
