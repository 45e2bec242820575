package sqlitefile

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// indexBuf holds one index's entries until Finish sorts them: encoded
// records (key values, rowid) in an arena; or, while the index has one
// column and every key so far is an integer, only the key and the rowid,
// from which build encodes each record (the usual case for a hash
// column: no arena, and no random reads of it in key order).
type indexBuf struct {
	def     IndexDef
	rows    int  // expected entries (0: unknown)
	fmt4    bool // the file's schema format is 4 (see intType)
	ints    bool // entries are integer keys and rowids, not records
	arena   []byte
	ents    []ientry
	scratch []byte
}

// ientry is one entry: a sort key from its first column (see sortKey)
// and, for a record in the arena, its offset (high 32 bits) and length;
// for an integer key, the rowid. Arena offsets and rowids grow as entries
// are added, so they order entries with equal keys.
type ientry struct {
	k uint64
	v uint64
}

func newIndexBuf(def IndexDef, rows int, fmt4 bool) *indexBuf {
	return &indexBuf{def: def, rows: rows, fmt4: fmt4, ints: len(def.Columns) == 1}
}

// addFields adds an entry from its encoded fields.
func (ib *indexBuf) addFields(fs []field) error {
	if ib.ints {
		if f := fs[0]; f.class() == 1 && !f.isFloat() {
			if ib.ents == nil && ib.rows > 0 {
				ib.ents = make([]ientry, 0, ib.rows)
			}
			ib.ents = append(ib.ents, ientry{k: uint64(f.int()) ^ 1<<63, v: uint64(fs[1].int())})
			return nil
		}
		if err := ib.toRecords(); err != nil {
			return err
		}
	}
	if ib.arena == nil && ib.rows > 0 {
		// Sized from the first entry, a quarter more for keys that vary.
		if ib.ents == nil {
			ib.ents = make([]ientry, 0, ib.rows)
		}
		_, n := fieldsSize(fs)
		ib.arena = make([]byte, 0, ib.rows*n*5/4)
	}
	off := len(ib.arena)
	ib.arena = appendFields(ib.arena, fs)
	if len(ib.arena) > math.MaxUint32 {
		return fmt.Errorf("entries exceed %d bytes", uint32(math.MaxUint32))
	}
	ib.ents = append(ib.ents, ientry{v: uint64(off)<<32 | uint64(len(ib.arena)-off)})
	return nil
}

// toRecords moves integer entries into the arena as records, when a key
// that is not an integer comes.
func (ib *indexBuf) toRecords() error {
	ib.ints = false
	for i, e := range ib.ents {
		off := len(ib.arena)
		ib.arena = ib.appendIntRecord(ib.arena, e)
		if len(ib.arena) > math.MaxUint32 {
			return fmt.Errorf("entries exceed %d bytes", uint32(math.MaxUint32))
		}
		ib.ents[i] = ientry{v: uint64(off)<<32 | uint64(len(ib.arena)-off)}
	}
	return nil
}

// appendIntRecord appends the record of integer entry e: key, rowid.
func (ib *indexBuf) appendIntRecord(dst []byte, e ientry) []byte {
	key, rowid := int64(e.k^1<<63), int64(e.v)
	kt, kn := intType(key, ib.fmt4)
	rt, rn := intType(rowid, ib.fmt4)
	var body [16]byte
	putInt(body[:kn], key, kn)
	putInt(body[kn:kn+rn], rowid, rn)
	return appendFields(dst, []field{{st: kt, body: body[:kn]}, {st: rt, body: body[kn : kn+rn]}})
}

// rec returns entry e's record (valid until the next rec of an integer
// entry).
func (ib *indexBuf) rec(e ientry) []byte {
	if ib.ints {
		ib.scratch = ib.appendIntRecord(ib.scratch[:0], e)
		return ib.scratch
	}
	return ib.arena[e.v>>32 : e.v>>32+e.v&math.MaxUint32]
}

func (ib *indexBuf) release() { ib.arena, ib.ents = nil, nil }

// sort orders the entries as SQLite's index b-tree does (BINARY collation,
// column by column, then rowid).
func (ib *indexBuf) sort() {
	if ib.ints {
		sortByK(ib.ents) // k is the whole key
		return
	}
	nKey := len(ib.def.Columns)
	exactInt := true
	for _, e := range ib.ents {
		it := newRecordIter(ib.rec(e))
		if f := it.next(); f.class() != 1 || f.isFloat() {
			exactInt = false
			break
		}
	}
	for i := range ib.ents {
		ib.ents[i].k = sortKey(ib.rec(ib.ents[i]), exactInt)
	}
	// Entries arrive in arena order, which orders equal keys (see ientry):
	// a stable sort by k leaves only runs of equal k to compare in full,
	// and none when k is the whole key.
	sortByK(ib.ents)
	if exactInt && nKey == 1 {
		return
	}
	for i := 0; i < len(ib.ents); {
		j := i + 1
		for j < len(ib.ents) && ib.ents[j].k == ib.ents[i].k {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(ib.ents[i:j], func(x, y ientry) int {
				return compareKeys(ib.rec(x), ib.rec(y), nKey)
			})
		}
		i = j
	}
}

