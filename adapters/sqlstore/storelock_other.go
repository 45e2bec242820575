//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sqlstore

import "os"

// flockFile is a no-op where flock is not available: replay cannot tell
// whether another process uses the store there.
func flockFile(*os.File, bool) error { return nil }
