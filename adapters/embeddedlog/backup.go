package embeddedlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// A plain copy of a log that is being appended is not a consistent
// backup: its files are copied at different moments, and Open checks only
// the newest group of appends for completeness across partitions, so an
// older group that spans partitions could come back in part. Backup
// copies a cut instead: every topic's published state at one instant, so
// the copy holds exactly the groups acknowledged before it, whole, in
// every partition and topic (an Append acknowledged before another began
// is in the copy if the other is).

// ErrBackupExists: the backup's directory is already there.
var ErrBackupExists = errors.New("backup directory exists")

// BackupStats says what a backup holds.
type BackupStats struct {
	Records  int64 // records in the copy, all topics
	Bytes    int64 // segment bytes copied
	Segments int
}

// cutFile is one segment file of the cut and the bytes of it to copy.
type cutFile struct {
	path string
	size int64
}

// Backup copies the log, as it is at one instant, into dir, which must
// not exist; it may run while the log is appended to, which waits only
// for the instant. The copy is written into dir + ".partial", opened once
// reading every frame (damage anywhere, copied from the log, fails the
// backup with the file and offset), and renamed to dir once every file is
// synced, so dir is always a whole, checked backup that opens with [Open]
// like the original. Consumer groups' offsets are copied as they were
// just before the cut, so a group resumes at or before where it was.
func (l *Log) Backup(ctx context.Context, dir string) (BackupStats, error) {
	var st BackupStats
	if l.readOnly {
		// A reader has no instant at which every topic is one cut.
		return st, fmt.Errorf("embeddedlog: backup %s: %w", dir, ErrReadOnly)
	}
	if err := l.enter(); err != nil {
		return st, err
	}
	defer l.leave()
	if _, err := os.Stat(dir); err == nil {
		return st, fmt.Errorf("embeddedlog: backup %s: %w", dir, ErrBackupExists)
	}
	tmp := dir + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return st, fmt.Errorf("embeddedlog: backup: remove %s: %w", tmp, err)
	}
	fail := func(err error) (BackupStats, error) {
		os.RemoveAll(tmp)
		return BackupStats{}, fmt.Errorf("embeddedlog: backup %s: %w", dir, err)
	}
	names := make([]string, 0, len(l.topics))
	for name := range l.topics {
		names = append(names, name)
	}
	slices.Sort(names)
	// Group offsets first: taken before the cut, they never point past it.
	for _, name := range names {
		if err := copyGroups(filepath.Join(l.dir, name, "groups"), filepath.Join(tmp, name, "groups")); err != nil {
			return fail(err)
		}
	}
	files, records := l.cut(names)
	st.Records = records
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		rel, err := filepath.Rel(l.dir, f.path)
		if err != nil {
			return fail(err)
		}
		if err := copyPrefix(f.path, filepath.Join(tmp, rel), f.size); err != nil {
			return fail(err)
		}
		st.Bytes += f.size
		st.Segments++
	}
	// Partitions never written have no directory yet: the check's Open
	// makes them, as any Open of a log does.
	if err := syncTree(tmp); err != nil {
		return fail(err)
	}
	if err := l.checkBackup(ctx, tmp, st.Records); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fail(err)
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return st, fmt.Errorf("embeddedlog: backup %s: %w", dir, err)
	}
	l.cfg.logger.Info("embeddedlog: backup written", "dir", dir, "records", st.Records, "bytes", st.Bytes, "segments", st.Segments)
	return st, nil
}

// checkBackup opens the copy in dir reading every frame, as verify reads
// a log: a backup must open as it is, with the records of the cut. So
// damage in a sealed segment, which the running log finds only when the
// records are read, is found at every backup instead of carried into it.
func (l *Log) checkBackup(ctx context.Context, dir string, records int64) error {
	m := &tailWatch{}
	b, err := Open(dir, WithFullScan(true), WithContext(ctx), WithLogger(l.cfg.logger), WithMetrics(m),
		WithMaxMessageBytes(l.cfg.maxMessageBytes), WithSegmentBytes(l.cfg.segmentBytes))
	if err != nil {
		return fmt.Errorf("the copy does not open: %w", err)
	}
	defer b.Close()
	if n := m.truncated.Load(); n > 0 {
		return fmt.Errorf("the copy opened with %d torn tails: not a cut", n)
	}
	var got int64
	for _, t := range b.topics {
		for _, p := range t.parts {
			got += p.end()
		}
	}
	if got != records {
		return fmt.Errorf("the copy holds %d records, the cut %d", got, records)
	}
	return nil
}

