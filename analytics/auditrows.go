package analytics

import (
	"context"
	"fmt"
	"slices"
)

// auditRows are what the sink writes for the audit: each record's copy
// in AuditEventsTable and its keys in KeysTable, column by column.
type auditRows struct {
	events *block[Row]
	keys   *block[keyRow]
}

// auditEventColumns are AuditEventsTable's columns: those of the events
// table an audit shows, in the table's order.
var auditEventColumns = []string{"topic", "log_partition", "log_offset", "recorded_at", "recorded_ms", "type",
	"source_key", "event_id", "aggregate_id", "correlation_id", "payload", "decode_error"}

// keyRow is one row of KeysTable: a key of the record at a position.
type keyRow struct {
	key, kind, topic string
	partition        uint32
	offset           uint64
}

func newAuditRows() auditRows {
	return auditRows{
		events: eventBlock().only(auditEventColumns...),
		keys: newBlock(
			column("key", func(k *keyRow) string { return k.key }),
			column("kind", func(k *keyRow) string { return k.kind }),
			column("topic", func(k *keyRow) string { return k.topic }),
			column("log_partition", func(k *keyRow) uint32 { return k.partition }),
			column("log_offset", func(k *keyRow) uint64 { return k.offset }),
		),
	}
}

// add appends r's audit copy and keys.
func (a *auditRows) add(r *Row) {
	a.events.add(r)
	for _, k := range r.Keys {
		a.keys.add(&keyRow{key: k.Key, kind: k.Kind, topic: r.Topic, partition: r.Partition, offset: r.Offset})
	}
}

func (a *auditRows) reset() {
	a.events.reset()
	a.keys.reset()
}

// insertAudit writes the audit copies, then the keys (so a key found
// always has its event), each as one block.
func (s *Sink) insertAudit(ctx context.Context, a *auditRows) error {
	for _, t := range []struct {
		table   string
		rows    int
		columns []string
		values  []any
	}{
		{AuditEventsTable, a.events.rows, a.events.names(), a.events.values()},
		{KeysTable, a.keys.rows, a.keys.names(), a.keys.values()},
	} {
		if t.rows == 0 {
			continue
		}
		if err := s.wh.InsertColumns(ctx, t.table, t.columns, t.values); err != nil {
			s.cfg.Metrics.InsertFailed(t.table)
			return fmt.Errorf("analytics: insert %d rows into %s: %w", t.rows, t.table, err)
		}
	}
	return nil
}

// backfillAudit writes, once per sink, the audit keys and copies of the
// records a sink of schema version 1 wrote without them (listed by
// migration 2 in AuditBackfillTable), reading them again from the log,
// and records how far it got after each batch: a sink that dies
// meanwhile goes on from there (rewriting at most one batch of rows,
// which collapse).
func (s *Sink) backfillAudit(ctx context.Context, st *Stats) error {
	// A warehouse of schema version 1 held one log without an origin
	// (origins came later), so only such a log has records to backfill.
	if s.auditBackfilled || s.cfg.Origin != "" {
		return nil
	}
	rows, err := s.wh.Query(ctx, `SELECT topic, log_partition, max(end_offset), max(next_offset) FROM `+AuditBackfillTable+
		` GROUP BY topic, log_partition ORDER BY topic, log_partition`)
	if err != nil {
		return fmt.Errorf("analytics: read %s: %w", AuditBackfillTable, err)
	}
	type backlog struct {
		partitionKey
		end, next uint64
	}
	todo, err := scanAll(rows, func(b *backlog) []any { return []any{&b.topic, &b.part, &b.end, &b.next} })
	if err != nil {
		return fmt.Errorf("analytics: read %s: %w", AuditBackfillTable, err)
	}
	done := 0
	for _, b := range todo {
		if !slices.Contains(s.cfg.Topics, b.topic) {
			continue
		}
		for b.next < b.end {
			n, next, err := s.backfillBatch(ctx, b.partitionKey, b.next, b.end)
			if err != nil {
				return err
			}
			if n == 0 {
				break // the rest of the range is a gap in Kafka's offsets
			}
			if err := s.wh.Insert(ctx, AuditBackfillTable, []string{"topic", "log_partition", "end_offset", "next_offset"},
				[][]any{{b.topic, b.part, b.end, next}}); err != nil {
				s.cfg.Metrics.InsertFailed(AuditBackfillTable)
				return fmt.Errorf("analytics: record the audit rows written in %s/%d: %w", b.topic, b.part, err)
			}
			b.next = next
			done += n
			st.AuditBackfilled += n
		}
	}
	if done > 0 {
		s.cfg.Logger.Info("analytics: wrote the audit rows of records sunk before schema version 2", "records", done)
	}
	s.auditBackfilled = true
	return nil
}

// backfillBatch writes the audit rows of one batch of records of a
// partition from offset from (before end) and returns how many records
// it read and the offset after the last.
func (s *Sink) backfillBatch(ctx context.Context, k partitionKey, from, end uint64) (int, uint64, error) {
	recs, err := s.log.Read(ctx, k.topic, int32(k.part), int64(from), int(min(uint64(s.cfg.Batch), end-from)))
	if err != nil {
		return 0, from, fmt.Errorf("analytics: read %s/%d@%d: %w", k.topic, k.part, from, err)
	}
	a := newAuditRows()
	n := 0
	for i := range recs {
		if uint64(recs[i].Offset) >= end {
			break
		}
		r := RowOf(s.cfg.Catalog, &recs[i])
		a.add(&r)
		n++
		from = uint64(recs[i].Offset) + 1
	}
	return n, from, s.insertAudit(ctx, &a)
}
