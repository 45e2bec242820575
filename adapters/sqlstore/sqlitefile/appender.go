// Package sqlitefile writes the b-tree pages of freshly rebuilt tables and
// their indexes directly at the end of a closed SQLite database file, from
// rows the caller already holds in rowid order. SQLite's own engine spends
// most of a rebuild inserting and re-balancing; here every page is written
// once, full, in file order.
//
// The file must be quiescent (no connection, no hot journal, no WAL content).
// [Appender.Commit] makes the pages part of the file; [Register] then makes
// SQLite see the new b-trees by inserting their rows into sqlite_schema.
package sqlitefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// Errors. Detailed errors wrap one of these; test with errors.Is.
var (
	// ErrNotQuiescent: the database has a -journal or a non-empty -wal file,
	// or another process holds SQLite's lock on it.
	ErrNotQuiescent = errors.New("sqlitefile: database is not quiescent")
	// ErrUnsupported: the file is not a SQLite database this writer can
	// append to (reserved bytes, non-UTF-8, auto-vacuum, odd size...).
	ErrUnsupported = errors.New("sqlitefile: unsupported database file")
	// ErrRowOrder: a rowid not greater than the previous one.
	ErrRowOrder = errors.New("sqlitefile: rowid out of order")
	// ErrUniqueViolation: two entries of a unique index with equal keys.
	ErrUniqueViolation = errors.New("sqlitefile: unique index violation")
	// ErrValue: a row of the wrong width or a value of an unsupported type.
	ErrValue = errors.New("sqlitefile: bad value")
	// ErrDef: an invalid TableDef or IndexDef.
	ErrDef = errors.New("sqlitefile: bad table definition")
	// ErrState: a call out of sequence (second open table, use after Commit/Abort, ...).
	ErrState = errors.New("sqlitefile: call out of sequence")
	// ErrTooLarge: the file would exceed SQLite's page-number or size limits.
	ErrTooLarge = errors.New("sqlitefile: database too large")
)

// RowOrderError names the table and the offending rowids.
type RowOrderError struct {
	Path, Table string
	Prev, Rowid int64
}

func (e *RowOrderError) Error() string {
	return fmt.Sprintf("sqlitefile: %s table %s: rowid %d after %d (must increase)", e.Path, e.Table, e.Rowid, e.Prev)
}
func (e *RowOrderError) Unwrap() error { return ErrRowOrder }

// UniqueViolationError names the index, the duplicated key and both rowids.
type UniqueViolationError struct {
	Path, Index string
	Values      []any
	Rowids      [2]int64
}

func (e *UniqueViolationError) Error() string {
	return fmt.Sprintf("sqlitefile: %s index %s: duplicate key %v (rowids %d and %d)", e.Path, e.Index, e.Values, e.Rowids[0], e.Rowids[1])
}
func (e *UniqueViolationError) Unwrap() error { return ErrUniqueViolation }

// ValueError names the table, the row and the column of a bad value.
type ValueError struct {
	Path, Table string
	Rowid       int64
	Column      int // -1: the row's width is wrong
	Reason      string
}

func (e *ValueError) Error() string {
	if e.Column < 0 {
		return fmt.Sprintf("sqlitefile: %s table %s rowid %d: %s", e.Path, e.Table, e.Rowid, e.Reason)
	}
	return fmt.Sprintf("sqlitefile: %s table %s rowid %d column %d: %s", e.Path, e.Table, e.Rowid, e.Column, e.Reason)
}
func (e *ValueError) Unwrap() error { return ErrValue }

// Metrics counts rejected input by reason ("row_order", "unique", "value",
// "definition", "file_state"). The default discards.
type Metrics interface{ Rejected(reason string) }

type noMetrics struct{}

func (noMetrics) Rejected(string) {}

// Option configures [Open].
type Option func(*config)

type config struct {
	log     *slog.Logger
	metrics Metrics
}

func (c *config) setDefaults() {
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.metrics == nil {
		c.metrics = noMetrics{}
	}
}

// WithLogger sets the logger for commit/abort lines (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithMetrics sets the rejection counter (default: none).
func WithMetrics(m Metrics) Option { return func(c *config) { c.metrics = m } }

