package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// TestTuneGC: without GOGC the collector's target is projections.GCPercent;
// with it, the environment's choice stands.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	if got := tuneGC(func(string) string { return "" }); got != projections.GCPercent {
		t.Fatalf("tuneGC without GOGC returned %d", got)
	}
	if p := debug.SetGCPercent(150); p != projections.GCPercent {
		t.Fatalf("target %d after tuneGC without GOGC, want %d", p, projections.GCPercent)
	}
	env := func(k string) string {
		if k == "GOGC" {
			return "150"
		}
		return ""
	}
	if got := tuneGC(env); got != 150 {
		t.Fatalf("tuneGC with GOGC=150 returned %d", got)
	}
	if p := debug.SetGCPercent(150); p != 150 {
		t.Fatalf("target %d after tuneGC with GOGC=150", p)
	}
}

// TestBinaryGCTarget runs the binary: it logs the target in force, the
// default or GOGC's.
func TestBinaryGCTarget(t *testing.T) {
	bin := testBinary(t)
	for gogc, want := range map[string]string{"": fmt.Sprintf("gc_percent=%d", projections.GCPercent), "150": "gc_percent=150"} {
		cmd := exec.Command(bin, "--log-level", "debug", "--data", t.TempDir(), "status")
		cmd.Env = append(os.Environ(), "GOGC="+gogc)
		out, _ := cmd.CombinedOutput() // status of an empty store may fail; the line comes first
		if !strings.Contains(string(out), `msg="collector target" `+want) {
			t.Fatalf("GOGC=%q: no %q in\n%s", gogc, want, out)
		}
	}
}
