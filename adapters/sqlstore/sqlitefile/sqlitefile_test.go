package sqlitefile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

var peCols = []string{
	"id INTEGER PRIMARY KEY", "first_topic TEXT NOT NULL", "first_partition INTEGER NOT NULL",
	"first_offset INTEGER NOT NULL", "event_source TEXT NOT NULL", "source_hash INTEGER NOT NULL",
	"event_type TEXT NOT NULL", "first_event_id TEXT NOT NULL", "content_hash TEXT NOT NULL",
	"processed_at TEXT", "duplicates INTEGER NOT NULL",
}

// processedEvents is a processed_events-like table: ~70-byte texts, ints
// including negative and extreme int64, NULLs, a 64-bit hash index.
func processedEvents(name string, n int, seed uint64) spec {
	r := rand.New(rand.NewPCG(seed, 1))
	s := spec{name: name, cols: peCols, rowid: 0, indexes: []ispec{{suffix: "source_hash", cols: []int{5}}}}
	id := int64(0)
	for i := range n {
		id += 1 + int64(r.IntN(3))
		hash := int64(r.Uint64())
		switch i % 97 {
		case 3:
			hash = math.MinInt64
		case 5:
			hash = math.MaxInt64
		case 7:
			hash = int64(i % 5) // repeated small keys, 0 and 1 included
		}
		var processed any
		if i%4 != 0 {
			processed = fmt.Sprintf("2026-05-%02dT10:%02d:%02d.%09dZ", 1+i%28, i%60, i%59, r.IntN(1e9))
		}
		s.rows = append(s.rows, row{id: id, vals: []any{
			int64(12345), // ignored: stored as NULL, read back as the rowid
			"bridge.deposits.v1", int64(r.IntN(16)), id*7 - 1000,
			"ethereum:11155111", hash, "DepositObserved",
			fmt.Sprintf("evt-%016x-%016x-%016x-%016x", r.Uint64(), r.Uint64(), r.Uint64(), id)[:70],
			fmt.Sprintf("%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()),
			processed, int64(r.IntN(3)) - 1,
		}})
	}
	return s
}

var depositCols = []string{
	"id INTEGER PRIMARY KEY", "part INTEGER NOT NULL", "off INTEGER NOT NULL", "chain_id INTEGER NOT NULL",
	"tx_hash TEXT NOT NULL", "log_index INTEGER NOT NULL", "status TEXT NOT NULL", "contract TEXT",
	"depositor TEXT", "amount TEXT", "recipient TEXT", "block_number INTEGER", "block_hash TEXT",
	"onchain_id INTEGER", "detected_at TEXT", "confirmed_at TEXT", "confirmed_block INTEGER",
	"minted_at TEXT", "mint_tx_hash TEXT", "gas_used INTEGER", "mint_block_number INTEGER",
	"failed_at TEXT", "error_reason TEXT", "reorged_block_hash TEXT",
}

// deposits is a deposits-like table: 24 columns, a UNIQUE (tx_hash,
// log_index, chain_id) index and an index on status.
func deposits(name string, n int, seed uint64) spec {
	r := rand.New(rand.NewPCG(seed, 2))
	s := spec{name: name, cols: depositCols, rowid: 0, indexes: []ispec{
		{suffix: "chain_ref", cols: []int{4, 5, 3}, unique: true},
		{suffix: "status", cols: []int{6}},
	}}
	statuses := []string{"detected", "confirmed", "minted", "failed", "reorged"}
	var tx string
	for i := range n {
		if i%3 == 0 { // several logs per transaction
			tx = fmt.Sprintf("0x%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
		}
		vals := make([]any, len(depositCols))
		vals[1], vals[2], vals[3] = int64(i%8), int64(i), []int64{1, 10, 8453}[i%3]
		vals[4], vals[5], vals[6] = tx, int64(i%3), statuses[r.IntN(len(statuses))]
		if i%5 != 0 {
			vals[7] = "0x1111111111111111111111111111111111111111"
			vals[8] = fmt.Sprintf("0x%040x", r.Uint64())
			vals[9] = fmt.Sprintf("%d%018d", r.IntN(1000), r.Uint64()%1e18)
			vals[10] = fmt.Sprintf("0x%040x", r.Uint64())
			vals[11] = int64(20_000_000 + i)
			vals[12] = fmt.Sprintf("0x%064x", r.Uint64())
			vals[13] = int64(i)
			vals[14] = "2026-05-01T00:00:00Z"
		}
		if i%7 == 0 {
			vals[19] = int64(-1) << 40
			vals[22] = strings.Repeat("reverted: ", 1+i%9)
		}
		s.rows = append(s.rows, row{id: int64(i + 1), vals: vals})
	}
	return s
}

// blobs has payloads of several KB (table overflow) and a text key that is
// sometimes longer than an index cell's local payload (index overflow).
func blobs(name string, n int, seed uint64) spec {
	r := rand.New(rand.NewPCG(seed, 3))
	s := spec{name: name, cols: []string{"id INTEGER PRIMARY KEY", "k TEXT", "body BLOB", "note TEXT"}, rowid: 0,
		indexes: []ispec{{suffix: "k", cols: []int{1}}, {suffix: "note_k", cols: []int{3, 1}}}}
	for i := range n {
		klen := 10 + r.IntN(60)
		if i%3 == 0 {
			klen = 200 + r.IntN(5000)
		}
		k := make([]byte, klen)
		for j := range k {
			k[j] = 'a' + byte(r.IntN(3))
		}
		body := make([]byte, r.IntN(20000))
		for j := range body {
			body[j] = byte(r.Uint32())
		}
		var note any
		if i%2 == 0 {
			note = fmt.Sprintf("note-%d", i%10)
		}
		s.rows = append(s.rows, row{id: int64(i)*1000 - 5000, vals: []any{nil, string(k), body, note}})
	}
	return s
}

func TestAppendProjectionTables(t *testing.T) {
	for _, ps := range []int{4096, 1024} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			path := newDB(t, ps, "DELETE")
			specs := []spec{
				processedEvents("processed_events", 20000, 1),
				deposits("deposits", 6000, 2),
				blobs("blobs", 400, 3),
				processedEvents("pe_empty", 0, 4),
				deposits("dep_one", 1, 5),
			}
			seedBefore := query(t, openDB(t, path), "SELECT * FROM seed ORDER BY id")
			appendSpecs(t, path, specs...)

			db := openDB(t, path)
			for _, s := range specs {
				if err := buildRef(t, db, s, s.name+"_ref"); err != nil {
					t.Fatal(err)
				}
			}
			integrityOK(t, db)
			for _, s := range specs {
				checkSpec(t, db, s)
			}
			equalLists(t, "seed table", query(t, db, "SELECT * FROM seed ORDER BY id"), seedBefore)

			// The new tables are ordinary SQLite tables from now on.
			for _, q := range []string{
				"INSERT INTO processed_events(first_topic, first_partition, first_offset, event_source, source_hash, event_type, first_event_id, content_hash, duplicates) VALUES ('t', 1, 2, 's', 42, 'e', 'x', 'h', 0)",
				"UPDATE processed_events SET duplicates = duplicates + 1, source_hash = -source_hash WHERE id % 3 = 0 AND source_hash > -9223372036854775807",
				"DELETE FROM processed_events WHERE id % 5 = 0",
				"UPDATE deposits SET status = 'minted', error_reason = NULL WHERE id % 2 = 0",
				"DELETE FROM blobs WHERE id % 2000 = 0",
				"INSERT INTO pe_empty SELECT * FROM processed_events WHERE id < 500",
				"INSERT INTO blobs(k, body) VALUES (hex(randomblob(3000)), randomblob(70000))",
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if _, err := db.Exec("INSERT INTO deposits(part, off, chain_id, tx_hash, log_index, status) SELECT part, off, chain_id, tx_hash, log_index, status FROM deposits WHERE id = 7"); err == nil ||
				!strings.Contains(err.Error(), "UNIQUE") {
				t.Fatalf("duplicate deposit accepted by SQLite: %v", err)
			}
			integrityOK(t, db)
			if _, err := db.Exec("VACUUM"); err != nil {
				t.Fatal(err)
			}
			integrityOK(t, db)
			var mode string
			if err := db.QueryRow("PRAGMA journal_mode=WAL").Scan(&mode); err != nil || mode != "wal" {
				t.Fatalf("journal_mode=WAL: %q %v", mode, err)
			}
			if _, err := db.Exec("UPDATE processed_events SET event_type = 'x' || event_type WHERE id % 7 = 0"); err != nil {
				t.Fatal(err)
			}
			integrityOK(t, db)
			var n int
			if err := db.QueryRow("SELECT count(*) FROM processed_events INDEXED BY processed_events_source_hash WHERE source_hash > 0").Scan(&n); err != nil || n == 0 {
				t.Fatalf("count through index after WAL: %d %v", n, err)
			}
		})
	}
}

