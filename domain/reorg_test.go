package domain

import (
	"slices"
	"testing"
)

// forkHash is the hash of block n on fork f.
func forkHash(fork byte, n uint64) Hash32 { return Hash32{fork, byte(n >> 8), byte(n)} }

// keptRange is what an indexer keeps of fork 1 for blocks [from, to].
func keptRange(from, to uint64) []ScannedBlock {
	var out []ScannedBlock
	for n := from; n <= to; n++ {
		out = append(out, ScannedBlock{Number: n, Hash: forkHash(1, n)})
	}
	return out
}

// reorged is the chain now: fork 1 up to forkAt, fork 2 above it up to
// tip.
func reorged(forkAt, tip uint64) map[uint64]Hash32 {
	m := map[uint64]Hash32{}
	for n := uint64(0); n <= tip; n++ {
		m[n] = forkHash(1, n)
		if n > forkAt {
			m[n] = forkHash(2, n)
		}
	}
	return m
}

func TestFindForkPoint(t *testing.T) {
	window := keptRange(88, 100) // a cursor at 100 with a 12-block window
	gaps := []ScannedBlock{{100, forkHash(1, 100)}, {50, forkHash(1, 50)}, {99, forkHash(1, 99)}, {60, forkHash(1, 60)}}
	cases := []struct {
		name      string
		kept      []ScannedBlock
		canonical map[uint64]Hash32
		start     uint64
		want      ForkPoint
	}{
		{"depth 1", window, reorged(99, 101), 0, ForkPoint{ForkFound, 99, forkHash(1, 99), 88}},
		{"depth 5", window, reorged(95, 101), 0, ForkPoint{ForkFound, 95, forkHash(1, 95), 88}},
		{"depth 11", window, reorged(89, 101), 0, ForkPoint{ForkFound, 89, forkHash(1, 89), 88}},
		{"depth 12, the window", window, reorged(88, 101), 0, ForkPoint{ForkFound, 88, forkHash(1, 88), 88}},
		{"depth 13, past the window", window, reorged(87, 101), 0, ForkPoint{Verdict: ForkBeyondWindow, OldestKept: 88}},
		{"no reorg", window, reorged(100, 100), 0, ForkPoint{ForkFound, 100, forkHash(1, 100), 88}},
		{"chain shorter now", window, reorged(97, 97), 0, ForkPoint{ForkFound, 97, forkHash(1, 97), 88}},
		{"only range ends kept (a catch-up)", gaps, reorged(70, 101), 0, ForkPoint{ForkFound, 60, forkHash(1, 60), 50}},
		{"everything since start replaced", keptRange(95, 100), reorged(90, 101), 95, ForkPoint{ForkBeforeStart, 94, Hash32{}, 95}},
		{"everything since genesis replaced", keptRange(0, 3), reorged(0, 5), 0, ForkPoint{ForkFound, 0, forkHash(1, 0), 0}},
		{"start 0, block 0 not canonical", keptRange(0, 3), map[uint64]Hash32{0: {9}}, 0, ForkPoint{ForkBeforeStart, 0, Hash32{}, 0}},
		{"start below the kept blocks", keptRange(95, 100), reorged(90, 101), 94, ForkPoint{Verdict: ForkBeyondWindow, OldestKept: 95}},
		{"hash unknown is no match", window, map[uint64]Hash32{}, 0, ForkPoint{Verdict: ForkBeyondWindow, OldestKept: 88}},
		{"nothing kept", nil, reorged(50, 101), 0, ForkPoint{Verdict: ForkBeyondWindow}},
	}
	for _, c := range cases {
		if got := FindForkPoint(c.kept, c.canonical, c.start); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
		// The order the blocks come in does not matter.
		rev := slices.Clone(c.kept)
		slices.Reverse(rev)
		if got := FindForkPoint(rev, c.canonical, c.start); got != c.want {
			t.Errorf("%s, kept reversed: got %+v, want %+v", c.name, got, c.want)
		}
	}
	// A zero hash kept (never recorded) never matches a chain that does
	// not reach the block.
	if got := FindForkPoint([]ScannedBlock{{Number: 7}}, map[uint64]Hash32{}, 0); got.Verdict != ForkBeyondWindow {
		t.Errorf("zero hash matched: %+v", got)
	}
}

func TestScanHashesFrom(t *testing.T) {
	cases := []struct{ from, to, tip, window, want uint64 }{
		{101, 101, 101, 12, 101}, // one new block at the tip
		{90, 105, 110, 12, 98},   // the part within the window of the tip
		{1, 500, 100_000, 12, 500},
		{0, 5, 5, 12, 0}, // a chain shorter than the window
		{100, 100, 130, 12, 100},
	}
	for _, c := range cases {
		if got := ScanHashesFrom(c.from, c.to, c.tip, c.window); got != c.want {
			t.Errorf("ScanHashesFrom(%d, %d, tip %d, window %d) = %d, want %d", c.from, c.to, c.tip, c.window, got, c.want)
		}
	}
}

func TestChainScannedBlocks(t *testing.T) {
	e := ChainScanned{From: 90, To: 100, ToHash: Hash32{100}, PriorHashes: []Hash32{{98}, {99}}, Window: 12}
	want := []ScannedBlock{{98, Hash32{98}}, {99, Hash32{99}}, {100, Hash32{100}}}
	if got := e.Blocks(); !slices.Equal(got, want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	if got := e.KeepFrom(); got != 88 {
		t.Fatalf("keep from %d, want 88", got)
	}
	// A scan recorded before scans carried a window: the old fixed rewind.
	old := ChainScanned{To: 100, ToHash: Hash32{1}}
	if got := old.Blocks(); !slices.Equal(got, []ScannedBlock{{100, Hash32{1}}}) || old.KeepFrom() != 90 {
		t.Fatalf("old scan: blocks %v keep from %d", got, old.KeepFrom())
	}
	malformed := ChainScanned{To: 1, ToHash: Hash32{1}, PriorHashes: []Hash32{{7}, {8}, {9}}}
	if got := malformed.Blocks(); !slices.Equal(got, []ScannedBlock{{0, Hash32{9}}, {1, Hash32{1}}}) {
		t.Fatalf("more prior hashes than blocks below: %v", got)
	}
	if got := (ChainScanned{To: 3, Window: 12}).KeepFrom(); got != 0 {
		t.Fatalf("keep from %d below block 12", got)
	}
	if ReorgWindow(0) != DefaultConfirmationDepth || ReorgWindow(12) != 12 {
		t.Fatalf("ReorgWindow(0) = %d, ReorgWindow(12) = %d", ReorgWindow(0), ReorgWindow(12))
	}
}