// sortByK orders ents by k and keeps the order of entries with equal k,
// which is the order of v (see ientry): an in-place most-significant-digit
// radix sort, a byte a level, then v within runs of equal k. In place,
// because an index of several million entries is one of a bulk load's
// largest allocations, and a second buffer of its size set the load's
// peak; a comparison sort of a million entries took most of an index
// build.
func sortByK(ents []ientry) { radixSortKV(ents, 56) }

// radixSortKV sorts ents, whose keys share the bits above shift+8, by
// (k, v).
func radixSortKV(ents []ientry, shift uint) {
	if len(ents) < 64 {
		slices.SortFunc(ents, compareKV)
		return
	}
	var count [256]int
	for _, e := range ents {
		count[byte(e.k>>shift)]++
	}
	if count[byte(ents[0].k>>shift)] == len(ents) { // every key has this digit
		if shift == 0 {
			slices.SortFunc(ents, compareKV)
			return
		}
		radixSortKV(ents, shift-8)
		return
	}
	// American flag sort: each entry swapped into its digit's bucket.
	var next, end [256]int
	sum := 0
	for d, n := range count {
		next[d] = sum
		sum += n
		end[d] = sum
	}
	for d := range 256 {
		for next[d] < end[d] {
			e := &ents[next[d]]
			if to := byte(e.k >> shift); int(to) != d {
				*e, ents[next[to]] = ents[next[to]], *e
				next[to]++
				continue
			}
			next[d]++
		}
	}
	from := 0
	for d := range 256 {
		if b := ents[from:end[d]]; len(b) > 1 {
			if shift == 0 {
				slices.SortFunc(b, compareKV)
			} else {
				radixSortKV(b, shift-8)
			}
		}
		from = end[d]
	}
}

func compareKV(x, y ientry) int {
	if c := cmp.Compare(x.k, y.k); c != 0 {
		return c
	}
	return cmp.Compare(x.v, y.v)
}

// checkUnique reports the first two sorted entries with equal keys and no NULL.
func (ib *indexBuf) checkUnique(path string) error {
	nKey := len(ib.def.Columns)
	for i := 1; i < len(ib.ents); i++ {
		if ib.ents[i-1].k != ib.ents[i].k {
			continue
		}
		a := slices.Clone(ib.rec(ib.ents[i-1]))
		b := ib.rec(ib.ents[i])
		if compareKeys(a, b, nKey) != 0 {
			continue
		}
		vals, hasNull := keyValues(a, nKey)
		if hasNull {
			continue
		}
		ra, _ := keyValues(a, nKey+1)
		rb, _ := keyValues(b, nKey+1)
		return &UniqueViolationError{Path: path, Index: ib.def.Name, Values: vals,
			Rowids: [2]int64{ra[nKey].(int64), rb[nKey].(int64)}}
	}
	return nil
}

// build sorts, checks and writes the index b-tree and returns its root.
// The pages go to s, which is the Appender itself or, for a build on
// another goroutine, a [detachedPages]; u is the page size, path names
// the file in errors.
func (ib *indexBuf) build(s pageSink, u int, path string) (uint32, error) {
	ib.sort()
	if ib.def.Unique {
		if err := ib.checkUnique(path); err != nil {
			return 0, err
		}
	}
	b := &ibuilder{
		s:    s,
		u:    u,
		x:    (u-12)*64/255 - 23,
		m:    (u-12)*32/255 - 23,
		page: make([]byte, u),
	}
	b.levels = []*ilevel{{leaf: true}}
	for _, e := range ib.ents {
		pc, err := b.cell(ib.rec(e))
		if err != nil {
			return 0, err
		}
		if err := b.addEntry(0, pc); err != nil {
			return 0, err
		}
	}
	return b.finish()
}

// icell is an index cell: its payload part (payload size, local payload,
// overflow page) and, on interior pages, the left child.
type icell struct {
	child uint32
	pc    []byte
}

// ilevel builds one level of an index b-tree. Entries that do not fit a
// full page go up as dividers, so each entry is stored once. As for tables,
// the last finished page and its divider are held back until the next page
// has a cell, so Finish can borrow from it instead of leaving an empty page.
type ilevel struct {
	leaf       bool
	cells      []icell
	used       int
	pending    uint32 // interior: the child waiting for its divider (or the right child)
	hasPending bool
	held       []icell
	heldRight  uint32
	heldDiv    []byte
	hasHeld    bool
}

type ibuilder struct {
	s      pageSink
	u      int // page size
	x, m   int
	levels []*ilevel
	page   []byte
	chunk  []byte
}

