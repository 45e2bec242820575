package sqlitefile

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

// TestAddRecordMatchesAdd: rows encoded with AppendRecord and appended
// with AddRecord give byte for byte the file that Add gives from the same
// values (tables, overflow pages, indexes); DecodeRecord gives the values
// back.
func TestAddRecordMatchesAdd(t *testing.T) {
	for _, ps := range []int{4096, 1024} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			specs := []spec{
				processedEvents("processed_events", 5000, 1),
				deposits("deposits", 3000, 2),
				blobs("blobs", 300, 3),
				processedEvents("pe_empty", 0, 4),
				deposits("dep_one", 1, 5),
			}
			viaAdd := newDB(t, ps, "DELETE")
			appendSpecs(t, viaAdd, specs...)

			viaRecord := newDB(t, ps, "DELETE")
			a, err := Open(viaRecord)
			if err != nil {
				t.Fatal(err)
			}
			var entries []SchemaEntry
			var rec []byte
			for _, s := range specs {
				tw, err := a.Table(s.def())
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range s.rows {
					if rec, err = AppendRecord(rec[:0], r.vals, s.rowid); err != nil {
						t.Fatal(err)
					}
					back, err := DecodeRecord(rec, nil)
					if err != nil {
						t.Fatal(err)
					}
					want := slices.Clone(r.vals)
					if s.rowid >= 0 {
						want[s.rowid] = nil
					}
					if normRow(back) != normRow(want) {
						t.Fatalf("%s row %d decodes as %s, want %s", s.name, r.id, normRow(back), normRow(want))
					}
					if err := tw.AddRecord(r.id, rec); err != nil {
						t.Fatalf("%s row %d: %v", s.name, r.id, err)
					}
				}
				roots, err := tw.Finish()
				if err != nil {
					t.Fatal(err)
				}
				entries = append(entries, s.entries(roots)...)
			}
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
			db := openDB(t, viaRecord)
			if err := Register(t.Context(), db, entries); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if !slices.Equal(fileBytes(t, viaAdd), fileBytes(t, viaRecord)) {
				t.Fatal("AddRecord wrote a different file than Add")
			}
			db = openDB(t, viaRecord)
			integrityOK(t, db)
			for _, s := range specs {
				if err := buildRef(t, db, s, s.name+"_ref"); err != nil {
					t.Fatal(err)
				}
				checkSpec(t, db, s)
			}
		})
	}
}

// TestAddRecordRejects: records that do not fit the table, or are cut
// short, are refused with typed errors and leave the file as it was.
func TestAddRecordRejects(t *testing.T) {
	s := processedEvents("pe", 10, 1)
	good, err := AppendRecord(nil, s.rows[0].vals, s.rowid)
	if err != nil {
		t.Fatal(err)
	}
	rowidSet, _ := AppendRecord(nil, s.rows[0].vals, -1)
	short, _ := AppendRecord(nil, s.rows[0].vals[:3], s.rowid)
	for name, rec := range map[string][]byte{
		"truncated":       good[:len(good)-3],
		"trailing bytes":  append(slices.Clone(good), 0),
		"rowid not null":  rowidSet,
		"too few columns": short,
		"empty":           {},
		"header too long": {0x7f, 1, 1},
		"serial type 10":  {2, 10},
		"serial type cut": {2, 0x81},
	} {
		t.Run(name, func(t *testing.T) {
			path := newDB(t, 4096, "DELETE")
			before := fileBytes(t, path)
			a, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			tw, err := a.Table(s.def())
			if err != nil {
				t.Fatal(err)
			}
			if err := tw.AddRecord(1, good); err != nil {
				t.Fatal(err)
			}
			err = tw.AddRecord(2, rec)
			if !errors.Is(err, ErrValue) {
				t.Fatalf("AddRecord(%x): %v, want a ValueError", rec, err)
			}
			if err := a.Commit(); !errors.Is(err, ErrState) {
				t.Fatalf("Commit after a refused record: %v", err)
			}
			if !slices.Equal(before, fileBytes(t, path)) {
				t.Fatal("a refused record changed the file")
			}
		})
	}
	if _, err := AppendRecord(nil, []any{int64(1), struct{}{}}, -1); !errors.Is(err, ErrValue) {
		t.Fatalf("AppendRecord of a struct: %v", err)
	}
	if _, err := DecodeRecord([]byte{3, 1}, nil); !errors.Is(err, ErrRecord) {
		t.Fatalf("DecodeRecord of a cut record: %v", err)
	}
}

// TestAppendRecordPointers: *int64 and *string values encode as the
// values they point to.
func TestAppendRecordPointers(t *testing.T) {
	for _, vals := range [][]any{
		{int64(0), int64(1), int64(-1), int64(1 << 40), "", "text", nil, 2.5, []byte{1, 2}},
		{int64(math.MaxInt64), int64(math.MinInt64), string(make([]byte, 300))},
	} {
		ptrs := make([]any, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case int64:
				ptrs[i] = &x
			case string:
				ptrs[i] = &x
			default:
				ptrs[i] = v
			}
		}
		want, err := AppendRecord(nil, vals, -1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendRecord(nil, ptrs, -1)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("pointers encode as %x, values as %x", got, want)
		}
	}
	if _, err := AppendRecord(nil, []any{(*string)(nil)}, -1); err == nil {
		t.Fatal("a nil *string was encoded")
	}
}

// TestRecordValues: every kind of value comes back with its kind and
// value, text and blobs without a copy; a damaged record is an ErrRecord.
func TestRecordValues(t *testing.T) {
	vals := []any{nil, int64(0), int64(1), int64(-1), int64(math.MinInt64), int64(1 << 40), 2.5, "text", []byte{0, 1, 2}, ""}
	rec, err := AppendRecord(nil, vals, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RecordValues(rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []RecordValue{{Kind: NullValue}, {Kind: IntValue, Int: 0}, {Kind: IntValue, Int: 1}, {Kind: IntValue, Int: -1},
		{Kind: IntValue, Int: math.MinInt64}, {Kind: IntValue, Int: 1 << 40}, {Kind: FloatValue, Float: 2.5},
		{Kind: TextValue, Bytes: []byte("text")}, {Kind: BlobValue, Bytes: []byte{0, 1, 2}}, {Kind: TextValue, Bytes: []byte{}}}
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.Int != w.Int || g.Float != w.Float || !bytes.Equal(g.Bytes, w.Bytes) {
			t.Errorf("value %d: %+v, want %+v", i, g, w)
		}
	}
	if &got[7].Bytes[0] != &rec[len(rec)-len("text")-3] {
		t.Error("text was copied, not read in place")
	}
	if _, err := RecordValues(rec[:len(rec)-1], nil); !errors.Is(err, ErrRecord) {
		t.Fatalf("a record one byte short: %v, want ErrRecord", err)
	}
}
