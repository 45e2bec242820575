package sqlstore

import (
	"encoding/binary"
	"slices"
)

// stageIndex maps primary keys to spill offsets. Keys packed like
// [projections.PositionID] (topic, partition and the offset's high bits
// above bit 32) arrive in increasing order per topic partition when they
// are new, as a catch-up reads each partition in order: they are appended
// to one run per value of their high 32 bits, with no hashing and key
// order for free. Other keys (negative, or one that comes out of order)
// go to a map.
//
// A run starts packed: each key and its offset as varint deltas from the
// previous ones, a few bytes a key where a table's rows are only ever
// added (audit_keys: several rows an event). The first time one of its
// keys is looked up or staged again (a lifecycle's next event), the run
// is unpacked into sorted arrays, 12 bytes a key, searched by bisection.
type stageIndex struct {
	runs  map[int64]*keyRun // key>>denseShift → its keys in increasing order
	other map[int64]int64
	// the run used last, and its key: a batch stages many rows of one
	// partition in a row
	hot   *keyRun
	hotHi int64
}

// run returns the run of keys with high bits hi, nil if there is none.
func (x *stageIndex) run(hi int64) *keyRun {
	if x.hot != nil && x.hotHi == hi {
		return x.hot
	}
	r := x.runs[hi]
	if r != nil {
		x.hot, x.hotHi = r, hi
	}
	return r
}

// keyRun holds the low bits of one run's keys, increasing, and the offset
// of each key's latest copy: packed (unpacked false) as uvarint deltas,
// or in lo and off.
type keyRun struct {
	unpacked bool
	lo       []uint32
	off      []int64
	packed   []byte
	n        int    // keys in packed
	last     uint32 // the highest key, and its offset (n > 0 or lo not empty)
	lastOff  int64
}

const denseShift = 32

// len is the number of keys in r.
func (r *keyRun) len() int { return r.n + len(r.lo) }

// add appends lo, above every key of r, with its offset.
func (r *keyRun) add(lo uint32, off int64) {
	if !r.unpacked && r.n > 0 && off < r.lastOff {
		r.unpack() // offsets are packed as increasing deltas
	}
	if r.unpacked {
		r.lo, r.off = append(r.lo, lo), append(r.off, off)
	} else {
		r.packed = binary.AppendUvarint(binary.AppendUvarint(r.packed, uint64(lo-r.last)), uint64(off-r.lastOff))
		r.n++
	}
	r.last, r.lastOff = lo, off
}

// find returns the position of lo in r, or -1; a key below r's last
// unpacks it.
func (r *keyRun) find(lo uint32) int {
	if r.len() == 0 || lo > r.last {
		return -1 // the common case: a new key
	}
	r.unpack()
	i, ok := slices.BinarySearch(r.lo, lo)
	if !ok {
		return -1
	}
	return i
}

// unpack moves the packed keys into lo and off.
func (r *keyRun) unpack() {
	if r.unpacked {
		return
	}
	r.lo, r.off = make([]uint32, 0, r.n), make([]int64, 0, r.n)
	r.each(func(lo uint32, off int64) error {
		r.lo, r.off = append(r.lo, lo), append(r.off, off)
		return nil
	})
	r.unpacked, r.packed, r.n = true, nil, 0
}

// each calls f for every key of r, in order, with its offset.
func (r *keyRun) each(f func(lo uint32, off int64) error) error {
	if r.unpacked {
		for i, lo := range r.lo {
			if err := f(lo, r.off[i]); err != nil {
				return err
			}
		}
		return nil
	}
	var lo uint32
	var off int64
	for b := r.packed; len(b) > 0; {
		d, n := binary.Uvarint(b)
		e, m := binary.Uvarint(b[n:])
		lo, off, b = lo+uint32(d), off+int64(e), b[n+m:]
		if err := f(lo, off); err != nil {
			return err
		}
	}
	return nil
}

// len is the number of keys.
func (x *stageIndex) len() int {
	n := len(x.other)
	for _, r := range x.runs {
		n += r.len()
	}
	return n
}

func (x *stageIndex) get(id int64) (int64, bool) {
	if id >= 0 {
		if r := x.run(id >> denseShift); r != nil {
			if lo := uint32(id); lo == r.last && r.len() > 0 {
				return r.lastOff, true
			} else if i := r.find(lo); i >= 0 {
				return r.off[i], true
			}
		}
	}
	off, ok := x.other[id]
	return off, ok
}

func (x *stageIndex) set(id, off int64) {
	if id >= 0 {
		r := x.run(id >> denseShift)
		if r == nil {
			if x.runs == nil {
				x.runs = map[int64]*keyRun{}
			}
			r = &keyRun{}
			x.runs[id>>denseShift] = r
		}
		lo := uint32(id)
		if r.len() == 0 || lo > r.last {
			r.add(lo, off)
			return
		}
		if i := r.find(lo); i >= 0 {
			r.off[i] = off
			if lo == r.last {
				r.lastOff = off
			}
			return
		}
	}
	if x.other == nil {
		x.other = map[int64]int64{}
	}
	x.other[id] = off
}

// walk calls each for every key, in ascending order, with its offset.
func (x *stageIndex) walk(each func(id, off int64) error) error { return x.walkAndFree(each, false) }

// drain is walk, releasing each run once it has been walked: the table's
// index entries, which grow meanwhile, take its place.
func (x *stageIndex) drain(each func(id, off int64) error) error { return x.walkAndFree(each, true) }

func (x *stageIndex) walkAndFree(each func(id, off int64) error, free bool) error {
	his := make([]int64, 0, len(x.runs))
	for hi := range x.runs {
		his = append(his, hi)
	}
	slices.Sort(his)
	others := make([]int64, 0, len(x.other))
	for id := range x.other {
		others = append(others, id)
	}
	slices.Sort(others)
	// Map keys may fall anywhere between run keys: merge the two orders.
	next := 0
	emitOthers := func(below int64, all bool) error {
		for ; next < len(others) && (all || others[next] < below); next++ {
			if err := each(others[next], x.other[others[next]]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, hi := range his {
		err := x.runs[hi].each(func(lo uint32, off int64) error {
			id := hi<<denseShift | int64(lo)
			if err := emitOthers(id, false); err != nil {
				return err
			}
			return each(id, off)
		})
		if err != nil {
			return err
		}
		if free {
			delete(x.runs, hi)
			x.hot = nil
		}
	}
	return emitOthers(0, true)
}
