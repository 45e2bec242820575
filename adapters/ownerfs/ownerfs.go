// Package ownerfs keeps bridgelog's files to their owner: the modes its
// data directories and files are created with, and the one check of a
// mode that secrets (which refuses a shared key file) and the commands
// (which warn about a shared data directory) both use.
package ownerfs

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
)

const (
	// DirMode is the mode of every data directory bridgelog creates: the
	// log, the store and the backups hold every deposit and withdrawal,
	// which no other local user needs to read.
	DirMode os.FileMode = 0o700
	// FileMode is the mode of every data file bridgelog creates.
	FileMode os.FileMode = 0o600
)

// Shared reports whether fi's group or others may read, write or enter it.
func Shared(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }

// Fix is the command that makes path its owner's only: "chmod 700 PATH"
// for a directory, "chmod 600 PATH" for a file.
func Fix(path string, fi fs.FileInfo) string {
	if fi.IsDir() {
		return "chmod 700 " + path
	}
	return "chmod 600 " + path
}

// Hint says what is wrong with a shared path and how to fix it: "has mode
// 0755; make it readable by its owner only (chmod 700 PATH)".
func Hint(path string, fi fs.FileInfo) string {
	return fmt.Sprintf("has mode %04o; make it readable by its owner only (%s)", fi.Mode().Perm(), Fix(path, fi))
}

// WarnShared logs one warning when the existing directory or file at path
// is readable by its group or others. It refuses nothing: data a previous
// version created 0755 still opens, and the operator is told how to close
// it. A path that does not exist (yet) is not warned about.
func WarnShared(log *slog.Logger, what, path string) {
	if log == nil {
		log = slog.Default()
	}
	fi, err := os.Stat(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("cannot check "+what+" mode", "path", path, "err", err)
		}
		return
	}
	if !Shared(fi) {
		return
	}
	log.Warn(what+" readable by other local users", "path", path,
		"mode", fmt.Sprintf("%04o", fi.Mode().Perm()), "fix", Fix(path, fi))
}