// TestTreeShapes appends tables of every size around page boundaries (0, 1,
// exact fills, one past) at 512-byte pages, where trees get deep fast, and
// checks that each tail fix-up actually ran.
func TestTreeShapes(t *testing.T) {
	path := newDB(t, 512, "DELETE")
	var specs []spec
	// Fixed-size rows: one per leaf; a first interior page holds 71 children
	// (1-byte rowids), later ones 63. So 72 and 135 leaves end a level-1
	// page on a lone child, 3977 fill two levels exactly, 3978 start a 64th
	// level-1 page, and 4041 a 65th.
	var sizes []int
	for n := range 300 {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 3977, 3978, 3979, 4040, 4041)
	for _, n := range sizes {
		s := spec{name: fmt.Sprintf("t%d", n), cols: []string{"id INTEGER PRIMARY KEY", "k BLOB", "pad BLOB"}, rowid: 0,
			indexes: []ispec{{suffix: "k", cols: []int{1}, unique: true}}}
		for i := range n {
			k := fmt.Appendf(nil, "%080d", i*7919%max(n, 1)) // ~84-byte entries: 5 per index leaf
			s.rows = append(s.rows, row{id: int64(i + 1), vals: []any{nil, k, bytes.Repeat([]byte{byte(i)}, 220)}})
		}
		specs = append(specs, s)
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []SchemaEntry
	for _, s := range specs {
		entries = append(entries, s.entries(writeSpec(t, a, s))...)
	}
	borrows := a.borrows
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"table/1", "table/2", "index/0", "index/1", "index/2", "index/3"} {
		if borrows[k] == 0 {
			t.Errorf("no tail fix-up at %s exercised (have %v)", k, borrows)
		}
	}
	db := openDB(t, path)
	if err := Register(context.Background(), db, entries); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openDB(t, path)
	integrityOK(t, db)
	for _, s := range specs {
		var n, sum int64
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*), coalesce(sum(length(pad)),0) FROM %s", s.name)).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if n != int64(len(s.rows)) || sum != 220*n {
			t.Fatalf("%s: %d rows, %d pad bytes", s.name, n, sum)
		}
		if len(s.rows) < 300 {
			if err := buildRef(t, db, s, s.name+"_ref"); err != nil {
				t.Fatal(err)
			}
			checkSpec(t, db, s)
		}
	}
	integrityOK(t, db)
}

