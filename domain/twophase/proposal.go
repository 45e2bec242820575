package twophase

import (
	"crypto/ed25519"
	"fmt"
)

// Anchor is the ledger tip a proposal was built at (seed 001, 2.3).
// Advisory in Profile A: for audit and diagnostics.
type Anchor struct {
	TipScore uint64 `msgpack:"tip_score" json:"tipScore"`
	TipHash  *Hash  `msgpack:"tip_hash,omitempty" json:"tipHash,omitempty"`
}

// InputMeta is what a proposal says of each input's output besides what
// the template holds: its DAA score and whether it is a coinbase output
// (the seed's utxos_used).
type InputMeta struct {
	DAAScore uint64 `msgpack:"daa_score" json:"daaScore"`
	Coinbase bool   `msgpack:"coinbase" json:"coinbase"`
}

// Proposal is a signer's vote for a template in one round of one event.
// It carries everything another signer needs to check it independently:
// the event, the template's canonical bytes and its inputs' metadata.
type Proposal struct {
	Event SigningEvent
	// Epoch counts operator resets of the event; votes of different
	// epochs never mix.
	Epoch        uint32
	Round        uint32
	TemplateHash Hash
	Template     []byte // canonical encoding (the seed's kpsbt_blob)
	Inputs       []InputMeta
	Proposer     PeerID
	TimestampNs  int64 // audit only, never used to decide
	Anchor       *Anchor
	// LockSig is Profile B's lock signature: the proposer's identity-key
	// signature of [LockMsgOf] this proposal (empty in Profile A).
	LockSig []byte
}

// Encode is the proposal's wire form.
func (p Proposal) Encode() []byte {
	var w writer
	w.event(p.Event)
	w.u32(p.Epoch)
	w.u32(p.Round)
	w.hash(p.TemplateHash)
	w.bytes(p.Template)
	w.count(len(p.Inputs))
	for _, m := range p.Inputs {
		w.u64(m.DAAScore)
		w.bool(m.Coinbase)
	}
	w.str(string(p.Proposer))
	w.timeNs(p.TimestampNs)
	w.bool(p.Anchor != nil)
	if p.Anchor != nil {
		w.u64(p.Anchor.TipScore)
		w.optHash(p.Anchor.TipHash)
	}
	if len(p.LockSig) > 0 {
		w.bytes(p.LockSig) // last and optional: Profile A's encoding is unchanged
	}
	return w.out()
}

// DecodeProposal decodes a proposal, checking the seed's size bounds
// (MAX_PROPOSAL_SIZE_BYTES, MAX_KPSBT_SIZE, MAX_UTXOS_PER_PROPOSAL) before
// anything is allocated or stored.
func DecodeProposal(b []byte, p Params) (Proposal, error) {
	if len(b) > p.MaxProposalBytes {
		return Proposal{}, &ValidationError{Reason: ReasonOversized,
			Detail: fmt.Sprintf("proposal of %d bytes, at most %d", len(b), p.MaxProposalBytes)}
	}
	r := reader{b: b}
	var out Proposal
	out.Event = r.event()
	out.Epoch = r.u32("epoch")
	out.Round = r.u32("round")
	out.TemplateHash = r.hash("template hash")
	out.Template = r.bytes(p.MaxTemplateBytes, "template")
	n := r.count(p.MaxUTXOsPerProposal, "inputs")
	if r.err == nil && n > 0 {
		out.Inputs = make([]InputMeta, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		out.Inputs[i].DAAScore = r.u64("input daa score")
		out.Inputs[i].Coinbase = r.bool("input coinbase")
	}
	out.Proposer = PeerID(r.str(MaxPeerIDBytes, "proposer"))
	out.TimestampNs = r.timeNs("timestamp")
	if r.bool("anchor") {
		out.Anchor = &Anchor{TipScore: r.u64("anchor score"), TipHash: r.optHash("anchor hash")}
	}
	if r.err == nil && r.off < len(r.b) {
		out.LockSig = r.bytes(ed25519.SignatureSize, "lock signature")
		if r.err == nil && len(out.LockSig) == 0 {
			r.fail("empty lock signature")
		}
	}
	if err := r.end("proposal"); err != nil {
		return Proposal{}, &ValidationError{Reason: ReasonMalformed, Detail: err.Error()}
	}
	return out, nil
}

// EventID is the id of the proposal's event.
func (p Proposal) EventID() Hash { return p.Event.ID() }
