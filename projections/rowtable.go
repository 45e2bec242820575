package projections

import (
	"database/sql"
	"fmt"
)

// A table whose rows a projection keeps in a Go struct is declared once,
// as a [rowTable]: each column binds its name and type to the field of
// the row that holds it. The table's DDL, the order rows are written and
// digested in, the staged (bulk) layout, the write arguments and the scan
// destinations all come from that one list, so adding a column is one
// line here and one in the fold that sets it:
//
//	var fooTable = declareTable[*fooRow](Versioned("foo", 1), []string{"id"}, nil,
//		i64Col("id", func(r *fooRow) *int64 { return &r.id }),
//		textCol("reason", func(r *fooRow) *sql.NullString { return &r.reason }),
//	)

// rowTable is a [Table] declared by the fields of its row type R (a
// pointer to the row struct).
type rowTable[R any] struct {
	Table
	cols []rowColumn[R]
}

// rowColumn is one column of a [rowTable]: its declaration, and the field
// of the row that holds it. Exactly one accessor is set, the one of the
// column's Go type; a single call per column keeps encoding a row as cheap
// as code written by hand.
type rowColumn[R any] struct {
	Column
	text func(R) *sql.NullString // nullable Text
	int  func(R) *sql.NullInt64  // nullable Integer
	str  func(R) *string         // Text NOT NULL
	i64  func(R) *int64          // Integer NOT NULL
	i32  func(R) *int32          // Integer NOT NULL (a partition)
}

func textCol[R any](name string, f func(R) *sql.NullString) rowColumn[R] {
	return rowColumn[R]{Column: Column{Name: name, Type: Text, Nullable: true}, text: f}
}

func intCol[R any](name string, f func(R) *sql.NullInt64) rowColumn[R] {
	return rowColumn[R]{Column: Column{Name: name, Type: Integer, Nullable: true}, int: f}
}

func strCol[R any](name string, f func(R) *string) rowColumn[R] {
	return rowColumn[R]{Column: Column{Name: name, Type: Text}, str: f}
}

func i64Col[R any](name string, f func(R) *int64) rowColumn[R] {
	return rowColumn[R]{Column: Column{Name: name, Type: Integer}, i64: f}
}

func i32Col[R any](name string, f func(R) *int32) rowColumn[R] {
	return rowColumn[R]{Column: Column{Name: name, Type: Integer}, i32: f}
}

// declareTable declares a table of rows R; it panics on a declaration
// [Table.Validate] refuses, as a table declared wrong is a bug found at
// start-up.
func declareTable[R any](name string, key []string, indexes []Index, cols ...rowColumn[R]) rowTable[R] {
	t := rowTable[R]{Table: Table{Name: name, PrimaryKey: key, Indexes: indexes}, cols: cols}
	for _, c := range cols {
		t.Columns = append(t.Columns, c.Column)
	}
	if err := t.Validate(); err != nil {
		panic(fmt.Sprintf("projections: %v", err))
	}
	return t
}

// args appends r's values in column order, as a takes them (see colArgs).
func (t *rowTable[R]) args(r R, dst []any, a colArgs) []any {
	for i := range t.cols {
		c := &t.cols[i]
		switch {
		case c.text != nil:
			v := c.text(r)
			dst = append(dst, colArg(a, &v.String, v.Valid))
		case c.int != nil:
			v := c.int(r)
			dst = append(dst, colArg(a, &v.Int64, v.Valid))
		case c.str != nil:
			dst = append(dst, colArg(a, c.str(r), true))
		case c.i64 != nil:
			dst = append(dst, colArg(a, c.i64(r), true))
		default:
			dst = append(dst, *c.i32(r)) // a staged table takes an int32 by value
		}
	}
	return dst
}

// scan reads one row, selected with the table's columns in order, into r.
func (t *rowTable[R]) scan(sr RowScanner, r R) error {
	dests := make([]any, len(t.cols))
	for i := range t.cols {
		c := &t.cols[i]
		switch {
		case c.text != nil:
			dests[i] = c.text(r)
		case c.int != nil:
			dests[i] = c.int(r)
		case c.str != nil:
			dests[i] = c.str(r)
		case c.i64 != nil:
			dests[i] = c.i64(r)
		default:
			dests[i] = c.i32(r)
		}
	}
	return sr.Scan(dests...)
}
