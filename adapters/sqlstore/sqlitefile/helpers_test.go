package sqlitefile

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// spec is a table to append with the writer and, for reference, to build
// with SQLite's engine from the same rows.
type spec struct {
	name     string
	cols     []string // "name TYPE" (TYPE may be empty)
	rowid    int      // INTEGER PRIMARY KEY column or -1
	indexes  []ispec
	rows     []row
	rowsHint int // TableDef.Rows
}

type ispec struct {
	suffix string
	cols   []int
	unique bool
}

type row struct {
	id   int64
	vals []any
}

func (s spec) colName(i int) string { return strings.Fields(s.cols[i])[0] }

func (s spec) idxName(table string, ix ispec) string { return table + "_" + ix.suffix }

func (s spec) def() TableDef {
	d := TableDef{Name: s.name, Cols: len(s.cols), RowidCol: s.rowid, Rows: s.rowsHint}
	for _, ix := range s.indexes {
		d.Indexes = append(d.Indexes, IndexDef{Name: s.idxName(s.name, ix), Columns: ix.cols, Unique: ix.unique})
	}
	return d
}

// ddl returns CREATE TABLE then CREATE INDEX statements for table name.
func (s spec) ddl(name string) []string {
	out := []string{fmt.Sprintf("CREATE TABLE %s (%s)", name, strings.Join(s.cols, ", "))}
	for _, ix := range s.indexes {
		var names []string
		for _, c := range ix.cols {
			names = append(names, s.colName(c))
		}
		u := ""
		if ix.unique {
			u = "UNIQUE "
		}
		out = append(out, fmt.Sprintf("CREATE %sINDEX %s ON %s(%s)", u, s.idxName(name, ix), name, strings.Join(names, ", ")))
	}
	return out
}

// entries are the sqlite_schema rows of a table the writer built.
func (s spec) entries(roots Roots) []SchemaEntry {
	ddl := s.ddl(s.name)
	def := s.def()
	es := []SchemaEntry{{Type: "table", Name: s.name, Table: s.name, Root: roots.Table, SQL: ddl[0], Def: &def}}
	for i, ix := range s.indexes {
		n := s.idxName(s.name, ix)
		es = append(es, SchemaEntry{Type: "index", Name: n, Table: s.name, Root: roots.Indexes[n], SQL: ddl[i+1]})
	}
	return es
}

// expected is a row as SQLite reads it back: the rowid alias column holds the rowid.
func (s spec) expected(r row) []any {
	v := slices.Clone(r.vals)
	if s.rowid >= 0 {
		v[s.rowid] = r.id
	}
	return v
}

