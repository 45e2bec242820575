package twophase

import (
	"crypto/ed25519"
	"fmt"
	"maps"
	"slices"
)

// Profile B's commit object (seed 001, 5.3): a lock message names one
// event, one round, the Kaspa anchor the plan was built at, the template
// and the exact outpoints it spends; a member signs it with its identity
// key; a lock certificate is a quorum (2f+1) of distinct members'
// signatures of one lock message. Honest members sign one lock message
// per (event, round), and none on an outpoint another live lock holds,
// so two certificates can never reserve one outpoint or pay one event
// twice: any two quorums share f+1 members, one of them honest.

const tagLock = "bridgelog/twophase/lock/v1"

// LockMsg is what a Profile B member signs in a round: its proposal's
// event, epoch, round, anchor, template hash and sorted outpoints.
type LockMsg struct {
	EventID      Hash       `msgpack:"event_id" json:"eventId"`
	Epoch        uint32     `msgpack:"epoch" json:"epoch"`
	Round        uint32     `msgpack:"round" json:"round"`
	Anchor       uint64     `msgpack:"anchor" json:"anchor"`
	TemplateHash Hash       `msgpack:"template_hash" json:"templateHash"`
	Outpoints    []Outpoint `msgpack:"outpoints" json:"outpoints"`
}

// LockMsgOf is the lock message of proposal p with template t (the
// template's inputs, sorted).
func LockMsgOf(p Proposal, t Template) LockMsg {
	m := LockMsg{EventID: p.EventID(), Epoch: p.Epoch, Round: p.Round, TemplateHash: p.TemplateHash}
	if p.Anchor != nil {
		m.Anchor = p.Anchor.TipScore
	}
	m.Outpoints = templateOutpoints(t)
	return m
}

// templateOutpoints lists a template's inputs in outpoint order.
func templateOutpoints(t Template) []Outpoint {
	out := make([]Outpoint, len(t.Inputs))
	for i, in := range t.Inputs {
		out[i] = in.Outpoint
	}
	slices.SortFunc(out, compareOutpoints)
	return out
}

func compareOutpoints(a, b Outpoint) int { return a.Compare(b) }

// Compare orders outpoints as Less does: -1, 0 or 1.
func (o Outpoint) Compare(p Outpoint) int {
	switch {
	case o.Less(p):
		return -1
	case p.Less(o):
		return 1
	}
	return 0
}

func (m LockMsg) encode(w *writer) {
	w.hash(m.EventID)
	w.u32(m.Epoch)
	w.u32(m.Round)
	w.u64(m.Anchor)
	w.hash(m.TemplateHash)
	w.count(len(m.Outpoints))
	for _, o := range m.Outpoints {
		w.hash(o.TxID)
		w.u32(o.Index)
	}
}

func decodeLockMsg(r *reader, maxOutpoints int) LockMsg {
	m := LockMsg{EventID: r.hash("event"), Epoch: r.u32("epoch"), Round: r.u32("round"), Anchor: r.u64("anchor"),
		TemplateHash: r.hash("template hash")}
	n := r.count(maxOutpoints, "outpoints")
	for i := 0; i < n && r.err == nil; i++ {
		m.Outpoints = append(m.Outpoints, Outpoint{TxID: r.hash("outpoint txid"), Index: r.u32("outpoint index")})
	}
	if r.err == nil && !slices.IsSortedFunc(m.Outpoints, compareOutpoints) {
		r.fail("lock outpoints out of order")
	}
	return m
}

// Digest is what members sign: the lock message bound to the group, so
// a signature is good for one group only.
func (m LockMsg) Digest(group Hash) Hash {
	var w writer
	m.encode(&w)
	return taggedHash(tagLock, group[:], w.out())
}

// SignLock signs m for group with a member's identity key.
func SignLock(key ed25519.PrivateKey, group Hash, m LockMsg) []byte {
	d := m.Digest(group)
	return ed25519.Sign(key, d[:])
}

// LockSignature is one member's signature of a lock message.
type LockSignature struct {
	Signer    PeerID `msgpack:"signer" json:"signer"`
	Signature []byte `msgpack:"signature" json:"signature"`
}

// LockCert is a lock message with a quorum of members' signatures.
type LockCert struct {
	Msg  LockMsg
	Sigs []LockSignature // in signer order
}

// Encode is the certificate's wire form.
func (c LockCert) Encode() []byte {
	var w writer
	c.Msg.encode(&w)
	w.count(len(c.Sigs))
	for _, s := range c.Sigs {
		w.str(string(s.Signer))
		w.bytes(s.Signature)
	}
	return w.out()
}