// failAppend writes a good table then one that fails, and checks that the
// file is byte-for-byte what it was.
func failAppend(t *testing.T, bad spec, want error) {
	t.Helper()
	path := newDB(t, 1024, "DELETE")
	before := fileBytes(t, path)
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	writeSpec(t, a, processedEvents("good", 3000, 9))
	if _, err = tryWrite(t, a, bad); !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
	if err := a.Commit(); !errors.Is(err, ErrState) {
		t.Fatalf("Commit after failure: %v", err)
	}
	if err := a.Abort(); err != nil {
		t.Fatalf("Abort after failure: %v", err)
	}
	if !bytes.Equal(fileBytes(t, path), before) {
		t.Fatal("file changed by a failed append")
	}
	db := openDB(t, path)
	integrityOK(t, db)
	if n := len(query(t, db, "SELECT * FROM seed")); n != 300 {
		t.Fatalf("seed table has %d rows", n)
	}
}

func TestUniqueViolation(t *testing.T) {
	s := deposits("dup", 2000, 7)
	s.rows[1500].vals[3], s.rows[1500].vals[4], s.rows[1500].vals[5] = s.rows[10].vals[3], s.rows[10].vals[4], s.rows[10].vals[5]
	failAppend(t, s, ErrUniqueViolation)

	// The error names the index, the key and both rows.
	path := newDB(t, 4096, "DELETE")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tryWrite(t, a, s)
	var uv *UniqueViolationError
	if !errors.As(err, &uv) || uv.Index != "dup_chain_ref" || uv.Rowids != [2]int64{11, 1501} || fmt.Sprint(uv.Values) != fmt.Sprint([]any{s.rows[10].vals[4], s.rows[10].vals[5], s.rows[10].vals[3]}) {
		t.Fatalf("error %#v", err)
	}
}

