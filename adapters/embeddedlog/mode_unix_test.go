//go:build unix

package embeddedlog

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/ownerfs/ownerfstest"
	"github.com/bridgelog/bridgelog/topics"
)

// TestLogAndBackupAreOwnerOnly: with the usual umask 022 in effect, a new
// log (its directories, segments, seal indexes, group offsets, lock) and
// a backup of it, each under directories they create, are readable by
// their owner only.
func TestLogAndBackupAreOwnerOnly(t *testing.T) {
	ownerfstest.Umask022(t)
	root := t.TempDir()
	dir := filepath.Join(root, "data", "log")
	ctx := context.Background()
	l := mustOpen(t, dir, WithSegmentBytes(4<<10)) // several segments, so sealed ones get an index
	for i := range 200 {
		if _, err := l.Append(ctx, topics.TopicBridge, topics.Message{Key: fmt.Appendf(nil, "k%d", i), Value: []byte(strings.Repeat("v", 100))}); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := l.Subscribe(ctx, topics.TopicBridge, "claims")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sub.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Commit(ctx, rec); err != nil {
		t.Fatal(err)
	}
	sub.Close()
	backup := filepath.Join(root, "backups", "b1")
	if _, err := l.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// A second open writes the seal indexes of the segments it scanned.
	mustOpen(t, dir).Close()

	for _, tree := range []string{filepath.Join(root, "data"), filepath.Join(root, "backups")} {
		dirs, files := ownerfstest.RequireOwnerOnly(t, tree)
		if dirs < 3 || files < 4 {
			t.Errorf("%s: checked %d directories and %d files, want a log's worth", tree, dirs, files)
		}
	}
	for _, pattern := range []string{"*/*/*.seg", "*/*/*.idx", "*/groups/*.json", "LOCK"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) == 0 {
			t.Errorf("no %s in the log: the check did not see that kind of file", pattern)
		}
	}
}
