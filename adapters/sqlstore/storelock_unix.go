//go:build linux || darwin || freebsd || netbsd || openbsd

package sqlstore

import (
	"errors"
	"os"
	"syscall"
)

// flockFile takes a whole-file flock on f without waiting: shared for a
// store in use, exclusive while replay replaces it. flock locks belong to
// the open file, so two opens in one process exclude each other as two
// processes do, and the kernel drops them when the process dies.
func flockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrStoreInUse
	}
	return err
}