func TestUniqueAllowsNullsAndMixedNumbers(t *testing.T) {
	// NULLs are distinct; 2 and 2.0 are equal, as in SQLite.
	s := spec{name: "u", cols: []string{"a", "b"}, rowid: -1, indexes: []ispec{{suffix: "ab", cols: []int{0, 1}, unique: true}}}
	for i := range 50 {
		s.rows = append(s.rows, row{id: int64(i), vals: []any{nil, int64(1)}})
	}
	s.rows = append(s.rows, row{id: 100, vals: []any{int64(2), nil}}, row{id: 101, vals: []any{int64(2), nil}})
	path := newDB(t, 4096, "DELETE")
	appendSpecs(t, path, s)
	db := openDB(t, path)
	integrityOK(t, db)
	if err := buildRef(t, db, s, "u_ref"); err != nil {
		t.Fatal(err)
	}
	checkSpec(t, db, s)

	s.rows = append(s.rows, row{id: 102, vals: []any{int64(2), 3.0}}, row{id: 103, vals: []any{2.0, int64(3)}})
	failAppend(t, s, ErrUniqueViolation)
}

func TestRowOrder(t *testing.T) {
	s := processedEvents("order", 1000, 11)
	s.rows[600].id = s.rows[599].id
	failAppend(t, s, ErrRowOrder)
}

func TestBadValue(t *testing.T) {
	s := processedEvents("badval", 100, 12)
	s.rows[50].vals[3] = 7 // int, not int64
	failAppend(t, s, ErrValue)
	s = processedEvents("badnan", 100, 12)
	s.rows[50].vals[3] = math.NaN()
	failAppend(t, s, ErrValue)
	s = processedEvents("short", 100, 12)
	s.rows[50].vals = s.rows[50].vals[:4]
	failAppend(t, s, ErrValue)
}

