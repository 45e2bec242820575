package metrics

import (
	"strconv"
	"time"
)

// The typed metrics of each component (handlers.IndexerMetrics,
// handlers.BatcherMetrics, signingsource.Metrics, the relay's backups …):
// every series a component records is named here, once, and documented in
// handlerHelp.

func chainLabel(chainID uint64) map[string]string {
	return map[string]string{"chain_id": strconv.FormatUint(chainID, 10)}
}

func gauge01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Indexer.

func (h *HandlerMetrics) IndexerRPCError(chainID uint64) {
	h.Count("indexer_rpc_errors_total", chainLabel(chainID), 1)
}
func (h *HandlerMetrics) IndexerLag(chainID, blocks uint64) {
	h.Gauge("indexer_lag_blocks", chainLabel(chainID), float64(blocks))
}
func (h *HandlerMetrics) ChainEventsAppended(chainID uint64, n int) {
	h.Count("chain_events_total", chainLabel(chainID), n)
}
func (h *HandlerMetrics) LogRejected(chainID uint64) {
	h.Count("logs_rejected_total", chainLabel(chainID), 1)
}
func (h *HandlerMetrics) ReorgDetected(chainID uint64) {
	h.Count("reorgs_detected_total", chainLabel(chainID), 1)
}
func (h *HandlerMetrics) ReorgBeyondWindow(chainID uint64) {
	h.Count("reorgs_beyond_window_total", chainLabel(chainID), 1)
}
func (h *HandlerMetrics) StoppedBeyondWindow(chainID uint64, stopped bool) {
	h.Gauge("indexer_reorg_beyond_window", chainLabel(chainID), gauge01(stopped))
}

// Confirmer.

func (h *HandlerMetrics) ObservationsConfirmed(chainID uint64, n int) {
	h.Count("confirmations_total", chainLabel(chainID), n)
}
func (h *HandlerMetrics) ObservationReorged(chainID uint64) {
	h.Count("reorged_observations_total", chainLabel(chainID), 1)
}

// Batcher and anchorer.

func (h *HandlerMetrics) OldestUnbatched(seconds float64) {
	h.Gauge("oldest_unbatched_withdrawal_seconds", nil, seconds)
}
func (h *HandlerMetrics) BatchCreated()   { h.Count("batches_created_total", nil, 1) }
func (h *HandlerMetrics) BatchLost()      { h.Count("batches_lost_total", nil, 1) }
func (h *HandlerMetrics) BatchRecovered() { h.Count("batches_recovered_total", nil, 1) }
func (h *HandlerMetrics) BatchAnchored(gasUsed uint64) {
	h.Count("batches_anchored_total", nil, 1)
	h.gasUsed("anchor", gasUsed)
}
func (h *HandlerMetrics) AnchorFailed() { h.Count("anchor_failures_total", nil, 1) }

// Minter.

func (h *HandlerMetrics) DepositMinted(gasUsed uint64) {
	h.Count("deposits_minted_total", nil, 1)
	h.gasUsed("mint", gasUsed)
}
func (h *HandlerMetrics) DepositFailed() { h.Count("deposits_failed_total", nil, 1) }

// Refunds.

func (h *HandlerMetrics) RefundCompleted(gasUsed uint64) {
	h.Count("refunds_completed_total", nil, 1)
	h.gasUsed("refund", gasUsed)
}
func (h *HandlerMetrics) RefundFailed() { h.Count("refunds_failed_total", nil, 1) }
func (h *HandlerMetrics) CertificateRefused(reason string) {
	h.Count("refund_certificates_refused_total", map[string]string{"reason": reason}, 1)
}

// The relay's brakes.

func (h *HandlerMetrics) RelayPaused(paused bool, since time.Time) {
	v, at := 0.0, 0.0
	if paused {
		v, at = 1, float64(since.Unix())
	}
	h.Gauge("relay_paused", nil, v)
	h.Gauge("relay_paused_since_seconds", nil, at)
}
func (h *HandlerMetrics) MintsHeld(count int, value float64) {
	h.Gauge("mints_held", nil, float64(count))
	h.Gauge("mints_held_value", nil, value)
}

func (h *HandlerMetrics) gasUsed(purpose string, gas uint64) {
	h.Count("gas_used_total", map[string]string{"purpose": purpose}, int(gas))
}

// Claim executor.

func (h *HandlerMetrics) ClaimRecordUndecodable() { h.Count("claim_records_undecodable_total", nil, 1) }
func (h *HandlerMetrics) ClaimAttemptFailed()     { h.Count("claim_attempts_failed_total", nil, 1) }
func (h *HandlerMetrics) ClaimProofInvalid()      { h.Count("claim_proofs_invalid_total", nil, 1) }
func (h *HandlerMetrics) WithdrawalExecuted()     { h.Count("withdrawals_executed_total", nil, 1) }
func (h *HandlerMetrics) WithdrawalFailed()       { h.Count("withdrawals_failed_total", nil, 1) }

// Relay loop steps.

func (h *HandlerMetrics) StepFailed(step string) {
	h.Count("relay_step_failures_total", map[string]string{"step": step}, 1)
}

// RateLimited counts a mint, refund or claim the contract's rate limit
// deferred.
func (h *HandlerMetrics) RateLimited(purpose, reason string) {
	h.Count("relay_rate_limited_total", map[string]string{"purpose": purpose, "reason": reason}, 1)
}

// Signing source (a signer's burns toward Kaspa and the requests it
// refuses).

func (h *HandlerMetrics) SourceHanded(stream string) {
	h.Count("signing_source_handed_total", map[string]string{"stream": stream}, 1)
}
func (h *HandlerMetrics) SourceInvalid(stream string) {
	h.Count("signing_source_invalid_total", map[string]string{"stream": stream}, 1)
}
func (h *HandlerMetrics) RequestRefused(via, reason string) {
	h.Count("signing_requests_refused_total", map[string]string{"via": via, "reason": reason}, 1)
}

// Periodic backups of the embedded log (relay --backup-every).

func (h *HandlerMetrics) LogBackupFailed() { h.Count("log_backup_failures_total", nil, 1) }
func (h *HandlerMetrics) LogBackupWritten(at time.Time) {
	h.Count("log_backups_total", nil, 1)
	h.Gauge("log_backup_last_success_seconds", nil, float64(at.Unix()))
}

// Kaspa indexer.

func (h *HandlerMetrics) KaspaIndexerRPCError(network string) {
	h.Count("kaspa_indexer_rpc_errors_total", map[string]string{"network": network}, 1)
}
func (h *HandlerMetrics) KaspaDeposits(network, kind string, n int) {
	h.Count("kaspa_deposits_total", map[string]string{"network": network, "kind": kind}, n)
}
