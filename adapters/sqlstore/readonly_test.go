package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/projections"
)

func mustExec(t *testing.T, st projections.Store, q string) {
	t.Helper()
	ctx := context.Background()
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, tx projections.StoreTx) int {
	t.Helper()
	var n int
	if err := tx.QueryRow(context.Background(), `SELECT count(*) FROM ro_rows`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestReadOnlyStores: a read-only store reads what its writer commits
// while the writer goes on committing (on SQLite a read transaction keeps
// its snapshot and holds no writer back), and refuses to write. It creates
// nothing: a missing SQLite file is ErrNoStore and its directory stays
// missing, and no file appears beside an existing one.
func TestReadOnlyStores(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "data", "projections.db")
	if _, err := OpenSQLiteReadOnly(ctx, missing); !errors.Is(err, ErrNoStore) {
		t.Fatalf("read-only open of a missing store: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the missing store's directory was created: %v", err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "projections.db")
	pgDSN := pgtest.Start(t).NewDB(t)
	for _, c := range []struct {
		name           string
		open, openRead func() (projections.Store, error)
	}{
		{"sqlite", func() (projections.Store, error) { return OpenSQLite(ctx, path) },
			func() (projections.Store, error) { return OpenSQLiteReadOnly(ctx, path) }},
		{"postgres", func() (projections.Store, error) { return OpenPostgres(ctx, pgDSN) },
			func() (projections.Store, error) { return OpenPostgresReadOnly(ctx, pgDSN) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := c.open()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			mustExec(t, w, `CREATE TABLE ro_rows (id INTEGER PRIMARY KEY)`)
			mustExec(t, w, `INSERT INTO ro_rows (id) VALUES (1)`)
			files := names(t, dir)
			r, err := c.openRead()
			if err != nil {
				t.Fatal(err)
			}
			tx, err := r.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "postgres" { // as verify reads: one snapshot
				if _, err := tx.Exec(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`); err != nil {
					t.Fatal(err)
				}
			}
			if n := count(t, tx); n != 1 {
				t.Fatalf("the reader counts %d rows, want 1", n)
			}
			mustExec(t, w, `INSERT INTO ro_rows (id) VALUES (2)`) // beside the open read
			if n := count(t, tx); n != 1 {
				t.Fatalf("the read transaction counts %d rows after a later commit, want its snapshot's 1", n)
			}
			tx.Rollback()
			tx, err = r.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n := count(t, tx); n != 2 {
				t.Fatalf("a new read transaction counts %d rows, want 2", n)
			}
			for _, q := range []string{`INSERT INTO ro_rows (id) VALUES (3)`, `CREATE TABLE ro_more (id INTEGER)`} {
				if _, err := tx.Exec(ctx, q); err == nil {
					t.Errorf("the read-only store ran %s", q)
				}
			}
			tx.Rollback()
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if got := names(t, dir); len(got) != len(files) {
				t.Fatalf("files beside the store: %v before the reader, %v after", files, got)
			}
		})
	}

	// A file no store was made in is read as it is: no store_meta, no
	// system tables are created in it.
	raw := filepath.Join(t.TempDir(), "raw.db")
	db, err := sql.Open("sqlite", raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE x (a INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r, err := OpenSQLiteReadOnly(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	db, _ = sql.Open("sqlite", raw)
	defer db.Close()
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).Scan(&tables); err != nil || tables != 1 {
		t.Fatalf("a read-only open migrated the file: %d tables (%v)", tables, err)
	}
}
