package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// The alert conditions of seed 000 ("Monitoring & Alerts") and seed 001
// (section 12.2), checked on the warehouse with the windows and
// thresholds of deploy/alerts/bridgelog-rules.yml: what an operator
// without Prometheus, or looking back, can ask "does it hold now?".

// AlertCondition is one condition and whether it holds at the time asked.
type AlertCondition struct {
	Condition string `json:"condition"`
	// Origin is the signer log a signer's condition was checked on.
	Origin    string `json:"origin,omitempty"`
	Holds     bool   `json:"holds"`
	Figure    string `json:"figure"`    // what the warehouse shows, in words
	Threshold string `json:"threshold"` // when the condition holds
}

// Windows and thresholds of the conditions: the deploy rules' own, which
// stay the one source (TestAlertThresholdsMatchTheRules fails when the two
// disagree).
const (
	anchorWindow      = 10 * time.Minute
	claimWindow       = 30 * time.Minute
	claimFailShare    = 0.05
	batchDelay        = 10 * time.Minute
	depthWindow       = 10 * time.Minute
	conflictWindow    = 10 * time.Minute
	signerWindow      = time.Hour
	timeoutShare      = 0.05
	revalidationShare = 0.01
	rateLimitWait     = 30 * time.Minute
	seedDepth         = domain.DefaultConfirmationDepth
	pausedTooLong     = 30 * time.Minute
)

// The mesh's refusals before authentication are counted, never recorded
// (no outsider's connection reaches a log), so the warehouse cannot check
// BridgelogSignerMeshRefused; its window and count stay here with the
// others all the same, held to the rules by the same test.
const (
	meshRefusedWindow = 10 * time.Minute
	meshRefusedCount  = 20
)

// Alerts checks every condition as of now: the relay's on the rows of
// every log, the signers' on each signer log (origin) in the warehouse.
func Alerts(ctx context.Context, wh Warehouse, now time.Time) ([]AlertCondition, error) {
	var out []AlertCondition
	for _, check := range []func(context.Context, Warehouse, int64) (AlertCondition, error){
		anchorFailures, claimFailures, batchCreationDelayed, depthViolations, keyConflicts, rateLimitWaits, relayPausedLong,
	} {
		c, err := check(ctx, wh, now.UnixMilli())
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	signers, err := signerAlerts(ctx, wh, now.UnixMilli())
	if err != nil {
		return nil, err
	}
	return append(out, signers...), nil
}

// count runs a query of one count.
func count(ctx context.Context, wh Warehouse, what, q string, args ...any) (uint64, error) {
	rows, err := wh.Query(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("analytics: %s: %w", what, err)
	}
	got, err := scanAll(rows, func(n *uint64) []any { return []any{n} })
	if err != nil {
		return 0, fmt.Errorf("analytics: %s: %w", what, err)
	}
	if len(got) == 0 {
		return 0, nil
	}
	return got[0], nil
}

func windowMs(d time.Duration) int64 { return d.Milliseconds() }

// span prints a window: "10 min", "1 h".
func span(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%d h", d/time.Hour)
	}
	return fmt.Sprintf("%d min", d/time.Minute)
}

// relayPausedLong: the relay's latest pause or resume is a pause recorded
// more than 30 minutes ago (a pause nobody lifted).
func relayPausedLong(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	c := AlertCondition{Condition: "relay paused too long", Threshold: fmt.Sprintf("paused > %v", span(pausedTooLong))}
	rows, err := wh.Query(ctx, `SELECT type, recorded_ms FROM `+EventsTable+` FINAL WHERE type IN (?, ?)
		ORDER BY recorded_ms DESC, type LIMIT 1`, domain.TypeRelayPaused, domain.TypeRelayResumed)
	if err != nil {
		return c, fmt.Errorf("analytics: relay pause: %w", err)
	}
	type latest struct {
		typ string
		ms  int64
	}
	got, err := scanAll(rows, func(l *latest) []any { return []any{&l.typ, &l.ms} })
	if err != nil {
		return c, fmt.Errorf("analytics: relay pause: %w", err)
	}
	if len(got) == 0 || got[0].typ != domain.TypeRelayPaused {
		c.Figure = "not paused"
		return c, nil
	}
	paused := time.Duration(nowMs-got[0].ms) * time.Millisecond
	c.Holds = paused > pausedTooLong
	c.Figure = fmt.Sprintf("paused for %v", paused.Round(time.Second))
	return c, nil
}