// DecodeLockCert decodes a certificate, bounded by p's input bound and
// MaxMembers signatures.
func DecodeLockCert(b []byte, p Params) (LockCert, error) {
	if len(b) > MaxEnvelopeBytes {
		return LockCert{}, &ValidationError{Reason: ReasonOversized, Detail: fmt.Sprintf("lock certificate of %d bytes", len(b))}
	}
	r := reader{b: b}
	c := LockCert{Msg: decodeLockMsg(&r, p.MaxUTXOsPerProposal)}
	n := r.count(MaxMembers, "lock signatures")
	for i := 0; i < n && r.err == nil; i++ {
		c.Sigs = append(c.Sigs, LockSignature{Signer: PeerID(r.str(MaxPeerIDBytes, "lock signer")),
			Signature: r.bytes(ed25519.SignatureSize, "lock signature")})
	}
	return c, malformed(r.end("lock certificate"))
}

// VerifyLockCert checks a certificate against the group: at least a
// quorum of signatures, each of a distinct member, each valid for the
// message's digest. Every refusal is a [ValidationError].
func (o *Opener) VerifyLockCert(quorum int, c LockCert) error {
	if len(c.Sigs) < quorum {
		return reject(ReasonCertTooFewSignatures, "%d lock signatures, a quorum is %d", len(c.Sigs), quorum)
	}
	d := c.Msg.Digest(o.id)
	seen := make(map[PeerID]bool, len(c.Sigs))
	for _, s := range c.Sigs {
		if seen[s.Signer] {
			return reject(ReasonCertDuplicateSigner, "%s signed twice", s.Signer)
		}
		seen[s.Signer] = true
		if !o.VerifyMember(s.Signer, d[:], s.Signature) {
			if _, ok := o.keys[s.Signer]; !ok {
				return reject(ReasonUnknownSender, "lock signer %q is not a member", s.Signer)
			}
			return reject(ReasonBadLockSignature, "%s's lock signature does not verify", s.Signer)
		}
	}
	return nil
}

// VerifyMember checks a member's identity-key signature of msg; false for
// a non-member.
func (o *Opener) VerifyMember(id PeerID, msg, sig []byte) bool {
	k, ok := o.keys[id]
	return ok && len(sig) == ed25519.SignatureSize && k(msg, sig)
}

// certOf aggregates the certificate of the lock message m from the
// precommits of its round that signed it (nil when fewer than quorum did).
func (e *EventState) certOf(round uint32, m LockMsg, group Hash, quorum int) *LockCert {
	d := m.Digest(group)
	c := &LockCert{Msg: m}
	for _, id := range slices.Sorted(maps.Keys(e.precommits[round])) {
		bl := e.precommits[round][id]
		if !bl.none && bl.lockDigest == d && len(bl.lockSig) > 0 {
			c.Sigs = append(c.Sigs, LockSignature{Signer: id, Signature: bl.lockSig})
		}
	}
	if len(c.Sigs) < quorum {
		return nil
	}
	return c
}

// lockQuorum finds a lock message of round that a quorum of precommits
// signed (the lower digest among several, which one precommit per
// member rules out).
func (e *EventState) lockQuorum(round uint32, group Hash, quorum int) (*LockCert, bool) {
	pcs := e.precommits[round]
	if len(pcs) < quorum {
		return nil, false
	}
	counts := map[Hash]int{}
	var best *ballot
	for _, bl := range pcs {
		if bl.none || len(bl.lockSig) == 0 || bl.lockMsg == nil {
			continue
		}
		counts[bl.lockDigest]++
		if counts[bl.lockDigest] >= quorum && (best == nil || bl.lockDigest.Less(best.lockDigest)) {
			best = bl
		}
	}
	if best == nil {
		return nil, false
	}
	c := e.certOf(round, *best.lockMsg, group, quorum)
	return c, c != nil
}

// Reservation is an outpoint a lock certificate holds (section 5.0's
// ReservedOutpoints), until its event completes or is abandoned.
type Reservation struct {
	Outpoint     Outpoint `json:"outpoint"`
	EventID      Hash     `json:"eventId"`
	Round        uint32   `json:"round"`
	TemplateHash Hash     `json:"templateHash"`
	Anchor       uint64   `json:"anchor"`
}

// Reserved lists the outpoints that accepted lock certificates of open
// events hold, in outpoint order (Profile B; empty in Profile A).
func (s *State) Reserved() []Reservation {
	var out []Reservation
	for _, e := range s.open {
		if e.cert == nil || e.Phase != PhaseCommitted {
			continue
		}
		for _, o := range e.cert.Msg.Outpoints {
			out = append(out, Reservation{Outpoint: o, EventID: e.ID, Round: e.cert.Msg.Round,
				TemplateHash: e.cert.Msg.TemplateHash, Anchor: e.cert.Msg.Anchor})
		}
	}
	slices.SortFunc(out, func(a, b Reservation) int { return compareOutpoints(a.Outpoint, b.Outpoint) })
	return out
}

