//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sqlitefile

import "os"

// lockFile is a no-op where POSIX record locks are not available.
func lockFile(*os.File) (func(), error) { return func() {}, nil }
