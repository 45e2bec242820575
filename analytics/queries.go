package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// Every query reads with FINAL: a record the sink wrote twice (it died
// between the rows and the checkpoint) counts once.

// GasRow is gas spent by one kind of transaction ending one way.
type GasRow struct {
	Type   string  `json:"type"`   // mint.tx_outcome, anchor.tx_outcome, claim.tx_outcome
	Status string  `json:"status"` // succeeded, reverted, already_processed, …
	Txs    uint64  `json:"txs"`
	Total  uint64  `json:"total"`
	Avg    float64 `json:"avg"`
	Median float64 `json:"median"`
	Max    uint64  `json:"max"`
}

// Gas sums the gas of every transaction outcome by kind and status.
func Gas(ctx context.Context, wh Warehouse) ([]GasRow, error) {
	rows, err := wh.Query(ctx, `SELECT type, status, count(), sum(gas_used), avg(gas_used), quantile(0.5)(gas_used), max(gas_used)
		FROM `+EventsTable+` FINAL
		WHERE type IN (?, ?, ?)
		GROUP BY type, status
		ORDER BY type, status`, domain.TypeMintOutcome, domain.TypeAnchorOutcome, domain.TypeClaimOutcome)
	if err != nil {
		return nil, fmt.Errorf("analytics: gas: %w", err)
	}
	return scanAll(rows, func(r *GasRow) []any {
		return []any{&r.Type, &r.Status, &r.Txs, &r.Total, &r.Avg, &r.Median, &r.Max}
	})
}

// LatencyRow is how long one kind of flow took from its first sighting
// to its completion (recorded-at to recorded-at), over the flows that
// completed. Times are in seconds.
type LatencyRow struct {
	Flow      string  `json:"flow"` // "deposit" (detected → minted) or "withdrawal" (detected → executed)
	Completed uint64  `json:"completed"`
	P50       float64 `json:"p50"`
	P90       float64 `json:"p90"`
	P99       float64 `json:"p99"`
	Max       float64 `json:"max"`
}

var flows = []struct{ name, start, done string }{
	{"deposit", domain.TypeDepositDetected, domain.TypeDepositMinted},
	{"withdrawal", domain.TypeWithdrawalDetected, domain.TypeWithdrawalExecuted},
}

// Latency measures the deposit and withdrawal flows.
func Latency(ctx context.Context, wh Warehouse) ([]LatencyRow, error) {
	var out []LatencyRow
	for _, f := range flows {
		rows, err := wh.Query(ctx, `SELECT count(), quantiles(0.5, 0.9, 0.99)(took), max(took) FROM (
				SELECT aggregate_id, (minIf(recorded_ms, type = ?) - minIf(recorded_ms, type = ?)) / 1000 AS took
				FROM `+EventsTable+` FINAL
				WHERE type IN (?, ?)
				GROUP BY aggregate_id
				HAVING countIf(type = ?) > 0 AND countIf(type = ?) > 0
			)`, f.done, f.start, f.start, f.done, f.start, f.done)
		if err != nil {
			return nil, fmt.Errorf("analytics: latency of %s: %w", f.name, err)
		}
		got, err := scanAll(rows, func(r *latencyScan) []any { return []any{&r.n, &r.q, &r.max} })
		if err != nil {
			return nil, fmt.Errorf("analytics: latency of %s: %w", f.name, err)
		}
		row := LatencyRow{Flow: f.name}
		if len(got) == 1 && got[0].n > 0 && len(got[0].q) == 3 {
			row.Completed, row.Max = got[0].n, got[0].max
			row.P50, row.P90, row.P99 = got[0].q[0], got[0].q[1], got[0].q[2]
		}
		out = append(out, row)
	}
	return out, nil
}

type latencyScan struct {
	n   uint64
	q   []float64
	max float64
}

// ErrorHour is the error rate of one hour (by recorded-at).
type ErrorHour struct {
	Hour   time.Time `json:"hour"`
	Events uint64    `json:"events"`
	Errors uint64    `json:"errors"`
}

// Rate is the share of the hour's events that were errors.
func (h ErrorHour) Rate() float64 {
	if h.Events == 0 {
		return 0
	}
	return float64(h.Errors) / float64(h.Events)
}

// ErrorRates gives events and errors per hour since a time.
func ErrorRates(ctx context.Context, wh Warehouse, since time.Time) ([]ErrorHour, error) {
	rows, err := wh.Query(ctx, `SELECT toStartOfHour(recorded_at) AS hour, count(), sum(is_error)
		FROM `+EventsTable+` FINAL
		WHERE recorded_at >= ?
		GROUP BY hour
		ORDER BY hour`, dateTime(since))
	if err != nil {
		return nil, fmt.Errorf("analytics: error rates: %w", err)
	}
	return scanAll(rows, func(r *ErrorHour) []any { return []any{&r.Hour, &r.Events, &r.Errors} })
}

// ErrorKind is one kind of error and how often it happened.
type ErrorKind struct {
	Kind       string    `json:"kind"` // the event type, or "undecodable"
	Count      uint64    `json:"count"`
	LastReason string    `json:"lastReason"`
	LastAt     time.Time `json:"lastAt"`
}

// Errors lists the kinds of errors, most frequent first.
func Errors(ctx context.Context, wh Warehouse) ([]ErrorKind, error) {
	rows, err := wh.Query(ctx, `SELECT if(decode_error != '', 'undecodable', type) AS kind, count() AS n,
			argMax(if(decode_error != '', decode_error, if(reason != '', reason, status)), recorded_ms), max(recorded_at)
		FROM `+EventsTable+` FINAL
		WHERE is_error = 1
		GROUP BY kind
		ORDER BY n DESC, kind`)
	if err != nil {
		return nil, fmt.Errorf("analytics: errors: %w", err)
	}
	return scanAll(rows, func(r *ErrorKind) []any { return []any{&r.Kind, &r.Count, &r.LastReason, &r.LastAt} })
}

// AuditRow is one event in an audit trail.
type AuditRow struct {
	Topic       string    `json:"topic"`
	Partition   uint32    `json:"partition"`
	Offset      uint64    `json:"offset"`
	RecordedAt  time.Time `json:"recordedAt"`
	RecordedMs  int64     `json:"recordedMs"`
	Type        string    `json:"type"`
	SourceKey   string    `json:"sourceKey"`
	EventID     string    `json:"eventId"`
	AggregateID string    `json:"aggregateId"`
	Correlation string    `json:"correlationId"`
	Payload     string    `json:"payload"`
	DecodeError string    `json:"decodeError"`
}

// scanAll reads every row into a T through the pointers fields gives.
func scanAll[T any](rows Rows, fields func(*T) []any) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(fields(&v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
