//go:build linux || darwin || freebsd || netbsd || openbsd

package sqlitefile

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes the write lock SQLite's unix VFS uses for an EXCLUSIVE lock
// (the pending, reserved and shared bytes at 1 GiB), without waiting, so a
// SQLite connection in another process gets SQLITE_BUSY while we write.
// POSIX locks are per process: connections of this process are not kept out,
// which is why no connection may have the file open.
func lockFile(f *os.File) (func(), error) {
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: pendingByte, Len: 512}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		return nil, fmt.Errorf("another process holds a SQLite lock: %w", err)
	}
	return func() {
		lk.Type = syscall.F_UNLCK
		_ = syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk)
	}, nil
}
