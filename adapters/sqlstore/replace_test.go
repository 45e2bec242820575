package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// inTx runs fn in a transaction on the store at path (opened and closed
// around it) and commits.
func inTx(t *testing.T, path string, fn func(ctx context.Context, tx projections.StoreTx) error) {
	t.Helper()
	ctx := context.Background()
	st, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := fn(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// putKV writes k = v into a kv table of the store at path.
func putKV(t *testing.T, path, k, v string) {
	t.Helper()
	inTx(t, path, func(ctx context.Context, tx projections.StoreTx) error {
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT)`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
		return err
	})
}

// kvOf reads every k = v of the store at path.
func kvOf(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	inTx(t, path, func(ctx context.Context, tx projections.StoreTx) error {
		rows, err := tx.Query(ctx, `SELECT k, v FROM kv`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			out[k] = v
		}
		return rows.Err()
	})
	return out
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestReplaceSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	putKV(t, path, "a", "old")
	putKV(t, path, "b", "old")

	// Nobody may replace a store in use, and nobody may open one being
	// replaced.
	open, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BeginReplace(path, quietLog()); !errors.Is(err, ErrStoreInUse) {
		t.Fatalf("replace while the store is open: %v, want ErrStoreInUse", err)
	}
	open.Close()
	rep, err := BeginReplace(path, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSQLite(ctx, path); !errors.Is(err, ErrStoreInUse) {
		t.Fatalf("open while the store is replaced: %v, want ErrStoreInUse", err)
	}
	if _, err := BeginReplace(path, quietLog()); !errors.Is(err, ErrStoreInUse) {
		t.Fatalf("a second replacement: %v, want ErrStoreInUse", err)
	}
	putKV(t, rep.Path(), "a", "new")
	if err := rep.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := kvOf(t, path); len(got) != 1 || got["a"] != "new" {
		t.Fatalf("after the replacement the store holds %v, want only a=new", got)
	}
	for _, f := range []string{rep.Path(), rep.Path() + "-journal", lockPath(rep.Path())} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind", f)
		}
	}
	if err := rep.Commit(ctx); err == nil {
		t.Fatal("a second Commit of one replacement succeeded")
	}
}

func TestReplaceSQLiteRefusesAndKeepsTheOldStore(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		build   func(t *testing.T, newPath string)
		oldMeta string // run on the old store first
		want    error
	}{
		{name: "new store half-built by a bulk load", want: ErrIncompleteBulkLoad, build: func(t *testing.T, p string) {
			st, err := OpenSQLite(ctx, p, WithBulkLoad())
			if err != nil {
				t.Fatal(err)
			}
			bl := st.(projections.BulkLoader)
			tbl := projections.Table{Name: "kv", Columns: []projections.Column{{Name: "id", Type: projections.Integer}}, PrimaryKey: []string{"id"}}
			if err := bl.Stage(ctx, []projections.Table{tbl}); err != nil {
				t.Fatal(err)
			}
			st.Close() // killed before Materialize: the mark stays
		}},
		{name: "no new store", build: func(*testing.T, string) {}},
		{name: "old store from a newer binary", want: projections.ErrStoreTooNew,
			oldMeta: `UPDATE store_meta SET meta_value = '999' WHERE meta_key = 'format'`,
			build:   func(t *testing.T, p string) { putKV(t, p, "a", "new") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.db")
			putKV(t, path, "a", "old")
			if c.oldMeta != "" {
				db, err := sql.Open("sqlite", path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(c.oldMeta); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			rep, err := BeginReplace(path, quietLog())
			if err != nil {
				t.Fatal(err)
			}
			c.build(t, rep.Path())
			err = rep.Commit(ctx)
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("Commit: %v, want %v", err, c.want)
			}
			if _, err := OpenSQLite(ctx, path); !errors.Is(err, ErrStoreInUse) {
				t.Fatalf("a failed Commit released the lock (open: %v)", err)
			}
			if err := rep.Abort(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(rep.Path()); err == nil {
				t.Fatal("Abort after a failed Commit left the new store")
			}
			if c.oldMeta != "" {
				return // this binary cannot open the old store; it is still there
			}
			if got := kvOf(t, path); got["a"] != "old" {
				t.Fatalf("the old store holds %v after a refused replacement", got)
			}
		})
	}
}

// TestReplaceSQLiteAfterACrash: what an interrupted replacement left at
// Path (a half-built store, its journal and spills) is removed by the
// next one, and Abort leaves the old store as it was.
func TestReplaceSQLiteAfterACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	putKV(t, path, "a", "old")
	rep, err := BeginReplace(path, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	built := rep.Path()
	putKV(t, built, "a", "half")
	for _, f := range []string{built + "-journal", stagePrefix(built) + "kv-1.spill"} {
		if err := os.WriteFile(f, []byte("left by a kill"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep.lock.release() // the process died: the kernel drops its lock
	rep, err = BeginReplace(path, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{built, built + "-journal", stagePrefix(built) + "kv-1.spill"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s survived the next replacement's start", f)
		}
	}
	putKV(t, rep.Path(), "a", "new")
	if err := rep.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(rep.Path()); err == nil {
		t.Error("Abort left the new store")
	}
	if got := kvOf(t, path); got["a"] != "old" {
		t.Fatalf("after Abort the store holds %v", got)
	}
}

// TestReplaceSQLiteRetiresTheOldWAL: an old store whose last commits are
// still in its WAL (its writer was killed) must not leave that WAL beside
// the new file, where SQLite would read its pages as the new file's.
func TestReplaceSQLiteRetiresTheOldWAL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	putKV(t, live, "a", "old")
	// A writer that is killed: copy its files while its connection is open
	// with commits in the WAL only.
	db, err := sql.Open("sqlite", "file:"+live+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for i := range 50 {
		if _, err := db.Exec(`INSERT INTO kv (k, v) VALUES (?, 'in the WAL')`, fmt.Sprint("w", i)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "p.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(live + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("no WAL to retire: %v", err)
	}

	rep, err := BeginReplace(path, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	putKV(t, rep.Path(), "a", "new")
	if err := rep.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the old WAL is beside the new store")
	}
	if got := kvOf(t, path); len(got) != 1 || got["a"] != "new" {
		t.Fatalf("the new store reads %d rows (%v), want only a=new", len(got), got["a"])
	}
}
