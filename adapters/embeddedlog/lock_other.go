//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package embeddedlog

import (
	"errors"
	"os"
)

// lockDir: this platform has no flock here, and running without the
// one-writer guarantee is not an option.
func lockDir(string) (*os.File, error) {
	return nil, errors.New("embeddedlog: directory locking is not implemented on this platform")
}

func unlockDir(f *os.File) error {
	if f == nil {
		return nil
	}
	return f.Close()
}
