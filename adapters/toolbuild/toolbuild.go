// Package toolbuild keeps the programs bridgelog builds from source on
// first use (kaspad and kaspaminer, geth) in a cache directory, one build
// per machine: a lock file keeps concurrent processes from building the
// same one twice, and a build is moved into place only once complete.
package toolbuild

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Job is one build kept in Dir.
type Job struct {
	// Dir is where the build is kept (its parent must be writable); the
	// lock file is Dir+".lock".
	Dir string
	// Err is the caller's sentinel that every error of Run wraps.
	Err error
	// Present reports whether Dir holds a complete build.
	Present func() bool
	// Waiting and Building are the progress lines written when another
	// process holds the lock, and when this one builds.
	Waiting, Building string
	// Compile builds into an empty directory; its errors are returned as
	// they are.
	Compile func(ctx context.Context, into string) error
}

// Run builds unless Dir holds a build already, writing at most one
// progress line (Waiting or Building).
func (j Job) Run(ctx context.Context, progress io.Writer) error {
	if j.Present() {
		return nil
	}
	root := filepath.Dir(j.Dir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("%w: %v", j.Err, err)
	}
	unlock, err := lock(ctx, j.Dir+".lock", func() { fmt.Fprintln(progress, j.Waiting) })
	if err != nil {
		return fmt.Errorf("%w: %w", j.Err, err)
	}
	defer unlock()
	if j.Present() { // another process built it while this one waited
		return nil
	}
	fmt.Fprintln(progress, j.Building)
	tmp, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return fmt.Errorf("%w: %v", j.Err, err)
	}
	defer os.RemoveAll(tmp)
	if err := j.Compile(ctx, tmp); err != nil {
		return err
	}
	if err := os.RemoveAll(j.Dir); err != nil { // an incomplete earlier build
		return fmt.Errorf("%w: %v", j.Err, err)
	}
	if err := os.Rename(tmp, j.Dir); err != nil {
		return fmt.Errorf("%w: keeping the build in %s: %v", j.Err, j.Dir, err)
	}
	if !j.Present() {
		return fmt.Errorf("%w: the build in %s is incomplete", j.Err, j.Dir)
	}
	return nil
}

// GoTool is the go command, which building from source takes; what names
// the program in the error.
func GoTool(what string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err == nil {
		return goTool, nil
	}
	goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, statErr := os.Stat(goTool); statErr != nil {
		return "", fmt.Errorf("%s is built from source on first use, which takes a Go toolchain, and there is no go on PATH (%v). "+
			"To fix: install Go (https://go.dev/dl/) and put its bin directory on PATH", what, err)
	}
	return goTool, nil
}

// lock takes an exclusive lock on path (released at process exit too),
// calling waiting once when another process holds it.
func lock(ctx context.Context, path string, waiting func()) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for told := false; ; {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %v", path, err)
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for %s: %w", path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// Executables reports whether every path is an executable file: a Job's
// Present for the programs it builds.
func Executables(paths ...string) bool {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}
