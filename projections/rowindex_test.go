package projections

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRowIndex: across growth and a reservation made part-way, every id
// added under a hash comes back in order (a shared hash keeps them all),
// and absent hashes are absent, including hashes whose probes collide
// (few distinct low bits). Keys within the reservation do not grow it.
func TestRowIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x rowIndex
	want := map[int64][]int64{}
	reserved := 0
	for i := range 200_000 {
		if i == 20_000 {
			x.reserve(x.len() + 180_000)
			reserved = len(x.slots)
			x.warm([]*Event{{sourceHash: 7}, {sourceHash: -1}})
		}
		var h int64
		switch rng.IntN(4) {
		case 0:
			h = int64(rng.IntN(1000)) << 40 // clustered: shared high bits only
		case 1:
			h = int64(rng.IntN(50_000)) // small values, many repeats
		default:
			h = int64(rng.Uint64())
		}
		x.add(h, int64(i))
		want[h] = append(want[h], int64(i))
	}
	if x.len() != len(want) {
		t.Fatalf("len %d, want %d", x.len(), len(want))
	}
	if len(x.slots) != reserved || reserved < 2*(x.len()+1) {
		t.Fatalf("%d slots after reserving %d, for %d keys", len(x.slots), reserved, x.len())
	}
	for h, ids := range want {
		if !x.has(h) {
			t.Fatalf("hash %d lost", h)
		}
		if got := x.ids(h); !slices.Equal(got, ids) {
			t.Fatalf("hash %d: ids %v, want %v", h, got, ids)
		}
	}
	for range 100_000 {
		h := int64(rng.Uint64())
		if _, ok := want[h]; ok {
			continue
		}
		if x.has(h) || x.ids(h) != nil {
			t.Fatalf("absent hash %d found", h)
		}
	}
	var empty rowIndex
	empty.warm([]*Event{{sourceHash: 5}})
	if empty.has(5) || empty.ids(5) != nil || empty.len() != 0 {
		t.Fatal("an empty index holds something")
	}
}
