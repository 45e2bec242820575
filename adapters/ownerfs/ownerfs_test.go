package ownerfs

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWarnSharedNamesPathModeAndFix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // not subject to the umask
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	WarnShared(log, "data directory", dir)
	out := buf.String()
	if n := strings.Count(out, "\n"); n != 1 {
		t.Fatalf("want one line, got %d: %q", n, out)
	}
	for _, want := range []string{"level=WARN", "path=" + dir, "mode=0755", "chmod 700 " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("warning %q lacks %q", out, want)
		}
	}

	buf.Reset()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	WarnShared(log, "data directory", dir)
	WarnShared(log, "data directory", filepath.Join(dir, "missing"))
	if buf.Len() != 0 {
		t.Fatalf("an owner-only or missing directory warned: %q", buf.String())
	}
}
