// Package throwaway runs the deploy/<server>/throwaway.sh scripts that
// start a server for tests in a temporary directory (the same scripts CI
// and developers use) and stop it when the test ends. A server that
// cannot start fails the test loudly: a test that needs one never skips.
package throwaway

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Server is a running throwaway server.
type Server struct {
	Dir string // its data directory, which stop removes
	DSN string // as the script prints it
}

// Script locates deploy/<name>/throwaway.sh from this file's path.
func Script(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", name, "throwaway.sh")
}

// FreePorts returns n distinct ports free right now. The listeners are
// held until all are picked, so the kernel cannot hand out one twice.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("throwaway: pick a port: %v", err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// Start runs `deploy/<name>/throwaway.sh start args…`, which prints the
// server's DIR= and DSN= lines, and stops the server when the test (and
// its subtests) end. hint says how to install the server if it is absent.
func Start(t testing.TB, name, hint string, args ...string) Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := Script(name)
	cmd := exec.CommandContext(ctx, script, append([]string{"start"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("throwaway: cannot start %s with %s: %v\n%s\n(%s)", name, script, err, stderr.String(), hint)
	}
	var s Server
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "DIR="); ok {
			s.Dir = v
		}
		if v, ok := strings.CutPrefix(line, "DSN="); ok {
			s.DSN = v
		}
	}
	if s.Dir == "" || s.DSN == "" {
		t.Fatalf("throwaway: unexpected output from %s: %q", script, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(script, "stop", s.Dir).CombinedOutput(); err != nil {
			t.Errorf("throwaway: stop %s %s: %v\n%s", name, s.Dir, err, out)
		}
	})
	return s
}