const (
	pendingByte  = 0x40000000 // SQLite's lock byte offset: its page is never used
	maxPageCount = 4294967294
	flushBytes   = 4 << 20
)

// Appender appends new b-trees to the end of one database file. It is not
// safe for concurrent use. Any error from it or its [TableWriter] aborts the
// whole append: the file is truncated back and the Appender is closed.
type Appender struct {
	cfg      config
	path     string
	f        *os.File
	unlock   func()
	u        int   // page size = usable size (reserved bytes are 0)
	fmt4     bool  // schema format 4: 0 and 1 as serial types 8 and 9
	origSize int64 // file size at Open
	header   [100]byte
	next     uint32 // next page number to hand out
	written  uint32 // next page number to be written (pages are written in allocation order)
	lockPage uint32
	buf      []byte // pages not yet written to the file, starting at page bufFirst
	bufFirst uint32
	bufKeep  bool // buf holds a page to keep in the page cache
	open     *TableWriter
	deferred int         // tables finished with FinishDeferred whose indexes are not attached yet
	writer   *pageWriter // writes flushed buffers on another goroutine
	err      error       // sticky: set once the append failed
	closed   bool
	borrows  map[string]int // tail fix-ups by "table/level" and "index/level", so tests can see them exercised
}

func (a *Appender) borrowed(kind string, level int) {
	if a.borrows == nil {
		a.borrows = map[string]int{}
	}
	a.borrows[fmt.Sprintf("%s/%d", kind, level)]++
}

// Open checks that path is a quiescent SQLite database this writer supports,
// takes SQLite's exclusive lock on it (so other processes get SQLITE_BUSY
// until Commit or Abort) and positions the writer after its last page.
func Open(path string, opts ...Option) (*Appender, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	cfg.setDefaults()
	reject := func(err error) (*Appender, error) {
		cfg.metrics.Rejected("file_state")
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return reject(fmt.Errorf("%w: %s-wal holds %d bytes (checkpoint and close every connection first)", ErrNotQuiescent, path, fi.Size()))
	}
	if _, err := os.Stat(path + "-journal"); err == nil {
		return reject(fmt.Errorf("%w: %s-journal exists (open and close the database with SQLite first)", ErrNotQuiescent, path))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("sqlitefile: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("sqlitefile: %w", err)
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		return reject(fmt.Errorf("%w: %s: %v", ErrNotQuiescent, path, err))
	}
	a := &Appender{cfg: cfg, path: path, f: f, unlock: unlock}
	if err := a.readHeader(); err != nil {
		a.closeFile()
		if errors.Is(err, ErrUnsupported) {
			cfg.metrics.Rejected("file_state")
		}
		return nil, err
	}
	return a, nil
}

func (a *Appender) readHeader() error {
	fi, err := a.f.Stat()
	if err != nil {
		return fmt.Errorf("sqlitefile: %w", err)
	}
	a.origSize = fi.Size()
	var h [100]byte
	if _, err := a.f.ReadAt(h[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %s is %d bytes, shorter than a database header", ErrUnsupported, a.path, a.origSize)
		}
		return fmt.Errorf("sqlitefile: %s: %w", a.path, err)
	}
	a.header = h
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrUnsupported, a.path}, args...)...)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return bad("not a SQLite 3 database")
	}
	u := int(binary.BigEndian.Uint16(h[16:]))
	if u == 1 {
		u = 65536
	}
	if u < 512 || u > 65536 || u&(u-1) != 0 {
		return bad("page size %d at offset 16", u)
	}
	if h[18] < 1 || h[18] > 2 || h[19] < 1 || h[19] > 2 {
		return bad("file format versions %d/%d at offsets 18/19", h[18], h[19])
	}
	if h[20] != 0 {
		return bad("%d reserved bytes per page at offset 20 (must be 0)", h[20])
	}
	if h[21] != 64 || h[22] != 32 || h[23] != 32 {
		return bad("payload fractions %d/%d/%d at offsets 21-23", h[21], h[22], h[23])
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc != 1 {
		return bad("text encoding %d at offset 56 (must be 1, UTF-8)", enc)
	}
	if av := binary.BigEndian.Uint32(h[52:]); av != 0 {
		return bad("auto-vacuum database (offset 52 = %d): pointer-map pages are not supported", av)
	}
	sf := binary.BigEndian.Uint32(h[44:])
	if sf < 1 || sf > 4 {
		return bad("schema format %d at offset 44", sf)
	}
	a.fmt4 = sf >= 4
	pages := uint64(binary.BigEndian.Uint32(h[28:]))
	if pages == 0 || binary.BigEndian.Uint32(h[92:]) != binary.BigEndian.Uint32(h[24:]) {
		pages = uint64(a.origSize) / uint64(u)
	}
	if int64(pages)*int64(u) != a.origSize {
		return bad("file size %d is not page count %d × page size %d", a.origSize, pages, u)
	}
	a.u = u
	a.lockPage = uint32(pendingByte/u + 1)
	a.next = uint32(pages) + 1
	a.written = a.next
	a.bufFirst = a.next
	return nil
}

