package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/projections"

	_ "modernc.org/sqlite" // registers "sqlite"
)

// SQLiteOption configures [OpenSQLite].
type SQLiteOption func(*sqliteConfig)

type sqliteConfig struct {
	cacheKiB int
	sync     string
	pageSize int
	bulk     bool
	digests  bool
}

func (c *sqliteConfig) setDefaults() {
	if c.cacheKiB <= 0 {
		c.cacheKiB = 32 << 10
	}
	if c.sync == "" {
		c.sync = "NORMAL"
	}
}

// WithCacheKiB sets SQLite's page cache (default 32 MiB).
func WithCacheKiB(n int) SQLiteOption { return func(c *sqliteConfig) { c.cacheKiB = n } }

// WithPageSize sets the page size of a new store file: a power of two
// from 512 to 65536 (default 4096). A store file that exists keeps its own.
func WithPageSize(n int) SQLiteOption { return func(c *sqliteConfig) { c.pageSize = n } }

// WithSynchronous sets PRAGMA synchronous (default NORMAL: in WAL mode a
// commit survives a process crash; a power loss may drop the last
// commits, which the checkpoints make the runner re-apply from the log).
func WithSynchronous(mode string) SQLiteOption { return func(c *sqliteConfig) { c.sync = mode } }

// OpenSQLite opens (creating if absent) the SQLite store at path.
func OpenSQLite(ctx context.Context, path string, opts ...SQLiteOption) (projections.Store, error) {
	var cfg sqliteConfig
	for _, o := range opts {
		o(&cfg)
	}
	cfg.setDefaults()
	if n := cfg.pageSize; n != 0 && (n < 512 || n > 65536 || n&(n-1) != 0) {
		return nil, fmt.Errorf("store %s: page size %d: want a power of two from 512 to 65536", path, n)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, ownerfs.DirMode); err != nil {
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
	}
	lock, err := lockStore(path, false)
	if err != nil {
		return nil, err
	}
	st, err := openSQLite(ctx, path, cfg, lock)
	if err != nil {
		lock.release()
		return nil, err
	}
	return st, nil
}

func openSQLite(ctx context.Context, path string, cfg sqliteConfig, lock *storeLock) (projections.Store, error) {
	if cfg.bulk {
		if err := removeSpills(path); err != nil {
			return nil, fmt.Errorf("store %s: old spill files: %w", path, err)
		}
	}
	if err := createOwnerOnly(path); err != nil {
		return nil, err
	}
	if cfg.pageSize > 0 {
		if err := createWithPageSize(ctx, path, cfg.pageSize); err != nil {
			return nil, err
		}
	}
	if err := probeFormat(ctx, path); err != nil {
		return nil, err
	}

	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if cfg.bulk {
		// Pages are appended to the file behind SQLite's back, which
		// needs every change in the file itself, not in a WAL.
		q.Add("_pragma", "journal_mode(DELETE)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
	}
	q.Add("_pragma", "synchronous("+cfg.sync+")")
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cfg.cacheKiB))
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("_txlock", "immediate")
	open := func() (*sql.DB, error) {
		db, err := sql.Open("sqlite", "file:"+escapePath(path)+"?"+q.Encode())
		if err != nil {
			return nil, fmt.Errorf("store %s: %w", path, err)
		}
		// One writer connection: SQLite serialises writers anyway, and one
		// connection keeps every prepared statement on the same handle.
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		return db, nil
	}
	db, err := open()
	if err != nil {
		return nil, err
	}
	s := &store{db: db, dialect: projections.SQLite, where: path, lock: lock, rebound: map[string]string{}}
	if err := s.initMeta(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if cfg.bulk {
		b := &bulkStore{store: s, path: path, cacheKiB: cfg.cacheKiB, hashRows: cfg.digests}
		b.reopen = func() (err error) {
			s.db, err = open()
			return err
		}
		return b, nil
	}
	return s, nil
}

// probeFormat reads the store's format on a plain connection that only
// reads: a store of a newer format must be refused before any pragma or
// DDL touches it.
func probeFormat(ctx context.Context, path string) error {
	probe, err := sql.Open("sqlite", "file:"+escapePath(path)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	defer probe.Close()
	_, err = checkFormat(ctx, probe, projections.SQLite, path)
	return err
}

// OpenSQLiteReadOnly opens the SQLite store at path for reading, beside
// its writers (a relay) or none: it creates, migrates and changes nothing
// ([ErrNoStore] when there is no file at path), and its connections refuse
// to write (query_only). Like every open it holds the store's lock shared,
// so an offline replay does not replace the file under it. Its
// transactions start no write lock: in WAL mode each one reads the
// snapshot of its first statement to its end, while writers go on (a
// long one keeps the WAL from being checkpointed past that snapshot).
func OpenSQLiteReadOnly(ctx context.Context, path string) (projections.Store, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("store %s: %w", path, ErrNoStore)
		}
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	lock, err := lockStore(path, false)
	if err != nil {
		return nil, err
	}
	if err := probeFormat(ctx, path); err != nil {
		lock.release()
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "temp_store(MEMORY)")
	db, err := sql.Open("sqlite", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return &store{db: db, dialect: projections.SQLite, where: path, lock: lock, rebound: map[string]string{}}, nil
}

// createOwnerOnly creates the store's file, empty and readable by its
// owner only, when it is missing. SQLite creates its -wal, -shm and
// -journal files with the mode of the database file, so this one mode
// covers them all, whatever the umask. Setting the process's umask
// instead would be global: it would change the mode of every file any
// other goroutine creates meanwhile (a profile, a devnet's config), and
// an embedding program's too.
func createOwnerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, ownerfs.FileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store %s: create: %w", path, err)
	}
	return f.Close()
}

// createWithPageSize writes a new, empty store file with the given page
// size. SQLite fixes the page size when it first writes the file, and the
// store's connections switch it to WAL as they open, which writes it with
// the default size: a page_size pragma beside journal_mode is ignored.
func createWithPageSize(ctx context.Context, path string, size int) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(path)+fmt.Sprintf("?_pragma=page_size(%d)", size))
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	defer db.Close()
	// VACUUM of an empty database writes its first page, and with it the size.
	if _, err := db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("store %s: creating it with %d-byte pages: %w", path, size, err)
	}
	return db.Close()
}

func escapePath(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}
