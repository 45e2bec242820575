package sqlstore

import (
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/sqlitefile"
	"github.com/bridgelog/bridgelog/projections"
)

// tableStage keeps the rows of one table of a bulk load (see [WithBulkLoad])
// in a spill file beside the store: each Put appends the row's values,
// and an in-memory map from primary key to the row's latest copy finds
// it again. Memory is 16 bytes or so per row, whatever the row's width.
type tableStage struct {
	table string
	cols  []string
	types []projections.Column // to check values as SQLite's engine would
	key   int                  // position of the integer primary key
	path  string
	f     *os.File
	// pending holds the rows appended since the last write to the file,
	// which starts at offset pendingAt: a row read back soon after it was
	// staged (a duplicate's counter, a lifecycle's next event) comes from
	// here, with no write and no read.
	pending   []byte
	pendingAt int64
	end       int64      // spill size, buffered bytes included
	at        stageIndex // key → offset of the row's latest copy
	rd        spillReader
	row       []any
	norm      []any
	enc       sqlitefile.RecordEncoder
}

// newTableStage creates t's spill file, named prefix + table + a random part.
func newTableStage(prefix string, t projections.Table) (*tableStage, error) {
	key, err := projections.StageLayout(t)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(prefix), filepath.Base(prefix)+t.Name+"-*.spill")
	if err != nil {
		return nil, err
	}
	st := &tableStage{table: t.Name, cols: t.ColumnNames(), types: t.Columns, key: key, path: f.Name(), f: f,
		pending: make([]byte, 0, spillPending)}
	st.rd.f = f
	return st, nil
}

// ErrStagedRow: a row that cannot be staged (wrong columns, a value of a
// type the store does not keep, a key that is not an integer).
var ErrStagedRow = errors.New("row cannot be staged")

func (s *tableStage) Put(cols []string, rows []any, onConflict, update []string) error {
	if !slices.Equal(cols, s.cols) {
		return fmt.Errorf("%w: %s: columns %v, the table has %v", ErrStagedRow, s.table, cols, s.cols)
	}
	if len(onConflict) > 0 && !slices.Equal(onConflict, s.cols[s.key:s.key+1]) {
		return fmt.Errorf("%w: %s: conflicts on (%v) cannot be staged, only on the primary key", ErrStagedRow, s.table, onConflict)
	}
	updates := make([]int, len(update))
	for i, c := range update {
		if updates[i] = slices.Index(s.cols, c); updates[i] < 0 {
			return fmt.Errorf("%w: %s has no column %s", ErrStagedRow, s.table, c)
		}
	}
	n := len(s.cols)
	for i := 0; i+n <= len(rows); i += n {
		row := rows[i : i+n]
		id, ok := row[s.key].(int64)
		if p, isPtr := row[s.key].(*int64); isPtr && p != nil {
			id, ok = *p, true
		}
		if !ok {
			return fmt.Errorf("%w: %s: primary key %v (%T) is not an int64", ErrStagedRow, s.table, row[s.key], row[s.key])
		}
		if _, known := s.at.get(id); known {
			switch {
			case len(onConflict) == 0:
				return fmt.Errorf("%w: %s: row %d is there already", ErrStagedRow, s.table, id)
			case len(updates) == 0:
				continue // DO NOTHING
			}
			// DO UPDATE: the stored row takes the update columns.
			stored, _, err := s.read(id)
			if err != nil {
				return err
			}
			for _, c := range updates {
				stored[c] = row[c]
			}
			row = stored
		}
		if err := s.append(id, row); err != nil {
			return err
		}
	}
	return nil
}

// append writes one row's copy: uvarint length, then the row as a
// SQLite record (its key column NULL, as in the table), so the table can
// be written from the spill without decoding it.
func (s *tableStage) append(id int64, row []any) error {
	s.norm = s.norm[:0]
	for i, v := range row {
		p, err := plainValue(v)
		if err == nil {
			err = s.fits(i, p)
		}
		if err != nil {
			return fmt.Errorf("%w: %s row %d: %v", ErrStagedRow, s.table, id, err)
		}
		s.norm = append(s.norm, p)
	}
	// The record goes straight into the pending buffer behind a length
	// of three bytes (a uvarint padded with continuation bits, which
	// binary.Uvarint reads as any other), filled in after it.
	n := len(s.pending)
	b, err := s.enc.Append(append(s.pending, 0, 0, 0), s.norm, s.key)
	if err != nil {
		s.pending = s.pending[:n]
		return fmt.Errorf("%w: %s row %d: %v", ErrStagedRow, s.table, id, err)
	}
	if l := len(b) - n - 3; l < 1<<21 {
		b[n], b[n+1], b[n+2] = byte(l)|0x80, byte(l>>7)|0x80, byte(l>>14)
		s.pending = b
	} else { // 2 MiB or more: a longer length, the record moved behind it
		rec := slices.Clone(b[n+3:])
		s.pending = append(binary.AppendUvarint(b[:n], uint64(l)), rec...)
	}
	s.at.set(id, s.end)
	s.end += int64(len(s.pending) - n)
	if len(s.pending) >= spillPending {
		return s.flush()
	}
	return nil
}