// anchorFailures: batch.anchor_failed events (the root on chain is not
// the batch's) in the last 10 minutes.
func anchorFailures(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	n, err := count(ctx, wh, "anchoring failures", `SELECT count() FROM `+EventsTable+` FINAL WHERE type = ? AND recorded_ms >= ?`,
		domain.TypeBatchFailed, nowMs-windowMs(anchorWindow))
	return AlertCondition{Condition: "merkle root anchoring failed", Holds: n > 0,
		Figure:    fmt.Sprintf("%d %s in the last %v", n, domain.TypeBatchFailed, span(anchorWindow)),
		Threshold: fmt.Sprintf("> 0 in %v", span(anchorWindow))}, err
}

// claimFailures: the batch with the largest share of failed withdrawal
// claims (withdrawal.failed, never executed) among the batches whose
// claims settled in the last 30 minutes, over the batch's withdrawals.
func claimFailures(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	c := AlertCondition{Condition: "withdrawal claims failed in a batch",
		Threshold: fmt.Sprintf("> %.0f%% of a batch (batches settling in %v)", 100*claimFailShare, span(claimWindow))}
	rows, err := wh.Query(ctx, `SELECT batch, count() AS leaves, countIf(failed AND NOT executed) AS failed_n
		FROM (
			SELECT aggregate_id,
				argMaxIf(concat(visitParamExtractString(payload, 'sequenceId'), ' #', toString(visitParamExtractUInt(payload, 'batchId'))),
					recorded_ms, type = ?) AS batch,
				countIf(type = ?) > 0 AS failed, countIf(type = ?) > 0 AS executed,
				maxIf(recorded_ms, type IN (?, ?)) AS settled_ms
			FROM `+EventsTable+` FINAL
			WHERE type IN (?, ?, ?)
			GROUP BY aggregate_id
			HAVING countIf(type = ?) > 0
		)
		GROUP BY batch
		HAVING max(settled_ms) >= ?
		ORDER BY failed_n / leaves DESC, batch
		LIMIT 1`,
		domain.TypeWithdrawalBatched, domain.TypeWithdrawalFailed, domain.TypeWithdrawalExecuted,
		domain.TypeWithdrawalFailed, domain.TypeWithdrawalExecuted,
		domain.TypeWithdrawalBatched, domain.TypeWithdrawalFailed, domain.TypeWithdrawalExecuted,
		domain.TypeWithdrawalBatched, nowMs-windowMs(claimWindow))
	if err != nil {
		return c, fmt.Errorf("analytics: claim failures: %w", err)
	}
	type worst struct {
		batch          string
		leaves, failed uint64
	}
	got, err := scanAll(rows, func(w *worst) []any { return []any{&w.batch, &w.leaves, &w.failed} })
	if err != nil {
		return c, fmt.Errorf("analytics: claim failures: %w", err)
	}
	if len(got) == 0 {
		c.Figure = fmt.Sprintf("no batch's claims settled in the last %v", span(claimWindow))
		return c, nil
	}
	w := got[0]
	share := float64(w.failed) / float64(w.leaves)
	c.Holds = share > claimFailShare
	c.Figure = fmt.Sprintf("worst: batch %s, %d of %d withdrawals failed (%.1f%%)", w.batch, w.failed, w.leaves, 100*share)
	return c, nil
}

