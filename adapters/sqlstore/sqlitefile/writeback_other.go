//go:build !linux

package sqlitefile

import "os"

// startWriteback is a no-op where sync_file_range is not available.
func startWriteback(*os.File, int64, int64) {}

// openDirect returns nil: pages are written through the page cache.
func openDirect(string) *os.File { return nil }
