package projections

import (
	"context"
	"fmt"
)

// StoredCheckpoint reads a projection version's checkpoint: per topic,
// the next offset of each partition (partitions never folded are 0).
func StoredCheckpoint(ctx context.Context, tx Tx, name string, version int) (map[string][]int64, error) {
	cp, err := loadCheckpoint(ctx, tx, name, version)
	if err != nil {
		return nil, err
	}
	out := map[string][]int64{}
	for k, off := range cp {
		offs := out[k.topic]
		for int32(len(offs)) <= k.part {
			offs = append(offs, 0)
		}
		offs[k.part] = off
		out[k.topic] = offs
	}
	return out, nil
}

// TableRows counts the rows of each of p's tables.
func TableRows(ctx context.Context, tx Tx, p Projection) (map[string]int64, error) {
	out := map[string]int64{}
	for _, t := range p.Tables() {
		var n int64
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+t.Name).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, err)
		}
		out[t.Name] = n
	}
	return out, nil
}

// DedupTotals sums the live processed_events version: distinct source
// keys, identical repeats, conflicting repeats.
func DedupTotals(ctx context.Context, tx Tx) (keys, duplicates, conflicts int64, err error) {
	v, err := LiveVersion(ctx, tx, ProcessedEventsName)
	if err != nil {
		return 0, 0, 0, err
	}
	pe := Versioned("processed_events", v)
	if err := tx.QueryRow(ctx, `SELECT `+processedTable.list("count(*)", "coalesce(sum(duplicates), 0)")+` FROM `+pe).Scan(&keys, &duplicates); err != nil {
		return 0, 0, 0, err
	}
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+Versioned("event_conflicts", v)).Scan(&conflicts); err != nil {
		return 0, 0, 0, err
	}
	return keys, duplicates, conflicts, nil
}