// batchCreationDelayed: the oldest confirmed withdrawal (not reorged
// since) that is in no batch and not settled, by the time it was
// confirmed.
func batchCreationDelayed(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	c := AlertCondition{Condition: "batch creation delayed", Threshold: fmt.Sprintf("a confirmed withdrawal waits > %v", span(batchDelay))}
	rows, err := wh.Query(ctx, `SELECT count(), min(confirmed_ms) FROM (
			SELECT aggregate_id, maxIf(recorded_ms, type = ?) AS confirmed_ms, maxIf(recorded_ms, type = ?) AS reorged_ms,
				countIf(type IN (?, ?, ?)) AS done
			FROM `+EventsTable+` FINAL
			WHERE type IN (?, ?, ?, ?, ?)
			GROUP BY aggregate_id
			HAVING confirmed_ms > 0 AND confirmed_ms > reorged_ms AND done = 0
		)`,
		domain.TypeWithdrawalConfirmed, domain.TypeWithdrawalReorged,
		domain.TypeWithdrawalBatched, domain.TypeWithdrawalExecuted, domain.TypeWithdrawalFailed,
		domain.TypeWithdrawalConfirmed, domain.TypeWithdrawalReorged,
		domain.TypeWithdrawalBatched, domain.TypeWithdrawalExecuted, domain.TypeWithdrawalFailed)
	if err != nil {
		return c, fmt.Errorf("analytics: batch delay: %w", err)
	}
	type waiting struct {
		n      uint64
		oldest int64
	}
	got, err := scanAll(rows, func(w *waiting) []any { return []any{&w.n, &w.oldest} })
	if err != nil {
		return c, fmt.Errorf("analytics: batch delay: %w", err)
	}
	if len(got) == 0 || got[0].n == 0 {
		c.Figure = "no confirmed withdrawal waits for a batch"
		return c, nil
	}
	wait := time.Duration(nowMs-got[0].oldest) * time.Millisecond
	c.Holds = wait > batchDelay
	c.Figure = fmt.Sprintf("%d confirmed withdrawal(s) in no batch, the oldest for %v", got[0].n, wait.Round(time.Second))
	return c, nil
}

// depthViolations: deposits and withdrawals confirmed at less than the
// seed's 5 blocks, or minted or batched without a confirmation before,
// in the last 10 minutes.
func depthViolations(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	since := nowMs - windowMs(depthWindow)
	shallow, err := count(ctx, wh, "confirmation depth", `SELECT count() FROM `+EventsTable+` FINAL
		WHERE type IN (?, ?) AND visitParamExtractUInt(payload, 'depth') < ? AND recorded_ms >= ?`,
		domain.TypeDepositConfirmed, domain.TypeWithdrawalConfirmed, uint64(seedDepth), since)
	if err != nil {
		return AlertCondition{}, err
	}
	unconfirmed, err := count(ctx, wh, "confirmation depth", `SELECT count() FROM (
			SELECT aggregate_id, minIf(recorded_ms, type IN (?, ?)) AS acted_ms,
				countIf(type IN (?, ?)) > 0 AS confirmed, minIf(recorded_ms, type IN (?, ?)) AS confirmed_ms
			FROM `+EventsTable+` FINAL
			WHERE type IN (?, ?, ?, ?)
			GROUP BY aggregate_id
			HAVING countIf(type IN (?, ?)) > 0 AND acted_ms >= ? AND (NOT confirmed OR confirmed_ms > acted_ms)
		)`,
		domain.TypeDepositMinted, domain.TypeWithdrawalBatched,
		domain.TypeDepositConfirmed, domain.TypeWithdrawalConfirmed, domain.TypeDepositConfirmed, domain.TypeWithdrawalConfirmed,
		domain.TypeDepositMinted, domain.TypeWithdrawalBatched, domain.TypeDepositConfirmed, domain.TypeWithdrawalConfirmed,
		domain.TypeDepositMinted, domain.TypeWithdrawalBatched, since)
	return AlertCondition{Condition: "confirmation depth violated", Holds: shallow+unconfirmed > 0,
		Figure: fmt.Sprintf("%d confirmed at < %d blocks, %d minted or batched unconfirmed, in the last %v",
			shallow, seedDepth, unconfirmed, span(depthWindow)),
		Threshold: fmt.Sprintf("> 0 in %v", span(depthWindow))}, err
}

