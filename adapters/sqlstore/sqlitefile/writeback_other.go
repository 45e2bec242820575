//go:build !linux

package sqlitefile

import (
	"errors"
	"os"
)

// startWriteback is a no-op where sync_file_range is not available.
func startWriteback(*os.File, int64, int64) {}

// openDirect refuses: pages are written through the page cache.
func openDirect(string) (*os.File, error) {
	return nil, errors.New("direct writes are used on Linux only")
}
