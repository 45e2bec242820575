package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
)

// flakyBackups fails its first backup, then writes the others.
type flakyBackups struct {
	mu   sync.Mutex
	dirs []string
}

func (f *flakyBackups) Backup(_ context.Context, dir string) (embeddedlog.BackupStats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirs = append(f.dirs, dir)
	if len(f.dirs) == 1 {
		return embeddedlog.BackupStats{}, errors.New("no space left on device")
	}
	return embeddedlog.BackupStats{Records: 1}, nil
}

type counts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counts) Count(name string, _ map[string]string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[name] += n
}
func (c *counts) Gauge(string, map[string]string, float64) {}

// TestBackupLoop: the relay's backups go into new directories of the
// backup dir, one an interval; a failed one is counted and the next
// interval tries again; the loop ends with its context.
func TestBackupLoop(t *testing.T) {
	f, m := &flakyBackups{}, &counts{n: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { backupLoop(ctx, f, "/backups", 50*time.Millisecond, m); close(done) }()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(f.dirs) < 3 || m.n["log_backup_failures_total"] != 1 || m.n["log_backups_total"] != len(f.dirs)-1 {
		t.Fatalf("%d backups, counted %v", len(f.dirs), m.n)
	}
	seen := map[string]bool{}
	for _, d := range f.dirs {
		if filepath.Dir(d) != "/backups" || !strings.HasSuffix(d, "Z") || seen[d] {
			t.Fatalf("backup directories %v: want new ones under /backups, named by the UTC time", f.dirs)
		}
		seen[d] = true
	}
	for _, c := range []struct {
		dir   string
		every time.Duration
	}{{"", time.Second}, {"/b", 0}, {"/b", -time.Second}} {
		if _, err := relayBackups(nil, c.dir, c.every); err == nil || !strings.Contains(err.Error(), "need both") {
			t.Fatalf("--backup-dir %q --backup-every %v: %v", c.dir, c.every, err)
		}
	}
	if _, err := relayBackups(nil, "/b", time.Second); err == nil || !strings.Contains(err.Error(), "only the embedded log") {
		t.Fatalf("backups of a log that cannot copy itself: %v", err)
	}
	if b, err := relayBackups(nil, "", 0); b != nil || err != nil {
		t.Fatalf("no backups asked: %v %v", b, err)
	}
}