// tailWatch counts the torn tails an Open truncates.
type tailWatch struct {
	nopMetrics
	truncated atomic.Int64
}

func (w *tailWatch) TailTruncated(string, int32, int64) { w.truncated.Add(1) }

// cut returns every segment file of the named topics with its published
// size, all taken at one instant: no group is published in any of them
// meanwhile.
func (l *Log) cut(names []string) ([]cutFile, int64) {
	for _, name := range names {
		l.topics[name].pub.RLock()
	}
	defer func() {
		for _, name := range names {
			l.topics[name].pub.RUnlock()
		}
	}()
	var files []cutFile
	var records int64
	for _, name := range names {
		for _, p := range l.topics[name].parts {
			p.mu.RLock()
			for _, s := range p.segs {
				files = append(files, cutFile{path: s.path, size: s.size})
			}
			records += p.endLocked()
			p.mu.RUnlock()
		}
	}
	return files, records
}

// copyPrefix copies the first size bytes of src to a new file dst.
func copyPrefix(src, dst string, size int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), ownerfs.DirMode); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, ownerfs.FileMode)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(out, in, size); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyGroups copies a topic's group offsets files (each replaced whole
// by a rename, so each read is one committed version).
func copyGroups(src, dst string) error {
	entries, err := os.ReadDir(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue // a rename's temporary file, or nothing of ours
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // replaced meanwhile: the next Commit writes it again
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dst, ownerfs.DirMode); err != nil {
			return err
		}
		if err := writeSynced(filepath.Join(dst, e.Name()), b); err != nil {
			return err
		}
	}
	return nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, ownerfs.FileMode)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncTree fsyncs every directory under root, root included, so the
// files' entries are durable before the backup is renamed into place.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return syncDir(path)
	})
}

// Restore puts the log backed up in backup (see [Log.Backup]) at logDir.
// What logDir holds is moved aside to logDir + ".before-restore-" + stamp
// and kept (damaged or not, it may hold records the backup lacks); the
// returned aside is "" when there was nothing. Restore holds logDir's lock
// throughout, so it refuses ([ErrLocked]) while a Log has it open. The
// backup is copied as Backup copies a log (read as a cut, checked frame
// by frame) into logDir + ".restoring" first, so a damaged backup changes
// nothing. The two directories are then exchanged in one step where the
// system can (Linux): a crash leaves logDir holding the old log or the
// restored one, and the other one beside it. Elsewhere the old log is
// moved aside first, and if Restore is interrupted then, logDir +
// ".restoring" is the whole restored log.
func Restore(ctx context.Context, backup, logDir, stamp string, opts ...Option) (aside string, st BackupStats, err error) {
	if _, err := os.Stat(logDir); err == nil {
		lock, err := lockDir(logDir)
		if err != nil {
			return "", st, fmt.Errorf("embeddedlog: restore into %s: %w", logDir, err)
		}
		defer unlockDir(lock)
		aside = logDir + ".before-restore-" + stamp
	}
	// Backup's check below reads every frame of the copy; the backup itself
	// need not be read twice.
	src, err := Open(backup, opts...)
	if err != nil {
		return "", st, fmt.Errorf("embeddedlog: restore from %s: %w", backup, err)
	}
	defer src.Close()
	staged := logDir + ".restoring"
	if err := os.RemoveAll(staged); err != nil {
		return "", st, fmt.Errorf("embeddedlog: restore: remove %s: %w", staged, err)
	}
	if st, err = src.Backup(ctx, staged); err != nil {
		return "", st, fmt.Errorf("embeddedlog: restore from %s: %w", backup, err)
	}
	switch {
	case aside != "" && swapDirs(staged, logDir) == nil:
		// logDir is the restored log; staged holds the old one.
		if err := os.Rename(staged, aside); err != nil {
			return staged, st, fmt.Errorf("embeddedlog: restore: the old log is in %s: %w", staged, err)
		}
	default:
		if aside != "" {
			if err := os.Rename(logDir, aside); err != nil {
				os.RemoveAll(staged)
				return "", st, fmt.Errorf("embeddedlog: restore: move %s aside: %w", logDir, err)
			}
		}
		if err := os.Rename(staged, logDir); err != nil {
			return aside, st, fmt.Errorf("embeddedlog: restore: %s is the restored log, move it to %s: %w", staged, logDir, err)
		}
	}
	if err := syncDir(filepath.Dir(logDir)); err != nil {
		return aside, st, fmt.Errorf("embeddedlog: restore: %w", err)
	}
	return aside, st, nil
}
