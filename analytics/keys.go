package analytics

import (
	"context"
	"fmt"
	"slices"
)

// Columns of KeysTable in the order [Row.appendKeys] gives them.
var keyColumns = []string{"key", "kind", "topic", "log_partition", "log_offset"}

// appendKeys appends the row's audit keys to rows as KeysTable rows.
func (r *Row) appendKeys(rows [][]any) [][]any {
	for _, k := range r.Keys {
		rows = append(rows, []any{k.Key, k.Kind, r.Topic, r.Partition, r.Offset})
	}
	return rows
}

// insertKeys writes audit key rows as one block.
func (s *Sink) insertKeys(ctx context.Context, keys [][]any) error {
	if len(keys) == 0 {
		return nil
	}
	if err := s.wh.Insert(ctx, KeysTable, keyColumns, keys); err != nil {
		s.cfg.Metrics.InsertFailed(KeysTable)
		return fmt.Errorf("analytics: insert %d audit keys: %w", len(keys), err)
	}
	return nil
}

// backfillKeys writes, once per sink, the audit keys of the records a
// sink of schema version 1 wrote without them (listed by migration 2 in
// KeysBackfillTable), reading them again from the log, and records how
// far it got after each batch: a sink that dies meanwhile goes on from
// there (rewriting at most one batch of keys, which collapse).
func (s *Sink) backfillKeys(ctx context.Context, st *Stats) error {
	if s.keysBackfilled {
		return nil
	}
	rows, err := s.wh.Query(ctx, `SELECT topic, log_partition, max(end_offset), max(next_offset) FROM `+KeysBackfillTable+
		` GROUP BY topic, log_partition ORDER BY topic, log_partition`)
	if err != nil {
		return fmt.Errorf("analytics: read %s: %w", KeysBackfillTable, err)
	}
	type backlog struct {
		partitionKey
		end, next uint64
	}
	todo, err := scanAll(rows, func(b *backlog) []any { return []any{&b.topic, &b.part, &b.end, &b.next} })
	if err != nil {
		return fmt.Errorf("analytics: read %s: %w", KeysBackfillTable, err)
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
			if err := s.wh.Insert(ctx, KeysBackfillTable, []string{"topic", "log_partition", "end_offset", "next_offset"},
				[][]any{{b.topic, b.part, b.end, next}}); err != nil {
				s.cfg.Metrics.InsertFailed(KeysBackfillTable)
				return fmt.Errorf("analytics: record the audit keys written in %s/%d: %w", b.topic, b.part, err)
			}
			b.next = next
			done += n
			st.KeysBackfilled += n
		}
	}
	if done > 0 {
		s.cfg.Logger.Info("analytics: wrote the audit keys of records sunk before the keys table existed", "records", done)
	}
	s.keysBackfilled = true
	return nil
}

// backfillBatch writes the keys of one batch of records of a partition
// from offset from (before end) and returns how many records it read and
// the offset after the last.
func (s *Sink) backfillBatch(ctx context.Context, k partitionKey, from, end uint64) (int, uint64, error) {
	recs, err := s.log.Read(ctx, k.topic, int32(k.part), int64(from), int(min(uint64(s.cfg.Batch), end-from)))
	if err != nil {
		return 0, from, fmt.Errorf("analytics: read %s/%d@%d: %w", k.topic, k.part, from, err)
	}
	var keys [][]any
	n := 0
	for i := range recs {
		if uint64(recs[i].Offset) >= end {
			break
		}
		r := RowOf(s.cfg.Catalog, &recs[i])
		keys = r.appendKeys(keys)
		n++
		from = uint64(recs[i].Offset) + 1
	}
	return n, from, s.insertKeys(ctx, keys)
}
