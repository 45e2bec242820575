package sqlitefile

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIndexSortOrder checks the radix-based index sort against a plain
// comparison sort (sort key, then the full key, then arena order) on
// entry counts on both sides of the radix cut-over: random mixed values
// from small domains (equal sort keys and equal full keys), one and
// several key columns, and all-integer single-column indexes whose sort
// key is the whole key (kept as integers, not records, unless a key of
// another type came).
func TestIndexSortOrder(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			n := []int{3000, 5000, 40000}[seed%3]
			nKey := 1 + r.IntN(3)
			intsOnly := seed%4 == 0
			domain := 2 + r.IntN(5000)
			ib := newIndexBuf(IndexDef{Columns: make([]int, nKey)}, 0, true)
			for i := range n {
				vals := make([]any, nKey+1)
				for c := range nKey {
					if intsOnly {
						vals[c] = int64(r.IntN(domain)) - int64(domain/2)
						if r.IntN(50) == 0 {
							vals[c] = int64(r.Uint64()) // the top digits too
						}
					} else {
						vals[c] = randValue(r, domain, 4096)
					}
				}
				vals[nKey] = int64(i) // the rowid
				rec, _ := appendRecord(nil, vals, true, -1)
				fs, err := splitRecord(rec, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := ib.addFields(fs); err != nil {
					t.Fatal(err)
				}
			}
			want := slices.Clone(ib.ents)
			exact := true
			for _, e := range want {
				it := newRecordIter(ib.rec(e))
				if f := it.next(); f.class() != 1 || f.isFloat() {
					exact = false
				}
			}
			if intsOnly && !exact {
				t.Fatal("integer keys not seen as integers")
			}
			for i := range want {
				want[i].k = sortKey(ib.rec(want[i]), exact)
			}
			slices.SortFunc(want, func(x, y ientry) int {
				return cmp.Or(cmp.Compare(x.k, y.k), compareKeys(slices.Clone(ib.rec(x)), ib.rec(y), nKey), cmp.Compare(x.v, y.v))
			})
			ib.sort()
			for i := range want {
				if ib.ents[i] != want[i] {
					t.Fatalf("entry %d of %d: got %+v, want %+v", i, n, ib.ents[i], want[i])
				}
			}
		})
	}
}

// TestIntegerKeyIndexes covers one-column indexes kept as integer keys
// and rowids: a unique one refuses a repeated key, naming it and both
// rows; one whose keys turn to other types part way (a text, a float
// equal to an integer, a NULL) moves its entries to records, and SQLite
// reads the same order and look-ups as from its own engine.
func TestIntegerKeyIndexes(t *testing.T) {
	s := spec{name: "k", cols: []string{"id INTEGER PRIMARY KEY", "h INTEGER", "v"}, rowid: 0,
		indexes: []ispec{{suffix: "h", cols: []int{1}, unique: true}, {suffix: "v", cols: []int{2}}}}
	for i := range 3000 {
		h := int64(uint64(i) * 0x9E3779B97F4A7C15) // distinct, all sizes
		v := any(int64(i % 97))
		switch i {
		case 2000:
			v = "text"
		case 2001:
			v = 5.0 // equal to the integer 5
		case 2002:
			v = nil
		}
		s.rows = append(s.rows, row{id: int64(i + 1), vals: []any{nil, h, v}})
	}
	path := newDB(t, 1024, "DELETE")
	appendSpecs(t, path, s)
	db := openDB(t, path)
	integrityOK(t, db)
	if err := buildRef(t, db, s, "k_ref"); err != nil {
		t.Fatal(err)
	}
	checkSpec(t, db, s)

	s.rows[2500].vals[1] = s.rows[700].vals[1]
	a, err := Open(newDB(t, 1024, "DELETE"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tryWrite(t, a, s)
	var uv *UniqueViolationError
	if !errors.As(err, &uv) || uv.Index != "k_h" || uv.Rowids != [2]int64{701, 2501} || fmt.Sprint(uv.Values) != fmt.Sprint([]any{s.rows[700].vals[1]}) {
		t.Fatalf("error %#v", err)
	}
}
