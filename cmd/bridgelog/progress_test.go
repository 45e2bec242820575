package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// TestProgressShowsRateAndETA: the replay bar shows the count, the rate in
// events/s and the time left.
func TestProgressShowsRateAndETA(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "replay")
	p.update(projections.Progress{Done: 250, Total: 1000})
	out := buf.String()
	// "replay  25% |███…| (250/1000, N events/s) [elapsed:left]"
	for _, want := range []string{"replay", "25%", "(250/1000", "events/s)", "s:", "s]"} {
		if !strings.Contains(out, want) {
			t.Fatalf("progress bar %q lacks %q", out, want)
		}
	}
	p.finish()
}
