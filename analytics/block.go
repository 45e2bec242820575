package analytics

import (
	"slices"
	"time"
)

// A block is a batch of one table's rows held column by column, each
// column a typed slice: the form ClickHouse's native protocol carries, so
// the warehouse copies the slices into its block without converting
// every value of every row (see [Warehouse.InsertColumns]). A table
// written in batches declares its columns once, as getters of its row
// type R (see eventBlock).
type block[R any] struct {
	cols []blockColumn[R]
	rows int
}

// blockColumn is one column of a block: its name, and its values so far.
type blockColumn[R any] interface {
	name() string
	add(r *R)
	values() any // the typed slice
	reset()
}

type typedColumn[R, T any] struct {
	n    string
	get  func(*R) T
	vals []T
}

// column declares a column of a block of R rows, named name, whose value
// for a row is get(row).
func column[R, T any](name string, get func(*R) T) blockColumn[R] {
	return &typedColumn[R, T]{n: name, get: get}
}

func (c *typedColumn[R, T]) name() string { return c.n }
func (c *typedColumn[R, T]) add(r *R)     { c.vals = append(c.vals, c.get(r)) }
func (c *typedColumn[R, T]) values() any  { return c.vals }
func (c *typedColumn[R, T]) reset()       { clear(c.vals); c.vals = c.vals[:0] }

func newBlock[R any](cols ...blockColumn[R]) *block[R] {
	return &block[R]{cols: cols}
}

func (b *block[R]) add(r *R) {
	for _, c := range b.cols {
		c.add(r)
	}
	b.rows++
}

// only is a block of the columns of b named names, in that order: for a
// table whose columns are some of another's. A name b does not have is
// a bug, found at start-up.
func (b *block[R]) only(names ...string) *block[R] {
	cols := make([]blockColumn[R], 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(b.cols, func(c blockColumn[R]) bool { return c.name() == n })
		if i < 0 {
			panic("analytics: no column " + n + " to take")
		}
		cols = append(cols, b.cols[i])
	}
	return newBlock(cols...)
}

// names are the columns' names, in order.
func (b *block[R]) names() []string {
	out := make([]string, len(b.cols))
	for i, c := range b.cols {
		out[i] = c.name()
	}
	return out
}

// values are the columns' typed slices, in order.
func (b *block[R]) values() []any {
	out := make([]any, len(b.cols))
	for i, c := range b.cols {
		out[i] = c.values()
	}
	return out
}

// reset empties the block, keeping its memory for the next batch.
func (b *block[R]) reset() {
	for _, c := range b.cols {
		c.reset()
	}
	b.rows = 0
}

// eventBlock is a block of bridgelog_events rows, with the exact Go types
// the ClickHouse columns take.
func eventBlock() *block[Row] {
	return newBlock(
		column("topic", func(r *Row) string { return r.Topic }),
		column("log_partition", func(r *Row) uint32 { return r.Partition }),
		column("log_offset", func(r *Row) uint64 { return r.Offset }),
		column("event_id", func(r *Row) string { return r.EventID }),
		column("type", func(r *Row) string { return r.Type }),
		column("schema_version", func(r *Row) uint16 { return r.SchemaVersion }),
		column("source_key", func(r *Row) string { return r.SourceKey }),
		column("aggregate_id", func(r *Row) string { return r.AggregateID }),
		column("correlation_id", func(r *Row) string { return r.CorrelationID }),
		column("causation_id", func(r *Row) string { return r.CausationID }),
		column("occurred_at", func(r *Row) time.Time { return dateTime(r.OccurredAt) }),
		column("recorded_at", func(r *Row) time.Time { return dateTime(r.RecordedAt) }),
		column("occurred_ms", func(r *Row) int64 { return r.OccurredMs }),
		column("recorded_ms", func(r *Row) int64 { return r.RecordedMs }),
		column("chain_id", func(r *Row) uint64 { return r.ChainID }),
		column("tx_hash", func(r *Row) string { return r.TxHash }),
		column("gas_used", func(r *Row) uint64 { return r.GasUsed }),
		column("status", func(r *Row) string { return r.Status }),
		column("reason", func(r *Row) string { return r.Reason }),
		column("is_error", func(r *Row) uint8 { return r.IsError }),
		column("payload", func(r *Row) string { return r.Payload }),
		column("decode_error", func(r *Row) string { return r.DecodeError }),
	)
}
