package twophase

import (
	"errors"
	"fmt"
)

// Reason is a stable code for a rejected message or a failed round: it is
// what events record and metrics label, so never rename one.
type Reason string

// Rejections of a message or a proposal.
const (
	ReasonOversized         Reason = "oversized"
	ReasonMalformed         Reason = "malformed"
	ReasonBadSignature      Reason = "bad_signature"
	ReasonUnknownSender     Reason = "unknown_sender"
	ReasonWrongGroup        Reason = "wrong_group"
	ReasonWrongVersion      Reason = "wrong_version"
	ReasonReplayed          Reason = "replayed"
	ReasonRateLimited       Reason = "rate_limited"
	ReasonStructure         Reason = "structure"
	ReasonHashMismatch      Reason = "hash_mismatch"
	ReasonUnknownProposer   Reason = "unknown_proposer"
	ReasonProposerMismatch  Reason = "proposer_mismatch"
	ReasonWrongPayout       Reason = "wrong_payout"
	ReasonForeignOutput     Reason = "foreign_output"
	ReasonForeignInput      Reason = "foreign_input"
	ReasonDuplicateInput    Reason = "duplicate_input"
	ReasonFeeOutOfBounds    Reason = "fee_out_of_bounds"
	ReasonNonStandard       Reason = "nonstandard"
	ReasonPolicy            Reason = "policy"
	ReasonUnknownEvent      Reason = "unknown_event"
	ReasonEventMismatch     Reason = "event_mismatch"
	ReasonRoundMismatch     Reason = "round_mismatch"
	ReasonFutureRound       Reason = "future_round"
	ReasonPhaseTooLate      Reason = "phase_too_late"
	ReasonEquivocation      Reason = "equivocation"
	ReasonBadEvidence       Reason = "bad_evidence"
	ReasonConflictingCommit Reason = "conflicting_commit"
	ReasonRefusalMismatch   Reason = "refusal_mismatch" // a refusal signature for another reason than this signer's
	// A sync response for an event this signer did not ask that member
	// about (or asked too long ago): answers only for questions asked.
	ReasonUnrequestedSync Reason = "unrequested_sync"
	// An envelope signed by another member than the authenticated link
	// it came on: refused, and counted against the link.
	ReasonLinkMismatch Reason = "link_mismatch"
	// A relayed vote of a sync response past the response's verification
	// budget (at most syncChecksPerVoter a voter and event): not checked.
	ReasonSyncBudget Reason = "sync_budget"
	// A member's proposal for an event this signer has not confirmed,
	// past that member's budget of source-proof look-ups.
	ReasonProofBudget Reason = "proof_budget"
	// Profile B (lock certificates, anchors, reserved outpoints).
	ReasonOutpointLocked       Reason = "outpoint_locked"
	ReasonBadLockSignature     Reason = "bad_lock_signature"
	ReasonCertTooFewSignatures Reason = "cert_too_few_signatures"
	ReasonCertDuplicateSigner  Reason = "cert_duplicate_signer"
	ReasonLockMismatch         Reason = "lock_mismatch"
	ReasonAnchorMissing        Reason = "anchor_missing"
	ReasonAnchorUnknown        Reason = "anchor_unknown"
	ReasonAnchorStale          Reason = "anchor_stale"
	ReasonShallowAtAnchor      Reason = "input_shallow_at_anchor"
	// A peer's reserve split for another nonce than the reserve stream's
	// next, or one this member's own view does not find due.
	ReasonReserveNonce  Reason = "reserve_nonce"
	ReasonReserveNotDue Reason = "reserve_not_due"
)

// Reasons a round fails.
const (
	ReasonTimeoutNoQuorum      Reason = "timeout_no_quorum"
	ReasonNoDeepUTXOs          Reason = "insufficient_deep_utxos"
	ReasonRevalidationFailed   Reason = "revalidation_failed"
	ReasonBuildFailed          Reason = "build_failed"
	ReasonPayoutRejected       Reason = "payout_rejected"
	ReasonCompletionTimeout    Reason = "completion_timeout"
	ReasonMaxRounds            Reason = "max_rounds"
	ReasonAmbiguousEarlierVote Reason = "ambiguous_earlier_votes"
)

// ValidationError is a rejection with its reason code and a detail for
// people.
type ValidationError struct {
	Reason Reason
	Detail string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: %s", e.Reason, e.Detail)
}

// Is makes errors.Is(err, ErrRejected) true for every ValidationError,
// and errors.Is(err, ErrMalformed) for a malformed or oversized input.
func (e *ValidationError) Is(target error) bool {
	return target == ErrRejected || (target == ErrMalformed && (e.Reason == ReasonMalformed || e.Reason == ReasonOversized))
}

// ErrRejected matches every [ValidationError].
var ErrRejected = errors.New("rejected")

// ReasonOf returns the reason of a ValidationError in err's chain, or "".
func ReasonOf(err error) Reason {
	var v *ValidationError
	if errors.As(err, &v) {
		return v.Reason
	}
	return ""
}

func reject(r Reason, format string, a ...any) error {
	return &ValidationError{Reason: r, Detail: fmt.Sprintf(format, a...)}
}

// Typed errors of the state machine.
var (
	ErrInvalidTransition = errors.New("invalid phase transition")
	ErrUnknownEventID    = errors.New("unknown signing event")
)
