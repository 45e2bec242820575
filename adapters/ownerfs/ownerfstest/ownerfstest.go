//go:build unix

// Package ownerfstest checks, in tests, that what bridgelog wrote is its
// owner's only.
package ownerfstest

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// Umask022 puts the usual umask (022, which leaves files 0644 and
// directories 0755 when created with the wide modes) in effect for the
// test and restores the previous one after it. The umask is the
// process's: a test calling it must not run in parallel with others.
func Umask022(t testing.TB) {
	t.Helper()
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
}

// RequireOwnerOnly walks root and fails t for every directory whose mode
// is not ownerfs.DirMode and every file whose mode is not
// ownerfs.FileMode. It returns how many of each it checked, so a test can
// make sure it saw what it meant to.
func RequireOwnerOnly(t testing.TB, root string) (dirs, files int) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := ownerfs.FileMode
		if fi.IsDir() {
			want = ownerfs.DirMode
			dirs++
		} else {
			files++
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %04o, want %04o", path, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return dirs, files
}
