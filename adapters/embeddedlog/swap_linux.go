//go:build linux

package embeddedlog

import "golang.org/x/sys/unix"

// swapDirs exchanges two directories in one step (renameat2 with
// RENAME_EXCHANGE), so a crash leaves each name holding a whole log.
func swapDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
