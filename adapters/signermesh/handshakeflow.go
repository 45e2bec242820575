package signermesh

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// handshake proves identities both ways inside TLS, which already
// proved both keys (see the package doc): it binds the TLS session to
// the group, the protocol version and the member ids, and names what
// differs between two members' configurations.
func (l *link) handshake() (*peer, error) {
	timer := time.NewTimer(l.m.cfg.HandshakeTimeout)
	defer timer.Stop()
	if l.dialled != nil {
		return l.dialHandshake(timer)
	}
	return l.acceptHandshake(timer)
}

// dialHandshake: hello, the peer's challenge, proof; then the peer's
// hello and proof, checked, and accept both ways. The hello goes to the
// configured address of the member dialled, to no one else.
func (l *link) dialHandshake(timer *time.Timer) (*peer, error) {
	m, expect := l.m, l.dialled.id
	ours, err := newHello(m.cfg.ProtocolVersion, m.group, m.cfg.Self)
	if err != nil {
		return nil, err
	}
	if err := l.send(frameHello, ours.encode(), expect, timer); err != nil {
		return nil, err
	}
	f, err := l.next(frameChallenge, expect, timer)
	if err != nil {
		return nil, err
	}
	nonce, err := parseChallenge(f.body)
	if err != nil {
		return nil, l.refuse(&HandshakeError{Peer: expect, Outcome: OutcomeMalformed,
			Detail: fmt.Sprintf("peer %s sent a malformed challenge: %v", expect, err)})
	}
	// The proof names the member dialled as its verifier: it is good to
	// that member only, on this link only.
	verifier := hello{version: m.cfg.ProtocolVersion, group: m.group, id: expect, nonce: nonce}
	sig := ed25519.Sign(m.cfg.Identity, transcript(ours.version, ours.group, ours, verifier, l.auth.binding))
	if err := l.send(frameProof, sig, expect, timer); err != nil {
		return nil, err
	}
	if f, err = l.next(frameHello, expect, timer); err != nil {
		return nil, err
	}
	theirs, err := parseHello(f.body)
	if err != nil || theirs.nonce != nonce {
		return nil, l.refuse(&HandshakeError{Peer: expect, Outcome: OutcomeMalformed,
			Detail: fmt.Sprintf("peer %s sent a malformed hello (or one whose nonce is not its challenge): %v", expect, err)})
	}
	if f, err = l.next(frameProof, expect, timer); err != nil {
		return nil, err
	}
	if herr := m.checkProof(theirs, ours, f.body, l.auth.binding); herr != nil {
		herr.Peer = expect // the link to the member dialled failed
		if theirs.id != expect {
			herr.Outcome, herr.Detail = OutcomeUnexpectedPeer, fmt.Sprintf("the address %s of member %s answered as %s, and did not prove it",
				l.addr, expect, quoteID(theirs.id))
		}
		return nil, l.refuse(herr)
	}
	if herr := m.checkHello(theirs, expect, l.addr); herr != nil {
		return nil, l.refuse(herr)
	}
	return l.accept(expect, timer)
}

// acceptHandshake: the dialler's hello, which must name the member
// whose key it proved in TLS; a challenge (a nonce, nothing else); its
// proof, verified; then this member's hello and proof, the dialler's
// hello checked, and accept both ways. The dialler proved its key in
// TLS, so a failure is that member's (HandshakeError.Peer) and it is told
// why.
func (l *link) acceptHandshake(timer *time.Timer) (*peer, error) {
	m, who := l.m, l.auth.member
	f, err := l.next(frameHello, who, timer)
	if err != nil {
		return nil, err
	}
	theirs, err := parseHello(f.body)
	if err != nil {
		return nil, l.refuse(&HandshakeError{Peer: who, Outcome: OutcomeMalformed,
			Detail: fmt.Sprintf("peer %s sent a malformed hello: %v", who, err)})
	}
	if theirs.id != who {
		return nil, l.refuse(&HandshakeError{Peer: who, Outcome: OutcomeUnexpectedPeer,
			Detail: fmt.Sprintf("peer %s, by the identity key it proved in TLS, named %s in its hello", who, quoteID(theirs.id))})
	}
	ours, err := newHello(m.cfg.ProtocolVersion, m.group, m.cfg.Self)
	if err != nil {
		return nil, err
	}
	if err := l.send(frameChallenge, ours.nonce[:], who, timer); err != nil {
		return nil, err
	}
	if f, err = l.next(frameProof, who, timer); err != nil {
		return nil, err
	}
	if herr := m.checkProof(theirs, ours, f.body, l.auth.binding); herr != nil {
		return nil, l.refuse(herr)
	}
	sig := ed25519.Sign(m.cfg.Identity, transcript(ours.version, ours.group, ours, theirs, l.auth.binding))
	if err := l.send(frameHello, ours.encode(), who, timer); err != nil {
		return nil, err
	}
	if err := l.send(frameProof, sig, who, timer); err != nil {
		return nil, err
	}
	if herr := m.checkHello(theirs, "", l.addr); herr != nil {
		return nil, l.refuse(herr)
	}
	return l.accept(who, timer)
}

// accept ends a handshake both sides' proofs passed: each sends accept
// and waits for the other's.
func (l *link) accept(who twophase.PeerID, timer *time.Timer) (*peer, error) {
	if err := l.send(frameAccept, nil, who, timer); err != nil {
		return nil, err
	}
	if _, err := l.next(frameAccept, who, timer); err != nil {
		return nil, err
	}
	return l.m.peers[who], nil
}
