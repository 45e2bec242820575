package sqlitefile

import (
	"encoding/binary"
	"fmt"
)

// pageSink takes the pages of a b-tree as they are built: the Appender,
// which writes them at their page numbers, or [detachedPages], which holds
// them under numbers of its own until they can be given the file's.
type pageSink interface {
	// alloc hands out the next page number.
	alloc() (uint32, error)
	// writePage takes page p, which must be the next allocated page not
	// yet written.
	writePage(p uint32, data []byte, keep bool) error
	// borrowed counts a tail fix-up (see [Appender.borrowed]).
	borrowed(kind string, level int)
	// tracksPointers says whether pointer must be told where page numbers
	// are written, so they can be renumbered.
	tracksPointers() bool
	// pointer says page p holds a page number at byte off.
	pointer(p uint32, off int)
}

func (a *Appender) tracksPointers() bool { return false }
func (a *Appender) pointer(uint32, int)  {}

// detachedPages holds the pages of an index built on another goroutine,
// numbered 1, 2, … in build order, and where each holds a page number.
// attach gives them the appender's next page numbers, rewrites every page
// number they hold, and writes them.
type detachedPages struct {
	u       int
	chunks  [][]byte // page v is in chunks[(v-1)/chunkPages], whole chunks so growing copies nothing
	keep    []bool
	ptrs    []pagePointer
	borrows []borrow
}

// chunkPages is how many pages a chunk of detached pages holds.
const chunkPages = 256

type pagePointer struct {
	page uint32
	off  int
}

type borrow struct {
	kind  string
	level int
}

func (d *detachedPages) count() uint32 { return uint32(len(d.keep)) }

// page returns detached page v.
func (d *detachedPages) page(v uint32) []byte {
	i := int(v-1) % chunkPages * d.u
	return d.chunks[int(v-1)/chunkPages][i : i+d.u]
}

func (d *detachedPages) alloc() (uint32, error) {
	if len(d.keep) >= maxPageCount {
		return 0, fmt.Errorf("%w: an index of more than %d pages", ErrTooLarge, uint32(maxPageCount))
	}
	if len(d.keep)%chunkPages == 0 {
		d.chunks = append(d.chunks, make([]byte, chunkPages*d.u))
	}
	// Pages are written in allocation order, but an overflow chain
	// allocates its next page before it writes the current one.
	d.keep = append(d.keep, false)
	return d.count(), nil
}

func (d *detachedPages) writePage(p uint32, data []byte, keep bool) error {
	if p == 0 || p > d.count() {
		return fmt.Errorf("sqlitefile: internal error: writing detached page %d of %d", p, d.count())
	}
	copy(d.page(p), data[:d.u])
	d.keep[p-1] = keep
	return nil
}

func (d *detachedPages) borrowed(kind string, level int) {
	d.borrows = append(d.borrows, borrow{kind, level})
}

func (d *detachedPages) tracksPointers() bool { return true }

func (d *detachedPages) pointer(p uint32, off int) {
	d.ptrs = append(d.ptrs, pagePointer{p, off})
}

// attach writes the pages to a at its next page numbers and returns the
// file's number of detached page v as at[v].
func (d *detachedPages) attach(a *Appender) (at []uint32, err error) {
	n := d.count()
	at = make([]uint32, n+1)
	for v := uint32(1); v <= n; v++ {
		if at[v], err = a.alloc(); err != nil {
			return nil, err
		}
	}
	for _, ptr := range d.ptrs {
		b := d.page(ptr.page)[ptr.off:]
		v := binary.BigEndian.Uint32(b)
		if v == 0 || v > n {
			return nil, fmt.Errorf("sqlitefile: internal error: detached page %d holds page number %d at %d, of %d pages", ptr.page, v, ptr.off, n)
		}
		binary.BigEndian.PutUint32(b, at[v])
	}
	for v := uint32(1); v <= n; v++ {
		if err := a.writePage(at[v], d.page(v), d.keep[v-1]); err != nil {
			return nil, err
		}
		if v%chunkPages == 0 {
			d.chunks[v/chunkPages-1] = nil // written: the appender has copied it
		}
	}
	for _, b := range d.borrows {
		a.borrowed(b.kind, b.level)
	}
	return at, nil
}

// PendingIndexes are the indexes of a table finished with
// [TableWriter.FinishDeferred], being built on another goroutine.
type PendingIndexes struct {
	a     *Appender
	table string
	done  chan struct{}
	names []string
	roots []uint32 // detached page numbers
	pages []*detachedPages
	err   error
	taken bool
}

// FinishDeferred ends the table's b-tree, as [TableWriter.Finish] does, and
// builds its indexes on another goroutine into pages held in memory, so
// the next table can be written meanwhile. Attach then appends them;
// every PendingIndexes must be attached before [Appender.Commit]. The
// pages are held until then: about the size of the index.
func (t *TableWriter) FinishDeferred() (uint32, *PendingIndexes, error) {
	a := t.a
	root, err := t.endTable()
	if err != nil {
		return 0, nil, err
	}
	t.done = true
	a.open = nil
	a.deferred++
	p := &PendingIndexes{a: a, table: t.def.Name, done: make(chan struct{})}
	idx := t.idx
	t.idx = nil
	go func() {
		defer close(p.done)
		for _, ib := range idx {
			d := &detachedPages{u: a.u}
			r, err := ib.build(d, a.u, a.path)
			ib.release()
			if err != nil {
				p.err = err
				return
			}
			p.names, p.roots, p.pages = append(p.names, ib.def.Name), append(p.roots, r), append(p.pages, d)
		}
	}()
	return root, p, nil
}

// Ready says whether the indexes are built, so Attach would not wait.
func (p *PendingIndexes) Ready() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Attach waits for the indexes' build and appends their pages at the
// appender's next page numbers; it returns each index's root page. An
// index that cannot be built (a unique violation) fails the whole append,
// as it does in Finish.
func (p *PendingIndexes) Attach() (map[string]uint32, error) {
	a := p.a
	<-p.done
	if p.taken {
		return nil, fmt.Errorf("%w: %s: indexes of table %s already attached", ErrState, a.path, p.table)
	}
	p.taken = true
	a.deferred--
	if err := a.usable(); err != nil {
		return nil, err
	}
	if a.open != nil {
		return nil, a.fail(fmt.Errorf("%w: %s: table %s still open", ErrState, a.path, a.open.def.Name), "")
	}
	if p.err != nil {
		return nil, a.failIndex(p.err)
	}
	roots := make(map[string]uint32, len(p.names))
	for i, d := range p.pages {
		at, err := d.attach(a)
		if err != nil {
			return nil, a.fail(err, "")
		}
		roots[p.names[i]] = at[p.roots[i]]
		p.pages[i] = nil
	}
	return roots, nil
}
