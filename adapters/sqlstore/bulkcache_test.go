package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// TestBulkLoadEngineCache: while a bulk load is staged, SQLite's page
// cache is small (the engine holds only checkpoints and unstaged tables);
// once the load is written, the store has its own cache size again.
func TestBulkLoadEngineCache(t *testing.T) {
	ctx := context.Background()
	st, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "cache.db"), WithBulkLoad(), WithCacheKiB(16<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cacheSize := func() int {
		t.Helper()
		tx, err := st.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		var n int
		if err := tx.QueryRow(ctx, `PRAGMA cache_size`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	p := oddTable{}
	tx, err := st.Begin(ctx)
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
	if n := cacheSize(); n != -16<<10 {
		t.Fatalf("cache_size %d before the load, want %d", n, -16<<10)
	}
	bl := st.(projections.BulkLoader)
	if err := bl.Stage(ctx, p.Tables()); err != nil {
		t.Fatal(err)
	}
	if n := cacheSize(); n != -bulkEngineCacheKiB {
		t.Fatalf("cache_size %d during the load, want %d", n, -bulkEngineCacheKiB)
	}
	if err := bl.Materialize(ctx); err != nil {
		t.Fatal(err)
	}
	if n := cacheSize(); n != -16<<10 {
		t.Fatalf("cache_size %d after the load, want %d", n, -16<<10)
	}
}
