//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/ownerfs/ownerfstest"
)

// TestDataIsOwnerOnly: with the usual umask 022, the data a command
// creates (the log, the store, a backup) is its owner's only; a data
// directory left readable by others is opened with one warning each for
// it and its log directory, naming the path, the mode and the fix.
func TestDataIsOwnerOnly(t *testing.T) {
	ownerfstest.Umask022(t)
	bin := testBinary(t)
	root := t.TempDir()
	data := filepath.Join(root, "data")
	runCommand(t, bin, 0, "log", "generate", "--events", "50", "--data", data)
	runCommand(t, bin, 0, "project", "--data", data)
	backup := filepath.Join(root, "backups", "b1")
	runCommand(t, bin, 0, "log", "backup", backup, "--data", data)
	for _, tree := range []string{data, filepath.Dir(backup)} {
		if dirs, files := ownerfstest.RequireOwnerOnly(t, tree); dirs < 2 || files < 3 {
			t.Errorf("%s: checked %d directories and %d files, want a log's (and store's) worth", tree, dirs, files)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "projections.db")); err != nil {
		t.Fatalf("project built no store: %v", err)
	}

	logDir := filepath.Join(data, "log")
	for _, d := range []string{data, logDir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"project"}, {"status"}, {"verify"}} {
		_, stderr := runCommand(t, bin, 0, append(args, "--data", data)...)
		for _, d := range []string{data, logDir} {
			var lines []string
			for l := range strings.Lines(stderr) {
				if strings.Contains(l, "path="+d+" ") {
					lines = append(lines, l)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("%s: want one line naming %s, got %q", args[0], d, stderr)
			}
			for _, want := range []string{"level=WARN", "mode=0755", "chmod 700 " + d} {
				if !strings.Contains(lines[0], want) {
					t.Errorf("%s: warning %q lacks %q", args[0], lines[0], want)
				}
			}
		}
	}
}
