package sqlitefile

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"testing"
)

// TestPastTheLockBytePage appends more than 1 GiB, so the table and its
// index run across SQLite's lock-byte page (the page holding byte offset
// 2^30, which no b-tree may use): integrity_check is "ok", the file size
// matches the header, and rows on both sides of it read back. A bulk
// rebuild of a few million events makes a store this large.
func TestPastTheLockBytePage(t *testing.T) {
	const pageSize = 65536
	const body = 60 << 10 // one overflow chain per row
	rows := int64((1<<30)/body + 2000)
	path := newDB(t, pageSize, "DELETE")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	def := TableDef{Name: "big", Cols: 3, RowidCol: 0, Indexes: []IndexDef{{Name: "big_k", Columns: []int{1}}}}
	tw, err := a.Table(def)
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, body)
	fill := func(id int64) []byte {
		for i := 0; i < len(blob); i += 8 {
			binary.BigEndian.PutUint64(blob[i:], uint64(id)*0x9E3779B97F4A7C15+uint64(i))
		}
		return blob
	}
	for id := int64(1); id <= rows; id++ {
		if err := tw.Add(id, []any{nil, rows - id, fill(id)}); err != nil {
			t.Fatalf("row %d: %v", id, err)
		}
	}
	roots, err := tw.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() <= 1<<30 {
		t.Fatalf("file is %d bytes, not past 1 GiB: %v", fi.Size(), err)
	}
	db := openDB(t, path)
	err = Register(context.Background(), db, []SchemaEntry{
		{Type: "table", Name: "big", Table: "big", Root: roots.Table, SQL: "CREATE TABLE big (id INTEGER PRIMARY KEY, k INTEGER, body BLOB)", Def: &def},
		{Type: "index", Name: "big_k", Table: "big", Root: roots.Indexes["big_k"], SQL: "CREATE INDEX big_k ON big (k)"},
	})
	if err != nil {
		t.Fatal(err)
	}
	integrityOK(t, db)
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM big INDEXED BY big_k WHERE k >= 0").Scan(&n); err != nil || n != rows {
		t.Fatalf("%d rows through the index (%v), want %d", n, err, rows)
	}
	for _, id := range []int64{1, rows / 2, rows - 1000, rows} {
		var got []byte
		if err := db.QueryRow("SELECT body FROM big INDEXED BY big_k WHERE k = ?", rows-id).Scan(&got); err != nil {
			t.Fatalf("row %d: %v", id, err)
		}
		if !bytes.Equal(got, fill(id)) {
			t.Fatalf("row %d reads back different bytes", id)
		}
	}
}
