package twophase

import (
	"math"
	"testing"
	"time"
)

type delivery struct {
	session, seq uint64
	fresh        bool
}

func TestReplayWindow(t *testing.T) {
	cases := []struct {
		name  string
		steps []delivery
	}{
		{"in order", []delivery{{1, 1, true}, {1, 2, true}, {1, 3, true}, {1, 4, true}}},
		{"a repeat", []delivery{{1, 1, true}, {1, 1, false}, {1, 2, true}, {1, 2, false}, {1, 1, false}}},
		{"the very first envelope at session 0, seq 0", []delivery{{0, 0, true}, {0, 0, false}, {0, 1, true}}},
		{"out of order within the window", []delivery{{1, 10, true}, {1, 8, true}, {1, 9, true}, {1, 8, false}, {1, 9, false}, {1, 11, true}, {1, 7, true}}},
		{"63 behind is still in the window", []delivery{{1, 100, true}, {1, 37, true}, {1, 37, false}}},
		{"64 behind is out of the window", []delivery{{1, 100, true}, {1, 36, false}}},
		{"the window slides", []delivery{{1, 1, true}, {1, 2, true}, {1, 60, true}, {1, 3, true}, {1, 66, true}, {1, 3, false}, {1, 4, true}, {1, 60, false}}},
		{"a jump of 64 or more clears the window", []delivery{{1, 5, true}, {1, 69, true}, {1, 6, true}, {1, 5, false}, {1, 1000, true}, {1, 937, true}, {1, 936, false}, {1, 69, false}}},
		{"a jump of exactly 63 keeps the bits", []delivery{{1, 5, true}, {1, 68, true}, {1, 5, false}, {1, 6, true}}},
		{"a new session resets", []delivery{{1, 50, true}, {2, 0, true}, {2, 0, false}, {2, 1, true}, {2, 50, true}, {2, 49, true}}},
		{"an older session is refused", []delivery{{5, 1, true}, {4, 1, false}, {4, 100, false}, {5, 2, true}}},
		{"the highest sequence", []delivery{{1, math.MaxUint64, true}, {1, math.MaxUint64, false}, {1, math.MaxUint64 - 63, true}, {1, math.MaxUint64 - 64, false}}},
		{"the highest session", []delivery{{math.MaxUint64, 0, true}, {math.MaxUint64, 0, false}, {math.MaxUint64 - 1, 9, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p peerState
			for i, d := range c.steps {
				if got := p.fresh(d.session, d.seq); got != d.fresh {
					t.Fatalf("step %d (session %d, seq %d): fresh = %v, want %v", i, d.session, d.seq, got, d.fresh)
				}
			}
		})
	}
}

// Every sequence number of a session is fresh exactly once, in any order
// within the window.
func TestReplayWindowEachOnce(t *testing.T) {
	var p peerState
	order := []uint64{}
	for base := uint64(0); base < 640; base += 64 {
		for i := uint64(0); i < 64; i++ {
			order = append(order, base+(i*37)%64) // a permutation of the block
		}
	}
	for i, seq := range order {
		if !p.fresh(3, seq) {
			t.Fatalf("step %d: seq %d refused on its first delivery", i, seq)
		}
		if p.fresh(3, seq) {
			t.Fatalf("step %d: seq %d accepted twice", i, seq)
		}
	}
}

func TestTokenBucket(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var tokens float64
	var refilled time.Time
	take := func(at time.Time, n int) (allowed int) {
		for range n {
			if allow(&tokens, &refilled, at, 2, 3) { // 2 per second, burst 3
				allowed++
			}
		}
		return allowed
	}
	steps := []struct {
		name   string
		at     time.Time
		asks   int
		allows int
	}{
		{"a new bucket is full", t0, 5, 3},
		{"nothing refilled at the same instant", t0, 1, 0},
		{"a quarter second is half a token", t0.Add(250 * time.Millisecond), 1, 0},
		{"another quarter completes it", t0.Add(500 * time.Millisecond), 2, 1},
		{"one second is two tokens", t0.Add(1500 * time.Millisecond), 3, 2},
		{"a clock going back refills nothing", t0.Add(time.Second), 1, 0},
		{"a long pause refills up to the burst only", t0.Add(time.Hour), 10, 3},
	}
	for _, s := range steps {
		if got := take(s.at, s.asks); got != s.allows {
			t.Fatalf("%s: %d of %d allowed, want %d", s.name, got, s.asks, s.allows)
		}
	}
	if !refilled.Equal(t0.Add(time.Hour)) {
		t.Fatalf("refilled at %v", refilled)
	}
}
