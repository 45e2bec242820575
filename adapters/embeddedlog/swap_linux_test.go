//go:build linux

package embeddedlog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSwapDirs: Restore's one-step exchange works on the file system the
// tests run on, so the restore test takes that path.
func TestSwapDirs(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "was"), []byte(filepath.Base(d)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := swapDirs(a, b); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{a: "b", b: "a"} {
		if got, err := os.ReadFile(filepath.Join(dir, "was")); err != nil || string(got) != want {
			t.Fatalf("%s holds %q (%v), want %q", dir, got, err, want)
		}
	}
}