func TestRefusesNonQuiescentFiles(t *testing.T) {
	path := newDB(t, 4096, "DELETE")
	if err := os.WriteFile(path+"-wal", []byte("not empty"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrNotQuiescent) {
		t.Fatalf("non-empty -wal: %v", err)
	}
	if err := os.WriteFile(path+"-wal", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(path)
	if err != nil {
		t.Fatalf("empty -wal: %v", err)
	}
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + "-wal")
	if err := os.WriteFile(path+"-journal", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrNotQuiescent) {
		t.Fatalf("-journal: %v", err)
	}
	os.Remove(path + "-journal")

	for _, c := range []struct {
		name string
		off  int
		val  byte
	}{{"reserved bytes", 20, 8}, {"UTF-16", 59, 2}, {"auto-vacuum", 55, 1}, {"magic", 0, 'X'}} {
		b := fileBytes(t, path)
		b[c.off] = c.val
		p := path + "." + strings.ReplaceAll(c.name, " ", "_")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(p); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	// A write by SQLite while appending is detected at Commit.
	a, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	writeSpec(t, a, processedEvents("pe", 100, 15))
	db := openDB(t, path)
	// (the write grows the file: it must survive the failed append)
	if _, err := db.Exec("WITH RECURSIVE g(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM g WHERE v < 2000) INSERT INTO seed(name) SELECT printf('meanwhile-%d-%0100d', v, v) FROM g"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := a.Commit(); !errors.Is(err, ErrNotQuiescent) {
		t.Fatalf("Commit after a concurrent write: %v", err)
	}
	db = openDB(t, path)
	integrityOK(t, db)
	if n := len(query(t, db, "SELECT * FROM seed")); n != 2300 {
		t.Fatalf("seed has %d rows after a concurrent write", n)
	}

	b := fileBytes(t, path)
	if err := os.WriteFile(path+".short", b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path + ".short"); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("truncated file: %v", err)
	}
}

// A database in WAL mode, closed cleanly (no -wal left), is appended to too.
func TestWALModeDatabase(t *testing.T) {
	path := newDB(t, 4096, "WAL")
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("-wal left after close")
	}
	s := processedEvents("pe", 3000, 13)
	appendSpecs(t, path, s)
	db := openDB(t, path)
	if err := buildRef(t, db, s, "pe_ref"); err != nil {
		t.Fatal(err)
	}
	integrityOK(t, db)
	checkSpec(t, db, s)
}

func TestRegisterRejects(t *testing.T) {
	path := newDB(t, 4096, "DELETE")
	s := processedEvents("pe", 10, 14)
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	roots := writeSpec(t, a, s)
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	ctx := context.Background()
	good := s.entries(roots)
	cases := map[string]func([]SchemaEntry) []SchemaEntry{
		"column count": func(e []SchemaEntry) []SchemaEntry {
			e[0].SQL = strings.Replace(e[0].SQL, ", duplicates INTEGER NOT NULL", "", 1)
			return e
		},
		"rowid column": func(e []SchemaEntry) []SchemaEntry {
			e[0].SQL = strings.Replace(e[0].SQL, "id INTEGER PRIMARY KEY", "id INTEGER", 1)
			return e
		},
		"index columns": func(e []SchemaEntry) []SchemaEntry {
			e[1].SQL = strings.Replace(e[1].SQL, "(source_hash)", "(first_offset)", 1)
			return e
		},
		"implicit index": func(e []SchemaEntry) []SchemaEntry {
			e[0].SQL = strings.Replace(e[0].SQL, "content_hash TEXT NOT NULL", "content_hash TEXT NOT NULL UNIQUE", 1)
			return e
		},
		"name in use": func(e []SchemaEntry) []SchemaEntry {
			e[1].Name, e[1].SQL = "seed_name", strings.Replace(e[1].SQL, "pe_source_hash", "seed_name", 1)
			e[0].Def.Indexes[0].Name = "seed_name"
			return e
		},
		"root outside file": func(e []SchemaEntry) []SchemaEntry { e[1].Root = 1 << 30; return e },
		"bad sql":           func(e []SchemaEntry) []SchemaEntry { e[0].SQL = "CREATE TABLE pe ("; return e },
	}
	for name, mut := range cases {
		es := s.entries(roots)
		if err := Register(ctx, db, mut(es)); !errors.Is(err, ErrSchema) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// Nothing was registered, and the pool's connections are not left writable.
	var ws int
	if err := db.QueryRow("PRAGMA writable_schema").Scan(&ws); err != nil || ws != 0 {
		t.Fatalf("writable_schema = %d %v", ws, err)
	}
	if err := Register(ctx, db, good); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openDB(t, path)
	integrityOK(t, db)
	if err := buildRef(t, db, s, "pe_ref"); err != nil {
		t.Fatal(err)
	}
	checkSpec(t, db, s)
}

// TestRandomShapes compares index order and uniqueness decisions with
// SQLite's own on mixed-type values (untyped columns keep them as given).
//
// Each shape is written a second time with its indexes built aside
// (FinishDeferred) and attached after another table's pages, which then
// come first, so every page number they hold is renumbered.
func TestRandomShapes(t *testing.T) {
	for seed := uint64(1); seed <= 24; seed++ {
		for _, deferred := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/deferred=%v", seed, deferred), func(t *testing.T) {
				randomShape(t, seed, deferred)
			})
		}
	}
}