// fail records err as the append's failure and undoes the append.
func (a *Appender) fail(err error, reason string) error {
	if a.err == nil {
		a.err = err
		if reason != "" {
			a.cfg.metrics.Rejected(reason)
		}
		a.rollback("error", err)
	}
	return err
}

func (a *Appender) usable() error {
	if a.closed {
		if a.err != nil {
			return fmt.Errorf("%w: append to %s already failed: %w", ErrState, a.path, a.err)
		}
		return fmt.Errorf("%w: %s already committed or aborted", ErrState, a.path)
	}
	return nil
}

// alloc hands out the next page number, skipping SQLite's lock-byte page.
func (a *Appender) alloc() (uint32, error) {
	p := a.next
	if p == a.lockPage {
		p++
	}
	if p > maxPageCount || p == 0 {
		return 0, fmt.Errorf("%w: %s: more than %d pages", ErrTooLarge, a.path, uint32(maxPageCount))
	}
	a.next = p + 1
	return p, nil
}

// writePage appends page p, which must be the next allocated page not yet
// written (the lock-byte page in between is written as zeros). Pages to
// keep go through the page cache, the others may bypass it (see
// [pageWriter]): index pages, a tenth of the file, which the load's
// check and then by-key look-ups read. Not a table's interior pages:
// they come one in a few hundred leaves, and would keep every buffer.
func (a *Appender) writePage(p uint32, data []byte, keep bool) error {
	if a.buf == nil {
		a.buf = newPageBuf()
	}
	if p != a.written {
		if a.written != a.lockPage || p != a.lockPage+1 {
			return fmt.Errorf("sqlitefile: internal error: writing page %d, expected %d", p, a.written)
		}
		a.buf = append(a.buf, make([]byte, a.u)...)
		a.written++
	}
	a.buf = append(a.buf, data[:a.u]...)
	a.bufKeep = a.bufKeep || keep
	a.written++
	if len(a.buf) >= flushBytes {
		return a.flush()
	}
	return nil
}

func (a *Appender) flush() error {
	if len(a.buf) == 0 {
		return nil
	}
	// The lock keeps other processes out, not connections of this one:
	// check before every write that SQLite has not grown the file meanwhile.
	if err := a.checkHeader(); err != nil {
		return err
	}
	if a.writer == nil {
		a.writer = newPageWriter(a.f, a.cfg.log)
	}
	off := int64(a.bufFirst-1) * int64(a.u)
	next, err := a.writer.write(a.buf, off, a.bufKeep)
	if err != nil {
		return fmt.Errorf("sqlitefile: %s: %w", a.path, err)
	}
	a.bufFirst += uint32(len(a.buf) / a.u)
	a.buf, a.bufKeep = next, false
	return nil
}

// drain waits for every write handed to the page writer and reports the
// first that failed.
func (a *Appender) drain() error {
	if a.writer == nil {
		return nil
	}
	err := a.writer.close()
	a.writer = nil
	if err != nil {
		return fmt.Errorf("sqlitefile: %s: %w", a.path, err)
	}
	return nil
}

