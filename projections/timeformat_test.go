package projections_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/projections"
)

// TestFormatTime: the fixed-layout formatter writes what time.Format
// writes with the same layout, for times across the years (leap days,
// zero and full nanoseconds, other zones, years outside 0–9999).
func TestFormatTime(t *testing.T) {
	const layout = "2006-01-02T15:04:05.000000000Z"
	rng := rand.New(rand.NewPCG(5, 6))
	times := []time.Time{
		time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 22, 5, 30, 0, 123, time.FixedZone("x", -7*3600)),
	}
	for range 100000 {
		times = append(times, time.Unix(rng.Int64N(400*365*86400)-100*365*86400, rng.Int64N(1e9)).In(time.FixedZone("z", rng.IntN(50000)-25000)))
	}
	for _, tm := range times {
		if got, want := projections.FormatTimeForTest(tm), tm.UTC().Format(layout); got != want {
			t.Fatalf("%v: %q, want %q", tm, got, want)
		}
	}
}