func randomShape(t *testing.T, seed uint64, deferred bool) {
	s, ps := randomSpec(seed)
	specs := []spec{s}
	if deferred {
		specs = append(specs, filler("f", 50+int(seed)*40))
	}
	path := newDB(t, ps, "DELETE")
	refDB := openDB(t, path)
	refErr := buildRef(t, refDB, s, "r_ref")
	for _, f := range specs[1:] {
		if err := buildRef(t, refDB, f, f.name+"_ref"); err != nil {
			t.Fatal(err)
		}
	}
	refDB.Close()
	before := fileBytes(t, path)

	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := writeSpecs(t, a, specs, deferred)
	if refErr != nil {
		if !strings.Contains(refErr.Error(), "UNIQUE") || !errors.Is(err, ErrUniqueViolation) {
			t.Fatalf("engine: %v; writer: %v", refErr, err)
		}
		if !bytes.Equal(fileBytes(t, path), before) {
			t.Fatal("file changed by a failed append")
		}
		return
	}
	if err != nil {
		t.Fatalf("engine accepted the rows, writer: %v", err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	if err := Register(context.Background(), db, entries); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openDB(t, path)
	integrityOK(t, db)
	for _, s := range specs {
		checkSpec(t, db, s)
	}
}

// randomSpec is a table of random shape and rows (seeded), and a page size.
func randomSpec(seed uint64) (spec, int) {
	r := rand.New(rand.NewPCG(seed, 99))
	ps := []int{512, 1024, 4096, 65536}[r.IntN(4)]
	ncol := 1 + r.IntN(6)
	rowid := -1
	if r.IntN(2) == 0 {
		rowid = r.IntN(ncol)
	}
	s := spec{name: "r", rowid: rowid}
	for i := range ncol {
		if i == rowid {
			s.cols = append(s.cols, fmt.Sprintf("c%d INTEGER PRIMARY KEY", i))
		} else {
			s.cols = append(s.cols, fmt.Sprintf("c%d", i))
		}
	}
	for i := range 1 + r.IntN(3) {
		var cols []int
		for range 1 + r.IntN(min(3, ncol)) {
			cols = append(cols, r.IntN(ncol))
		}
		s.indexes = append(s.indexes, ispec{suffix: fmt.Sprint("i", i), cols: cols, unique: r.IntN(4) == 0})
	}
	domain := 2 + r.IntN(200) // small domains make equal keys and duplicates
	n := r.IntN(3000)
	if r.IntN(5) == 0 {
		n = r.IntN(3)
	}
	id := int64(r.IntN(1000)) - 500
	for range n {
		id += 1 + int64(r.IntN(1000))
		vals := make([]any, ncol)
		for c := range vals {
			vals[c] = randValue(r, domain, ps)
		}
		s.rows = append(s.rows, row{id: id, vals: vals})
	}
	// The expected row count sizes buffers only: none, too few,
	// exact or too many give the same tables and indexes.
	s.rowsHint = []int{0, n / 3, n, 2*n + 1}[r.IntN(4)]
	return s, ps
}

func randValue(r *rand.Rand, domain, pageSize int) any {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		switch r.IntN(8) {
		case 0:
			return []int64{0, 1, -1, math.MinInt64, math.MaxInt64, 1 << 53, 1<<53 + 1, -(1 << 40)}[r.IntN(8)]
		default:
			return int64(r.IntN(domain) - domain/2)
		}
	case 2:
		switch r.IntN(6) {
		case 0:
			return []float64{0.5, -0.5, 1e300, -1e300, 9.223372036854775807e18, -9.223372036854775808e18, 9007199254740993.0, 3.0, math.Copysign(0, -1), 0}[r.IntN(10)]
		default:
			return float64(r.IntN(domain)-domain/2) / 2 // half of them integral: equal to ints
		}
	case 3:
		l := r.IntN(12)
		if r.IntN(10) == 0 {
			l = r.IntN(3 * pageSize) // overflows
		}
		b := make([]byte, l)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(1+domain%4))
		}
		return string(b)
	case 4:
		l := r.IntN(8)
		if r.IntN(10) == 0 {
			l = r.IntN(2 * pageSize)
		}
		b := make([]byte, l)
		for i := range b {
			b[i] = byte(r.IntN(1 + domain%3))
		}
		return b
	}
	return int64(r.IntN(domain))
}

// TestPayloadBoundaries sweeps record sizes through every local/overflow
// boundary of table and index cells (X, M, K for one and two overflow pages),
// with the indexes built in place and aside (see TestRandomShapes).
func TestPayloadBoundaries(t *testing.T) {
	for _, ps := range []int{512, 1024} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			s := spec{name: "p", cols: []string{"id INTEGER PRIMARY KEY", "v TEXT", "b BLOB"}, rowid: 0,
				indexes: []ispec{{suffix: "v", cols: []int{1}}, {suffix: "b", cols: []int{2}}}}
			for l := range 3 * ps {
				v := strings.Repeat(string(rune('a'+l%26)), l)
				s.rows = append(s.rows, row{id: int64(l + 1), vals: []any{nil, v, []byte(v)}})
			}
			for _, deferred := range []bool{false, true} {
				specs := []spec{s}
				if deferred { // the overflow pages and chains renumbered too
					specs = append(specs, filler("f", 500))
				}
				path := newDB(t, ps, "DELETE")
				appendSpecsWith(t, path, deferred, specs...)
				db := openDB(t, path)
				integrityOK(t, db)
				for _, s := range specs {
					if err := buildRef(t, db, s, s.name+"_ref"); err != nil {
						t.Fatal(err)
					}
					checkSpec(t, db, s)
				}
			}
		})
	}
}

