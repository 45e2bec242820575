package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
)

// flakyBackups fails its first backup, leaving its partial directory as
// a crash would, then writes the others (empty directories).
type flakyBackups struct {
	mu   sync.Mutex
	dirs []string
}

func (f *flakyBackups) Backup(_ context.Context, dir string) (embeddedlog.BackupStats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirs = append(f.dirs, dir)
	if len(f.dirs) == 1 {
		return embeddedlog.BackupStats{}, errors.Join(os.MkdirAll(dir+".partial", 0o755), errors.New("no space left on device"))
	}
	return embeddedlog.BackupStats{Records: 1}, os.MkdirAll(dir, 0o755)
}

type counts struct {
	mu     sync.Mutex
	n      map[string]int
	gauges map[string]float64
}

func (c *counts) LogBackupFailed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n["log_backup_failures_total"]++
}
func (c *counts) LogBackupWritten(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n["log_backups_total"]++
	c.gauges["log_backup_last_success_seconds"] = float64(at.Unix())
}

// TestBackupLoop: the relay's backups go into new directories of the
// backup dir, one an interval; a failed one is counted and the next
// interval tries again; only the newest --backup-keep stay, and what an
// interrupted backup left goes; the loop ends with its context.
func TestBackupLoop(t *testing.T) {
	f, m := &flakyBackups{}, &counts{n: map[string]int{}, gauges: map[string]float64{}}
	start := time.Now()
	dir := t.TempDir()
	for _, other := range []string{"notes", "20250101T000000.000Z-mine"} {
		if err := os.Mkdir(filepath.Join(dir, other), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		backupLoop(ctx, f, backupPlan{dir: dir, every: 50 * time.Millisecond, keep: 2}, m)
		close(done)
	}()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(f.dirs) < 3 || m.n["log_backup_failures_total"] != 1 || m.n["log_backups_total"] != len(f.dirs)-1 {
		t.Fatalf("%d backups, counted %v", len(f.dirs), m.n)
	}
	if at := m.gauges["log_backup_last_success_seconds"]; at < float64(start.Unix()) || at > float64(time.Now().Unix()) {
		t.Fatalf("last success at %v, want within the run (%v..)", at, start.Unix())
	}
	seen := map[string]bool{}
	for _, d := range f.dirs {
		if filepath.Dir(d) != dir || !strings.HasSuffix(d, "Z") || seen[d] {
			t.Fatalf("backup directories %v: want new ones in %s, named by the UTC time", f.dirs, dir)
		}
		seen[d] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	last := len(f.dirs) - 1
	want := []string{filepath.Base(f.dirs[last-1]), filepath.Base(f.dirs[last]), "20250101T000000.000Z-mine", "notes"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Fatalf("left in the backup dir: %v, want the newest 2 and what is not a backup: %v", left, want)
	}
	if err := pruneBackups(filepath.Join(dir, "missing"), 1); err == nil {
		t.Fatal("pruning a missing directory said nothing")
	}
	for _, p := range []backupPlan{{every: time.Second}, {dir: "/b"}, {dir: "/b", every: -time.Second}} {
		if _, err := relayBackups(nil, p); err == nil || !strings.Contains(err.Error(), "need both") {
			t.Fatalf("%+v: %v", p, err)
		}
	}
	if _, err := relayBackups(nil, backupPlan{dir: "/b", every: time.Second, keep: -1}); err == nil || !strings.Contains(err.Error(), "--backup-keep") {
		t.Fatalf("a negative keep: %v", err)
	}
	if _, err := relayBackups(nil, backupPlan{dir: "/b", every: time.Second}); err == nil || !strings.Contains(err.Error(), "only the embedded log") {
		t.Fatalf("backups of a log that cannot copy itself: %v", err)
	}
	if b, err := relayBackups(nil, backupPlan{}); b != nil || err != nil {
		t.Fatalf("no backups asked: %v %v", b, err)
	}
}
