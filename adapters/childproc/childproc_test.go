package childproc_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/childproc"
)

func TestStopInterruptsAndKillsWhatIgnoresIt(t *testing.T) {
	dir := t.TempDir()
	p, err := childproc.Start("sh", []string{"-c", "echo started; exec sleep 60"}, filepath.Join(dir, "a.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(childproc.Tail(p.Output(), 5), "started") })
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatalf("a sleep did not stop on SIGINT: %v", err)
	}
	if !p.Exited() {
		t.Fatal("stopped but not exited")
	}

	// A child that ignores SIGINT is killed after the grace period, and
	// the error says so.
	q, err := childproc.Start("sh", []string{"-c", "trap '' INT; echo started; while :; do sleep 1; done"}, filepath.Join(dir, "b.out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(childproc.Tail(q.Output(), 5), "started") })
	if err := q.Stop(300 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "was killed") {
		t.Fatalf("stop of a child ignoring SIGINT: %v", err)
	}

	r, err := childproc.Start("sleep", []string{"60"}, filepath.Join(dir, "c.out"), []string{"X=1"})
	if err != nil {
		t.Fatal(err)
	}
	r.Kill()
	select {
	case <-r.Done():
	default:
		t.Fatal("killed but not done")
	}
	if r.Err() == nil {
		t.Fatal("a killed child exited cleanly")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
