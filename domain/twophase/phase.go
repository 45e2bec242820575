package twophase

import "fmt"

// Phase is an event's phase at one signer (seed 001, 3.1).
type Phase uint8

const (
	// PhaseUnknown: known from the signer's own source, not started yet.
	PhaseUnknown Phase = iota
	// PhaseProposing: collecting votes for the current round; nothing signed.
	PhaseProposing
	// PhaseCommitted: a quorum of one round voted for the canonical template;
	// the signer signs it after revalidating its inputs.
	PhaseCommitted
	// PhaseCompleted: the payout was accepted by the ledger and is deep enough.
	PhaseCompleted
	// PhaseFailed: the round ended without a usable commit; the next round
	// starts after the retry delay.
	PhaseFailed
	// PhaseAbandoned: out of rounds or time; an operator decides.
	PhaseAbandoned
	// PhaseRefused: the group will never pay the event (its destination or
	// amount breaks the group's policy or the ledger's rules), decided
	// from the event alone before any vote; its nonce is passed and a
	// quorum's refusal certificate lets the burner be refunded.
	PhaseRefused
)

func (p Phase) String() string {
	switch p {
	case PhaseUnknown:
		return "Unknown"
	case PhaseProposing:
		return "Proposing"
	case PhaseCommitted:
		return "Committed"
	case PhaseCompleted:
		return "Completed"
	case PhaseFailed:
		return "Failed"
	case PhaseAbandoned:
		return "Abandoned"
	case PhaseRefused:
		return "Refused"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// Terminal reports whether nothing but an operator moves the event on.
func (p Phase) Terminal() bool {
	return p == PhaseCompleted || p == PhaseAbandoned || p == PhaseRefused
}

// Trigger names why a transition happens; events record it.
type Trigger string

const (
	TriggerActivated    Trigger = "activated"     // the event became the signer's active one
	TriggerProposal     Trigger = "proposal"      // a peer's proposal for an event not started
	TriggerQuorum       Trigger = "quorum"        // a quorum of identical votes in the round
	TriggerFastForward  Trigger = "fast_forward"  // a peer's commit with verified evidence
	TriggerLockCert     Trigger = "lock_cert"     // Profile B: a quorum of lock signatures of one lock message
	TriggerTimeout      Trigger = "timeout"       // the round timed out without quorum
	TriggerNoInputs     Trigger = "no_inputs"     // no deep outputs to build a template from
	TriggerRevalidation Trigger = "revalidation"  // pre-sign revalidation failed
	TriggerPayoutFailed Trigger = "payout_failed" // the payout can never be accepted
	TriggerRetry        Trigger = "retry"         // the next round starts
	TriggerRoundSync    Trigger = "round_sync"    // peers are in a later round
	TriggerPayout       Trigger = "payout"        // the payout is accepted and deep
	TriggerMaxRounds    Trigger = "max_rounds"    // out of rounds
	TriggerDeadline     Trigger = "deadline"      // out of time
	TriggerAdminReset   Trigger = "admin_reset"   // an operator reset the event
	TriggerRefused      Trigger = "refused"       // the group will never pay the event
)

// transitions is the table of section 3.2 with what it implies and this
// implementation adds: Committed -> Failed when pre-sign revalidation
// fails (nothing was signed) or the signed payout can never be accepted,
// Failed -> Committed on a quorum or a peer's verified commit while the
// retry waits, any phase -> Completed when the payout is seen accepted on
// the ledger (Abandoned too: an observed payout, never a new signature).
// An operator's reset may restart any event that is not Completed or
// Refused; only an event not started may be Refused.
var transitions = map[Phase]map[Phase][]Trigger{
	PhaseUnknown: {
		PhaseProposing: {TriggerActivated, TriggerProposal, TriggerRoundSync},
		PhaseCommitted: {TriggerFastForward},
		PhaseCompleted: {TriggerPayout},
		PhaseAbandoned: {TriggerDeadline},
		PhaseRefused:   {TriggerRefused},
	},
	PhaseProposing: {
		PhaseProposing: {TriggerRoundSync},
		PhaseCommitted: {TriggerQuorum, TriggerFastForward},
		PhaseFailed:    {TriggerTimeout, TriggerNoInputs, TriggerRevalidation},
		PhaseCompleted: {TriggerPayout},
		PhaseAbandoned: {TriggerDeadline, TriggerMaxRounds},
		PhaseUnknown:   {TriggerAdminReset},
	},
	PhaseCommitted: {
		PhaseFailed:    {TriggerRevalidation, TriggerPayoutFailed},
		PhaseCompleted: {TriggerPayout},
		PhaseAbandoned: {TriggerDeadline, TriggerMaxRounds},
		PhaseUnknown:   {TriggerAdminReset},
	},
	PhaseFailed: {
		PhaseProposing: {TriggerRetry, TriggerRoundSync},
		PhaseCommitted: {TriggerFastForward, TriggerQuorum},
		PhaseCompleted: {TriggerPayout},
		PhaseAbandoned: {TriggerMaxRounds, TriggerDeadline},
		PhaseUnknown:   {TriggerAdminReset},
	},
	PhaseAbandoned: {
		PhaseCompleted: {TriggerPayout},
		PhaseUnknown:   {TriggerAdminReset},
	},
	PhaseCompleted: {},
	// Refused is final: nothing was voted for, and a certificate may be
	// out; not even an operator restarts it.
	PhaseRefused: {},
}

// CheckTransition returns nil when from -> to by trigger is in the table,
// an error wrapping [ErrInvalidTransition] otherwise.
func CheckTransition(from, to Phase, t Trigger) error {
	for _, ok := range transitions[from][to] {
		if ok == t {
			return nil
		}
	}
	return fmt.Errorf("%w: %s -> %s by %s", ErrInvalidTransition, from, to, t)
}
