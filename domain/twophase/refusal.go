package twophase

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Reasons an event is Refused: typed, and the same at every member, for
// they follow from the event and the group's configuration alone.
const (
	RefusedNotAnAddress      Reason = "not_an_address"            // not an address of the ledger's network
	RefusedOwnAddress        Reason = "own_address"               // the group's own address
	RefusedBelowMinimum      Reason = "below_minimum"             // zero, or under Policy.MinAmount
	RefusedOverLimit         Reason = "policy_over_limit"         // over Policy.MaxAmount
	RefusedDeniedDestination Reason = "policy_denied_destination" // in Policy.DeniedDestinations
	RefusedNotAllowed        Reason = "policy_not_allowed"        // not in Policy.AllowedDestinations
	RefusedUnpayableAmount   Reason = "unpayable_amount"          // under the ledger's floor (dust, storage mass)
)

// Errors of refusals.
var (
	// ErrEventRefused: the event is Refused, which is terminal.
	ErrEventRefused = errors.New("signing event refused")
	// ErrUnpayable: what a [PayableRules] says of an amount or address
	// no payout can carry.
	ErrUnpayable = errors.New("unpayable")
)

// PayableRules are ledger rules that can tell, from a destination and an
// amount alone, that no payout can ever carry them (Kaspa: an output of
// under about 10^7 sompi has a storage mass over the standard maximum
// whatever the inputs). LedgerRules may implement it.
type PayableRules interface {
	CheckPayable(destination string, amount uint64) error
}

// RefusalSubject gives the bytes each member signs with its identity key
// to refuse ev for reason (a refusal certificate's signing bytes; origin
// is EventRequested.Origin); false when ev names nothing to refund.
type RefusalSubject func(ev SigningEvent, origin string, reason Reason) ([]byte, bool)

// RefusalState is a Refused event's verdict and the valid signatures of
// its certificate held, by member.
type RefusalState struct {
	Reason    Reason
	Detail    string
	Sigs      map[PeerID][]byte
	Certified bool
	sentAt    time.Time            // own signature last broadcast
	answered  map[PeerID]time.Time // own signature last sent to a member
}

// Refused: the group will never pay the event; its nonce is passed.
// Decided when the event is requested, from the event and the group's
// policy and ledger rules only, so every honest member decides the same.
type Refused struct {
	EventID Hash   `msgpack:"event_id" json:"eventId"`
	Reason  Reason `msgpack:"reason" json:"reason"`
	Detail  string `msgpack:"detail" json:"detail"`
	AtNs    int64  `msgpack:"at" json:"at"`
}

func (e Refused) EventType() string   { return TypeRefused }
func (e Refused) SourceKey() string   { return eventKey(e.EventID, "refused") }
func (e Refused) AggregateID() string { return EventAggregate(e.EventID) }

// RefusalSigned: Member's valid signature of the event's refusal
// certificate (this signer's own, or a peer's it verified).
type RefusalSigned struct {
	EventID   Hash   `msgpack:"event_id" json:"eventId"`
	Member    PeerID `msgpack:"member" json:"member"`
	Signature []byte `msgpack:"signature" json:"signature"`
	AtNs      int64  `msgpack:"at" json:"at"`
}

func (e RefusalSigned) EventType() string   { return TypeRefusalSigned }
func (e RefusalSigned) SourceKey() string   { return eventKey(e.EventID, "refusal/%s", e.Member) }
func (e RefusalSigned) AggregateID() string { return EventAggregate(e.EventID) }

// RefusalCertified: a quorum of members signed the refusal: the
// certificate is complete (its signatures, in member order).
type RefusalCertified struct {
	EventID    Hash              `msgpack:"event_id" json:"eventId"`
	Reason     Reason            `msgpack:"reason" json:"reason"`
	Signatures []MemberSignature `msgpack:"signatures" json:"signatures"`
	AtNs       int64             `msgpack:"at" json:"at"`
}

func (e RefusalCertified) EventType() string   { return TypeRefusalCertified }
func (e RefusalCertified) SourceKey() string   { return eventKey(e.EventID, "refusal_certified") }
func (e RefusalCertified) AggregateID() string { return EventAggregate(e.EventID) }

