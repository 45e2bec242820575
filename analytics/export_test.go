package analytics

import (
	"context"
	"time"
)

// EventColumns are the events table's columns in the sink's order.
var EventColumns = eventBlock().names()

// AuditEventColumns are the audit copies' columns in the sink's order.
var AuditEventColumns = auditEventColumns

// MigrateTo brings the warehouse's schema up to an older version, as an
// older binary left it.
func MigrateTo(ctx context.Context, wh Warehouse, now time.Time, version uint32) error {
	return migrate(ctx, wh, now, version)
}