// spillPending is how many bytes of rows are kept before they are written.
const spillPending = 256 << 10

// fits refuses what SQLite's engine would store differently or refuse:
// the pages are written as given, without the column's type affinity or
// its NOT NULL constraint.
func (s *tableStage) fits(i int, v any) error {
	c := s.types[i]
	switch v.(type) {
	case nil:
		if !c.Nullable && i != s.key {
			return fmt.Errorf("column %s is NOT NULL", c.Name)
		}
		return nil
	case int64, *int64:
		if c.Type == projections.Integer {
			return nil
		}
	case string, *string:
		if c.Type == projections.Text {
			return nil
		}
	}
	return fmt.Errorf("column %s: a %T value", c.Name, v)
}

func (s *tableStage) Add(id int64, col string, delta int64) error {
	c := slices.Index(s.cols, col)
	if c < 0 {
		return fmt.Errorf("%w: %s has no column %s", ErrStagedRow, s.table, col)
	}
	row, ok, err := s.read(id)
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w: %s has no row %d to add to", ErrStagedRow, s.table, id)
		}
		return err
	}
	v, isInt := row[c].(int64)
	if !isInt {
		return fmt.Errorf("%w: %s row %d: column %s is %T, not an integer", ErrStagedRow, s.table, id, col, row[c])
	}
	row[c] = v + delta
	return s.append(id, row)
}

