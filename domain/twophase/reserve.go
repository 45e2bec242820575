package twophase

import (
	"fmt"
)

// Deep UTXO reserve (seed 001, 8.5.8). Profile B runs many events at
// once, each on its own outputs, so the group needs as many deep outputs
// as events in flight. When a member is idle and its view holds fewer
// than Params.ReserveOutputs deep outputs, it requests a reserve event:
// the next nonce of ReserveStream, paying the group itself, split into
// ReserveOutputs equal outputs. It goes through the same protocol as a
// payout (plans, votes, certificates, signatures); a member accepts a
// peer's plan for it without a source proof, since it can only move the
// group's coins back to the group.

// ReserveStream is the stream of reserve events.
const ReserveStream = "group:reserve"

// reserveDestination names the group itself as a reserve event's
// destination (the group's change script, whatever its address).
const reserveDestination = "group:self"

// IsReserve reports whether e is a reserve event: a split of the group's
// outputs into e.Amount outputs to itself.
func (e SigningEvent) IsReserve() bool { return e.Stream == ReserveStream }

// ReserveEvent is the reserve event of nonce n for p.
func ReserveEvent(n uint64, p Params) SigningEvent {
	return SigningEvent{Stream: ReserveStream, Nonce: n, Destination: reserveDestination, Amount: uint64(p.ReserveOutputs),
		Source: SourceRef{Chain: ReserveStream}}
}

// wellFormedReserve reports whether ev is the reserve event this group
// would request for its nonce.
func (s *State) wellFormedReserve(ev SigningEvent) bool {
	return s.cfg.Params.ReserveOutputs > 0 && ev == ReserveEvent(ev.Nonce, s.cfg.Params)
}

// maybeReserve requests a reserve event when this member is idle (no
// open or waiting event) and its view shows fewer outputs than the
// reserve wants.
func (s *State) maybeReserve(env Env) {
	p := s.cfg.Params
	if p.ReserveOutputs == 0 || len(s.open) > 0 {
		return
	}
	for _, st := range s.streams {
		if len(st.pending) > 0 {
			return
		}
	}
	view, err := env.View()
	if err != nil || !s.reserveDue(view) {
		return
	}
	s.request(ReserveEvent(s.reserveNext(), p), ViaReserve, "", env)
}

// reserveDue reports whether view holds fewer of the group's outputs
// than the reserve wants. Outputs of any depth count: a split's outputs
// deepen on their own, and counting only deep ones would split again
// before they do.
func (s *State) reserveDue(view LedgerView) bool {
	held, _ := eligible(view, s.cfg.Group, s.cfg.Params, true, nil, nil)
	return len(held) < s.cfg.Params.ReserveOutputs
}

// reserveNext is the nonce the reserve stream expects next here.
func (s *State) reserveNext() uint64 {
	if st := s.streams[ReserveStream]; st != nil {
		return st.next
	}
	return FirstNonce
}

// admitReserve checks a reserve event a peer proposes before anything of
// it is stored: the group's own form, exactly the next nonce of the
// reserve stream (a later one would wait forever and hold the reserve
// off), and a split this member's own view also finds due (else any
// member could spend the group's outputs on fees at will).
func (s *State) admitReserve(ev SigningEvent, env Env) error {
	if !s.wellFormedReserve(ev) {
		return reject(ReasonPolicy, "a reserve event this group would not request (reserve outputs %d)", s.cfg.Params.ReserveOutputs)
	}
	if next := s.reserveNext(); ev.Nonce != next {
		return reject(ReasonReserveNonce, "reserve nonce %d, the reserve stream expects %d", ev.Nonce, next)
	}
	view, err := env.View()
	if err != nil {
		return reject(ReasonReserveNotDue, "this member's ledger view is unavailable: %v", err)
	}
	if !s.reserveDue(view) {
		return reject(ReasonReserveNotDue, "this member's view holds %d or more of the group's outputs", s.cfg.Params.ReserveOutputs)
	}
	return nil
}

// ViaReserve names, in an EventRequested, a reserve event.
const ViaReserve = "reserve"

// buildSplit is a reserve event's template: the largest deep output (the
// first in eligible's order; Profile B's salt is not used, every member
// must pick the same one) split into ev.Amount equal outputs to the
// group, the remainder of the division and the fee left to the fee.
func buildSplit(req BuildRequest, view LedgerView) (Template, []UTXO, SelectionStats, error) {
	utxos, st := eligible(view, req.Group, req.Params, false, req.Exclude, nil)
	n := int(req.Event.Amount)
	if n < 2 || n > req.Params.MaxOutputsPerProposal {
		return Template{}, nil, st, fmt.Errorf("a split into %d outputs: want 2..%d", n, req.Params.MaxOutputsPerProposal)
	}
	if len(utxos) == 0 {
		return Template{}, nil, st, fmt.Errorf("%w: no deep output to split", ErrInsufficientDeepUTXOs)
	}
	in := utxos[0]
	t := req.Rules.Base()
	t.Inputs = []TemplateInput{req.Rules.Input(in)}
	t.Outputs = make([]TemplateOutput, n)
	fee := uint64(0)
	for step := 0; step < 8; step++ {
		if in.Amount < fee || (in.Amount-fee)/uint64(n) < max(req.Policy.MinChange, 1) {
			return Template{}, nil, st, fmt.Errorf("%w: the largest deep output (%d) is too small to split into %d", ErrInsufficientDeepUTXOs, in.Amount, n)
		}
		each := (in.Amount - fee) / uint64(n)
		for i := range t.Outputs {
			t.Outputs[i] = TemplateOutput{Amount: each, Script: req.Group.ChangeScript}
		}
		mass, err := req.Rules.Mass(t)
		if err != nil {
			return Template{}, nil, st, err
		}
		if mass*req.Params.FeeRate == fee {
			return t, []UTXO{in}, st, nil
		}
		fee = mass * req.Params.FeeRate
	}
	return Template{}, nil, st, fmt.Errorf("the split's fee does not settle")
}

// checkSplit is a reserve event's output rule: exactly ev.Amount outputs,
// all to the group, equal.
func (v Validator) checkSplit(t Template, e SigningEvent) error {
	if len(t.Outputs) != int(e.Amount) {
		return reject(ReasonWrongPayout, "a reserve split into %d outputs, the event asks %d", len(t.Outputs), e.Amount)
	}
	for i, o := range t.Outputs {
		if !o.Script.Equal(v.Group.ChangeScript) {
			return reject(ReasonForeignOutput, "output %d of a reserve split pays outside the group", i)
		}
		if o.Amount == 0 || o.Amount != t.Outputs[0].Amount {
			return reject(ReasonWrongPayout, "output %d of a reserve split is %d, not %d", i, o.Amount, t.Outputs[0].Amount)
		}
	}
	return nil
}
