package projections

import (
	"database/sql"
	"reflect"
	"strings"
	"testing"
)

// TestStatementsFromDeclaration: the statements a table builds name its
// declared columns in table order, and an update's arguments are the
// row's values of the columns it sets, then of the key.
func TestStatementsFromDeclaration(t *testing.T) {
	cols := "id, part, name, note, amount"
	for _, c := range []struct{ got, want string }{
		{sampleTable.insertSQL(), "INSERT INTO sample_v1 (" + cols + ") VALUES (?, ?, ?, ?, ?)"},
		{sampleTable.insertNewSQL(), "INSERT INTO sample_v1 (" + cols + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"},
		{sampleTable.upsertSQL([]string{"name", "note"}, "amount"), "INSERT INTO sample_v1 (" + cols + ") VALUES (?, ?, ?, ?, ?) " +
			"ON CONFLICT (id) DO UPDATE SET name = excluded.name, note = excluded.note, amount = sample_v1.amount + excluded.amount"},
		{sampleTable.updateSQL("note", "amount"), "UPDATE sample_v1 SET note = ?, amount = ? WHERE id = ?"},
		{sampleTable.updateWhereSQL("part = ? AND note IS NULL", "name"), "UPDATE sample_v1 SET name = ? WHERE part = ? AND note IS NULL"},
		{sampleTable.selectSQL("id = ?"), "SELECT " + cols + " FROM sample_v1 WHERE id = ?"},
		{sampleTable.selectSQL("part = ? AND name <> 'x y' ORDER BY id DESC", "id"), "SELECT id FROM sample_v1 WHERE part = ? AND name <> 'x y' ORDER BY id DESC"},
		{sampleTable.deleteSQL("part = ? AND coalesce(amount, 0) > ?"), "DELETE FROM sample_v1 WHERE part = ? AND coalesce(amount, 0) > ?"},
		{sampleTable.selectLive("part = ? ORDER BY id", "name").on("sample_v2"), "SELECT name FROM sample_v2 WHERE part = ? ORDER BY id"},
		{sampleTable.queryLive("ORDER BY part, id").on("sample_v2"), "SELECT " + cols + " FROM sample_v2 ORDER BY part, id"},
		{sampleTable.countBy("part").on("sample_v2"), "SELECT part, COUNT(*) FROM sample_v2 GROUP BY part"},
		{strings.Join(sampleTable.except("id", "note"), ", "), "part, name, amount"},
		{liveSQL{"SELECT " + sampleTable.as("s").list("id", "name") + " FROM ", " s JOIN ",
			" o ON " + sampleTable.as("o").col("id") + " = " + sampleTable.as("s").col("part")}.on("sample_v1", "sample_v2"),
			"SELECT s.id, s.name FROM sample_v1 s JOIN sample_v2 o ON o.id = s.part"},
	} {
		if c.got != c.want {
			t.Errorf("statement\n %s\nwant\n %s", c.got, c.want)
		}
	}
	r := &sampleRow{id: 7, part: 3, name: "n", note: sql.NullString{String: "x", Valid: true}}
	u := sampleTable.update("amount", "name")
	if got, want := u.args(r), []any{nil, "n", int64(7)}; !reflect.DeepEqual(got, want) || u.sql != "UPDATE sample_v1 SET amount = ?, name = ? WHERE id = ?" {
		t.Fatalf("update %q args %#v, want %#v", u.sql, got, want)
	}
}

// TestStatementsRefuseUnknownColumns: a statement that names a column
// its table does not declare, in what it sets or in a condition, panics
// when it is built.
func TestStatementsRefuseUnknownColumns(t *testing.T) {
	for name, build := range map[string]func(){
		"update set":     func() { sampleTable.updateSQL("note", "colour") },
		"update where":   func() { sampleTable.updateWhereSQL("colour = ?", "note") },
		"upsert add":     func() { sampleTable.upsertSQL(nil, "colour") },
		"select list":    func() { sampleTable.selectSQL("id = ?", "colour") },
		"select order":   func() { sampleTable.selectSQL("id > ? ORDER BY colour") },
		"delete where":   func() { sampleTable.deleteSQL("id = ? OR colour IS NULL") },
		"row update set": func() { sampleTable.update("colour") },
		"live select":    func() { sampleTable.selectLive("colour = ?") },
		"live order":     func() { sampleTable.queryLive("ORDER BY colour") },
		"count by":       func() { sampleTable.countBy("colour") },
		"column":         func() { sampleTable.col("colour") },
		"all but":        func() { sampleTable.except("colour") },
		"aliased column": func() { sampleTable.as("s").col("colour") },
		"aliased list":   func() { sampleTable.as("s").list("id", "colour") },
	} {
		func() {
			defer func() {
				if p, _ := recover().(string); !strings.Contains(p, "table sample_v1 has no column colour") {
					t.Errorf("%s: panic %q, want one naming the column", name, p)
				}
			}()
			build()
		}()
	}
}

type phasedRow struct {
	id    int64
	epoch uint32
	state testState
}

type testState uint8

func (s testState) String() string { return [...]string{"Idle", "Busy"}[s] }

var phasedTable = declareTable(Versioned("phased", 1), []string{"id"}, nil,
	i64Col("id", func(r *phasedRow) *int64 { return &r.id }),
	u32Col("epoch", func(r *phasedRow) *uint32 { return &r.epoch }),
	enumCol("state", func(r *phasedRow) *testState { return &r.state }, 0, 1),
)

// TestEnumAndUint32Columns: an enumeration is written as its name and
// read back from it, a uint32 as an integer; a stored name that is no
// value's is an error naming the column.
func TestEnumAndUint32Columns(t *testing.T) {
	if c := phasedTable.Columns; c[1].Type != Integer || c[2].Type != Text || c[2].Nullable {
		t.Fatalf("column types %+v", c)
	}
	r := &phasedRow{id: 1, epoch: 1<<32 - 1, state: 1}
	if got, want := phasedTable.args(r, nil, false), []any{int64(1), int64(1<<32 - 1), "Busy"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("args %#v, want %#v", got, want)
	}
	back := &phasedRow{}
	if err := phasedTable.scan(scannedRow{int64(1), uint32(1<<32 - 1), "Busy"}, back); err != nil || *back != *r {
		t.Fatalf("scanned %+v (%v), want %+v", back, err, r)
	}
	if err := phasedTable.scan(scannedRow{int64(1), uint32(0), "Gone"}, back); err == nil || !strings.Contains(err.Error(), `column state: unknown value "Gone"`) {
		t.Fatalf("scanning an unknown name: %v", err)
	}
}
