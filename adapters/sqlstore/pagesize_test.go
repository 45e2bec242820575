package sqlstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPageSize: a new store file gets the page size asked for, in WAL
// mode as every live store; a store file that exists keeps its own; a
// size SQLite would ignore is refused before any file is made.
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pragma := func(path, name string, opts ...SQLiteOption) string {
		t.Helper()
		st, err := OpenSQLite(ctx, path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var v string
		if err := st.(*store).db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	path := filepath.Join(dir, "big.db")
	if got := pragma(path, "page_size", WithPageSize(16<<10)); got != "16384" {
		t.Fatalf("new store: page size %s, want 16384", got)
	}
	if got := pragma(path, "journal_mode", WithPageSize(16<<10)); got != "wal" {
		t.Fatalf("journal mode %s, want wal", got)
	}
	if got := pragma(path, "page_size", WithPageSize(8<<10)); got != "16384" {
		t.Fatalf("existing store opened with another page size: %s, want its own 16384", got)
	}
	if got := pragma(filepath.Join(dir, "default.db"), "page_size"); got != "4096" {
		t.Fatalf("default page size %s, want 4096", got)
	}
	bad := filepath.Join(dir, "bad.db")
	for _, n := range []int{3000, 256, 1 << 17} {
		if _, err := OpenSQLite(ctx, bad, WithPageSize(n)); err == nil || !strings.Contains(err.Error(), "page size") {
			t.Fatalf("page size %d: err %v, want a refusal naming the page size", n, err)
		}
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("a refused page size left a file: %v", err)
	}
}
