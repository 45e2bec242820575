package twophase

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrMalformed wraps every decoding failure of protocol bytes.
var ErrMalformed = errors.New("malformed protocol message")

// writer builds the canonical binary form of protocol values: fixed-width
// big-endian integers, uvarint lengths, bytes as length then content. One
// value has one encoding, so hashes and signatures over it are stable.
type writer struct{ b []byte }

func (w *writer) u8(v uint8)   { w.b = append(w.b, v) }
func (w *writer) u16(v uint16) { w.b = binary.BigEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32) { w.b = binary.BigEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64) { w.b = binary.BigEndian.AppendUint64(w.b, v) }
func (w *writer) bool(v bool) {
	if v {
		w.u8(1)
	} else {
		w.u8(0)
	}
}
func (w *writer) count(n int)     { w.b = binary.AppendUvarint(w.b, uint64(n)) }
func (w *writer) bytes(v []byte)  { w.count(len(v)); w.b = append(w.b, v...) }
func (w *writer) str(v string)    { w.count(len(v)); w.b = append(w.b, v...) }
func (w *writer) fixed(v []byte)  { w.b = append(w.b, v...) }
func (w *writer) hash(v Hash)     { w.b = append(w.b, v[:]...) }
func (w *writer) out() []byte     { return w.b }
func (w *writer) reset(b []byte)  { w.b = b[:0] }
func (w *writer) timeNs(ns int64) { w.u64(uint64(ns)) }
func (w *writer) optHash(v *Hash) {
	w.bool(v != nil)
	if v != nil {
		w.hash(*v)
	}
}

// reader decodes what writer wrote. Every length is checked against both a
// caller's bound and the bytes left before anything is allocated, so a
// hostile length can neither panic nor make it allocate.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format+" at byte %d", append([]any{ErrMalformed}, append(a, r.off)...)...)
	}
}

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.fail("%s: %d bytes wanted, %d left", what, n, len(r.b)-r.off)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8(what string) uint8 {
	if p := r.take(1, what); p != nil {
		return p[0]
	}
	return 0
}
func (r *reader) u16(what string) uint16 {
	if p := r.take(2, what); p != nil {
		return binary.BigEndian.Uint16(p)
	}
	return 0
}
func (r *reader) u32(what string) uint32 {
	if p := r.take(4, what); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}
func (r *reader) u64(what string) uint64 {
	if p := r.take(8, what); p != nil {
		return binary.BigEndian.Uint64(p)
	}
	return 0
}
func (r *reader) bool(what string) bool {
	switch v := r.u8(what); v {
	case 0:
		return false
	case 1:
		return true
	default:
		r.fail("%s: boolean byte %d", what, v)
		return false
	}
}

// count reads a length or element count and refuses one above max.
func (r *reader) count(max int, what string) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("%s: bad length", what)
		return 0
	}
	if n != uvarintLen(v) {
		// One value, one encoding: a length written long would let a
		// relayer re-frame a signed envelope, or give one template two hashes.
		r.fail("%s: length not minimally encoded", what)
		return 0
	}
	r.off += n
	if v > uint64(max) || v > math.MaxInt32 {
		r.fail("%s: %d over the bound %d", what, v, max)
		return 0
	}
	if v > uint64(len(r.b)-r.off) {
		// Every element takes at least a byte: a count beyond what is left
		// is refused before anything is allocated for it.
		r.fail("%s: %d elements, %d bytes left", what, v, len(r.b)-r.off)
		return 0
	}
	return int(v)
}

// bytes reads a length-prefixed byte string of at most max bytes; the
// result aliases the input.
func (r *reader) bytes(max int, what string) []byte {
	n := r.count(max, what)
	return r.take(n, what)
}

func (r *reader) str(max int, what string) string { return string(r.bytes(max, what)) }

func (r *reader) hash(what string) (h Hash) {
	if p := r.take(len(h), what); p != nil {
		copy(h[:], p)
	}
	return h
}

func (r *reader) optHash(what string) *Hash {
	if !r.bool(what) {
		return nil
	}
	h := r.hash(what)
	return &h
}

func (r *reader) timeNs(what string) int64 { return int64(r.u64(what)) }

// end fails unless every byte was read: trailing bytes would let two
// encodings of one value exist.
func (r *reader) end(what string) error {
	if r.err == nil && r.off != len(r.b) {
		r.fail("%s: %d trailing bytes", what, len(r.b)-r.off)
	}
	return r.err
}

// uvarintLen is the length of v's minimal uvarint encoding.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
