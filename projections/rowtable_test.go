package projections

import (
	"database/sql"
	"reflect"
	"strings"
	"testing"
)

type sampleRow struct {
	id     int64
	part   int32
	name   string
	note   sql.NullString
	amount sql.NullInt64
}

var sampleTable = declareTable(Versioned("sample", 1), []string{"id"}, nil,
	i64Col("id", func(r *sampleRow) *int64 { return &r.id }),
	i32Col("part", func(r *sampleRow) *int32 { return &r.part }),
	strCol("name", func(r *sampleRow) *string { return &r.name }),
	textCol("note", func(r *sampleRow) *sql.NullString { return &r.note }),
	intCol("amount", func(r *sampleRow) *sql.NullInt64 { return &r.amount }),
)

// scannedRow hands Scan its values, as a store's row does.
type scannedRow []any

func (s scannedRow) Scan(dest ...any) error {
	for i, d := range dest {
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(s[i]))
	}
	return nil
}

// TestRowTable: a table declared by its row's fields has the declared
// columns in order; a row's values come out in that order, plain for SQL
// (nil for NULL) and as pointers into the row for a staged table; a row
// scanned back is the row written.
func TestRowTable(t *testing.T) {
	if got := sampleTable.ColumnNames(); !reflect.DeepEqual(got, []string{"id", "part", "name", "note", "amount"}) {
		t.Fatalf("columns %v", got)
	}
	if c := sampleTable.Columns; c[1].Type != Integer || c[1].Nullable || c[3].Type != Text || !c[3].Nullable {
		t.Fatalf("column types %+v", c)
	}
	r := &sampleRow{id: 7, part: 3, name: "n", note: sql.NullString{String: "x", Valid: true}}
	if got, want := sampleTable.args(r, []any{"before"}, false), []any{"before", int64(7), int32(3), "n", "x", nil}; !reflect.DeepEqual(got, want) {
		t.Fatalf("SQL args %#v, want %#v", got, want)
	}
	staged := sampleTable.args(r, nil, true)
	if staged[0] != &r.id || staged[1] != int32(3) || staged[2] != &r.name || staged[3] != &r.note.String || staged[4] != nil {
		t.Fatalf("staged args %#v do not point into the row", staged)
	}
	r.amount = sql.NullInt64{Int64: 12, Valid: true}
	back := &sampleRow{}
	if err := sampleTable.scan(scannedRow{int64(7), int32(3), "n", r.note, r.amount}, back); err != nil || *back != *r {
		t.Fatalf("scanned %+v (%v), want %+v", back, err, r)
	}
}

// TestRowTableRefusesForeignField: an accessor that returns anything but
// a field of its row is refused when the table is declared.
func TestRowTableRefusesForeignField(t *testing.T) {
	var elsewhere int64
	defer func() {
		if p, _ := recover().(string); !strings.Contains(p, "column other: the accessor returns no field") {
			t.Fatalf("panic %q, want one naming the column", p)
		}
	}()
	declareTable(Versioned("sample", 1), []string{"id"}, nil,
		i64Col("id", func(r *sampleRow) *int64 { return &r.id }),
		i64Col("other", func(*sampleRow) *int64 { return &elsewhere }),
	)
}
