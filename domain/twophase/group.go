package twophase

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
)

// ProtocolVersion is the wire protocol these signers speak; a peer with
// another version is refused at the handshake and in every envelope.
const ProtocolVersion uint16 = 1

// MaxMembers is the seed's bound on N.
const MaxMembers = 20

// Profile is the fault model a group runs under (seed 001, 1.4.1).
type Profile string

const (
	// ProfileA: crash faults and non-equivocating signers; commit quorum
	// M > N/2.
	ProfileA Profile = "a"
	// ProfileB: up to f Byzantine signers with N >= 3f+1; commits are
	// lock certificates of a quorum of 2f+1 (seed 001, 5.3).
	ProfileB Profile = "b"
)

// Member is one signer of the group.
type Member struct {
	ID PeerID `json:"id"`
	// IdentityKey verifies the member's envelopes (ed25519).
	IdentityKey ed25519.PublicKey `json:"identityKey"`
	// PayoutKey is the member's key in the payout multisig; its format is
	// the ledger's (a Kaspa public key), opaque here.
	PayoutKey []byte `json:"payoutKey"`
}

// Group is the signing group: its members, its commit quorum and the
// script its change returns to.
type Group struct {
	Profile Profile  `json:"profile"`
	Members []Member `json:"members"`
	// Quorum is COMMIT_QUORUM, which is also the signature threshold of
	// the multisig; in Profile B the size of a lock certificate.
	Quorum int `json:"quorum"`
	// Faults is Profile B's f: how many members may be Byzantine.
	Faults int `json:"faults,omitempty"`
	// ChangeScript is the group's own locking script (its multisig
	// address): the only place a template may send anything but the payout.
	ChangeScript Script `json:"changeScript"`
	// Network names the ledger network ("kaspa-simnet", "sim"); part of the
	// group id so two networks' groups never accept each other's messages.
	Network string `json:"network"`
}

// Errors of a group configuration that must not start.
var (
	ErrGroupSize          = errors.New("group size out of range")
	ErrQuorumNotMajority  = errors.New("commit quorum is not a strict majority")
	ErrQuorumRange        = errors.New("commit quorum out of range")
	ErrDuplicateMember    = errors.New("member listed twice")
	ErrMemberKey          = errors.New("member key invalid")
	ErrProfileUnsupported = errors.New("profile not supported")
	ErrTooFewForFaults    = errors.New("too few members for the Byzantine faults tolerated")
	ErrNoChangeScript     = errors.New("group has no change script")
)

