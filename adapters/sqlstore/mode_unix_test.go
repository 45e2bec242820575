//go:build unix

package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/ownerfs/ownerfstest"
	"github.com/bridgelog/bridgelog/projections"
)

// TestSQLiteFilesAreOwnerOnly: with the usual umask 022 in effect, a new
// store's directory, file, -wal, -shm and lock, and a store built in bulk
// beside it (its spill files too) are readable by their owner only.
func TestSQLiteFilesAreOwnerOnly(t *testing.T) {
	ownerfstest.Umask022(t)
	ctx := context.Background()
	root := t.TempDir()
	path := filepath.Join(root, "data", "projections.db")
	// Open: the -wal and -shm exist while a connection has the store.
	st, err := OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	requireFiles(t, path, "", "-wal", "-shm", ".lock")
	ownerfstest.RequireOwnerOnly(t, filepath.Dir(path))
	st.Close()

	rep, err := BeginReplace(path, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	bst, err := OpenSQLite(ctx, rep.Path(), WithBulkLoad())
	if err != nil {
		t.Fatal(err)
	}
	p := oddTable{}
	tx, err = bst.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range p.Tables()[0].DDL(projections.SQLite) {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	bl := bst.(projections.BulkLoader)
	if err := bl.Stage(ctx, p.Tables()); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(stagePrefix(rep.Path()) + "*.spill"); len(m) == 0 {
		t.Fatal("no spill file while staged: the check would not see one")
	}
	ownerfstest.RequireOwnerOnly(t, filepath.Dir(path))
	if err := bl.Materialize(ctx); err != nil {
		t.Fatal(err)
	}
	bst.Close()
	if err := rep.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	requireFiles(t, path, "")
	ownerfstest.RequireOwnerOnly(t, filepath.Dir(path))
}

// requireFiles fails t unless path+suffix exists for every suffix.
func requireFiles(t *testing.T, path string, suffixes ...string) {
	t.Helper()
	for _, s := range suffixes {
		if m, _ := filepath.Glob(path + s); len(m) == 0 {
			t.Fatalf("%s%s missing: the check would not see it", path, s)
		}
	}
}
