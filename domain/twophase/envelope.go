package twophase

import (
	"crypto/ed25519"
	"fmt"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// Kind is the kind of message an envelope carries.
type Kind uint8

const (
	KindProposal     Kind = 1
	KindNoVote       Kind = 2
	KindCommit       Kind = 3
	KindSyncRequest  Kind = 4
	KindSyncResponse Kind = 5
	KindRefusal      Kind = 6 // a member's signature of a refusal certificate
	KindPrecommit    Kind = 7 // Profile B: a member's second vote of a round (see Precommit)
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
	case KindRefusal:
		return "refusal"
	case KindPrecommit:
		return "precommit"
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

// VerifyFunc verifies an ed25519 signature (crypto/ed25519's semantics).
type VerifyFunc func(pub ed25519.PublicKey, msg, sig []byte) bool

// Opener checks incoming envelopes against the group's keys.
type Opener struct {
	Group Group
	id    Hash
	keys  map[PeerID]func(msg, sig []byte) bool
}

// NewOpener prepares an Opener for g. Without a verify function it
// checks signatures with each member's expanded public key
// (curve25519-voi, with crypto/ed25519's acceptance rules): the key is
// decompressed once, not at every envelope, which is most of a signer's
// work when N is 20.
func NewOpener(g Group, verify VerifyFunc) *Opener {
	o := &Opener{Group: g, id: g.ID(), keys: map[PeerID]func(msg, sig []byte) bool{}}
	for _, m := range g.Members {
		pub := m.IdentityKey
		if verify != nil {
			o.keys[m.ID] = func(msg, sig []byte) bool { return verify(pub, msg, sig) }
			continue
		}
		x, err := voi.NewExpandedPublicKey(voi.PublicKey(pub))
		if err != nil {
			o.keys[m.ID] = func(msg, sig []byte) bool { return ed25519.Verify(pub, msg, sig) }
			continue
		}
		o.keys[m.ID] = func(msg, sig []byte) bool { return voi.VerifyExpandedWithOptions(x, msg, sig, stdlibRules) }
	}
	return o
}

// stdlibRules make voi accept exactly what crypto/ed25519 accepts.
var stdlibRules = &voi.Options{Verify: voi.VerifyOptionsStdLib}

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
	verify, ok := o.keys[e.Sender]
	if !ok {
		return Envelope{}, reject(ReasonUnknownSender, "sender %q is not a member of this group", e.Sender)
	}
	if !verify(e.signedBytes(), e.Sig[:]) {
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
