// Package throwaway runs the deploy/<server>/throwaway.sh scripts that
// start a server for tests in a temporary directory (the same scripts CI
// and developers use) and stop it when the test ends. A server that
// cannot start fails the test loudly: a test that needs one never skips.
package throwaway

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/childproc"
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

// StartOnFreePorts starts the server with ports free loopback ports as
// its arguments, and fails the test loudly if it cannot; hint says how to
// install the server if it is absent. A port is only free until the
// server binds it: another process (a parallel test's child) may take it
// in between, so a start that fails on an address in use is tried again
// on fresh ports, up to three times; any other failure fails at once.
func StartOnFreePorts(t testing.TB, name, hint string, ports int) Server {
	t.Helper()
	var err error
	for try := 0; try < 3; try++ {
		free, perr := childproc.FreeLoopbackPorts(ports)
		if perr != nil {
			t.Fatalf("throwaway: %v", perr)
		}
		var args []string
		for _, p := range free {
			args = append(args, fmt.Sprint(p))
		}
		var s Server
		if s, err = start(t, name, args...); err == nil {
			return s
		}
		if !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	t.Fatalf("%v\n(%s)", err, hint)
	return Server{}
}

// start runs `deploy/<name>/throwaway.sh start args…`, which prints the
// server's DIR= and DSN= lines, and stops the server when the test (and
// its subtests) end.
func start(t testing.TB, name string, args ...string) (Server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := Script(name)
	cmd := exec.CommandContext(ctx, script, append([]string{"start"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Server{}, fmt.Errorf("throwaway: cannot start %s with %s: %v\n%s", name, script, err, stderr.String())
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
		return Server{}, fmt.Errorf("throwaway: unexpected output from %s: %q", script, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(script, "stop", s.Dir).CombinedOutput(); err != nil {
			t.Errorf("throwaway: stop %s %s: %v\n%s", name, s.Dir, err, out)
		}
	})
	return s, nil
}