// Validate refuses a group that would be unsafe or malformed: more than
// MaxMembers, a quorum that is not a strict majority (M > N/2: with less,
// two hashes can reach quorum in one round), duplicate ids or keys.
func (g Group) Validate() error {
	n := len(g.Members)
	if n < 1 || n > MaxMembers {
		return fmt.Errorf("%w: %d members, want 1..%d", ErrGroupSize, n, MaxMembers)
	}
	if g.Quorum < 1 || g.Quorum > n {
		return fmt.Errorf("%w: quorum %d of %d members", ErrQuorumRange, g.Quorum, n)
	}
	switch g.Profile {
	case ProfileA:
		if g.Faults != 0 {
			return fmt.Errorf("%w: Profile A tolerates no Byzantine member (faults %d); use profile b", ErrProfileUnsupported, g.Faults)
		}
		if 2*g.Quorum <= n {
			return fmt.Errorf("%w: quorum %d of %d members, Profile A needs at least %d", ErrQuorumNotMajority, g.Quorum, n, n/2+1)
		}
	case ProfileB:
		if err := g.validateB(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: %q, want %q or %q", ErrProfileUnsupported, g.Profile, ProfileA, ProfileB)
	}
	if len(g.ChangeScript.Bytes) == 0 {
		return ErrNoChangeScript
	}
	ids := map[PeerID]bool{}
	keys := map[string]bool{}
	for _, m := range g.Members {
		if m.ID == "" || len(m.ID) > MaxPeerIDBytes {
			return fmt.Errorf("%w: id %q must be 1..%d bytes", ErrMemberKey, m.ID, MaxPeerIDBytes)
		}
		if ids[m.ID] {
			return fmt.Errorf("%w: %s", ErrDuplicateMember, m.ID)
		}
		ids[m.ID] = true
		if len(m.IdentityKey) != ed25519.PublicKeySize {
			return fmt.Errorf("%w: %s identity key has %d bytes, want %d", ErrMemberKey, m.ID, len(m.IdentityKey), ed25519.PublicKeySize)
		}
		if len(m.PayoutKey) == 0 {
			return fmt.Errorf("%w: %s has no payout key", ErrMemberKey, m.ID)
		}
		for _, k := range [][]byte{m.IdentityKey, m.PayoutKey} {
			if keys[string(k)] {
				return fmt.Errorf("%w: %s shares a key with another member", ErrDuplicateMember, m.ID)
			}
			keys[string(k)] = true
		}
	}
	return nil
}

// ProfileBQuorum is the least quorum a Profile B group of n members
// tolerating f Byzantine may use: 2f+1, and more when N > 3f+1 so that
// two quorums still share f+1 members.
func ProfileBQuorum(n, f int) int { return max(2*f+1, (n+f+2)/2) }

// validateB is Profile B's quorum math: N >= 3f+1; two quorums share at
// least f+1 members (2Q-N >= f+1), so at least one honest member, which
// signs one lock per round and none on a held outpoint; and a quorum is
// reachable without the f (Q <= N-f).
func (g Group) validateB() error {
	n, f, q := len(g.Members), g.Faults, g.Quorum
	switch {
	case f < 1:
		return fmt.Errorf("%w: Profile B needs faults f >= 1 (f = %d); a group with no Byzantine member runs Profile A", ErrTooFewForFaults, f)
	case n < 3*f+1:
		return fmt.Errorf("%w: %d members tolerate at most %d Byzantine, not %d (N >= 3f+1)", ErrTooFewForFaults, n, (n-1)/3, f)
	case 2*q-n < f+1:
		return fmt.Errorf("%w: quorum %d of %d members: two quorums share %d members, Profile B needs f+1 = %d (quorum at least %d)",
			ErrQuorumRange, q, n, 2*q-n, f+1, ProfileBQuorum(n, f))
	case q > n-f:
		return fmt.Errorf("%w: quorum %d of %d members is out of reach with %d silent Byzantine members (at most %d)", ErrQuorumRange, q, n, f, n-f)
	}
	return nil
}

// Sorted returns the group with its members sorted by id (on a copy), the
// order every deterministic choice uses.
func (g Group) Sorted() Group {
	g.Members = slices.Clone(g.Members)
	slices.SortFunc(g.Members, func(a, b Member) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return g
}

// Member returns the member with id, if any.
func (g Group) Member(id PeerID) (Member, bool) {
	for _, m := range g.Members {
		if m.ID == id {
			return m, true
		}
	}
	return Member{}, false
}

// IDs lists the member ids in the group's order.
func (g Group) IDs() []PeerID {
	out := make([]PeerID, len(g.Members))
	for i, m := range g.Members {
		out[i] = m.ID
	}
	return out
}

// ID is the group id that every envelope carries: a hash of the protocol
// version, profile, network, quorum, change script and every member's id
// and keys in id order. Signers configured differently have different ids
// and refuse each other.
func (g Group) ID() Hash {
	s := g.Sorted()
	var w writer
	w.u16(ProtocolVersion)
	w.str(string(s.Profile))
	w.str(s.Network)
	w.u32(uint32(s.Quorum))
	if s.Profile == ProfileB {
		w.u32(uint32(s.Faults))
	}
	w.script(s.ChangeScript)
	w.count(len(s.Members))
	for _, m := range s.Members {
		w.str(string(m.ID))
		w.bytes(m.IdentityKey)
		w.bytes(m.PayoutKey)
	}
	return taggedHash(tagGroup, w.out())
}
