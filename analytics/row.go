// Package analytics sinks every event of the log into ClickHouse and
// answers the operator's questions there: gas per kind of transaction,
// flow latencies, error rates, and "everything that happened to X".
//
// Every record becomes one row of bridgelog_events, keyed by its log
// position; a record that cannot be decoded becomes a row too (with the
// reason), so nothing on the log is missing from the warehouse. The sink
// records how far it got per partition after each insert; a sink that
// dies between the two re-inserts the same rows, which the
// ReplacingMergeTree collapses, and every query reads with FINAL. The
// audit ([NewWarehouseFinder]) has tables of its own, which the sink
// fills in the same step: every key an event can be found by with its
// log position (bridgelog_audit_keys), and the events' ids, time and
// payload in small granules (bridgelog_audit_events), so a lookup reads
// a few granules, not the table. The warehouse is reached through
// [Warehouse]; adapters/clickhouse implements it with clickhouse-go.
package analytics

import (
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// Row is one log record as the warehouse stores it.
type Row struct {
	Topic         string
	Partition     uint32
	Offset        uint64
	EventID       string
	Type          string
	SchemaVersion uint16
	SourceKey     string
	AggregateID   string
	CorrelationID string
	CausationID   string
	OccurredAt    time.Time // whole seconds (DateTime); OccurredMs has the milliseconds
	RecordedAt    time.Time
	OccurredMs    int64 // Unix milliseconds, 0 when unknown
	RecordedMs    int64
	ChainID       uint64
	TxHash        string
	GasUsed       uint64
	Status        string // a transaction outcome's status
	Reason        string // why something failed
	IsError       uint8  // 1 for a failure, a reverted or abandoned transaction, or an undecodable record
	Payload       string // JSON
	DecodeError   string // set when the record could not be decoded
	// Keys are what the record can be audited by (not a column of the
	// events table: the sink writes them to the audit keys table).
	Keys []projections.AuditKey
}

// dateTime clamps a time into DateTime's range (from the Unix epoch): an
// unknown (zero) time is stored as the epoch.
func dateTime(t time.Time) time.Time {
	if t.Before(time.Unix(0, 0)) {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC().Truncate(time.Second)
}

// failureTypes are the events that record a failure.
var failureTypes = map[string]bool{
	domain.TypeDepositFailed:    true,
	domain.TypeWithdrawalFailed: true,
	domain.TypeBatchFailed:      true,
	domain.TypeChainLogRejected: true,
	domain.TypeRelayStepFailed:  true,
	// a reorg past the confirmation depth stops a chain's indexer
	domain.TypeChainReorgBeyondWindow: true,
}

// RowOf maps a log record to its row. It never fails: a record that
// cannot be decoded gives a row with DecodeError set and IsError 1.
func RowOf(cat *topics.Catalog, rec *topics.Record) Row {
	r := Row{Topic: rec.Topic, Partition: uint32(rec.Partition), Offset: uint64(rec.Offset)}
	env, err := topics.DecodeEnvelope(rec.Value)
	if err != nil {
		r.DecodeError, r.IsError = err.Error(), 1
		return r
	}
	r.EventID, r.Type, r.SchemaVersion, r.SourceKey = env.ID, env.Type, env.SchemaVersion, env.SourceKey
	r.AggregateID, r.CorrelationID, r.CausationID = env.AggregateID, env.CorrelationID, env.CausationID
	r.OccurredAt, r.RecordedAt = env.OccurredAt, env.RecordedAt
	if !env.OccurredAt.IsZero() {
		r.OccurredMs = env.OccurredAt.UnixMilli()
	}
	if !env.RecordedAt.IsZero() {
		r.RecordedMs = env.RecordedAt.UnixMilli()
	}
	payload, body, err := projections.PayloadJSONAndBody(cat, &env)
	if err != nil {
		r.DecodeError, r.IsError = err.Error(), 1
		r.Keys = projections.AuditKeysOf(&env, nil)
		return r
	}
	r.Payload = string(payload)
	r.Keys = projections.AuditKeysOf(&env, body)
	if f, ok := factsOf(env.Payload); ok {
		r.ChainID = max(f.ChainID, f.Ref.ChainID)
		r.TxHash = firstHash(f.TxHash, f.MintTxHash, f.ClaimTxHash, f.Ref.TxHash)
		r.GasUsed, r.Status, r.Reason = f.GasUsed, f.Status, f.Reason
	}
	if failureTypes[r.Type] || r.Status == string(domain.TxReverted) || r.Status == string(domain.TxAbandoned) ||
		r.Status == string(domain.TxOutOfGas) {
		r.IsError = 1
	}
	return r
}

// firstHash is the first non-zero hash, in hex, or "".
func firstHash(hs ...domain.Hash32) string {
	for _, h := range hs {
		if !h.IsZero() {
			return h.Hex()
		}
	}
	return ""
}