// RefusalSig is a member's signature of an event's refusal certificate,
// sent to the others.
type RefusalSig struct {
	EventID   Hash
	Reason    Reason
	Signature []byte
}

func (m RefusalSig) Encode() []byte {
	var w writer
	w.hash(m.EventID)
	w.str(string(m.Reason))
	w.bytes(m.Signature)
	return w.out()
}

func DecodeRefusalSig(b []byte) (RefusalSig, error) {
	r := reader{b: b}
	m := RefusalSig{EventID: r.hash("event"), Reason: Reason(r.str(maxReasonBytes, "reason")),
		Signature: r.bytes(ed25519.SignatureSize, "signature")}
	return m, malformed(r.end("refusal"))
}

// Unpayable says why the group will never pay ev, if it will not: the
// reason its verdict would be Refused. An operator's request is checked
// with it before anything is recorded.
func (s *State) Unpayable(ev SigningEvent) (Reason, string, bool) { return s.unpayable(ev) }

// unpayable says why the group will never pay ev, if it will not.
func (s *State) unpayable(ev SigningEvent) (Reason, string, bool) {
	pol := s.cfg.Policy
	switch {
	case ev.Amount == 0 || ev.Amount < pol.MinAmount:
		return RefusedBelowMinimum, fmt.Sprintf("amount %d under the minimum %d", ev.Amount, max(pol.MinAmount, 1)), true
	case pol.MaxAmount > 0 && ev.Amount > pol.MaxAmount:
		return RefusedOverLimit, fmt.Sprintf("amount %d over the per-event limit %d", ev.Amount, pol.MaxAmount), true
	case slices.Contains(pol.DeniedDestinations, ev.Destination):
		return RefusedDeniedDestination, fmt.Sprintf("destination %s is denied", ev.Destination), true
	case len(pol.AllowedDestinations) > 0 && !slices.Contains(pol.AllowedDestinations, ev.Destination):
		return RefusedNotAllowed, fmt.Sprintf("destination %s is not allowed", ev.Destination), true
	}
	script, err := s.cfg.Rules.ScriptFor(ev.Destination)
	if err != nil {
		return RefusedNotAnAddress, fmt.Sprintf("destination %q: %v", ev.Destination, err), true
	}
	if script.Equal(s.cfg.Group.ChangeScript) {
		return RefusedOwnAddress, "destination is the group's own address", true
	}
	if pr, ok := s.cfg.Rules.(PayableRules); ok {
		if err := pr.CheckPayable(ev.Destination, ev.Amount); err != nil {
			return RefusedUnpayableAmount, err.Error(), true
		}
	}
	return "", "", false
}

// refuseEvent records the verdict on an event nothing was voted for yet,
// and signs its certificate.
func (s *State) refuseEvent(e *EventState, r Reason, detail string, env Env) {
	if e == nil || e.Phase != PhaseUnknown || e.Signed != nil || len(e.votes) > 0 {
		return
	}
	s.emit(Refused{EventID: e.ID, Reason: r, Detail: detail, AtNs: ns(env.Now)})
	s.observe(MetricEventsRefused, string(r), 1)
	s.signRefusal(e, env)
}

func (s *State) applyRefused(f Refused) {
	e := s.events[f.EventID]
	if e == nil || e.Phase != PhaseUnknown || e.Signed != nil {
		return
	}
	e.Phase, e.PhaseSince, e.DoneAt = PhaseRefused, fromNs(f.AtNs), fromNs(f.AtNs)
	e.Refusal = &RefusalState{Reason: f.Reason, Detail: f.Detail, Sigs: map[PeerID][]byte{}, answered: map[PeerID]time.Time{}}
	s.refusing[e.ID] = e
	s.passNonce(e)
}

func (s *State) applyRefusalSigned(f RefusalSigned) {
	e := s.events[f.EventID]
	if e == nil || e.Refusal == nil || e.Refusal.Sigs[f.Member] != nil {
		return
	}
	e.Refusal.Sigs[f.Member] = f.Signature
}

func (s *State) applyRefusalCertified(f RefusalCertified) {
	e := s.events[f.EventID]
	if e == nil || e.Refusal == nil {
		return
	}
	e.Refusal.Certified = true
	delete(s.refusing, e.ID)
}

