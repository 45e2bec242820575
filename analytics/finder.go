package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bridgelog/bridgelog/projections"
)

// NoMatchError: an audit key that finds no event.
type NoMatchError struct {
	Key   string
	Where string // what was searched: the warehouse, the local store
}

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("no event matches %q in %s: check the key (an aggregate, correlation or event id, a source key, "+
		"a transaction hash on either chain, a batch, a leaf or a signing event)", e.Key, e.Where)
}

// positionsPerQuery bounds the positions one events query names, so a key
// that finds many events (a busy batch) makes several short queries
// rather than one huge statement.
const positionsPerQuery = 2000

// warehouseFinder looks audit keys up in KeysTable, then reads the events
// at the positions found from AuditEventsTable, whose primary key (topic,
// partition, offset) finds them without a scan: two point lookups,
// whatever the tables' size.
type warehouseFinder struct{ wh Warehouse }

// NewWarehouseFinder finds audit keys in the warehouse. Rows the sink
// wrote twice are returned once (deduplicated by log position, with no
// FINAL, which would merge every part a query touches).
func NewWarehouseFinder(wh Warehouse) Finder { return warehouseFinder{wh: wh} }

func (f warehouseFinder) Find(ctx context.Context, key string) ([]AuditMatch, error) {
	key = projections.NormalizeAuditKey(key)
	if key == "" {
		return nil, nil
	}
	kinds, err := f.positions(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("analytics: audit %s: %w", key, err)
	}
	positions := make([]partitionOffset, 0, len(kinds))
	for p := range kinds {
		positions = append(positions, p)
	}
	slices.SortFunc(positions, partitionOffset.compare)
	out := make([]AuditMatch, 0, len(positions))
	for chunk := range slices.Chunk(positions, positionsPerQuery) {
		rows, err := f.events(ctx, chunk)
		if err != nil {
			return nil, fmt.Errorf("analytics: audit %s: %w", key, err)
		}
		for _, r := range rows {
			p := partitionOffset{partitionKey{r.Topic, r.Partition}, r.Offset}
			ks, ok := kinds[p]
			if !ok {
				continue // a copy of an event already taken
			}
			delete(kinds, p)
			slices.Sort(ks)
			out = append(out, AuditMatch{Kinds: ks, AuditRow: r})
		}
	}
	slices.SortFunc(out, compareMatches)
	return out, nil
}

// quoteString escapes a string for a ClickHouse string literal.
var quoteString = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// partitionOffset is a log position.
type partitionOffset struct {
	partitionKey
	offset uint64
}

func (p partitionOffset) compare(q partitionOffset) int {
	return cmp.Or(strings.Compare(p.topic, q.topic), cmp.Compare(p.part, q.part), cmp.Compare(p.offset, q.offset))
}

// positions are the log positions key finds, each with the kinds it is
// there (listed once each, though the sink may have written a row twice).
func (f warehouseFinder) positions(ctx context.Context, key string) (map[partitionOffset][]string, error) {
	rows, err := f.wh.Query(ctx, `SELECT kind, topic, log_partition, log_offset FROM `+KeysTable+` WHERE key = ?`, key)
	if err != nil {
		return nil, err
	}
	type keyRow struct {
		kind string
		pos  partitionOffset
	}
	got, err := scanAll(rows, func(r *keyRow) []any { return []any{&r.kind, &r.pos.topic, &r.pos.part, &r.pos.offset} })
	if err != nil {
		return nil, err
	}
	out := map[partitionOffset][]string{}
	for _, r := range got {
		if !slices.Contains(out[r.pos], r.kind) {
			out[r.pos] = append(out[r.pos], r.kind)
		}
	}
	return out, nil
}

// events reads the events at positions (maybe some twice: the caller
// keeps one). The positions are written into the statement as literals:
// binding thousands of arguments costs the client more than the query.
func (f warehouseFinder) events(ctx context.Context, positions []partitionOffset) ([]AuditRow, error) {
	var q strings.Builder
	q.WriteString(`SELECT ` + strings.Join(auditEventColumns, ", ") + ` FROM ` + AuditEventsTable +
		` WHERE (topic, log_partition, log_offset) IN (`)
	for i, p := range positions {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "('%s', %d, %d)", quoteString.Replace(p.topic), p.part, p.offset)
	}
	q.WriteString(")")
	rows, err := f.wh.Query(ctx, q.String())
	if err != nil {
		return nil, err
	}
	return scanAll(rows, func(r *AuditRow) []any { // in auditEventColumns' order
		return []any{&r.Topic, &r.Partition, &r.Offset, &r.RecordedAt, &r.RecordedMs, &r.Type, &r.SourceKey, &r.EventID,
			&r.AggregateID, &r.Correlation, &r.Payload, &r.DecodeError}
	})
}