// Commit makes the appended pages part of the database: it writes them out,
// syncs, then updates the header's page count (offset 28), change counter
// (24) and version-valid-for (92) and syncs again, so a crash at any point
// leaves either the old or the new page count over fully written pages.
// The new b-trees are not visible to SQLite until [Register].
func (a *Appender) Commit() error {
	if err := a.usable(); err != nil {
		return err
	}
	if a.open != nil {
		return a.fail(fmt.Errorf("%w: %s: table %s not finished before Commit", ErrState, a.path, a.open.def.Name), "")
	}
	if a.deferred > 0 {
		return a.fail(fmt.Errorf("%w: %s: the indexes of %d tables not attached before Commit", ErrState, a.path, a.deferred), "")
	}
	if a.written != a.next {
		return a.fail(fmt.Errorf("sqlitefile: internal error: %d pages allocated, %d written", a.next-1, a.written-1), "")
	}
	if err := a.flush(); err != nil {
		return a.fail(err, "")
	}
	if err := a.drain(); err != nil {
		return a.fail(err, "")
	}
	if err := a.f.Sync(); err != nil {
		return a.fail(fmt.Errorf("sqlitefile: %s: sync: %w", a.path, err), "")
	}
	if err := a.checkHeader(); err != nil {
		return a.fail(err, "")
	}
	h := a.header
	pages := a.written - 1
	counter := binary.BigEndian.Uint32(h[24:]) + 1
	var w [4]byte
	for _, fld := range []struct {
		off int64
		v   uint32
	}{{24, counter}, {28, pages}, {92, counter}} {
		binary.BigEndian.PutUint32(w[:], fld.v)
		if _, err := a.f.WriteAt(w[:], fld.off); err != nil {
			return a.fail(fmt.Errorf("sqlitefile: %s: header offset %d: %w", a.path, fld.off, err), "")
		}
	}
	if err := a.f.Sync(); err != nil {
		// The header may or may not be on disk; the pages are. Leave the
		// file as it is rather than truncate under a header that counts them.
		a.err = err
		a.closeFile()
		return fmt.Errorf("sqlitefile: %s: sync after header update: %w", a.path, err)
	}
	a.cfg.log.Info("sqlitefile commit", "path", a.path, "pages_before", a.origSize/int64(a.u), "pages_after", pages, "change_counter", counter)
	return a.closeFile()
}

// Abort truncates the file back to its size at Open and closes it. It is a
// no-op after an error already aborted the append.
func (a *Appender) Abort() error {
	if a.closed {
		if a.err != nil {
			return nil
		}
		return fmt.Errorf("%w: %s already committed or aborted", ErrState, a.path)
	}
	a.err = errors.New("aborted")
	return a.rollback("abort", nil)
}

func (a *Appender) checkHeader() error {
	var h [100]byte
	if _, err := a.f.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("sqlitefile: %s: %w", a.path, err)
	}
	if h != a.header {
		a.cfg.metrics.Rejected("file_state")
		return a.changedError()
	}
	return nil
}

func (a *Appender) changedError() error {
	return fmt.Errorf("%w: %s: header changed since Open (a SQLite connection wrote to the file); not truncating it", ErrNotQuiescent, a.path)
}

func (a *Appender) rollback(why string, cause error) error {
	a.drain() // no write may land after the truncation below
	a.buf = nil
	a.open = nil
	// Someone else's committed write must not be cut off: truncate only a
	// file whose header is still the one we opened.
	var h [100]byte
	if _, err := a.f.ReadAt(h[:], 0); err != nil || h != a.header {
		a.closeFile()
		a.cfg.log.Error("sqlitefile append abandoned", "path", a.path, "reason", why, "err", cause)
		return a.changedError()
	}
	err := a.f.Truncate(a.origSize)
	if err == nil {
		err = a.f.Sync()
	}
	if err != nil {
		err = fmt.Errorf("sqlitefile: %s: truncating back to %d bytes: %w", a.path, a.origSize, err)
	}
	if cerr := a.closeFile(); err == nil {
		err = cerr
	}
	if cause != nil {
		a.cfg.log.Warn("sqlitefile append aborted", "path", a.path, "reason", why, "err", cause)
	} else {
		a.cfg.log.Info("sqlitefile append aborted", "path", a.path, "reason", why)
	}
	return err
}

func (a *Appender) closeFile() error {
	if a.closed {
		return nil
	}
	a.closed = true
	a.drain()
	a.unlock()
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("sqlitefile: %s: %w", a.path, err)
	}
	return nil
}
