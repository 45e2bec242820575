package analytics

import "context"

// AuditMatch is one event an audit key finds, with every kind the key is
// to it (projections.KeyAggregate, KeyEVMTx, …): a key that is two things
// at once (a hash that is a transaction and a leaf) is shown labelled.
type AuditMatch struct {
	Kinds []string `json:"kinds"`
	AuditRow
}

// Finder finds every event an audit key names, in the order they were
// recorded (recorded_ms, then topic, partition, offset). The key is
// normalized first (projections.NormalizeAuditKey). Two finders exist:
// the warehouse's (ClickHouse, through its audit keys table) and the
// local store's (the audit_keys projection and the log), and for the same
// log they return the same matches.
type Finder interface {
	Find(ctx context.Context, key string) ([]AuditMatch, error)
}
