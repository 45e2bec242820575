package sqlitefile

import (
	"cmp"
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
// key is the whole key.
func TestIndexSortOrder(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			n := []int{3000, 5000, 40000}[seed%3]
			nKey := 1 + r.IntN(3)
			intsOnly := seed%4 == 0
			domain := 2 + r.IntN(5000)
			ib := &indexBuf{def: IndexDef{Columns: make([]int, nKey)}}
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
				return cmp.Or(cmp.Compare(x.k, y.k), compareKeys(ib.rec(x), ib.rec(y), nKey), cmp.Compare(x.off, y.off))
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
