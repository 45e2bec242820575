package projections_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/projections"
)

// plainTx hides a transaction's COPY, so Bulk inserts with INSERT.
type plainTx struct{ projections.Tx }

// TestBulkCopyIsInsert: on PostgreSQL, Bulk hands large batches to COPY;
// the table then holds exactly what the multi-row INSERT leaves, for new
// rows, for rows that conflict and are kept (DO NOTHING) or updated (DO
// UPDATE), for NULLs and for values passed by pointer; a row that
// conflicts without a clause fails the same way. SQLite has no COPY.
func TestBulkCopyIsInsert(t *testing.T) {
	ctx := context.Background()
	st, _ := postgresStore(pgtest.Start(t))(t)
	const ddl = `CREATE TABLE %s (id BIGINT PRIMARY KEY, a TEXT NOT NULL, b BIGINT, c TEXT)`
	cols := []string{"id", "a", "b", "c"}
	rows := func(from, n int, tag string) []any {
		var out []any
		for i := from; i < from+n; i++ {
			b, c := any(int64(i*3)), any(fmt.Sprintf("%s-c%d", tag, i))
			switch i % 4 {
			case 1:
				b, c = nil, sql.NullString{}
			case 2:
				v, s := int64(-i), tag+"-p"
				b, c = &v, &s
			case 3:
				b, c = (*int64)(nil), (*string)(nil)
			}
			out = append(out, int64(i), fmt.Sprintf("%s-%d", tag, i), b, c)
		}
		return out
	}
	steps := []struct {
		name   string
		bulk   func(table string) projections.Bulk
		rows   []any
		failed bool
	}{
		{"new rows", func(tb string) projections.Bulk { return projections.Bulk{Table: tb, Columns: cols} }, rows(0, 300, "first"), false},
		{"do nothing", func(tb string) projections.Bulk {
			return projections.Bulk{Table: tb, Columns: cols, OnConflict: []string{"id"}}
		}, rows(200, 200, "second"), false},
		{"do update", func(tb string) projections.Bulk {
			return projections.Bulk{Table: tb, Columns: cols, OnConflict: []string{"id"}, Update: []string{"a", "c"}}
		}, rows(350, 100, "third"), false},
		{"a conflict without a clause", func(tb string) projections.Bulk { return projections.Bulk{Table: tb, Columns: cols} }, rows(440, 100, "fourth"), true},
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range []string{"by_copy", "by_insert"} {
		if _, err := tx.Exec(ctx, fmt.Sprintf(ddl, tb)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	read := func(tb string) [][]any {
		tx, err := st.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		rs, err := tx.Query(ctx, "SELECT id, a, b, c FROM "+tb+" ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out [][]any
		for rs.Next() {
			var id int64
			var a string
			var b sql.NullInt64
			var c sql.NullString
			if err := rs.Scan(&id, &a, &b, &c); err != nil {
				t.Fatal(err)
			}
			out = append(out, []any{id, a, b, c})
		}
		return out
	}
	for _, s := range steps {
		for _, tb := range []string{"by_copy", "by_insert"} {
			tx, err := st.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var in projections.Tx = tx
			if tb == "by_insert" {
				in = plainTx{tx}
			} else if _, isCopy := in.(projections.CopyTx); !isCopy {
				t.Fatal("a PostgreSQL transaction does not offer COPY")
			}
			b := s.bulk(tb)
			err = b.Exec(ctx, in, s.rows)
			if (err != nil) != s.failed {
				t.Fatalf("%s into %s: %v", s.name, tb, err)
			}
			if err != nil {
				tx.Rollback()
				continue
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		byCopy, byInsert := read("by_copy"), read("by_insert")
		if len(byCopy) == 0 || !reflect.DeepEqual(byCopy, byInsert) {
			t.Fatalf("after %s: COPY left %d rows, INSERT %d, or they differ", s.name, len(byCopy), len(byInsert))
		}
	}
	// 0–299 first; 300–349 second (200–299 kept as they were); 350–449
	// third, whose update took a and c but left 350–399's b as second set it.
	got := read("by_copy")
	if len(got) != 450 || got[299][1] != "first-299" || got[300][1] != "second-300" || got[449][1] != "third-449" ||
		got[360][1] != "third-360" || got[360][2] != (sql.NullInt64{Int64: 1080, Valid: true}) {
		t.Fatalf("final rows: %d, %v %v %v %v", len(got), got[299], got[300], got[360], got[449])
	}

	lite, _ := sqliteStore(t)
	ltx, err := lite.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ltx.Rollback()
	if ct, isCopy := ltx.(projections.CopyTx); isCopy {
		if ok, err := ct.CopyRows(ctx, "x", cols, nil, ""); ok || err != nil {
			t.Fatalf("SQLite CopyRows: %v %v, want nothing done", ok, err)
		}
	}
}

// TestBulkCopyWithoutTemporaryTables: a role denied temporary tables
// still loads in bulk: rows with a conflict clause go in with INSERT, the
// others with COPY.
func TestBulkCopyWithoutTemporaryTables(t *testing.T) {
	ctx := context.Background()
	c := pgtest.Start(t)
	dsn := c.NewDB(t)
	var db string
	if i := strings.LastIndex(dsn, "/"); i >= 0 {
		db, _, _ = strings.Cut(dsn[i+1:], "?")
	}
	pgtest.Exec(t, dsn, `CREATE ROLE bl_no_temp LOGIN`)
	pgtest.Exec(t, dsn, `REVOKE TEMPORARY ON DATABASE `+db+` FROM PUBLIC`)
	pgtest.Exec(t, dsn, `GRANT CREATE, USAGE ON SCHEMA public TO bl_no_temp`)
	st, err := sqlstore.OpenPostgres(ctx, strings.Replace(dsn, "postgres@", "bl_no_temp@", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(ctx, `CREATE TABLE t (id BIGINT PRIMARY KEY, a TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	rows := func(tag string) []any {
		var out []any
		for i := range 100 {
			out = append(out, int64(i), fmt.Sprintf("%s-%d", tag, i))
		}
		return out
	}
	plain := projections.Bulk{Table: "t", Columns: []string{"id", "a"}}
	if err := plain.Exec(ctx, tx, rows("copied")); err != nil {
		t.Fatalf("COPY without a conflict clause: %v", err)
	}
	ct := tx.(projections.CopyTx)
	if ok, err := ct.CopyRows(ctx, "t", []string{"id", "a"}, rows("x"), "ON CONFLICT (id) DO NOTHING"); ok || err != nil {
		t.Fatalf("CopyRows with a conflict clause and no temporary tables: %v %v, want nothing done", ok, err)
	}
	upsert := projections.Bulk{Table: "t", Columns: []string{"id", "a"}, OnConflict: []string{"id"}, Update: []string{"a"}}
	if err := upsert.Exec(ctx, tx, rows("updated")); err != nil {
		t.Fatalf("an upsert without temporary tables: %v", err)
	}
	var n int
	var a string
	if err := tx.QueryRow(ctx, `SELECT count(*), min(a) FROM t`).Scan(&n, &a); err != nil || n != 100 || a != "updated-0" {
		t.Fatalf("%d rows, min %q (%v)", n, a, err)
	}
}
