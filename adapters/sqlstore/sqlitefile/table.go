package sqlitefile

import (
	"encoding/binary"
	"fmt"
)

// TableDef describes the records of one rowid table (not WITHOUT ROWID).
type TableDef struct {
	Name string
	// Cols is the number of columns in a record (every column of the table,
	// including the INTEGER PRIMARY KEY column, which is stored as NULL in
	// the record because it aliases the rowid).
	Cols int
	// RowidCol is the index of the INTEGER PRIMARY KEY column (its value in
	// Add is ignored and stored as NULL); -1 if none.
	RowidCol int
	Indexes  []IndexDef
	// Rows is how many rows the caller expects to add (0: unknown). It
	// sizes the index buffers at once instead of by doubling, which
	// copies them and takes new memory at each step.
	Rows int
}

// IndexDef describes one index of a table (BINARY collation, ascending).
type IndexDef struct {
	Name string
	// Columns are positions in the row; an entry is (those values..., rowid).
	Columns []int
	// Unique: two entries with equal key columns are an ErrUniqueViolation.
	// NULLs are distinct, as in SQLite.
	Unique bool
}

// Roots are the root page numbers of a finished table and its indexes.
type Roots struct {
	Table   uint32
	Indexes map[string]uint32
}

// Page-header offsets and page types of the b-tree format.
const (
	tableLeaf     = 0x0D
	tableInterior = 0x05
	indexLeaf     = 0x0A
	indexInterior = 0x02
)

// TableWriter streams the rows of one table into leaf pages; see [Appender.Table].
type TableWriter struct {
	a       *Appender
	def     TableDef
	rows    int64
	last    int64
	x, m    int // max and min local payload of a table leaf cell
	leaf    []byte
	nCells  int
	content int // start of the cell content area of leaf
	leafMax int64
	leaves  int // leaf pages written
	levels  []*tlevel
	idx     []*indexBuf
	rec     []byte
	done    bool

	fields, keyFields []field // the record being placed, and an index entry's fields
	rid               [8]byte // the rowid's body in index entries
}

// Table starts a table b-tree. Only one table may be open at a time.
func (a *Appender) Table(def TableDef) (*TableWriter, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	if a.open != nil {
		return nil, a.fail(fmt.Errorf("%w: %s: table %s still open", ErrState, a.path, a.open.def.Name), "")
	}
	if err := a.checkDef(def); err != nil {
		return nil, a.fail(err, "definition")
	}
	t := &TableWriter{
		a:    a,
		def:  def,
		x:    a.u - 35,
		m:    (a.u-12)*32/255 - 23,
		leaf: make([]byte, a.u),
	}
	t.resetLeaf()
	for _, ix := range def.Indexes {
		t.idx = append(t.idx, newIndexBuf(ix, def.Rows, a.fmt4))
	}
	a.open = t
	return t, nil
}

func (a *Appender) checkDef(def TableDef) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s table %q: "+format, append([]any{ErrDef, a.path, def.Name}, args...)...)
	}
	if def.Name == "" {
		return bad("no name")
	}
	if def.Cols < 1 {
		return bad("%d columns", def.Cols)
	}
	if def.RowidCol < -1 || def.RowidCol >= def.Cols {
		return bad("rowid column %d out of range", def.RowidCol)
	}
	seen := map[string]bool{}
	for _, ix := range def.Indexes {
		if ix.Name == "" || seen[ix.Name] {
			return bad("index name %q empty or repeated", ix.Name)
		}
		seen[ix.Name] = true
		if len(ix.Columns) == 0 {
			return bad("index %s has no columns", ix.Name)
		}
		for _, c := range ix.Columns {
			if c < 0 || c >= def.Cols {
				return bad("index %s column %d out of range", ix.Name, c)
			}
		}
	}
	return nil
}

func (t *TableWriter) resetLeaf() {
	clear(t.leaf)
	t.nCells = 0
	t.content = t.a.u
}

// Add appends one row; rowids must be strictly increasing. vals holds
// nil, int64, float64, string or []byte values, one per column.
func (t *TableWriter) Add(rowid int64, vals []any) error {
	a := t.a
	if err := t.ready(rowid); err != nil {
		return err
	}
	if len(vals) != t.def.Cols {
		return a.fail(&ValueError{Path: a.path, Table: t.def.Name, Rowid: rowid, Column: -1,
			Reason: fmt.Sprintf("%d values for %d columns", len(vals), t.def.Cols)}, "value")
	}
	rec, i := appendRecord(t.rec[:0], vals, a.fmt4, t.def.RowidCol)
	if i >= 0 {
		return a.fail(&ValueError{Path: a.path, Table: t.def.Name, Rowid: rowid, Column: i,
			Reason: fmt.Sprintf("unsupported value %T %v", vals[i], vals[i])}, "value")
	}
	t.rec = rec
	// Index entries are taken from the record's fields, as for AddRecord.
	var err error
	if t.fields, err = splitRecord(rec, t.fields[:0]); err != nil {
		return a.fail(fmt.Errorf("sqlitefile: internal error: %w", err), "")
	}
	return t.place(rowid, rec)
}

