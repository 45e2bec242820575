package projections

import (
	"context"
	"fmt"
	"strings"
)

// Bulk writes many rows with multi-row INSERT statements: one statement
// per chunk instead of one per row is what lets a rebuild keep up with
// the log. Statement shapes are few (chunks of 64, then powers of two), so
// the store's prepared-statement cache stays small.
type Bulk struct {
	Table   string
	Columns []string
	// Tail follows VALUES, e.g. "ON CONFLICT (a, b) DO NOTHING" or
	// "ON CONFLICT (a) DO UPDATE SET c = excluded.c".
	Tail string

	shapes map[int]string
}

const bulkChunk = 64

// UpsertTail returns "ON CONFLICT (key…) DO UPDATE SET c = excluded.c" for
// every column not in key.
func UpsertTail(key, cols []string) string {
	isKey := map[string]bool{}
	for _, k := range key {
		isKey[k] = true
	}
	var set []string
	for _, c := range cols {
		if !isKey[c] {
			set = append(set, c+" = excluded."+c)
		}
	}
	if len(set) == 0 {
		return "ON CONFLICT (" + strings.Join(key, ", ") + ") DO NOTHING"
	}
	return "ON CONFLICT (" + strings.Join(key, ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
}

func (b *Bulk) statement(rows int) string {
	if q, ok := b.shapes[rows]; ok {
		return q
	}
	if b.shapes == nil {
		b.shapes = map[int]string{}
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(b.Columns)), ", ") + ")"
	var sb strings.Builder
	fmt.Fprintf(&sb, "INSERT INTO %s (%s) VALUES ", b.Table, strings.Join(b.Columns, ", "))
	for i := 0; i < rows; i++ {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(one)
	}
	if b.Tail != "" {
		sb.WriteString(" ")
		sb.WriteString(b.Tail)
	}
	q := sb.String()
	b.shapes[rows] = q
	return q
}

// Exec inserts the rows in args, laid out flat: len(Columns) values per row.
// Rows of one call must not repeat a conflict key (PostgreSQL refuses to
// update one row twice in a statement).
func (b *Bulk) Exec(ctx context.Context, tx Tx, args []any) error {
	n := len(b.Columns)
	if n == 0 || len(args)%n != 0 {
		return fmt.Errorf("bulk insert into %s: %d values for %d columns", b.Table, len(args), n)
	}
	if st := stageOf(tx, b.Table); st != nil {
		return st.Put(b.Columns, args, upserts(b.Tail))
	}
	rows := len(args) / n
	for rows > 0 {
		k := bulkChunk
		for k > rows {
			k /= 2
		}
		if _, err := tx.Exec(ctx, b.statement(k), args[:k*n]...); err != nil {
			return err
		}
		args = args[k*n:]
		rows -= k
	}
	return nil
}
