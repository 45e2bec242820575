package twophase

// Metric names a decision reports in [Step.Metrics] (seed 001, 12.1, plus
// the counts this implementation adds). The metrics adapter maps each to
// a Prometheus series; Label fills the metric's one label where it has
// one (named after the colon in the comment).
const (
	MetricProposalPhaseDuration = "proposal_phase_duration_ms"       // histogram, ms in Proposing until commit or failure
	MetricProposalsReceived     = "proposals_received_count"         // histogram, votes held when a round ends
	MetricCanonicalSelection    = "canonical_selection_method"       // counter: method (quorum, fast_forward)
	MetricFastForward           = "fast_forward_count"               // counter
	MetricValidationFailures    = "proposal_validation_failures"     // counter: reason
	MetricPhaseTransitionErrors = "phase_transition_errors"          // counter
	MetricSplitBrainWarnings    = "split_brain_warnings"             // counter
	MetricUniqueHashesPerEvent  = "unique_hashes_per_event"          // histogram, when a round ends
	MetricTimeoutsWithoutQuorum = "proposal_timeouts_without_quorum" // counter
	MetricRoundRetries          = "round_retries_total"              // counter
	MetricEventsAbandoned       = "events_abandoned_total"           // counter
	MetricUTXODepthRejects      = "utxo_depth_rejects_total"         // counter
	MetricRevalidationFailures  = "utxo_revalidation_failures_total" // counter
	MetricStreamHolesBlocking   = "stream_holes_blocking_total"      // counter: stream
	MetricStreamHoleBlockedMs   = "stream_hole_blocked_duration_ms"  // gauge: stream
	MetricStateSyncThrottled    = "state_sync_throttled_total"       // counter
	MetricEventsStarted         = "events_total"                     // counter
	MetricCommits               = "commits_total"                    // counter
	MetricEventsCompleted       = "events_completed_total"           // counter
	MetricCommitLatency         = "commit_latency_ms"                // histogram, ms from the first round to the commit
	MetricMessagesRejected      = "messages_rejected_total"          // counter: reason
	MetricEquivocations         = "equivocations_total"              // counter
	MetricFutureRoundIgnored    = "future_round_proposals_ignored"   // counter
	MetricDuplicateVotes        = "duplicate_votes_total"            // counter
	MetricPayoutSubmissions     = "payout_submissions_total"         // counter: outcome (accepted, rejected)
	MetricInsufficientDeepUTXOs = "insufficient_deep_utxos_total"    // counter
	MetricAmbiguousRounds       = "ambiguous_earlier_rounds_total"   // counter
	MetricLockSigsReceived      = "lock_sigs_received_total"         // counter (Profile B): valid lock signatures received
	MetricLockCertsAccepted     = "lock_certs_accepted_total"        // counter (Profile B): certificates formed or adopted
	MetricOutpointLockConflicts = "outpoint_lock_conflicts_total"    // counter (Profile B): plans and locks refused on reserved outpoints
	MetricEventsRefused         = "events_refused_total"             // counter: reason (events the group will never pay)
	MetricRefusalsCertified     = "refusals_certified_total"         // counter (refusal certificates with a quorum)
)

// MetricNames lists every metric above, in declaration order, so the
// adapter can register one series per name.
var MetricNames = []string{
	MetricProposalPhaseDuration, MetricProposalsReceived, MetricCanonicalSelection, MetricFastForward,
	MetricValidationFailures, MetricPhaseTransitionErrors, MetricSplitBrainWarnings, MetricUniqueHashesPerEvent,
	MetricTimeoutsWithoutQuorum, MetricRoundRetries, MetricEventsAbandoned, MetricUTXODepthRejects,
	MetricRevalidationFailures, MetricStreamHolesBlocking, MetricStreamHoleBlockedMs, MetricStateSyncThrottled,
	MetricEventsStarted, MetricCommits, MetricEventsCompleted, MetricCommitLatency,
	MetricMessagesRejected, MetricEquivocations, MetricFutureRoundIgnored, MetricDuplicateVotes,
	MetricPayoutSubmissions, MetricInsufficientDeepUTXOs, MetricAmbiguousRounds,
	MetricLockSigsReceived, MetricLockCertsAccepted, MetricOutpointLockConflicts,
	MetricEventsRefused, MetricRefusalsCertified,
}
