//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package embeddedlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// lockDir takes an exclusive flock on DIR/LOCK. The kernel drops it when
// the process dies, so a crash never leaves a stale lock.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, ownerfs.FileMode)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder, _ := os.ReadFile(path)
			return nil, &FileError{File: path, Offset: -1, Err: fmt.Errorf("%w (held by pid %s)", ErrLocked, trimNL(holder))}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is only a hint for operators; the flock is the lock.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

func unlockDir(f *os.File) error {
	if f == nil {
		return nil
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return f.Close()
}

func trimNL(b []byte) string {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return string(b)
}