// keyConflicts: source keys (the seed's UNIQUE keys) one log holds with
// two different contents, one of them recorded in the last 10 minutes.
// The log keeps both; the projections apply the first only.
func keyConflicts(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	since := nowMs - windowMs(conflictWindow)
	n, err := count(ctx, wh, "unique-key conflicts", `SELECT count() FROM (
			SELECT `+originColumn+` AS origin, source_key
			FROM `+EventsTable+` FINAL
			WHERE source_key IN (SELECT source_key FROM `+EventsTable+` WHERE recorded_ms >= ? AND source_key != '')
			GROUP BY origin, source_key
			HAVING uniqExact(type, payload) > 1
		)`, since)
	return AlertCondition{Condition: "unique-key conflicts", Holds: n > 0,
		Figure:    fmt.Sprintf("%d source key(s) with two contents, recorded in the last %v", n, span(conflictWindow)),
		Threshold: fmt.Sprintf("> 0 in %v", span(conflictWindow))}, err
}

// rateLimitWaits: items whose wait on a contract's rate limit (the
// driver's step rate_limit:<purpose>:<subject>, relay.step_failed when it
// starts, relay.step_recovered when the item goes through) began more
// than 30 minutes ago and has not ended. A wait whose item another
// process (a claim's next owner) finished has no recovery of its own: a
// final outcome of the subject ends it too.
func rateLimitWaits(ctx context.Context, wh Warehouse, nowMs int64) (AlertCondition, error) {
	c := AlertCondition{Condition: "waiting on a contract's rate limit",
		Threshold: fmt.Sprintf("an item waits > %v", span(rateLimitWait))}
	rows, err := wh.Query(ctx, `SELECT countIf(failed_ms <= ?), count() FROM (
			SELECT aggregate_id, argMax(type, recorded_ms) AS last_type, maxIf(recorded_ms, type = ?) AS failed_ms
			FROM `+EventsTable+` FINAL
			WHERE type IN (?, ?) AND aggregate_id LIKE 'relay:rate_limit:%'
			GROUP BY aggregate_id
			HAVING last_type = ?
		)
		WHERE replaceRegexpOne(aggregate_id, '^relay:rate_limit:[a-z]+:', '') NOT IN (
			SELECT aggregate_id FROM `+EventsTable+` FINAL
			WHERE type IN (?, ?, ?) AND visitParamExtractString(payload, 'status') IN (?, ?, ?)
		)`,
		nowMs-windowMs(rateLimitWait), domain.TypeRelayStepFailed,
		domain.TypeRelayStepFailed, domain.TypeRelayStepRecovered, domain.TypeRelayStepFailed,
		domain.TypeMintOutcome, domain.TypeClaimOutcome, domain.TypeRefundOutcome,
		string(domain.TxSucceeded), string(domain.TxAlreadyProcessed), string(domain.TxReverted))
	if err != nil {
		return c, fmt.Errorf("analytics: rate limit waits: %w", err)
	}
	type waits struct{ long, all uint64 }
	got, err := scanAll(rows, func(w *waits) []any { return []any{&w.long, &w.all} })
	if err != nil {
		return c, fmt.Errorf("analytics: rate limit waits: %w", err)
	}
	var w waits
	if len(got) > 0 {
		w = got[0]
	}
	c.Holds = w.long > 0
	c.Figure = fmt.Sprintf("%d item(s) waiting on a rate limit, %d of them for over %v", w.all, w.long, span(rateLimitWait))
	return c, nil
}

// signerFigures are one signer log's figures for its conditions.
type signerFigures struct {
	origin                        string
	abandoned                     uint64 // events abandoned and not reset, re-injected or completed since
	started, timeouts             uint64 // in the last hour
	commits, revalidationFailures uint64 // in the last hour
}

