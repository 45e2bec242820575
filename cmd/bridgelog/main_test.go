package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The binary the process tests run, built once per test run.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// testBinary builds cmd/bridgelog (once) and returns its path.
func testBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "bridgelog-test-bin-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "bridgelog")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build bridgelog: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// dataDir is a new, empty --data directory for a test, owner-only as
// bridgelog makes one: t.TempDir's 0755 would make every command warn.
func dataDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
