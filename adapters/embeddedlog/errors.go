package embeddedlog

import (
	"errors"
	"fmt"
)

// Errors of the embedded engine, besides the shared ones in topics
// ([topics.ErrClosed], [topics.ErrCorrupt], [topics.ErrValueTooLarge], …).
var (
	// ErrLocked: another writer (a Log opened with [Open], in this or
	// another process) has the directory open. Readers ([OpenReadOnly])
	// take no lock, so the holder is always a writer.
	ErrLocked = errors.New("log directory locked by another writer")
	// ErrNoLog: [OpenReadOnly] was given a directory that does not exist.
	// A reader creates nothing, so it cannot start a log there.
	ErrNoLog = errors.New("no log directory")
	// ErrReadOnly: an Append, Subscribe or Backup on a Log opened with
	// [OpenReadOnly].
	ErrReadOnly = errors.New("log opened read-only")
	// ErrChangedUnderReader: records a reader had already returned are no
	// longer in the files (the writer rolled back an append whose fsync
	// failed, or the directory was replaced, by a restore for example).
	// The reader stops rather than go on from records that are gone; open
	// the log again.
	ErrChangedUnderReader = errors.New("log changed under the reader")
	// ErrFormatTooNew: a file was written by a newer binary.
	ErrFormatTooNew = errors.New("log file format newer than this binary")
	// ErrLayout: the directory does not match the topic catalog (for
	// example a partition the topic does not have), which would re-route keys.
	ErrLayout = errors.New("log directory does not match the topic catalog")
	// ErrNotAssigned: a member committed a partition it does not hold
	// (it was rebalanced away).
	ErrNotAssigned = errors.New("partition not assigned to this member")
	// ErrBadGroup: a consumer group name that cannot be used.
	ErrBadGroup = errors.New("bad consumer group name")
)

// FileError says which file (and where in it) an error is about. It wraps
// the cause, so errors.Is(err, topics.ErrCorrupt) still works.
type FileError struct {
	File   string
	Offset int64 // byte offset in File, -1 if not about a position
	Err    error
}

func (e *FileError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s at byte %d: %v", e.File, e.Offset, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }
