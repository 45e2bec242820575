package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/projections"
)

// Replacement replaces a SQLite store with one built beside it (an
// offline replay): from [BeginReplace] to [Replacement.Commit] or
// [Replacement.Abort] it holds the store's lock exclusively, so no other
// bridgelog process has the store open or can open it. The new store is
// built at [Replacement.Path] (with [WithBulkLoad]: nothing else opens it).
//
// A crash at any point leaves the old store or the new one at the
// store's path, never a mix: the new file is complete and synced before
// it is renamed over the old one, and the old one's WAL is checkpointed
// into it and removed first, so it cannot be replayed into the new file.
// What a crash leaves at Path is removed by the next BeginReplace.
type Replacement struct {
	store string
	lock  *storeLock
	log   *slog.Logger
}

// BeginReplace takes store's lock exclusively (without waiting: another
// process using the store gets [ErrStoreInUse]) and removes what an
// earlier, interrupted replacement left.
func BeginReplace(store string, log *slog.Logger) (*Replacement, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(filepath.Dir(store), ownerfs.DirMode); err != nil {
		return nil, fmt.Errorf("store %s: %w", store, err)
	}
	lock, err := lockStore(store, true)
	if err != nil {
		return nil, err
	}
	r := &Replacement{store: store, lock: lock, log: log}
	if err := r.removeBuilt(); err != nil {
		lock.release()
		return nil, err
	}
	return r, nil
}

// Path is where the new store is built.
func (r *Replacement) Path() string { return r.store + ".replacement" }

// removeBuilt deletes the new store's file and what SQLite and a bulk
// load keep beside it.
func (r *Replacement) removeBuilt() error {
	p := r.Path()
	for _, f := range []string{p, p + "-journal", p + "-wal", p + "-shm", lockPath(p)} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store %s: remove %s: %w", r.store, f, err)
		}
	}
	return removeSpills(p)
}

// Commit moves the new store, which must be closed, over the old one and
// releases the lock. A failure before the move leaves the old store in
// place and the lock held: Abort the replacement. (Only the directory's
// sync comes after the move; its failure is reported with the lock
// released and the new store in place.)
func (r *Replacement) Commit(ctx context.Context) error {
	if r.lock == nil {
		return fmt.Errorf("store %s: replacement already ended", r.store)
	}
	p := r.Path()
	// The new store must be whole: a finished bulk load, no hot journal.
	if _, err := os.Stat(p + "-journal"); err == nil {
		return fmt.Errorf("store %s: the new store %s has a hot journal; not replacing", r.store, p)
	}
	probe, err := sql.Open("sqlite", "file:"+escapePath(p)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("store %s: %w", p, err)
	}
	f, err := checkFormat(ctx, probe, projections.SQLite, p)
	probe.Close()
	if err == nil && f != projections.StoreFormat {
		err = fmt.Errorf("format %d, want %d", f, projections.StoreFormat)
	}
	if err != nil {
		return fmt.Errorf("store %s: the new store is not usable, not replacing: %w", r.store, err)
	}
	if err := syncFile(p); err != nil {
		return fmt.Errorf("store %s: %w", p, err)
	}
	if err := r.retireOld(ctx); err != nil {
		return err
	}
	if err := os.Rename(p, r.store); err != nil {
		return fmt.Errorf("store %s: move the new store into place: %w", r.store, err)
	}
	r.end() // the new store is in place whatever the directory sync says
	if err := syncFile(filepath.Dir(r.store)); err != nil {
		return fmt.Errorf("store %s: sync directory after the replacement: %w", r.store, err)
	}
	r.log.Debug("store replaced", "path", r.store)
	return nil
}

// retireOld checkpoints the old store's WAL into it and removes the WAL
// and shared-memory files: left beside the new file, SQLite would take
// them for the new file's.
func (r *Replacement) retireOld(ctx context.Context) error {
	if _, err := os.Stat(r.store); errors.Is(err, os.ErrNotExist) {
		for _, f := range []string{r.store + "-wal", r.store + "-shm", r.store + "-journal"} {
			if _, err := os.Stat(f); err == nil {
				return fmt.Errorf("store %s: %s exists without its database; not replacing", r.store, f)
			}
		}
		return nil
	}
	if _, err := os.Stat(r.store + "-journal"); err == nil {
		return fmt.Errorf("store %s: the old store has a hot journal (a crashed writer); open it once with bridgelog to roll it back, then replay", r.store)
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(r.store)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("store %s: %w", r.store, err)
	}
	db.SetMaxOpenConns(1)
	// A store a newer binary wrote stays: this binary may be the wrong one.
	// Any other trouble reading it is what a rebuild is for.
	var tooNew *projections.StoreTooNewError
	if _, err := checkFormat(ctx, db, projections.SQLite, r.store); errors.As(err, &tooNew) {
		db.Close()
		return fmt.Errorf("not replacing: %w", err)
	}
	var busy, logFrames, done int
	err = db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil && busy != 0 {
		err = errors.New("checkpoint was blocked by another connection")
	}
	if err != nil {
		return fmt.Errorf("store %s: checkpoint the old store's WAL: %w", r.store, err)
	}
	for _, f := range []string{r.store + "-wal", r.store + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("store %s: remove %s: %w", r.store, f, err)
		}
	}
	return nil
}

// Abort removes the new store, which must be closed, and releases the
// lock; the old store stays as it was.
func (r *Replacement) Abort() error {
	if r.lock == nil {
		return nil
	}
	defer r.end()
	return r.removeBuilt()
}

func (r *Replacement) end() {
	_ = os.Remove(lockPath(r.Path()))
	r.lock.release()
	r.lock = nil
}

// syncFile fsyncs a file or directory.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
