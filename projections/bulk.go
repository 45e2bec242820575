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
	// OnConflict is the key a row that is there already is matched on
	// (ON CONFLICT (…)); empty: such a row is an error.
	OnConflict []string
	// Update lists the columns such a row takes from the new one (DO
	// UPDATE SET c = excluded.c); empty: the new row is ignored (DO
	// NOTHING).
	Update []string

	shapes map[int]string
}

const bulkChunk = 64

// copyMinRows is the fewest rows [Bulk.Exec] hands to a [CopyTx]: a COPY
// costs more round trips than one INSERT of a few rows.
const copyMinRows = 64

// CopyTx is a transaction that can load many rows at once (PostgreSQL's
// COPY).
type CopyTx interface {
	// CopyRows inserts rows, laid out flat in cols, as INSERT INTO table
	// (cols) VALUES … followed by conflict (an ON CONFLICT clause, or
	// empty) would. ok false: this transaction cannot, and nothing was
	// done.
	CopyRows(ctx context.Context, table string, cols []string, rows []any, conflict string) (ok bool, err error)
}

// tail is the statement's ON CONFLICT clause, if any.
func (b *Bulk) tail() string {
	if len(b.OnConflict) == 0 {
		return ""
	}
	return conflictSQL(b.Table, b.OnConflict, b.Update, nil)
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
	if tail := b.tail(); tail != "" {
		sb.WriteString(" ")
		sb.WriteString(tail)
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
		return st.Put(b.Columns, args, b.OnConflict, b.Update)
	}
	rows := len(args) / n
	if ct, isCopy := tx.(CopyTx); isCopy && rows >= copyMinRows {
		if ok, err := ct.CopyRows(ctx, b.Table, b.Columns, args, b.tail()); ok || err != nil {
			return err
		}
	}
	return inChunks(args, n, func(k int, chunk []any) error {
		_, err := tx.Exec(ctx, b.statement(k), chunk...)
		return err
	})
}

// inChunks calls each with the rows of args (width values a row) in runs
// of up to bulkChunk rows, each a power of two, so few statement shapes
// are prepared; k is the run's row count.
func inChunks(args []any, width int, each func(k int, chunk []any) error) error {
	for rows := len(args) / width; rows > 0; {
		k := bulkChunk
		for k > rows {
			k /= 2
		}
		if err := each(k, args[:k*width]); err != nil {
			return err
		}
		args, rows = args[k*width:], rows-k
	}
	return nil
}
