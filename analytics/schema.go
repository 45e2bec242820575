package analytics

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Tables of the warehouse.
const (
	EventsTable      = "bridgelog_events"
	CheckpointsTable = "bridgelog_sink_checkpoints"
	MigrationsTable  = "bridgelog_schema_migrations"
	// KeysTable maps every audit key (projections.AuditKeysOf) to the
	// log positions of the events it finds.
	KeysTable = "bridgelog_audit_keys"
	// AuditEventsTable is the audit's copy of every event: its ids,
	// type, time and payload, in small granules (see migration 2).
	AuditEventsTable = "bridgelog_audit_events"
	// AuditBackfillTable lists, per partition, the records a sink of
	// schema version 1 wrote without their keys and audit copies, and
	// how far the sink has since written those.
	AuditBackfillTable = "bridgelog_audit_backfill"
)

// Rows are what a warehouse query returns (clickhouse-go's driver.Rows
// is one).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// Warehouse is the analytics store: ClickHouse in production
// (adapters/clickhouse). Every call has its own timeout.
type Warehouse interface {
	Exec(ctx context.Context, query string, args ...any) error
	// Insert writes rows (values in columns' order) as one batch.
	Insert(ctx context.Context, table string, columns []string, rows [][]any) error
	// InsertColumns writes one batch given column by column: values[i]
	// is a typed slice ([]string, []uint64, []time.Time, …) of the
	// values of columns[i], all of one length. It is Insert without the
	// conversion of every value of every row, for large batches.
	InsertColumns(ctx context.Context, table string, columns []string, values []any) error
	Query(ctx context.Context, query string, args ...any) (Rows, error)
}

// migrations build the schema, in order; each is recorded in
// MigrationsTable once applied. The types stay inside what ClickHouse
// 18.16 and current releases both accept (no DateTime64, JSON, Map, TTL
// or CODEC). Every statement is idempotent, so two processes migrating
// at once do no harm.
var migrations = []struct {
	version    uint32
	statements []string
}{
	{1, []string{
		// One row per log record, keyed by its position: a re-inserted
		// record replaces itself (read with FINAL). Partitioned by the
		// month it was recorded, which never changes for a record, so
		// its copies always meet in one partition.
		`CREATE TABLE IF NOT EXISTS ` + EventsTable + ` (
			topic String,
			log_partition UInt32,
			log_offset UInt64,
			event_id String,
			type String,
			schema_version UInt16,
			source_key String,
			aggregate_id String,
			correlation_id String,
			causation_id String,
			occurred_at DateTime,
			recorded_at DateTime,
			occurred_ms Int64,
			recorded_ms Int64,
			chain_id UInt64,
			tx_hash String,
			gas_used UInt64,
			status String,
			reason String,
			is_error UInt8,
			payload String,
			decode_error String
		) ENGINE = ReplacingMergeTree()
		PARTITION BY toYYYYMM(recorded_at)
		ORDER BY (topic, log_partition, log_offset)`,
		// How far the sink got, per partition: the highest next_offset
		// wins.
		`CREATE TABLE IF NOT EXISTS ` + CheckpointsTable + ` (
			topic String,
			log_partition UInt32,
			next_offset UInt64,
			written_at DateTime
		) ENGINE = ReplacingMergeTree(next_offset)
		ORDER BY (topic, log_partition)`,
	}},
	{2, []string{
		// Audit lookups: a key's rows sit together in the sort order, so
		// a lookup reads a granule or two of this narrow table, then the
		// events at the positions found from AuditEventsTable. The whole
		// row is the sort key, so a row the sink wrote twice collapses
		// into one; small granules make a point lookup read less. Not
		// partitioned: a key's rows may span months.
		`CREATE TABLE IF NOT EXISTS ` + KeysTable + ` (
			key String,
			kind String,
			topic String,
			log_partition UInt32,
			log_offset UInt64
		) ENGINE = ReplacingMergeTree()
		ORDER BY (key, kind, topic, log_partition, log_offset)
		SETTINGS index_granularity = 1024`,
		// The audit's copy of the events, keyed by log position like
		// EventsTable but in granules of 256 rows: ClickHouse reads
		// whole granules, and a granule of EventsTable (8192 rows) where
		// batches are holds about a hundred megabytes of payload (a
		// batch's payload lists all its leaves), so reading one event
		// there took longer than a whole lookup may. EventsTable keeps
		// its payload for the analytics that read it.
		`CREATE TABLE IF NOT EXISTS ` + AuditEventsTable + ` (
			topic String,
			log_partition UInt32,
			log_offset UInt64,
			recorded_at DateTime,
			recorded_ms Int64,
			type String,
			source_key String,
			event_id String,
			aggregate_id String,
			correlation_id String,
			payload String,
			decode_error String
		) ENGINE = ReplacingMergeTree()
		ORDER BY (topic, log_partition, log_offset)
		SETTINGS index_granularity = 256`,
		// The records sunk before these tables existed have no audit
		// rows: the sink writes them from the log once, up to end_offset
		// (where the version-1 sink stopped), and records its progress
		// in next_offset. Read with max() per partition: running this
		// migration twice, or concurrently, only repeats rows.
		`CREATE TABLE IF NOT EXISTS ` + AuditBackfillTable + ` (
			topic String,
			log_partition UInt32,
			end_offset UInt64,
			next_offset UInt64
		) ENGINE = MergeTree()
		ORDER BY (topic, log_partition)`,
		`INSERT INTO ` + AuditBackfillTable + ` (topic, log_partition, end_offset, next_offset)
		SELECT topic, log_partition, max(next_offset), toUInt64(0) FROM ` + CheckpointsTable + `
		GROUP BY topic, log_partition`,
	}},
}