// addCell places one table-leaf cell, writing the leaf first if it is full
// and the payload's overflow pages if it does not fit locally.
// ready checks that the table takes rows and that rowid comes next.
func (t *TableWriter) ready(rowid int64) error {
	a := t.a
	if t.done || a.open != t {
		if err := a.usable(); err != nil {
			return err
		}
		return fmt.Errorf("%w: %s table %s already finished", ErrState, a.path, t.def.Name)
	}
	if t.rows > 0 && rowid <= t.last {
		return a.fail(&RowOrderError{Path: a.path, Table: t.def.Name, Prev: t.last, Rowid: rowid}, "row_order")
	}
	return nil
}

func (t *TableWriter) addCell(rowid int64, rec []byte) error {
	a := t.a
	p := len(rec)
	local := localSize(p, t.x, t.m, a.u)
	size := varintLen(uint64(p)) + varintLen(uint64(rowid)) + local
	if local < p {
		size += 4
	}
	size = max(size, 4) // SQLite never reads a cell as shorter than 4 bytes
	if size+2 > t.content-(8+2*t.nCells) {
		if err := t.flushLeaf(); err != nil {
			return err
		}
	}
	var ovfl uint32
	if local < p {
		var err error
		if ovfl, err = writeOverflow(a, a.u, rec[local:]); err != nil {
			return err
		}
	}
	t.content -= size
	c := t.leaf[t.content:]
	n := putVarint(c, uint64(p))
	n += putVarint(c[n:], uint64(rowid))
	n += copy(c[n:], rec[:local])
	if local < p {
		binary.BigEndian.PutUint32(c[n:], ovfl)
	}
	binary.BigEndian.PutUint16(t.leaf[8+2*t.nCells:], uint16(t.content))
	t.nCells++
	t.leafMax = rowid
	return nil
}

// flushLeaf writes the current leaf and hands it to the interior levels.
func (t *TableWriter) flushLeaf() error {
	pg, err := t.writeLeaf()
	if err != nil {
		return err
	}
	t.leaves++
	return t.pushChild(0, tcell{child: pg, key: t.leafMax})
}

func (t *TableWriter) writeLeaf() (uint32, error) {
	a := t.a
	pg, err := a.alloc()
	if err != nil {
		return 0, err
	}
	t.leaf[0] = tableLeaf
	binary.BigEndian.PutUint16(t.leaf[3:], uint16(t.nCells))
	binary.BigEndian.PutUint16(t.leaf[5:], uint16(t.content)) // 65536 wraps to 0, as the format says
	if err := a.writePage(pg, t.leaf, false); err != nil {
		return 0, err
	}
	t.resetLeaf()
	return pg, nil
}