// cell encodes an entry's payload part, writing its overflow pages now.
func (b *ibuilder) cell(rec []byte) ([]byte, error) {
	p := len(rec)
	local := localSize(p, b.x, b.m, b.u)
	size := varintLen(uint64(p)) + local
	if local < p {
		size += 4
	}
	if cap(b.chunk)-len(b.chunk) < size {
		b.chunk = make([]byte, 0, max(1<<20, size))
	}
	n := len(b.chunk)
	b.chunk = b.chunk[:n+size]
	pc := b.chunk[n : n+size : n+size]
	w := putVarint(pc, uint64(p))
	w += copy(pc[w:], rec[:local])
	if local < p {
		ovfl, err := writeOverflow(b.s, b.u, rec[local:])
		if err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(pc[w:], ovfl)
	}
	return pc, nil
}

func (l *ilevel) cost(c icell) int {
	if l.leaf {
		return 2 + max(4, len(c.pc))
	}
	return 2 + 4 + len(c.pc)
}

func (b *ibuilder) capacity(l *ilevel) int {
	if l.leaf {
		return b.u - 8
	}
	return b.u - 12
}

func (b *ibuilder) level(k int) *ilevel {
	for len(b.levels) <= k {
		b.levels = append(b.levels, &ilevel{})
	}
	return b.levels[k]
}

func (b *ibuilder) addChild(k int, child uint32) {
	l := b.level(k)
	l.pending, l.hasPending = child, true
}

func (b *ibuilder) addEntry(k int, pc []byte) error {
	l := b.level(k)
	c := icell{pc: pc}
	if !l.leaf {
		c.child = l.pending
		l.hasPending = false
	}
	if cost := l.cost(c); l.used+cost <= b.capacity(l) {
		l.cells = append(l.cells, c)
		l.used += cost
		return nil
	}
	// Full: this entry becomes the divider above the page (whose right
	// child, on an interior level, is the pending child).
	if l.hasHeld {
		if err := b.flushHeld(k); err != nil {
			return err
		}
	}
	l.held, l.cells = l.cells, l.held[:0]
	l.heldRight, l.heldDiv, l.hasHeld = c.child, pc, true
	l.used = 0
	return nil
}

func (b *ibuilder) flushHeld(k int) error {
	l := b.levels[k]
	pg, err := b.writePage(l.held, l.leaf, l.heldRight)
	if err != nil {
		return err
	}
	l.hasHeld = false
	b.addChild(k+1, pg)
	return b.addEntry(k+1, l.heldDiv)
}

func (b *ibuilder) finish() (uint32, error) {
	for k := 0; ; k++ {
		l := b.levels[k]
		if !l.leaf && !l.hasHeld && len(l.cells) == 0 {
			return l.pending, nil // a single child: it is the root
		}
		if l.hasHeld && len(l.cells) == 0 {
			// The last page would be empty (leaf) or only a right child
			// (interior): move the held divider down into it and make the
			// held page's last entry the divider.
			last := l.held[len(l.held)-1]
			l.held = l.held[:len(l.held)-1]
			l.cells = append(l.cells, icell{child: l.heldRight, pc: l.heldDiv})
			l.heldRight, l.heldDiv = last.child, last.pc
			b.s.borrowed("index", k)
		}
		if l.hasHeld {
			if err := b.flushHeld(k); err != nil {
				return 0, err
			}
		}
		pg, err := b.writePage(l.cells, l.leaf, l.pending)
		if err != nil {
			return 0, err
		}
		if k+1 >= len(b.levels) {
			return pg, nil
		}
		b.addChild(k+1, pg)
	}
}

func (b *ibuilder) writePage(cells []icell, leaf bool, right uint32) (uint32, error) {
	pg, err := b.s.alloc()
	if err != nil {
		return 0, err
	}
	tracks := b.s.tracksPointers()
	page := b.page
	clear(page)
	hdr := 8
	page[0] = indexLeaf
	if !leaf {
		hdr = 12
		page[0] = indexInterior
		binary.BigEndian.PutUint32(page[8:], right)
		if tracks {
			b.s.pointer(pg, 8)
		}
	}
	binary.BigEndian.PutUint16(page[3:], uint16(len(cells)))
	content := b.u
	for i, c := range cells {
		var pcAt int // where c.pc starts on the page
		if leaf {
			content -= max(4, len(c.pc))
			pcAt = content
			copy(page[content:], c.pc)
		} else {
			content -= 4 + len(c.pc)
			pcAt = content + 4
			binary.BigEndian.PutUint32(page[content:], c.child)
			copy(page[content+4:], c.pc)
			if tracks {
				b.s.pointer(pg, content)
			}
		}
		if tracks && b.overflows(c.pc) {
			b.s.pointer(pg, pcAt+len(c.pc)-4)
		}
		binary.BigEndian.PutUint16(page[hdr+2*i:], uint16(content))
	}
	binary.BigEndian.PutUint16(page[5:], uint16(content))
	return pg, b.s.writePage(pg, page, true)
}

// overflows says whether cell payload part pc ends with an overflow page
// number (see cell).
func (b *ibuilder) overflows(pc []byte) bool {
	p, _ := getVarint(pc)
	return localSize(int(p), b.x, b.m, b.u) < int(p)
}