// newDB creates a rollback-journal database with one ordinary table of a few rows.
func newDB(t testing.TB, pageSize int, mode string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		fmt.Sprintf("PRAGMA page_size=%d", pageSize),
		"PRAGMA journal_mode=" + mode,
		"CREATE TABLE seed (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER)",
		"CREATE INDEX seed_name ON seed(name)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for i := range 300 {
		if _, err := db.Exec("INSERT INTO seed(name, n) VALUES (?, ?)", fmt.Sprintf("seed-%04d-%s", i, strings.Repeat("s", i%50)), int64(i*i)); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// appendSpecs writes the specs with the writer, commits and registers them.
func appendSpecs(t testing.TB, path string, specs ...spec) {
	t.Helper()
	appendSpecsWith(t, path, false, specs...)
}

// appendSpecsWith is appendSpecs, with the indexes built aside if deferred
// (see writeSpecs).
func appendSpecsWith(t testing.TB, path string, deferred bool, specs ...spec) {
	t.Helper()
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := writeSpecs(t, a, specs, deferred)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	if err := Register(context.Background(), db, entries); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeSpec(t testing.TB, a *Appender, s spec) Roots {
	t.Helper()
	roots, err := tryWrite(t, a, s)
	if err != nil {
		t.Fatal(err)
	}
	return roots
}

// tryWrite writes s as a table with a and returns the first error Add or
// Finish reports (wrapped, so errors.Is and errors.As still see it).
func tryWrite(t testing.TB, a *Appender, s spec) (Roots, error) {
	t.Helper()
	tw, err := addRows(t, a, s)
	if err != nil {
		return Roots{}, err
	}
	roots, err := tw.Finish()
	if err != nil {
		return Roots{}, fmt.Errorf("table %s: %w", s.name, err)
	}
	return roots, nil
}

// addRows starts s's table with a and adds its rows.
func addRows(t testing.TB, a *Appender, s spec) (*TableWriter, error) {
	t.Helper()
	tw, err := a.Table(s.def())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.rows {
		if err := tw.Add(r.id, r.vals); err != nil {
			return nil, fmt.Errorf("table %s rowid %d: %w", s.name, r.id, err)
		}
	}
	return tw, nil
}

// writeSpecs writes the specs as tables with a and returns their schema
// entries, or the first error. If deferred, each table is finished with
// FinishDeferred and their indexes are attached after the last table, in
// reverse order, so every page number they hold is renumbered.
func writeSpecs(t testing.TB, a *Appender, specs []spec, deferred bool) ([]SchemaEntry, error) {
	t.Helper()
	var entries []SchemaEntry
	if !deferred {
		for _, s := range specs {
			roots, err := tryWrite(t, a, s)
			if err != nil {
				return nil, err
			}
			entries = append(entries, s.entries(roots)...)
		}
		return entries, nil
	}
	roots := make([]Roots, len(specs))
	pending := make([]*PendingIndexes, len(specs))
	for i, s := range specs {
		tw, err := addRows(t, a, s)
		if err != nil {
			return nil, err
		}
		if roots[i].Table, pending[i], err = tw.FinishDeferred(); err != nil {
			return nil, fmt.Errorf("table %s: %w", s.name, err)
		}
	}
	for i := len(specs) - 1; i >= 0; i-- {
		var err error
		if roots[i].Indexes, err = pending[i].Attach(); err != nil {
			return nil, fmt.Errorf("table %s: %w", specs[i].name, err)
		}
	}
	for i, s := range specs {
		entries = append(entries, s.entries(roots[i])...)
	}
	return entries, nil
}

// filler is a table with an index, written after another so that a
// deferred build of the other's indexes lands after it in the file.
func filler(name string, n int) spec {
	s := spec{name: name, cols: []string{"id INTEGER PRIMARY KEY", "v TEXT"}, rowid: 0,
		indexes: []ispec{{suffix: "v", cols: []int{1}}}}
	for i := range n {
		s.rows = append(s.rows, row{id: int64(i + 1), vals: []any{nil, fmt.Sprintf("f%05d", (i*7919)%n)}})
	}
	return s
}

// buildRef creates table name with SQLite's engine from the spec's rows.
func buildRef(t testing.TB, db *sql.DB, s spec, name string) error {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range s.ddl(name) {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var names, marks []string
	names = append(names, "rowid")
	marks = append(marks, "?")
	for i := range s.cols {
		if i == s.rowid {
			continue
		}
		names = append(names, s.colName(i))
		marks = append(marks, "?")
	}
	st, err := tx.Prepare(fmt.Sprintf("INSERT INTO %s(%s) VALUES (%s)", name, strings.Join(names, ","), strings.Join(marks, ",")))
	if err != nil {
		t.Fatal(err)
	}
	args := make([]any, 0, len(s.cols)+1)
	for _, r := range s.rows {
		args = append(args[:0], r.id)
		for i, v := range r.vals {
			if i != s.rowid {
				args = append(args, v)
			}
		}
		if _, err := st.Exec(args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func integrityOK(t testing.TB, db *sql.DB) {
	t.Helper()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		if len(msgs) > 20 {
			msgs = msgs[:20]
		}
		t.Fatalf("integrity_check: %q", msgs)
	}
}

// norm renders a value with its type, so 1, 1.0, "1" and x'31' differ.
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return "blob:" + hex.EncodeToString(x)
	case string:
		return "text:" + x
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func normRow(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = norm(v)
	}
	return strings.Join(parts, "|")
}

func query(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, normRow(vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func equalLists(t testing.TB, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d:\n got  %s\n want %s", what, i, got[i], want[i])
		}
	}
}

// checkSpec compares the appended table with its inputs and with an
// engine-built copy (name+"_ref"), row by row and in each index's order,
// and checks that lookups through each index use it and agree with a scan.
func checkSpec(t testing.TB, db *sql.DB, s spec) {
	t.Helper()
	var want []string
	for _, r := range s.rows {
		want = append(want, normRow(s.expected(r)))
	}
	got := query(t, db, fmt.Sprintf("SELECT * FROM %s ORDER BY rowid", s.name))
	equalLists(t, s.name+" rows", got, want)
	ref := s.name + "_ref"
	equalLists(t, s.name+" vs engine", got, query(t, db, fmt.Sprintf("SELECT * FROM %s ORDER BY rowid", ref)))
	for _, ix := range s.indexes {
		var names []string
		for _, c := range ix.cols {
			names = append(names, s.colName(c))
		}
		cols := strings.Join(names, ", ")
		// A covering scan walks the index b-tree in its stored order.
		order := query(t, db, fmt.Sprintf("SELECT %s, rowid FROM %s INDEXED BY %s", cols, s.name, s.idxName(s.name, ix)))
		equalLists(t, s.idxName(s.name, ix)+" order vs engine", order,
			query(t, db, fmt.Sprintf("SELECT %s, rowid FROM %s INDEXED BY %s", cols, ref, s.idxName(ref, ix))))
		equalLists(t, s.idxName(s.name, ix)+" order vs sort", order,
			query(t, db, fmt.Sprintf("SELECT %s, rowid FROM %s NOT INDEXED ORDER BY %s, rowid", cols, s.name, cols)))
		// Point lookups on a sample of keys.
		var conds []string
		for _, n := range names {
			conds = append(conds, n+" IS ?")
		}
		where := strings.Join(conds, " AND ")
		// INDEXED BY: in random shapes another index or the rowid may look cheaper.
		q := fmt.Sprintf("SELECT rowid FROM %s INDEXED BY %s WHERE %s ORDER BY rowid", s.name, s.idxName(s.name, ix), where)
		step := max(1, len(s.rows)/40)
		for i := 0; i < len(s.rows); i += step {
			var args []any
			for _, c := range ix.cols {
				args = append(args, s.expected(s.rows[i])[c])
			}
			plan := strings.Join(query(t, db, "EXPLAIN QUERY PLAN "+q, args...), "\n")
			if !strings.Contains(plan, s.idxName(s.name, ix)) {
				t.Fatalf("%s: plan does not use index %s:\n%s", q, s.idxName(s.name, ix), plan)
			}
			res := query(t, db, q, args...)
			if len(res) == 0 {
				t.Fatalf("%s %v: no rows", q, args)
			}
			equalLists(t, q, res, query(t, db, fmt.Sprintf("SELECT rowid FROM %s NOT INDEXED WHERE %s ORDER BY rowid", s.name, where), args...))
		}
	}
}

func fileBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
