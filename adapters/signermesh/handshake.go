package signermesh

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// HandshakeTag separates the handshake's signatures from every other use
// of a member's identity key (twophase signs envelopes under
// "bridgelog/twophase/envelope/v1"). It is part of the protocol: never
// change it. (v1 was the plaintext mesh's, whose transcript had no TLS
// binding.)
const HandshakeTag = "bridgelog/signermesh/handshake/v2"

// NonceBytes is the size of each side's handshake challenge.
const NonceBytes = 32

// maxRefusalBytes bounds the reason a refusal carries.
const maxRefusalBytes = 512

// HandshakeError says why a link was refused. Detail names the peer and
// what differs ("peer s2 speaks protocol version 2, this signer 1").
type HandshakeError struct {
	// Peer is the member the other side named or was dialled as; "" when
	// it named no member.
	Peer    twophase.PeerID
	Outcome Outcome
	Detail  string
}

func (e *HandshakeError) Error() string { return e.Detail }

// hello opens the handshake, from both sides at once. Its layout is the
// same in every protocol version, so that two versions can still read
// each other's and name the difference.
type hello struct {
	version uint16
	group   twophase.Hash
	id      twophase.PeerID
	nonce   [NonceBytes]byte
}

// encode: version (u16 big-endian), group id (32), id length (u8), id,
// nonce (32).
func (h hello) encode() []byte {
	b := make([]byte, 0, 2+len(h.group)+1+len(h.id)+NonceBytes)
	b = binary.BigEndian.AppendUint16(b, h.version)
	b = append(b, h.group[:]...)
	b = append(b, byte(len(h.id)))
	b = append(b, h.id...)
	return append(b, h.nonce[:]...)
}

var errHelloMalformed = errors.New("malformed hello")

func parseHello(b []byte) (hello, error) {
	var h hello
	const fixed = 2 + len(h.group) + 1 + NonceBytes
	if len(b) < fixed {
		return h, fmt.Errorf("%w: %d bytes", errHelloMalformed, len(b))
	}
	h.version = binary.BigEndian.Uint16(b)
	copy(h.group[:], b[2:])
	n := int(b[2+len(h.group)])
	if n == 0 || n > twophase.MaxPeerIDBytes || len(b) != fixed+n {
		return h, fmt.Errorf("%w: id of %d bytes in %d", errHelloMalformed, n, len(b))
	}
	rest := b[2+len(h.group)+1:]
	h.id = twophase.PeerID(rest[:n])
	copy(h.nonce[:], rest[n:])
	return h, nil
}

func newHello(version uint16, group twophase.Hash, id twophase.PeerID) (hello, error) {
	h := hello{version: version, group: group, id: id}
	if _, err := rand.Read(h.nonce[:]); err != nil {
		return h, fmt.Errorf("handshake nonce: %w", err)
	}
	return h, nil
}

// transcript is what prover signs to prove its identity key to verifier:
//
//	HandshakeTag, 0x00,
//	protocol version (u16 big-endian), group id (32 bytes),
//	prover id (u8 length, bytes), verifier id (u8 length, bytes),
//	prover's nonce (32), verifier's nonce (32),
//	the TLS session's exporter value (32, see exporterLabel).
//
// The verifier's fresh nonce and the TLS session make the proof good
// for this link only (a proof relayed onto another TLS session does not
// verify); naming both ids in order makes a proof one side gave useless
// to the other (it cannot be reflected), and the version and group bind
// it to what the hellos claimed.
func transcript(version uint16, group twophase.Hash, prover, verifier hello, binding []byte) []byte {
	b := make([]byte, 0, len(HandshakeTag)+1+2+len(group)+2+len(prover.id)+len(verifier.id)+2*NonceBytes+len(binding))
	b = append(b, HandshakeTag...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, version)
	b = append(b, group[:]...)
	b = append(b, byte(len(prover.id)))
	b = append(b, prover.id...)
	b = append(b, byte(len(verifier.id)))
	b = append(b, verifier.id...)
	b = append(b, prover.nonce[:]...)
	b = append(b, verifier.nonce[:]...)
	return append(b, binding...)
}

// checkHello decides whether the peer's hello is acceptable to this
// member. dialled is the member this side dialled, "" when it accepted
// the link.
func (m *Mesh) checkHello(h hello, dialled twophase.PeerID, addr string) *HandshakeError {
	// The refusal is of the member dialled (its link fails), else of the
	// member the hello names, if it names one.
	named := dialled
	if _, ok := m.keys[h.id]; ok && named == "" {
		named = h.id
	}
	refuse := func(o Outcome, format string, a ...any) *HandshakeError {
		return &HandshakeError{Peer: named, Outcome: o, Detail: fmt.Sprintf(format, a...)}
	}
	who := quoteID(h.id)
	switch {
	case h.version != m.cfg.ProtocolVersion:
		return refuse(OutcomeWrongVersion, "peer %s speaks protocol version %d, this signer %d", who, h.version, m.cfg.ProtocolVersion)
	case h.group != m.group:
		return refuse(OutcomeWrongGroup, "peer %s is in group %s, this signer in %s%s", who, h.group, m.group, m.groupDifference(h.group))
	case m.keys[h.id] == nil:
		return refuse(OutcomeUnknownMember, "peer %s is not a member of group %s", who, m.group)
	case h.id == m.cfg.Self:
		return refuse(OutcomeUnexpectedPeer, "peer at %s claims this signer's own id %s", addr, who)
	case dialled != "" && h.id != dialled:
		return refuse(OutcomeUnexpectedPeer, "the address %s of member %s answered as %s", addr, dialled, who)
	case dialled == "" && h.id > m.cfg.Self:
		return refuse(OutcomeUnexpectedPeer, "peer %s dialled this signer %s, but of two members the one with the smaller id dials", who, m.cfg.Self)
	}
	return nil
}

