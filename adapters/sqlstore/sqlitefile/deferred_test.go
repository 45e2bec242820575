package sqlitefile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// writeDeferred writes s's rows and finishes it with FinishDeferred.
func writeDeferred(t testing.TB, a *Appender, s spec) (uint32, *PendingIndexes, error) {
	t.Helper()
	tw, err := a.Table(s.def())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.rows {
		if err := tw.Add(r.id, r.vals); err != nil {
			t.Fatalf("table %s rowid %d: %v", s.name, r.id, err)
		}
	}
	return tw.FinishDeferred()
}

// filler is a table with an index, written while another table's indexes
// are built, so they land after it in the file.
func filler(name string, n int) spec {
	s := spec{name: name, cols: []string{"id INTEGER PRIMARY KEY", "v TEXT"}, rowid: 0,
		indexes: []ispec{{suffix: "v", cols: []int{1}}}}
	for i := range n {
		s.rows = append(s.rows, row{id: int64(i + 1), vals: []any{nil, fmt.Sprintf("f%05d", (i*7919)%n)}})
	}
	return s
}

// TestDeferredIndexesRandomShapes writes TestRandomShapes' tables with
// their indexes built aside: each table's index pages are attached after
// another table's pages (and that one's after them), so every page number
// they hold is renumbered. SQLite must read the same rows and index
// entries as from its own engine, and a unique violation must fail the
// append at Attach and leave the file as it was.
func TestDeferredIndexesRandomShapes(t *testing.T) {
	for seed := uint64(1); seed <= 24; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s, ps := randomSpec(seed)
			f := filler("f", 50+int(seed)*40)
			path := newDB(t, ps, "DELETE")
			refDB := openDB(t, path)
			refErr := buildRef(t, refDB, s, "r_ref")
			if err := buildRef(t, refDB, f, "f_ref"); err != nil {
				t.Fatal(err)
			}
			refDB.Close()
			before := fileBytes(t, path)

			a, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			sRoot, sIx, err := writeDeferred(t, a, s)
			if err != nil {
				t.Fatal(err)
			}
			fRoot, fIx, err := writeDeferred(t, a, f)
			if err != nil {
				t.Fatal(err)
			}
			fRoots, err := fIx.Attach()
			if err != nil {
				t.Fatal(err)
			}
			sRoots, err := sIx.Attach()
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
			entries := append(s.entries(Roots{Table: sRoot, Indexes: sRoots}), f.entries(Roots{Table: fRoot, Indexes: fRoots})...)
			if err := Register(context.Background(), db, entries); err != nil {
				t.Fatal(err)
			}
			db.Close()
			db = openDB(t, path)
			integrityOK(t, db)
			checkSpec(t, db, s)
			checkSpec(t, db, f)
		})
	}
}

// TestDeferredIndexesOverflow sweeps index entries through every
// local/overflow boundary (TestPayloadBoundaries' rows): their overflow
// pages and chains, and the overflow page numbers in leaf and interior
// cells, are renumbered at Attach.
func TestDeferredIndexesOverflow(t *testing.T) {
	for _, ps := range []int{512, 1024} {
		t.Run(fmt.Sprint(ps), func(t *testing.T) {
			s := spec{name: "p", cols: []string{"id INTEGER PRIMARY KEY", "v TEXT", "b BLOB"}, rowid: 0,
				indexes: []ispec{{suffix: "v", cols: []int{1}}, {suffix: "b", cols: []int{2}}}}
			for l := range 3 * ps {
				v := strings.Repeat(string(rune('a'+l%26)), l)
				s.rows = append(s.rows, row{id: int64(l + 1), vals: []any{nil, v, []byte(v)}})
			}
			f := filler("f", 500)
			path := newDB(t, ps, "DELETE")
			a, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			sRoot, sIx, err := writeDeferred(t, a, s)
			if err != nil {
				t.Fatal(err)
			}
			fRoots := writeSpec(t, a, f) // built in place, between
			sRoots, err := sIx.Attach()
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
			db := openDB(t, path)
			entries := append(s.entries(Roots{Table: sRoot, Indexes: sRoots}), f.entries(fRoots)...)
			if err := Register(context.Background(), db, entries); err != nil {
				t.Fatal(err)
			}
			integrityOK(t, db)
			for _, r := range []spec{s, f} {
				if err := buildRef(t, db, r, r.name+"_ref"); err != nil {
					t.Fatal(err)
				}
			}
			checkSpec(t, db, s)
			checkSpec(t, db, f)
		})
	}
}

// TestDeferredIndexesState: Commit refuses indexes left unattached (and
// the file is left as it was), and a second Attach is refused.
func TestDeferredIndexesState(t *testing.T) {
	path := newDB(t, 4096, "DELETE")
	before := fileBytes(t, path)
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := writeDeferred(t, a, filler("f", 100)); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "not attached") {
		t.Fatalf("commit with unattached indexes: %v, want ErrState", err)
	}
	if !bytes.Equal(fileBytes(t, path), before) {
		t.Fatal("file changed by a refused commit")
	}

	a, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ix, err := writeDeferred(t, a, filler("f", 100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Attach(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Attach(); !errors.Is(err, ErrState) {
		t.Fatalf("second attach: %v, want ErrState", err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
}