func (s *tableStage) Get(ids []int64, cols []string, each func(projections.RowScanner) error) error {
	pos := make([]int, len(cols))
	for i, c := range cols {
		if pos[i] = slices.Index(s.cols, c); pos[i] < 0 {
			return fmt.Errorf("%w: %s has no column %s", ErrStagedRow, s.table, c)
		}
	}
	for _, id := range ids {
		row, ok, err := s.read(id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := each(stagedRow{row: row, pos: pos}); err != nil {
			return err
		}
	}
	return nil
}

// read returns the latest copy of row id, its key column filled in; the
// slice is reused by the next read.
func (s *tableStage) read(id int64) ([]any, bool, error) {
	off, ok := s.at.get(id)
	if !ok {
		return nil, false, nil
	}
	var rec []byte
	var err error
	if off >= s.pendingAt {
		rec, err = pendingRecord(s.pending[off-s.pendingAt:])
	} else {
		rec, err = s.rd.record(off)
	}
	if err == nil {
		s.row, err = sqlitefile.DecodeRecord(rec, s.row[:0])
	}
	if err == nil && len(s.row) != len(s.cols) {
		err = fmt.Errorf("%d values for %d columns", len(s.row), len(s.cols))
	}
	if err != nil {
		return nil, false, fmt.Errorf("stage %s at %d: %w", s.path, off, err)
	}
	s.row[s.key] = id
	return s.row, true, nil
}

// readInOrder calls each with every row's latest record, in key order,
// and empties the stage's index as it goes (it is read only once).
// The spill is read on another goroutine, a batch ahead, so reading and
// writing the table use both cores; rec is valid only during the call.
func (s *tableStage) readInOrder(each func(id int64, rec []byte) error) error {
	type batch struct {
		ids  []int64
		ends []int // record i is buf[ends[i-1]:ends[i]]
		buf  []byte
	}
	// A batch ends at batchRows rows or batchBytes bytes: three batches
	// of a table with wide rows were tens of megabytes.
	const batchRows, batchBytes = 4096, 1 << 20
	full, free := make(chan *batch, 2), make(chan *batch, 3)
	for range 3 {
		free <- &batch{}
	}
	stop := make(chan struct{})
	var readErr error
	s.rd.size = spillReadWindowSize
	defer func() { s.rd = spillReader{f: s.f} }() // the windows are not needed after this
	go func() {
		defer close(full)
		b := <-free
		send := func() bool {
			select {
			case full <- b:
			case <-stop:
				return false
			}
			select {
			case b = <-free:
			case <-stop:
				return false
			}
			b.ids, b.ends, b.buf = b.ids[:0], b.ends[:0], b.buf[:0]
			return true
		}
		readErr = s.at.drain(func(id, off int64) error {
			rec, err := s.rd.record(off)
			if err != nil {
				return fmt.Errorf("stage %s at %d: %w", s.path, off, err)
			}
			b.ids, b.buf = append(b.ids, id), append(b.buf, rec...)
			b.ends = append(b.ends, len(b.buf))
			if (len(b.ids) == batchRows || len(b.buf) >= batchBytes) && !send() {
				return errStopped
			}
			return nil
		})
		if readErr == nil && len(b.ids) > 0 {
			send()
		}
	}()
	var err error
	for b := range full {
		start := 0
		for i, id := range b.ids {
			if err == nil {
				err = each(id, b.buf[start:b.ends[i]])
			}
			start = b.ends[i]
		}
		if err != nil {
			close(stop)
			for range full { // let the reader see stop and finish
			}
			return err
		}
		free <- b
	}
	return readErr
}

var errStopped = errors.New("stopped")

// flush writes the pending rows to the spill file.
func (s *tableStage) flush() error {
	if _, err := s.f.WriteAt(s.pending, s.pendingAt); err != nil {
		return fmt.Errorf("stage %s: %w", s.path, err)
	}
	s.pendingAt += int64(len(s.pending))
	s.pending = s.pending[:0]
	return nil
}

// pendingRecord returns the record at the start of b.
func pendingRecord(b []byte) ([]byte, error) {
	n, h := binary.Uvarint(b)
	if h <= 0 || uint64(len(b)-h) < n {
		return nil, errors.New("bad record length")
	}
	return b[h : h+int(n)], nil
}

// remove deletes the spill file.
func (s *tableStage) remove() {
	s.f.Close()
	os.Remove(s.path)
}

// spillReader reads records through a few cached windows of the spill
// file: rows read in key order come in runs written together, so most
// reads are served without a system call.
type spillReader struct {
	f    *os.File
	size int // window size: small for the fold's point reads, larger for reading a whole table
	wins [8]spillWindow
	next int // window to evict next
}

type spillWindow struct {
	off int64
	buf []byte
}

const (
	spillWindowSize     = 64 << 10
	spillReadWindowSize = 256 << 10 // reading in key order (readInOrder)
)

func (r *spillReader) record(off int64) ([]byte, error) {
	hdr, err := r.bytes(off, binary.MaxVarintLen64, true)
	if err != nil {
		return nil, err
	}
	n, h := binary.Uvarint(hdr)
	if h <= 0 {
		return nil, errors.New("bad record length")
	}
	return r.bytes(off+int64(h), int(n), false)
}

// bytes returns n bytes at off (fewer at the end of the file if short is
// allowed).
func (r *spillReader) bytes(off int64, n int, short bool) ([]byte, error) {
	for i := range r.wins {
		w := &r.wins[i]
		if w.buf != nil && off >= w.off && off+int64(n) <= w.off+int64(len(w.buf)) {
			return w.buf[off-w.off : off-w.off+int64(n)], nil
		}
	}
	w := &r.wins[r.next]
	r.next = (r.next + 1) % len(r.wins)
	size := max(r.size, spillWindowSize, n)
	if cap(w.buf) < size {
		w.buf = make([]byte, size)
	}
	m, err := r.f.ReadAt(w.buf[:size], off)
	if err != nil && !errors.Is(err, io.EOF) {
		w.buf = nil
		return nil, err
	}
	w.off, w.buf = off, w.buf[:m]
	if m < n {
		if short {
			return w.buf, nil
		}
		return nil, io.ErrUnexpectedEOF
	}
	return w.buf[:n], nil
}

// plainValue turns a bound argument into one of the values a SQLite
// record holds, as the SQL driver would bind it.
func plainValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, int64, string, []byte, float64:
		return v, nil
	case *int64: // read when the record is encoded (see sqlitefile.AppendRecord)
		if x == nil {
			return nil, nil
		}
		return v, nil
	case *string:
		if x == nil {
			return nil, nil
		}
		return v, nil
	case sql.NullString:
		if !x.Valid {
			return nil, nil
		}
		return x.String, nil
	case sql.NullInt64:
		if !x.Valid {
			return nil, nil
		}
		return x.Int64, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case driver.Valuer:
		dv, err := x.Value()
		if err != nil {
			return nil, err
		}
		if _, again := dv.(driver.Valuer); again {
			return nil, fmt.Errorf("value of type %T", v)
		}
		return plainValue(dv)
	}
	return nil, fmt.Errorf("value of type %T", v)
}

// stagedRow scans a staged row's columns (pos) into destinations, as
// *sql.Rows.Scan would for the types projections use.
type stagedRow struct {
	row []any
	pos []int
}

func (r stagedRow) Scan(dest ...any) error {
	if len(dest) != len(r.pos) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.pos))
	}
	for i, d := range dest {
		if err := assign(d, r.row[r.pos[i]]); err != nil {
			return fmt.Errorf("scan column %d: %w", i, err)
		}
	}
	return nil
}

func assign(dest, v any) error {
	if sc, ok := dest.(sql.Scanner); ok {
		return sc.Scan(v)
	}
	switch d := dest.(type) {
	case *any:
		*d = v
		return nil
	case *int64:
		if x, ok := v.(int64); ok {
			*d = x
			return nil
		}
	case *int32:
		if x, ok := v.(int64); ok && x >= math.MinInt32 && x <= math.MaxInt32 {
			*d = int32(x)
			return nil
		}
	case *int:
		if x, ok := v.(int64); ok {
			*d = int(x)
			return nil
		}
	case *string:
		if x, ok := v.(string); ok {
			*d = x
			return nil
		}
	case *[]byte:
		if x, ok := v.([]byte); ok {
			*d = slices.Clone(x)
			return nil
		}
	}
	return fmt.Errorf("cannot store %T into %T", v, dest)
}