// groupVariants maps the ids of the groups that differ from g only in
// profile, quorum or f to those groups. The hello carries a group id
// alone; a peer whose id is one of these is a member of the same group
// configured with another profile or quorum, and its refusal can say so.
func groupVariants(g twophase.Group) map[twophase.Hash]twophase.Group {
	out := map[twophase.Hash]twophase.Group{}
	own, n := g.ID(), len(g.Members)
	for _, p := range []twophase.Profile{twophase.ProfileA, twophase.ProfileB} {
		faults := []int{0} // Profile A tolerates none
		if p == twophase.ProfileB {
			faults = faults[:0]
			for f := 1; 3*f+1 <= n; f++ {
				faults = append(faults, f)
			}
		}
		for _, f := range faults {
			for q := 1; q <= n; q++ {
				v := g
				v.Profile, v.Faults, v.Quorum = p, f, q
				if id := v.ID(); id != own {
					out[id] = v
				}
			}
		}
	}
	return out
}

// groupDifference says how the peer's group differs from this signer's
// when only the profile, quorum or f does ("" otherwise).
func (m *Mesh) groupDifference(peer twophase.Hash) string {
	v, ok := m.variants[peer]
	if !ok {
		return ""
	}
	d := fmt.Sprintf(": the same members under %s, this signer's under %s", describeProfile(v), describeProfile(m.cfg.Group))
	if v.Profile != m.cfg.Group.Profile {
		d += "; a group runs one profile"
	}
	return d
}

func describeProfile(g twophase.Group) string {
	if g.Profile == twophase.ProfileB {
		return fmt.Sprintf("Profile B (f = %d, quorum %d)", g.Faults, g.Quorum)
	}
	return fmt.Sprintf("Profile %s (quorum %d)", strings.ToUpper(string(g.Profile)), g.Quorum)
}

// checkProof verifies the prover's signature of the transcript against
// the identity key the group lists for it, over the version and group its
// hello claims: a member configured with another version or group still
// proves who it is, and can then be told what differs.
func (m *Mesh) checkProof(prover, verifier hello, sig, binding []byte) *HandshakeError {
	key := m.keys[prover.id]
	if key != nil && len(sig) == ed25519.SignatureSize &&
		ed25519.Verify(key, transcript(prover.version, prover.group, prover, verifier, binding), sig) {
		return nil
	}
	if key == nil {
		return &HandshakeError{Peer: prover.id, Outcome: OutcomeUnknownMember,
			Detail: fmt.Sprintf("peer %s is not a member of group %s", quoteID(prover.id), m.group)}
	}
	return &HandshakeError{Peer: prover.id, Outcome: OutcomeBadProof,
		Detail: fmt.Sprintf("peer %s did not prove the identity key the group lists for it (%x…): its handshake signature does not verify", prover.id, key[:4])}
}

// parseChallenge reads the accepting side's nonce.
func parseChallenge(b []byte) ([NonceBytes]byte, error) {
	var n [NonceBytes]byte
	if len(b) != NonceBytes {
		return n, fmt.Errorf("%w: a challenge of %d bytes", errHelloMalformed, len(b))
	}
	copy(n[:], b)
	return n, nil
}

// refusedBy is the error of a refusal frame from the peer.
func refusedBy(peer twophase.PeerID, addr string, reason []byte) *HandshakeError {
	if len(reason) > maxRefusalBytes {
		reason = reason[:maxRefusalBytes]
	}
	return &HandshakeError{Peer: peer, Outcome: OutcomeRefusedByPeer,
		Detail: fmt.Sprintf("peer %s refused this signer: %s", peerName(peer, addr), strconv.Quote(string(reason)))}
}

// peerName names a peer in an error: its member id, else its address.
func peerName(id twophase.PeerID, addr string) string {
	if id != "" {
		return string(id)
	}
	return "at " + addr
}

// quoteID renders an id the peer chose: plain when it is printable,
// quoted otherwise, so a log line cannot be forged through it.
func quoteID(id twophase.PeerID) string {
	q := strconv.Quote(string(id))
	if q[1:len(q)-1] == string(id) {
		return string(id)
	}
	return q
}

// handshakeTimeout is the error when the peer did not finish in time.
func handshakeTimeout(peer twophase.PeerID, addr string, after time.Duration, waiting frameKind) *HandshakeError {
	return &HandshakeError{Peer: peer, Outcome: OutcomeFailed,
		Detail: fmt.Sprintf("peer %s did not complete the handshake within %v (waiting for its %s)", peerName(peer, addr), after, waiting)}
}