// refusalBytes are the bytes members sign to refuse e.
func (s *State) refusalBytes(e *EventState) ([]byte, bool) {
	if s.cfg.Refusal == nil || e.Refusal == nil {
		return nil, false
	}
	return s.cfg.Refusal(e.Event, e.Origin, e.Refusal.Reason)
}

// signRefusal records and sends this signer's signature of the event's
// refusal (once; sent again by resendRefusals until certified).
func (s *State) signRefusal(e *EventState, env Env) {
	msg, ok := s.refusalBytes(e)
	if !ok || e.Refusal.Sigs[s.cfg.Self] != nil {
		return
	}
	sig := ed25519.Sign(s.cfg.Identity, msg)
	s.emit(RefusalSigned{EventID: e.ID, Member: s.cfg.Self, Signature: sig, AtNs: ns(env.Now)})
	s.sendRefusal(e, "", env)
	s.maybeCertify(e, env)
}

// sendRefusal sends this signer's signature to one member, or to all.
func (s *State) sendRefusal(e *EventState, to PeerID, env Env) {
	sig := e.Refusal.Sigs[s.cfg.Self]
	if sig == nil {
		return
	}
	raw := s.seal(KindRefusal, RefusalSig{EventID: e.ID, Reason: e.Refusal.Reason, Signature: sig}.Encode())
	if to == "" {
		e.Refusal.sentAt = env.Now
		s.broadcast(KindRefusal, raw)
		return
	}
	e.Refusal.answered[to] = env.Now
	s.sendTo(to, KindRefusal, raw)
}

// onRefusalSig keeps a member's valid signature of a refusal this signer
// made too, and answers with its own a member that may lack it.
func (s *State) onRefusalSig(from PeerID, m RefusalSig, env Env) {
	e := s.events[m.EventID]
	if e == nil || e.Refusal == nil {
		return // not refused here (yet): the sender sends it again
	}
	if m.Reason != e.Refusal.Reason {
		s.rejectMessage(from, KindRefusal.String(), reject(ReasonRefusalMismatch, "refused for %s, here for %s", m.Reason, e.Refusal.Reason), env.Now)
		return
	}
	msg, ok := s.refusalBytes(e)
	if !ok {
		return
	}
	member, _ := s.cfg.Group.Member(from)
	if !ed25519.Verify(member.IdentityKey, msg, m.Signature) {
		s.rejectMessage(from, KindRefusal.String(), reject(ReasonBadSignature, "refusal signature of %s", e.ID.Short()), env.Now)
		return
	}
	if e.Refusal.Sigs[from] == nil && !e.Refusal.Certified {
		s.emit(RefusalSigned{EventID: e.ID, Member: from, Signature: m.Signature, AtNs: ns(env.Now)})
		s.maybeCertify(e, env)
	}
	if env.Now.Sub(e.Refusal.answered[from]) >= 3*s.cfg.Params.Tick {
		s.sendRefusal(e, from, env)
	}
}

// maybeCertify records the certificate once a quorum signed.
func (s *State) maybeCertify(e *EventState, env Env) {
	if e.Refusal.Certified || len(e.Refusal.Sigs) < s.quorum() {
		return
	}
	var sigs []MemberSignature
	for _, id := range s.members {
		if sig := e.Refusal.Sigs[id]; sig != nil {
			sigs = append(sigs, MemberSignature{Signer: id, Signature: sig})
		}
	}
	s.emit(RefusalCertified{EventID: e.ID, Reason: e.Refusal.Reason, Signatures: sigs, AtNs: ns(env.Now)})
	s.observe(MetricRefusalsCertified, "", 1)
}

// resendRefusals signs what a crash left unsigned and sends this signer's
// signature again, every few ticks, for refusals not certified yet.
func (s *State) resendRefusals(env Env) {
	for _, e := range sortEvents(s.refusing) {
		if e.Refusal.Sigs[s.cfg.Self] == nil {
			s.signRefusal(e, env)
			continue
		}
		if env.Now.Sub(e.Refusal.sentAt) >= 3*s.cfg.Params.Tick {
			s.sendRefusal(e, "", env)
		}
	}
}

// Refusals lists the Refused events, in source order.
func (s *State) Refusals() []*EventState {
	var out []*EventState
	for _, e := range s.events {
		if e.Refusal != nil {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, compareEvents)
	return out
}