// SchemaVersion is the newest migration this binary knows.
func SchemaVersion() uint32 { return migrations[len(migrations)-1].version }

// ErrWarehouseTooNew: the warehouse was migrated by a newer binary.
type ErrWarehouseTooNew struct{ Found, Supported uint32 }

func (e *ErrWarehouseTooNew) Error() string {
	return fmt.Sprintf("analytics schema is at version %d, this binary knows up to %d: upgrade bridgelog", e.Found, e.Supported)
}

// Migrate brings the warehouse's schema up to [SchemaVersion]. It refuses
// a warehouse a newer binary migrated, changing nothing. Every step is
// idempotent, so a migration that fails on the network is tried again
// (three tries in all).
func Migrate(ctx context.Context, wh Warehouse, now time.Time) error {
	return retryOnNetwork(ctx, 3, slog.Default(), "analytics migration", func() error { return migrate(ctx, wh, now, SchemaVersion()) })
}

// migrate applies the migrations up to version upTo.
func migrate(ctx context.Context, wh Warehouse, now time.Time, upTo uint32) error {
	if err := wh.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+MigrationsTable+` (
		version UInt32,
		applied_at DateTime
	) ENGINE = ReplacingMergeTree() ORDER BY version`); err != nil {
		return fmt.Errorf("analytics: create %s: %w", MigrationsTable, err)
	}
	applied, err := appliedVersion(ctx, wh)
	if err != nil {
		return err
	}
	if applied > SchemaVersion() {
		return &ErrWarehouseTooNew{Found: applied, Supported: SchemaVersion()}
	}
	for _, m := range migrations {
		if m.version <= applied || m.version > upTo {
			continue
		}
		for _, q := range m.statements {
			if err := wh.Exec(ctx, q); err != nil {
				return fmt.Errorf("analytics: migration %d: %w", m.version, err)
			}
		}
		if err := wh.Insert(ctx, MigrationsTable, []string{"version", "applied_at"},
			[][]any{{m.version, dateTime(now)}}); err != nil {
			return fmt.Errorf("analytics: record migration %d: %w", m.version, err)
		}
	}
	return nil
}

func appliedVersion(ctx context.Context, wh Warehouse) (uint32, error) {
	rows, err := wh.Query(ctx, `SELECT max(version) FROM `+MigrationsTable)
	if err != nil {
		return 0, fmt.Errorf("analytics: read %s: %w", MigrationsTable, err)
	}
	defer rows.Close()
	var v uint32
	if rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return 0, fmt.Errorf("analytics: read %s: %w", MigrationsTable, err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("analytics: read %s: %w", MigrationsTable, err)
	}
	return v, nil
}