// signerAlerts checks the signers' conditions on each signer log:
// events abandoned now, proposal timeouts without quorum over 5% of the
// events started in the last hour, revalidation failures over 1% of the
// commits in the last hour.
func signerAlerts(ctx context.Context, wh Warehouse, nowMs int64) ([]AlertCondition, error) {
	since := nowMs - windowMs(signerWindow)
	rows, err := wh.Query(ctx, `SELECT origin,
			countIf(abandoned_ms > 0 AND abandoned_ms >= resumed_ms),
			sum(started), sum(timeouts), sum(commits), sum(revalidation_failures)
		FROM (
			SELECT `+originColumn+` AS origin, aggregate_id,
				maxIf(recorded_ms, `+signingFact(twophase.TypeAbandoned)+`) AS abandoned_ms,
				maxIf(recorded_ms, type IN (?, ?, ?)) AS resumed_ms,
				countIf(recorded_ms >= ? AND `+signingFact(twophase.TypeRoundStarted)+` AND `+payloadRound+` = 0) AS started,
				countIf(recorded_ms >= ? AND `+signingFact(twophase.TypeRoundFailed)+` AND `+payloadReason+` = ?) AS timeouts,
				countIf(recorded_ms >= ? AND `+signingFact(twophase.TypeCommitted)+`) AS commits,
				countIf(recorded_ms >= ? AND `+revalidationFailed+`) AS revalidation_failures
			FROM `+EventsTable+` FINAL
			WHERE type LIKE 'signing.%' AND aggregate_id LIKE 'signing:%'
			GROUP BY origin, aggregate_id
		)
		GROUP BY origin
		ORDER BY origin`,
		twophase.TypeAdminReset, twophase.TypeAdminReinjected, twophase.TypeCompleted,
		since, since, string(twophase.ReasonTimeoutNoQuorum), since, since)
	if err != nil {
		return nil, fmt.Errorf("analytics: signer alerts: %w", err)
	}
	figs, err := scanAll(rows, func(f *signerFigures) []any {
		return []any{&f.origin, &f.abandoned, &f.started, &f.timeouts, &f.commits, &f.revalidationFailures}
	})
	if err != nil {
		return nil, fmt.Errorf("analytics: signer alerts: %w", err)
	}
	return signerConditions(figs), nil
}

// signerConditions turns each signer log's figures into its three
// conditions; without any signer log, each condition says so.
func signerConditions(figs []signerFigures) []AlertCondition {
	const (
		abandonedName = "signing events abandoned"
		timeoutsName  = "proposal timeouts without quorum"
		revalName     = "pre-sign revalidation failures"
	)
	abandonedAt := "> 0 (until reset, re-injected or completed)"
	timeoutsAt := fmt.Sprintf("> %.0f%% of the events started in %v", 100*timeoutShare, span(signerWindow))
	revalAt := fmt.Sprintf("> %.0f%% of the commits in %v", 100*revalidationShare, span(signerWindow))
	if len(figs) == 0 {
		none := "no signer log in the warehouse (analytics sink --data <a signer's data dir>)"
		return []AlertCondition{{Condition: abandonedName, Figure: none, Threshold: abandonedAt},
			{Condition: timeoutsName, Figure: none, Threshold: timeoutsAt},
			{Condition: revalName, Figure: none, Threshold: revalAt}}
	}
	var out []AlertCondition
	for _, f := range figs {
		out = append(out, AlertCondition{Condition: abandonedName, Origin: f.origin, Holds: f.abandoned > 0,
			Figure: fmt.Sprintf("%d event(s) abandoned", f.abandoned), Threshold: abandonedAt})
		share := float64(f.timeouts) / float64(max(f.started, 1))
		out = append(out, AlertCondition{Condition: timeoutsName, Origin: f.origin, Holds: share > timeoutShare,
			Figure: fmt.Sprintf("%d timeouts / %d events started = %.1f%%", f.timeouts, f.started, 100*share), Threshold: timeoutsAt})
		share = float64(f.revalidationFailures) / float64(max(f.commits, 1))
		out = append(out, AlertCondition{Condition: revalName, Origin: f.origin, Holds: share > revalidationShare,
			Figure: fmt.Sprintf("%d failures / %d commits = %.1f%%", f.revalidationFailures, f.commits, 100*share), Threshold: revalAt})
	}
	return out
}
