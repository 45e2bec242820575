package analytics

import (
	"cmp"
	"context"
)

// AuditMatch is one event an audit key finds, with every kind the key is
// to it (projections.KeyAggregate, KeyEVMTx, …): a key that is two things
// at once (a hash that is a transaction and a leaf) is shown labelled.
type AuditMatch struct {
	Kinds []string `json:"kinds"`
	AuditRow
}

// CompareRecorded is the order of an audit: by recorded time, then topic,
// partition and offset (for slices.SortFunc).
func CompareRecorded(a, b AuditRow) int {
	return cmp.Or(cmp.Compare(a.RecordedMs, b.RecordedMs), cmp.Compare(a.Topic, b.Topic),
		cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
}

// compareMatches orders matches by [CompareRecorded].
func compareMatches(a, b AuditMatch) int { return CompareRecorded(a.AuditRow, b.AuditRow) }

// Finder finds every event an audit key names, in the order they were
// recorded (recorded_ms, then topic, partition, offset). The key is
// normalized first (projections.NormalizeAuditKey). Two finders exist:
// the warehouse's (ClickHouse, through its audit keys table) and the
// local store's (the audit_keys projection and the log), and for the same
// log they return the same matches.
type Finder interface {
	Find(ctx context.Context, key string) ([]AuditMatch, error)
}
