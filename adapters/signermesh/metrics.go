package signermesh

import "github.com/bridgelog/bridgelog/domain/twophase"

// Outcome is how a handshake ended: a metric label and the reason of a
// [HandshakeError].
type Outcome string

const (
	OutcomeOK Outcome = "ok"
	// OutcomeWrongVersion: the peer speaks another protocol version.
	OutcomeWrongVersion Outcome = "wrong_version"
	// OutcomeWrongGroup: the peer is configured with another group (other
	// members, keys, quorum, profile or network).
	OutcomeWrongGroup Outcome = "wrong_group"
	// OutcomeUnknownMember: the peer's id is not a member of the group.
	OutcomeUnknownMember Outcome = "unknown_member"
	// OutcomeUnexpectedPeer: a member's address answered as another
	// member, or a member dialled that should wait to be dialled.
	OutcomeUnexpectedPeer Outcome = "unexpected_peer"
	// OutcomeBadProof: the peer did not prove its configured identity key.
	OutcomeBadProof Outcome = "bad_proof"
	// OutcomeRefusedByPeer: the peer refused this signer (its reason is in
	// the error).
	OutcomeRefusedByPeer Outcome = "refused_by_peer"
	// OutcomeMalformed: a handshake frame that does not parse, or one out
	// of order.
	OutcomeMalformed Outcome = "malformed"
	// OutcomeFailed: the stream broke or the handshake timed out.
	OutcomeFailed Outcome = "failed"
)

// DropReason says why a message was not delivered.
type DropReason string

const (
	// DropQueueFull: the peer's queue was full; its oldest message was
	// dropped to make room (anti-entropy recovers it).
	DropQueueFull DropReason = "queue_full"
	// DropLinkLost: the link broke while the message was being written.
	DropLinkLost DropReason = "link_lost"
)

// Metrics receives the mesh's observations. peer is always a member id,
// or "" for a handshake with a process that did not name a member (so an
// outsider cannot make up label values).
type Metrics interface {
	Handshake(peer twophase.PeerID, outcome Outcome)
	Sent(peer twophase.PeerID)
	Received(peer twophase.PeerID)
	Dropped(peer twophase.PeerID, reason DropReason)
	// Reconnect counts each link to peer that comes up after the first.
	Reconnect(peer twophase.PeerID)
	// Refused counts a connection or link turned away before the other
	// side proved a member's key: by reason only, never by a peer.
	Refused(reason Refusal)
}

type nopMetrics struct{}

func (nopMetrics) Handshake(twophase.PeerID, Outcome)  {}
func (nopMetrics) Sent(twophase.PeerID)                {}
func (nopMetrics) Received(twophase.PeerID)            {}
func (nopMetrics) Dropped(twophase.PeerID, DropReason) {}
func (nopMetrics) Reconnect(twophase.PeerID)           {}
func (nopMetrics) Refused(Refusal)                     {}
