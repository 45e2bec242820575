package sqlitefile

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrSchema: a SchemaEntry that does not describe a b-tree this package
// wrote (bad SQL, a name or root page already in use, a definition that does
// not match the records, an implicit index).
var ErrSchema = errors.New("sqlitefile: bad schema entry")

// SchemaEntry is one row to add to sqlite_schema.
type SchemaEntry struct {
	Type  string // "table" or "index"
	Name  string
	Table string // tbl_name: the table itself, or the indexed table
	Root  uint32
	SQL   string // CREATE TABLE / CREATE [UNIQUE] INDEX text
	// Def, on a table entry, is checked against its SQL: column count,
	// INTEGER PRIMARY KEY position, and each index's columns and uniqueness.
	// Without it a mismatch goes unnoticed (SQLite reads extra or missing
	// record columns without complaint).
	Def *TableDef
}

// Register makes SQLite see b-trees written by an [Appender]: in one
// transaction it inserts their sqlite_schema rows (with writable_schema)
// and bumps the schema cookie so every connection reloads the schema. The
// entries are first checked by creating them in an in-memory database of
// the same driver; the SQL text stored is SQLite's own normal form of it.
func Register(ctx context.Context, db *sql.DB, entries []SchemaEntry) error {
	canon, err := checkEntries(ctx, db.Driver(), entries)
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	defer conn.Close()
	writable := false
	defer func() {
		if !writable {
			return
		}
		// writable_schema belongs to the connection, not the transaction:
		// never hand a pooled connection back with it on.
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA writable_schema=OFF"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	defer tx.Rollback()
	var pages int64
	if err := tx.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	for _, e := range entries {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE lower(name)=lower(?) OR rootpage=?",
			e.Name, int64(e.Root)).Scan(&n); err != nil {
			return fmt.Errorf("sqlitefile: register: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("%w: %s %s: name or root page %d already in sqlite_schema", ErrSchema, e.Type, e.Name, e.Root)
		}
		if e.Root < 2 || int64(e.Root) > pages {
			return fmt.Errorf("%w: %s %s: root page %d outside the file's %d pages", ErrSchema, e.Type, e.Name, e.Root, pages)
		}
	}
	var version int64
	if err := tx.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&version); err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "PRAGMA writable_schema=ON"); err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	writable = true
	for i, e := range entries {
		if _, err := tx.ExecContext(ctx, "INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql) VALUES (?,?,?,?,?)",
			e.Type, e.Name, e.Table, int64(e.Root), canon[i]); err != nil {
			return fmt.Errorf("sqlitefile: register %s %s: %w", e.Type, e.Name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "PRAGMA writable_schema=OFF"); err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	writable = false
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA schema_version=%d", version+1)); err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlitefile: register: %w", err)
	}
	return nil
}

// connector opens a database by name through a given driver.
type connector struct {
	d    driver.Driver
	name string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.name) }
func (c connector) Driver() driver.Driver                        { return c.d }

// checkEntries creates the entries in an in-memory database and returns the
// SQL text SQLite stored for each.
func checkEntries(ctx context.Context, d driver.Driver, entries []SchemaEntry) ([]string, error) {
	mem := sql.OpenDB(connector{d: d, name: ":memory:"})
	defer mem.Close()
	mem.SetMaxOpenConns(1) // every :memory: connection is a separate database
	bad := func(e SchemaEntry, format string, args ...any) error {
		return fmt.Errorf("%w: %s %s: "+format, append([]any{ErrSchema, e.Type, e.Name}, args...)...)
	}
	for _, e := range entries {
		if e.Type != "table" && e.Type != "index" {
			return nil, bad(e, "type must be table or index")
		}
		if e.Type == "table" && e.Table != e.Name {
			return nil, bad(e, "tbl_name %q differs from the table's name", e.Table)
		}
		if _, err := mem.ExecContext(ctx, e.SQL); err != nil {
			return nil, bad(e, "%v", err)
		}
	}
	rows, err := mem.QueryContext(ctx, "SELECT type, name, tbl_name, sql FROM sqlite_schema")
	if err != nil {
		return nil, fmt.Errorf("sqlitefile: %w", err)
	}
	type obj struct{ typ, table, sql string }
	got := map[string]obj{}
	for rows.Next() {
		var o obj
		var name string
		var text sql.NullString
		if err := rows.Scan(&o.typ, &name, &o.table, &text); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sqlitefile: %w", err)
		}
		o.sql = text.String
		got[strings.ToLower(name)] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitefile: %w", err)
	}
	if len(got) != len(entries) {
		return nil, fmt.Errorf("%w: the SQL creates %d objects for %d entries (inline UNIQUE or non-integer PRIMARY KEY creates an implicit index: use CREATE UNIQUE INDEX)", ErrSchema, len(got), len(entries))
	}
	canon := make([]string, len(entries))
	for i, e := range entries {
		o, ok := got[strings.ToLower(e.Name)]
		if !ok || o.typ != e.Type || !strings.EqualFold(o.table, e.Table) {
			return nil, bad(e, "its SQL creates %+v", o)
		}
		canon[i] = o.sql
		if e.Type == "table" {
			if err := checkTable(ctx, mem, e); err != nil {
				return nil, err
			}
		}
	}
	return canon, nil
}