func BenchmarkAppend1M(b *testing.B) {
	const n = 1_000_000
	s := processedEvents("processed_events", 0, 1)
	r := processedEvents("x", 2000, 1).rows
	for b.Loop() {
		b.StopTimer()
		path := newDB(b, 4096, "DELETE")
		b.StartTimer()
		a, err := Open(path, WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			b.Fatal(err)
		}
		tw, err := a.Table(s.def())
		if err != nil {
			b.Fatal(err)
		}
		vals := make([]any, len(peCols))
		for i := range n {
			copy(vals, r[i%len(r)].vals)
			vals[5] = int64(uint64(i) * 0x9E3779B97F4A7C15) // distinct, random-looking hashes
			if err := tw.Add(int64(i+1), vals); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := tw.Finish(); err != nil {
			b.Fatal(err)
		}
		if err := a.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// Pages committed but never registered (crash between Commit and Register)
// are reported by integrity_check and removed by VACUUM.
func TestUnregisteredPagesRecoverable(t *testing.T) {
	path := newDB(t, 4096, "DELETE")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	writeSpec(t, a, processedEvents("pe", 2000, 16))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	var msg string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&msg); err != nil || !strings.Contains(msg, "never used") {
		t.Fatalf("integrity_check before VACUUM: %q %v", msg, err)
	}
	if _, err := db.Exec("VACUUM"); err != nil {
		t.Fatal(err)
	}
	integrityOK(t, db)
	if n := len(query(t, db, "SELECT * FROM seed")); n != 300 {
		t.Fatalf("seed has %d rows", n)
	}
}

// A database in schema format 1 to 3 has no serial types 8 and 9 (the
// integers 0 and 1 without a body): the writer gives them a body there,
// and refuses ready-made records, which are encoded for format 4.
func TestSchemaFormatBelow4(t *testing.T) {
	if rec, _ := appendRecord(nil, []any{nil, int64(0), int64(1), int64(2)}, false, 0); !bytes.Equal(rec[:5], []byte{5, 0, 1, 1, 1}) {
		t.Fatalf("format 1 record header % x, want 05 00 01 01 01", rec[:5])
	}
	if rec, _ := appendRecord(nil, []any{nil, int64(0), int64(1), int64(2)}, true, 0); !bytes.Equal(rec[:5], []byte{5, 0, 8, 9, 1}) {
		t.Fatalf("format 4 record header % x, want 05 00 08 09 01", rec[:5])
	}
	path := newDB(t, 4096, "DELETE")
	b := fileBytes(t, path)
	binary.BigEndian.PutUint32(b[44:], 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := spec{name: "flags", cols: []string{"id INTEGER PRIMARY KEY", "b INTEGER", "name TEXT"}, rowid: 0,
		indexes: []ispec{{suffix: "b", cols: []int{1}}}}
	for i := range 500 {
		s.rows = append(s.rows, row{id: int64(i + 1), vals: []any{nil, []int64{0, 1, 2, -1, 1 << 40}[i%5], fmt.Sprint("n", i)}})
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.fmt4 {
		t.Fatal("a schema format 1 file was taken for format 4")
	}
	entries := s.entries(writeSpec(t, a, s))
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	if err := Register(context.Background(), db, entries); err != nil {
		t.Fatal(err)
	}
	integrityOK(t, db)
	if err := buildRef(t, db, s, "flags_ref"); err != nil {
		t.Fatal(err)
	}
	checkSpec(t, db, s)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	if sf := binary.BigEndian.Uint32(fileBytes(t, path)[44:]); sf != 1 {
		t.Fatalf("schema format %d after the engine's writes, want 1 still", sf)
	}
	a, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := a.Table(TableDef{Name: "more", Cols: 2, RowidCol: 0})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := AppendRecord(nil, []any{nil, int64(1)}, 0)
	if err := tw.AddRecord(1, rec); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("AddRecord into a format 1 file: %v, want ErrUnsupported", err)
	}
	a.Abort()
}