// heldByOthers is every outpoint this signer must not lock for event id:
// those certificates of other open events reserve, those its own
// precommits of other events name while a certificate may still form on
// them (an abandoned event's too: signing them again for another event
// could let two certificates reserve one outpoint), and those its
// prevotes of other open events name while a polka may still form on
// them (so that its own votes do not race each other).
func (s *State) heldByOthers(id Hash) map[Outpoint]Hash {
	held := map[Outpoint]Hash{}
	hold := func(m *LockMsg, ev Hash) {
		for _, o := range m.Outpoints {
			held[o] = ev
		}
	}
	for _, e := range s.events {
		if e.ID == id || e.Phase == PhaseCompleted || e.Phase == PhaseRefused || e.Phase == PhaseUnknown {
			continue
		}
		if e.cert != nil && e.Phase == PhaseCommitted {
			hold(&e.cert.Msg, e.ID)
		}
		for r, pcs := range e.precommits {
			if b := pcs[s.cfg.Self]; b != nil && b.lockMsg != nil && s.certPossible(e.precommits[r], b.lockDigest) {
				hold(b.lockMsg, e.ID)
			}
		}
		if e.Phase.Terminal() {
			continue
		}
		for r, votes := range e.votes {
			if b := votes[s.cfg.Self]; b != nil && b.lockMsg != nil && s.certPossible(e.votes[r], b.lockDigest) {
				hold(b.lockMsg, e.ID)
			}
		}
	}
	return held
}

// certPossible reports whether a quorum of the ballots of one round (its
// prevotes or its precommits) can still name lock digest d: the members
// that named it, those unheard in the round and the f that may have
// shown this signer another vote than the rest saw reach a quorum.
func (s *State) certPossible(votes map[PeerID]*ballot, d Hash) bool {
	signed := 0
	for _, b := range votes {
		if !b.none && b.lockDigest == d {
			signed++
		}
	}
	unheard := len(s.members) - len(votes)
	return signed+unheard+s.cfg.Group.Faults >= s.quorum()
}

// reservedByOthers is the outpoints accepted certificates of events
// other than id reserve.
func (s *State) reservedByOthers(id Hash) map[Outpoint]Hash {
	held := map[Outpoint]Hash{}
	for _, e := range s.open {
		if e.ID != id && e.cert != nil && e.Phase == PhaseCommitted {
			for _, o := range e.cert.Msg.Outpoints {
				held[o] = e.ID
			}
		}
	}
	return held
}

// conflict returns an outpoint of outs that held names, if any.
func conflict(outs []Outpoint, held map[Outpoint]Hash) (Outpoint, Hash, bool) {
	for _, o := range outs {
		if ev, ok := held[o]; ok {
			return o, ev, true
		}
	}
	return Outpoint{}, Hash{}, false
}

// anchorFor is the anchor a Profile B member builds at: the virtual DAA
// score rounded down to a multiple of AnchorStep, so that members whose
// nodes are a few blocks apart name the same anchor.
func anchorFor(virtual uint64, p Params) uint64 {
	return virtual - virtual%p.AnchorStep
}

// checkAnchor is section 8.6 for a received plan: an anchor is required,
// must exist on this signer's node (not above its virtual DAA score), must
// not have fallen behind the depth policy (MaxAnchorAge), and every input
// must be MinInputDepth deep at the anchor.
func (s *State) checkAnchor(p Proposal, view LedgerView) error {
	if p.Anchor == nil {
		return reject(ReasonAnchorMissing, "a Profile B plan must name its Kaspa anchor")
	}
	a, prm := p.Anchor.TipScore, s.cfg.Params
	if a > view.VirtualDAAScore {
		return reject(ReasonAnchorUnknown, "anchor at DAA score %d, this signer's node is at %d", a, view.VirtualDAAScore)
	}
	if a+prm.MaxAnchorAge < view.VirtualDAAScore {
		return reject(ReasonAnchorStale, "anchor at DAA score %d is more than %d behind %d", a, prm.MaxAnchorAge, view.VirtualDAAScore)
	}
	for i, in := range p.Inputs {
		if in.DAAScore+prm.MinInputDepth > a {
			return reject(ReasonShallowAtAnchor, "input %d (DAA score %d) is not %d deep at the anchor %d", i, in.DAAScore, prm.MinInputDepth, a)
		}
	}
	return nil
}