func checkTable(ctx context.Context, mem *sql.DB, e SchemaEntry) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: table %s: "+format, append([]any{ErrSchema, e.Name}, args...)...)
	}
	var wr int
	if err := mem.QueryRowContext(ctx, "SELECT wr FROM pragma_table_list WHERE name=? AND schema='main'", e.Name).Scan(&wr); err != nil {
		return fmt.Errorf("sqlitefile: %w", err)
	}
	if wr != 0 {
		return bad("WITHOUT ROWID tables are not supported")
	}
	if e.Def == nil {
		return nil
	}
	def := e.Def
	if def.Name != e.Name {
		return bad("Def is for table %s", def.Name)
	}
	var cols, pks int
	rowidCol := -1
	rows, err := mem.QueryContext(ctx, "SELECT cid, upper(type), pk FROM pragma_table_info(?)", e.Name)
	if err != nil {
		return fmt.Errorf("sqlitefile: %w", err)
	}
	for rows.Next() {
		var cid, pk int
		var typ string
		if err := rows.Scan(&cid, &typ, &pk); err != nil {
			rows.Close()
			return fmt.Errorf("sqlitefile: %w", err)
		}
		cols++
		if pk > 0 {
			pks++
			if typ == "INTEGER" {
				rowidCol = cid
			}
		}
	}
	rows.Close()
	if pks != 1 {
		rowidCol = -1
	}
	if cols != def.Cols {
		return bad("SQL has %d columns, Def %d", cols, def.Cols)
	}
	if rowidCol != def.RowidCol {
		return bad("SQL's INTEGER PRIMARY KEY column is %d, Def says %d", rowidCol, def.RowidCol)
	}
	for _, ix := range def.Indexes {
		var unique, partial int
		var tbl string
		err := mem.QueryRowContext(ctx, `SELECT l."unique", l.partial, m.tbl_name FROM sqlite_schema m, pragma_index_list(m.tbl_name) l
			WHERE m.type='index' AND m.name=? AND l.name=m.name`, ix.Name).Scan(&unique, &partial, &tbl)
		if err != nil {
			return bad("index %s not among the entries: %v", ix.Name, err)
		}
		if !strings.EqualFold(tbl, e.Name) || (unique != 0) != ix.Unique || partial != 0 {
			return bad("index %s: table %s, unique %v, partial %v in SQL; Def says unique %v", ix.Name, tbl, unique != 0, partial != 0, ix.Unique)
		}
		var got []int
		xr, err := mem.QueryContext(ctx, "SELECT cid, desc, coll FROM pragma_index_xinfo(?) WHERE key=1 ORDER BY seqno", ix.Name)
		if err != nil {
			return fmt.Errorf("sqlitefile: %w", err)
		}
		for xr.Next() {
			var cid, desc int
			var coll string
			if err := xr.Scan(&cid, &desc, &coll); err != nil {
				xr.Close()
				return fmt.Errorf("sqlitefile: %w", err)
			}
			if desc != 0 || !strings.EqualFold(coll, "BINARY") {
				xr.Close()
				return bad("index %s: only ascending BINARY columns are supported", ix.Name)
			}
			if cid == -1 { // the INTEGER PRIMARY KEY column is indexed as the rowid
				cid = rowidCol
			}
			got = append(got, cid)
		}
		xr.Close()
		if !slices.Equal(got, ix.Columns) {
			return bad("index %s: SQL indexes columns %v, Def %v", ix.Name, got, ix.Columns)
		}
	}
	return nil
}
