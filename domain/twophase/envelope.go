package twophase

import (
	"crypto/ed25519"
	"fmt"
)

// Kind is the kind of message an envelope carries.
type Kind uint8

const (
	KindProposal     Kind = 1
	KindNoVote       Kind = 2
	KindCommit       Kind = 3
	KindSyncRequest  Kind = 4
	KindSyncResponse Kind = 5
)

func (k Kind) String() string {
	switch k {
	case KindProposal:
		return "proposal"
	case KindNoVote:
		return "no_vote"
	case KindCommit:
		return "commit"
	case KindSyncRequest:
		return "sync_request"
	case KindSyncResponse:
		return "sync_response"
	}
	return fmt.Sprintf("kind_%d", uint8(k))
}

// Envelope is a signed protocol message. The signature covers every field:
// the protocol version, the group, the sender, the sender's session and
// sequence number, the kind and the payload's hash, so no envelope can be
// re-wrapped for another group, sender or position, or replayed unseen.
type Envelope struct {
	Version uint16
	Group   Hash
	Sender  PeerID
	// Session increases with every start of the sender; Seq increases
	// within a session. Together they let a receiver drop replays.
	Session uint64
	Seq     uint64
	Kind    Kind
	Payload []byte
	Sig     [ed25519.SignatureSize]byte
	// Raw is the whole envelope as received (aliases the input of Open):
	// what is relayed as evidence.
	Raw []byte
}

const envelopeMagic = "BLSE"

// MaxEnvelopeBytes bounds any envelope; sync responses and commits with
// evidence are the largest.
const MaxEnvelopeBytes = 4 << 20

// signedBytes is what the sender's key signs.
func (e *Envelope) signedBytes() []byte {
	var w writer
	w.fixed([]byte(tagEnvelope))
	w.u8(0)
	w.u16(e.Version)
	w.hash(e.Group)
	w.str(string(e.Sender))
	w.u64(e.Session)
	w.u64(e.Seq)
	w.u8(uint8(e.Kind))
	ph := taggedHash(tagPayload, e.Payload)
	w.hash(ph)
	return w.out()
}

// Seal signs and encodes an envelope; e.Sig and e.Raw are set.
func Seal(key ed25519.PrivateKey, e *Envelope) []byte {
	copy(e.Sig[:], ed25519.Sign(key, e.signedBytes()))
	var w writer
	w.fixed([]byte(envelopeMagic))
	w.u16(e.Version)
	w.hash(e.Group)
	w.str(string(e.Sender))
	w.u64(e.Session)
	w.u64(e.Seq)
	w.u8(uint8(e.Kind))
	w.bytes(e.Payload)
	w.fixed(e.Sig[:])
	e.Raw = w.out()
	return e.Raw
}

// VerifyFunc verifies an ed25519 signature; [ed25519.Verify] unless a
// caller supplies an equivalent.
type VerifyFunc func(pub ed25519.PublicKey, msg, sig []byte) bool

// Opener checks incoming envelopes against the group's keys.
type Opener struct {
	Group  Group
	Verify VerifyFunc // nil: ed25519.Verify
	id     Hash
	keys   map[PeerID]ed25519.PublicKey
}

// NewOpener prepares an Opener for g.
func NewOpener(g Group, verify VerifyFunc) *Opener {
	o := &Opener{Group: g, Verify: verify, id: g.ID(), keys: map[PeerID]ed25519.PublicKey{}}
	if o.Verify == nil {
		o.Verify = ed25519.Verify
	}
	for _, m := range g.Members {
		o.keys[m.ID] = m.IdentityKey
	}
	return o
}

// GroupID is the id envelopes must carry.
func (o *Opener) GroupID() Hash { return o.id }

// Open decodes raw and verifies its signature against the sender's
// configured key before anything else of it is trusted; then it checks
// the protocol version and the group. Every refusal is a
// [ValidationError] with its reason.
func (o *Opener) Open(raw []byte) (Envelope, error) {
	e, err := parseEnvelope(raw)
	if err != nil {
		return Envelope{}, err
	}
	key, ok := o.keys[e.Sender]
	if !ok {
		return Envelope{}, reject(ReasonUnknownSender, "sender %q is not a member of this group", e.Sender)
	}
	if !o.Verify(key, e.signedBytes(), e.Sig[:]) {
		return Envelope{}, reject(ReasonBadSignature, "signature of %s does not verify", e.Sender)
	}
	if e.Version != ProtocolVersion {
		return Envelope{}, reject(ReasonWrongVersion, "%s speaks protocol version %d, this signer %d", e.Sender, e.Version, ProtocolVersion)
	}
	if e.Group != o.id {
		return Envelope{}, reject(ReasonWrongGroup, "%s is in group %s, this signer in %s", e.Sender, e.Group.Short(), o.id.Short())
	}
	return e, nil
}

// parseEnvelope decodes an envelope without checking its signature: for
// bytes this signer verified before it stored them.
func parseEnvelope(raw []byte) (Envelope, error) {
	if len(raw) > MaxEnvelopeBytes {
		return Envelope{}, reject(ReasonOversized, "envelope of %d bytes, at most %d", len(raw), MaxEnvelopeBytes)
	}
	r := reader{b: raw}
	if string(r.take(len(envelopeMagic), "envelope magic")) != envelopeMagic && r.err == nil {
		r.fail("envelope magic")
	}
	var e Envelope
	e.Version = r.u16("version")
	e.Group = r.hash("group")
	e.Sender = PeerID(r.str(MaxPeerIDBytes, "sender"))
	e.Session = r.u64("session")
	e.Seq = r.u64("seq")
	e.Kind = Kind(r.u8("kind"))
	e.Payload = r.bytes(MaxEnvelopeBytes, "payload")
	copy(e.Sig[:], r.take(ed25519.SignatureSize, "signature"))
	if err := r.end("envelope"); err != nil {
		return Envelope{}, &ValidationError{Reason: ReasonMalformed, Detail: err.Error()}
	}
	e.Raw = raw
	return e, nil
}
