package sqlitefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing [off, off+n) of f to
// disk now, without waiting. Commit's fsync then finds most pages already
// written instead of writing the whole append at the end, while nothing
// else runs. It is a hint: a failure is left for that fsync to report.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE)
	})
}

// openDirect opens path for writes that bypass the page cache (O_DIRECT);
// file systems such as tmpfs refuse it.
func openDirect(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|unix.O_DIRECT, 0)
}
