package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Refunds holds every refusal certificate the relay learned: one row per
// refused burn it accepted (REQUESTED, then COMPLETED or FAILED), and one
// per certificate it refused (REFUSED, keyed by the certificate's digest).
// A burn's events share its partition, so plain log order applies.
type Refunds struct{}

func (Refunds) Name() string           { return "refunds" }
func (Refunds) Version() int           { return 1 }
func (Refunds) Topics() []string       { return []string{topics.TopicBridge} }
func (Refunds) KeepsNothingPastBatch() {} // every value goes to the store in Apply
func (p Refunds) Tables() []Table      { return []Table{refundTable.Table} }

// Statuses of a refunds row.
const (
	RefundRequested = "REQUESTED"
	RefundCompleted = "COMPLETED"
	RefundFailed    = "FAILED"
	RefundRefused   = "REFUSED"
)

// refundRow is one row of refunds.
type refundRow struct {
	key, burnID, status      string
	burner, amount, reason   string
	source, certJSON, txHash string
	outcome                  string
	requestedAt, settledAt   sql.NullString
	gasUsed, blockNumber     int64
}

var refundTable = declareTable(Versioned("refunds", Refunds{}.Version()), []string{"key"},
	[]Index{{Columns: []string{"status"}}},
	strCol("key", func(r *refundRow) *string { return &r.key }),
	strCol("burn_id", func(r *refundRow) *string { return &r.burnID }),
	strCol("status", func(r *refundRow) *string { return &r.status }),
	strCol("burner", func(r *refundRow) *string { return &r.burner }),
	strCol("amount", func(r *refundRow) *string { return &r.amount }),
	strCol("reason", func(r *refundRow) *string { return &r.reason }), // the group's refusal reason
	strCol("source", func(r *refundRow) *string { return &r.source }),
	strCol("certificate_json", func(r *refundRow) *string { return &r.certJSON }),
	strCol("tx_hash", func(r *refundRow) *string { return &r.txHash }),
	strCol("outcome", func(r *refundRow) *string { return &r.outcome }), // why refused or failed
	i64Col("gas_used", func(r *refundRow) *int64 { return &r.gasUsed }),
	i64Col("block_number", func(r *refundRow) *int64 { return &r.blockNumber }),
	textCol("requested_at", func(r *refundRow) *sql.NullString { return &r.requestedAt }),
	textCol("settled_at", func(r *refundRow) *sql.NullString { return &r.settledAt }),
)

var (
	insertRefund  = refundTable.insertNewSQL()
	settleRefund  = refundTable.update("status", "tx_hash", "outcome", "gas_used", "block_number", "settled_at")
	refundsIn     = refundTable.selectLive("status = ? ORDER BY requested_at, key LIMIT ?", "certificate_json")
	refundsCounts = refundTable.countBy("status")
	refundByKey   = refundTable.selectLive("key = ?", "status")
)

// RefundKnown reports whether the refunds table has a row of key (see
// domain.RefundVerdictKey): that certificate's verdict is on the log already.
func (r BridgeReader) RefundKnown(ctx context.Context, key string) (bool, error) {
	found := false
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, Refunds{}.Name(), "refunds")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, refundByKey.on(t), []any{key}, func(rows RowScanner) error {
			found = true
			var s string
			return rows.Scan(&s)
		})
	})
	return found, err
}

func (p Refunds) Apply(ctx context.Context, tx Tx, ev *Event) error {
	at := nullTime(ev.Envelope.RecordedAt)
	switch e := ev.Body.(type) {
	case *domain.RefundRequested:
		r := refusalRow(e.Certificate, e.Source, at)
		r.key, r.status = domain.RefundVerdictKey(e.Certificate, false), RefundRequested
		_, err := tx.Exec(ctx, insertRefund, refundTable.args(&r, nil, false)...)
		return err
	case *domain.RefundCertificateRefused:
		r := refusalRow(e.Certificate, e.Source, at)
		r.key, r.status, r.outcome = domain.RefundVerdictKey(e.Certificate, true), RefundRefused, e.Reason
		_, err := tx.Exec(ctx, insertRefund, refundTable.args(&r, nil, false)...)
		return err
	case *domain.RefundCompleted:
		r := refundRow{key: e.Burn.WithdrawalToKaspaID(), status: RefundCompleted, txHash: e.TxHash.Hex(),
			gasUsed: int64(e.GasUsed), blockNumber: int64(e.BlockNumber), settledAt: at}
		if e.AlreadyDone {
			r.outcome = string(domain.TxAlreadyProcessed)
		}
		_, err := tx.Exec(ctx, settleRefund.sql, settleRefund.args(&r)...)
		return err
	case *domain.RefundFailed:
		r := refundRow{key: e.Burn.WithdrawalToKaspaID(), status: RefundFailed, outcome: e.Reason, settledAt: at}
		_, err := tx.Exec(ctx, settleRefund.sql, settleRefund.args(&r)...)
		return err
	}
	return nil
}

// refusalRow is the row of a certificate, without key and status.
func refusalRow(c domain.RefusalCertificate, source string, at sql.NullString) refundRow {
	js, _ := json.Marshal(c) // plain values: never fails
	return refundRow{burnID: c.Burn.WithdrawalToKaspaID(), burner: c.Burner.Hex(), amount: c.Amount.String(),
		reason: c.Reason, source: source, certJSON: string(js), requestedAt: at}
}

// RefundPending reads up to limit requested refunds not yet completed or
// failed, oldest first, with their open intents.
func (r BridgeReader) RefundPending(ctx context.Context, limit int) ([]domain.RefundTask, error) {
	var out []domain.RefundTask
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, Refunds{}.Name(), "refunds")
		if err != nil || t == "" {
			return err
		}
		err = queryEach(ctx, tx, refundsIn.on(t), []any{RefundRequested, limit}, func(rows RowScanner) error {
			var js string
			if err := rows.Scan(&js); err != nil {
				return err
			}
			var c domain.RefusalCertificate
			if err := json.Unmarshal([]byte(js), &c); err != nil {
				return fmt.Errorf("%s: certificate: %w", t, err)
			}
			out = append(out, domain.RefundTask{Certificate: c})
			return nil
		})
		if err != nil {
			return err
		}
		for i := range out {
			if out[i].Open, err = openIntents(ctx, tx, out[i].Subject()); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// RefundCounts reads the refunds by status (REQUESTED, COMPLETED, FAILED,
// REFUSED); empty before the first certificate.
func (r BridgeReader) RefundCounts(ctx context.Context) (map[string]int64, error) {
	return r.countsBy(ctx, Refunds{}.Name(), "refunds", refundsCounts)
}

// countsBy reads a (value, count) statement q on the live table base of
// projection: empty before the projection was built.
func (r BridgeReader) countsBy(ctx context.Context, projection, base string, q liveSQL) (map[string]int64, error) {
	out := map[string]int64{}
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, projection, base)
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, q.on(t), nil, func(rows RowScanner) error {
			var s string
			var n int64
			if err := rows.Scan(&s, &n); err != nil {
				return err
			}
			out[s] = n
			return nil
		})
	})
	return out, err
}
