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

// TestTuneGC: without GOGC a rebuilding command's collector target is
// projections.GCPercent and another command's stays Go's; with GOGC, the
// environment's choice stands for both.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	noEnv := func(string) string { return "" }
	if got := tuneGC(noEnv, false); got != 100 {
		t.Fatalf("tuneGC without GOGC for a command that does not rebuild returned %d", got)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("target %d after tuneGC for a command that does not rebuild, want Go's 100", p)
	}
	if got := tuneGC(noEnv, true); got != projections.GCPercent {
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
	for _, rebuild := range []bool{true, false} {
		if got := tuneGC(env, rebuild); got != 150 {
			t.Fatalf("tuneGC with GOGC=150 (rebuild %v) returned %d", rebuild, got)
		}
		if p := debug.SetGCPercent(150); p != 150 {
			t.Fatalf("target %d after tuneGC with GOGC=150 (rebuild %v)", p, rebuild)
		}
	}
}

// TestBinaryGCTarget runs the binary: it logs the target in force, the
// rebuild's for replay, Go's for status, or GOGC's.
func TestBinaryGCTarget(t *testing.T) {
	bin := testBinary(t)
	for _, c := range []struct{ cmd, gogc, want string }{
		{"replay", "", fmt.Sprintf("gc_percent=%d", projections.GCPercent)},
		{"verify", "", fmt.Sprintf("gc_percent=%d", projections.GCPercent)},
		{"status", "", "gc_percent=100"},
		{"replay", "150", "gc_percent=150"},
		{"status", "150", "gc_percent=150"},
	} {
		cmd := exec.Command(bin, "--log-level", "debug", "--data", dataDir(t), c.cmd)
		cmd.Env = append(os.Environ(), "GOGC="+c.gogc)
		out, _ := cmd.CombinedOutput() // an empty data directory may fail the command; the line comes first
		if !strings.Contains(string(out), `msg="collector target" `+c.want) {
			t.Fatalf("%s with GOGC=%q: no %q in\n%s", c.cmd, c.gogc, c.want, out)
		}
	}
}

// TestRebuildingCommands: the commands that fold the log in one go and
// exit carry the rebuild's collector target; the relay does not.
func TestRebuildingCommands(t *testing.T) {
	for _, c := range rootCmd.Commands() {
		want := map[string]bool{"replay": true, "verify": true, "project": true, "demo": true}[c.Name()]
		if got := c.Annotations[gcAnnotation] == gcRebuild; got != want {
			t.Errorf("command %s: rebuild collector target %v, want %v", c.Name(), got, want)
		}
	}
}
