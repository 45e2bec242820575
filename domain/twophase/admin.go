package twophase

import (
	"errors"
	"fmt"
)

// ErrAdmin: an operator's action that cannot be carried out.
var ErrAdmin = errors.New("admin action refused")

// AdminReset restarts an event that is not Completed at round 0 of a new
// epoch (section 15.1, AdminResetEvent): its votes and commit are
// forgotten, so it can commit anew; the signer still never signs a second
// template for it. operator and reason are recorded.
func (s *State) AdminReset(id Hash, operator, reason string, en Env) (Step, error) {
	e := s.events[id]
	switch {
	case e == nil:
		return Step{}, fmt.Errorf("%w: %w %s", ErrAdmin, ErrUnknownEventID, id.Short())
	case e.Phase == PhaseCompleted:
		return Step{}, fmt.Errorf("%w: event %s is Completed (payout %s)", ErrAdmin, id.Short(), e.PayoutTx.Short())
	case e.Phase == PhaseRefused:
		return Step{}, fmt.Errorf("%w: %w: event %s was refused (%s), which is terminal: its refusal certificate refunds the burn",
			ErrAdmin, ErrEventRefused, id.Short(), e.Refusal.Reason)
	case operator == "" || reason == "":
		return Step{}, fmt.Errorf("%w: an operator and a reason are required", ErrAdmin)
	}
	s.emit(AdminReset{EventID: id, Epoch: e.Epoch + 1, Operator: operator, Reason: reason, AtNs: ns(en.Now)})
	s.progress(en)
	return s.take(), nil
}

// AdminReinject hands the signer an event as an operator (section 15.1,
// AdminReplayExternal); idempotent by the event's id.
func (s *State) AdminReinject(ev SigningEvent, operator, reason string, en Env) (Step, error) {
	if operator == "" || reason == "" {
		return Step{}, fmt.Errorf("%w: an operator and a reason are required", ErrAdmin)
	}
	s.emit(AdminReinjected{Event: ev, ID: ev.ID(), Operator: operator, Reason: reason, AtNs: ns(en.Now)})
	s.request(ev, "admin", "", en)
	s.progress(en)
	return s.take(), nil
}