// localSize is how much of a payload of p bytes stays in the cell.
func localSize(p, x, m, u int) int {
	if p <= x {
		return p
	}
	k := m + (p-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// writeOverflow writes rest as a chain of overflow pages and returns the first.
// The pages go to s (see [pageSink]); u is the page size.
func writeOverflow(s pageSink, u int, rest []byte) (uint32, error) {
	first, err := s.alloc()
	if err != nil {
		return 0, err
	}
	page := make([]byte, u)
	cur := first
	for len(rest) > 0 {
		n := min(len(rest), u-4)
		var next uint32
		if n < len(rest) {
			if next, err = s.alloc(); err != nil {
				return 0, err
			}
			if s.tracksPointers() {
				s.pointer(cur, 0)
			}
		}
		clear(page)
		binary.BigEndian.PutUint32(page, next)
		copy(page[4:], rest[:n])
		if err := s.writePage(cur, page, false); err != nil {
			return 0, err
		}
		rest = rest[n:]
		cur = next
	}
	return first, nil
}

// tcell is a table interior cell: a child page and the largest rowid in it.
type tcell struct {
	child uint32
	key   int64
}

// tlevel builds one level of table interior pages. The last finished page
// is held back (not written) until the page after it has a cell, so that at
// Finish a lone right child can borrow a cell instead of leaving a page
// with no cells.
type tlevel struct {
	cells      []tcell
	used       int
	pending    tcell // the latest child: a cell once the next child arrives, else the right child
	hasPending bool
	held       []tcell
	heldRight  tcell
	hasHeld    bool
}

func (t *TableWriter) level(k int) *tlevel {
	for len(t.levels) <= k {
		t.levels = append(t.levels, &tlevel{})
	}
	return t.levels[k]
}

func (t *TableWriter) pushChild(k int, c tcell) error {
	l := t.level(k)
	if !l.hasPending {
		l.pending, l.hasPending = c, true
		return nil
	}
	cost := 2 + 4 + varintLen(uint64(l.pending.key))
	if l.used+cost <= t.a.u-12 {
		l.cells = append(l.cells, l.pending)
		l.used += cost
		l.pending = c
		return nil
	}
	// Full: the pending child becomes this page's right child.
	if l.hasHeld {
		if err := t.flushHeld(k); err != nil {
			return err
		}
	}
	l.held, l.cells = l.cells, l.held[:0]
	l.heldRight, l.hasHeld = l.pending, true
	l.used = 0
	l.pending = c
	return nil
}

func (t *TableWriter) flushHeld(k int) error {
	l := t.levels[k]
	pg, err := t.writeInterior(l.held, l.heldRight.child)
	if err != nil {
		return err
	}
	l.hasHeld = false
	return t.pushChild(k+1, tcell{child: pg, key: l.heldRight.key})
}

func (t *TableWriter) writeInterior(cells []tcell, right uint32) (uint32, error) {
	a := t.a
	pg, err := a.alloc()
	if err != nil {
		return 0, err
	}
	page := make([]byte, a.u)
	page[0] = tableInterior
	binary.BigEndian.PutUint16(page[3:], uint16(len(cells)))
	binary.BigEndian.PutUint32(page[8:], right)
	content := a.u
	var tmp [13]byte
	for i, c := range cells {
		binary.BigEndian.PutUint32(tmp[:], c.child)
		n := 4 + putVarint(tmp[4:], uint64(c.key))
		content -= n
		copy(page[content:], tmp[:n])
		binary.BigEndian.PutUint16(page[12+2*i:], uint16(content))
	}
	binary.BigEndian.PutUint16(page[5:], uint16(content))
	return pg, a.writePage(pg, page, false)
}

// Finish writes the table's remaining leaf and interior pages and then each
// index b-tree, and returns the root page numbers.
func (t *TableWriter) Finish() (Roots, error) {
	a := t.a
	root, err := t.endTable()
	if err != nil {
		return Roots{}, err
	}
	roots := Roots{Table: root, Indexes: map[string]uint32{}}
	for _, ib := range t.idx {
		r, err := ib.build(a, a.u, a.path)
		if err != nil {
			return Roots{}, a.failIndex(err)
		}
		roots.Indexes[ib.def.Name] = r
		ib.release()
	}
	t.done = true
	a.open = nil
	return roots, nil
}

// endTable checks that t is the open table and writes the rest of its
// b-tree; it returns the root page. Finish and FinishDeferred then build
// the indexes.
func (t *TableWriter) endTable() (uint32, error) {
	a := t.a
	if t.done || a.open != t {
		if err := a.usable(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%w: %s table %s already finished", ErrState, a.path, t.def.Name)
	}
	root, err := t.finishTable()
	if err != nil {
		return 0, a.fail(err, "")
	}
	return root, nil
}

// failIndex fails the append with an index build's error, counted as a
// unique violation when it is one.
func (a *Appender) failIndex(err error) error {
	reason := ""
	if _, ok := err.(*UniqueViolationError); ok {
		reason = "unique"
	}
	return a.fail(err, reason)
}

func (t *TableWriter) finishTable() (uint32, error) {
	if t.leaves == 0 {
		return t.writeLeaf() // the only leaf (possibly empty) is the root
	}
	if t.nCells > 0 {
		if err := t.flushLeaf(); err != nil {
			return 0, err
		}
	}
	for k := 0; ; k++ {
		l := t.levels[k]
		if !l.hasHeld && len(l.cells) == 0 {
			return l.pending.child, nil // a single child: it is the root
		}
		if l.hasHeld && len(l.cells) == 0 {
			// The last page would have only a right child: borrow the held
			// page's last cell.
			last := l.held[len(l.held)-1]
			l.held = l.held[:len(l.held)-1]
			l.cells = append(l.cells, l.heldRight)
			l.heldRight = last
			t.a.borrowed("table", k+1)
		}
		if l.hasHeld {
			if err := t.flushHeld(k); err != nil {
				return 0, err
			}
		}
		pg, err := t.writeInterior(l.cells, l.pending.child)
		if err != nil {
			return 0, err
		}
		if k+1 >= len(t.levels) {
			return pg, nil
		}
		if err := t.pushChild(k+1, tcell{child: pg, key: l.pending.key}); err != nil {
			return 0, err
		}
	}
}
