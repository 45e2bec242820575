package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"math"
	"unsafe"
)

// varintLen is the length of v in SQLite's varint encoding (1..9 bytes).
func varintLen(v uint64) int {
	switch {
	case v <= 0x7f:
		return 1
	case v <= 0x3fff:
		return 2
	case v <= 0x1fffff:
		return 3
	case v <= 0xfffffff:
		return 4
	case v <= 0x7ffffffff:
		return 5
	case v <= 0x3ffffffffff:
		return 6
	case v <= 0x1ffffffffffff:
		return 7
	case v <= 0xffffffffffffff:
		return 8
	default:
		return 9
	}
}

// putVarint writes v in SQLite's varint encoding: big-endian groups of 7 bits
// with the high bit set on all but the last byte; the 9th byte carries 8 bits.
func putVarint(b []byte, v uint64) int {
	if v <= 0x7f {
		b[0] = byte(v)
		return 1
	}
	if v <= 0x3fff {
		b[0] = byte(v>>7) | 0x80
		b[1] = byte(v & 0x7f)
		return 2
	}
	n := varintLen(v)
	if n == 9 {
		b[8] = byte(v)
		v >>= 8
		for i := 7; i >= 0; i-- {
			b[i] = byte(v&0x7f) | 0x80
			v >>= 7
		}
		return 9
	}
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	b[n-1] &= 0x7f
	return n
}

// getVarint decodes a varint; b must hold it whole (records we built ourselves).
func getVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		c := b[i]
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return v<<8 | uint64(b[8]), 9
}

func intType(x int64, fmt4 bool) (uint64, int) {
	if fmt4 && (x == 0 || x == 1) {
		return 8 + uint64(x), 0
	}
	u := x
	if u < 0 {
		u = ^u
	}
	switch {
	case u <= 127:
		return 1, 1
	case u <= 32767:
		return 2, 2
	case u <= 8388607:
		return 3, 3
	case u <= 2147483647:
		return 4, 4
	case u <= 140737488355327:
		return 5, 6
	default:
		return 6, 8
	}
}

// bodyLen is the body length of a serial type.
func bodyLen(st uint64) int {
	switch st {
	case 0, 8, 9, 10, 11:
		return 0
	case 1, 2, 3, 4:
		return int(st)
	case 5:
		return 6
	case 6, 7:
		return 8
	}
	return int((st - 12) / 2)
}

func putInt(b []byte, x int64, n int) {
	u := uint64(x)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(u)
		u >>= 8
	}
}

// headerLen is the record header length for serial types totalling typeBytes
// bytes: the header-size varint counts itself.
func headerLen(typeBytes int) int {
	n := 1
	for varintLen(uint64(typeBytes+n)) > n {
		n++
	}
	return typeBytes + n
}

// appendRecord appends the record of vals (in order) to dst, the value at
// nullCol (the INTEGER PRIMARY KEY aliasing the rowid; -1 for none) stored
// as NULL. A value a record cannot hold leaves dst as it was and is
// reported by its position (bad >= 0).
func appendRecord(dst []byte, vals []any, fmt4 bool, nullCol int) (out []byte, bad int) {
	var buf [32]preparedCol
	if len(vals) <= len(buf) {
		return appendRecordWith(dst, vals, fmt4, nullCol, buf[:])
	}
	return appendRecordWith(dst, vals, fmt4, nullCol, make([]preparedCol, len(vals)))
}

// preparedCol is a record's value read out of its interface: its serial
// type, its body length n, and the body: i as n big-endian bytes (an
// integer, or a float's bits) when fixed, else the bytes of s.
type preparedCol struct {
	st    uint64
	n     int
	i     int64
	s     string
	fixed bool
}

// appendRecordWith is appendRecord with scratch for at least len(vals)
// columns. One pass reads each value out of its interface; the writing
// pass then needs no type switch (two more a value were a third of it).
func appendRecordWith(dst []byte, vals []any, fmt4 bool, nullCol int, cols []preparedCol) (out []byte, bad int) {
	cols = cols[:len(vals)]
	typeBytes, body := 0, 0
	for i, v := range vals {
		if i == nullCol {
			v = nil
		}
		c := &cols[i]
		switch x := v.(type) {
		case nil:
			*c = preparedCol{}
		case *string:
			if x == nil {
				return dst, i
			}
			*c = preparedCol{st: uint64(len(*x))*2 + 13, n: len(*x), s: *x}
		case *int64:
			if x == nil {
				return dst, i
			}
			st, n := intType(*x, fmt4)
			*c = preparedCol{st: st, n: n, i: *x, fixed: true}
		case string:
			*c = preparedCol{st: uint64(len(x))*2 + 13, n: len(x), s: x}
		case int64:
			st, n := intType(x, fmt4)
			*c = preparedCol{st: st, n: n, i: x, fixed: true}
		case []byte:
			// Only read, within this call.
			*c = preparedCol{st: uint64(len(x))*2 + 12, n: len(x), s: unsafe.String(unsafe.SliceData(x), len(x))}
		case float64:
			if math.IsNaN(x) {
				return dst, i
			}
			*c = preparedCol{st: 7, n: 8, i: int64(math.Float64bits(x)), fixed: true}
		default:
			return dst, i
		}
		typeBytes += varintLen(c.st)
		body += c.n
	}
	h := headerLen(typeBytes)
	start := len(dst)
	dst = grow(dst, h+body)
	rec := dst[start:]
	p := putVarint(rec, uint64(h))
	q := h
	for i := range cols {
		c := &cols[i]
		p += putVarint(rec[p:], c.st)
		if c.fixed {
			putInt(rec[q:], c.i, c.n)
		} else {
			copy(rec[q:], c.s)
		}
		q += c.n
	}
	return dst, -1
}

// grow extends dst by n bytes (contents of the new bytes unspecified).
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		nd := make([]byte, len(dst), 2*cap(dst)+n)
		copy(nd, dst)
		dst = nd
	}
	return dst[:len(dst)+n]
}

// field is one decoded column position of a record.
type field struct {
	st   uint64
	body []byte
}

// recordIter walks a record's columns.
type recordIter struct {
	rec      []byte
	hp, hEnd int // next serial type, end of header
	bp       int // next body
}

func newRecordIter(rec []byte) recordIter {
	h, n := getVarint(rec)
	return recordIter{rec: rec, hp: n, hEnd: int(h), bp: int(h)}
}

func (it *recordIter) next() field {
	st, n := getVarint(it.rec[it.hp:])
	it.hp += n
	l := bodyLen(st)
	f := field{st: st, body: it.rec[it.bp : it.bp+l]}
	it.bp += l
	return f
}

// class orders storage classes as SQLite does: NULL < numbers < TEXT < BLOB.
func (f field) class() int {
	switch {
	case f.st == 0 || f.st == 10 || f.st == 11:
		return 0
	case f.st <= 9:
		return 1
	case f.st%2 == 1:
		return 2
	default:
		return 3
	}
}

func (f field) isFloat() bool { return f.st == 7 }

func (f field) int() int64 {
	switch f.st {
	case 8:
		return 0
	case 9:
		return 1
	}
	var u uint64
	for _, c := range f.body {
		u = u<<8 | uint64(c)
	}
	// sign-extend from the body length
	shift := 64 - 8*uint(len(f.body))
	return int64(u<<shift) >> shift
}

func (f field) float() float64 { return math.Float64frombits(binary.BigEndian.Uint64(f.body)) }

// value decodes the field into the Go value the writer accepts.
func (f field) value() any {
	switch f.class() {
	case 0:
		return nil
	case 1:
		if f.isFloat() {
			return f.float()
		}
		return f.int()
	case 2:
		return string(f.body)
	}
	return append([]byte{}, f.body...)
}

// compareFields compares two fields in SQLite's BINARY-collation order.
func compareFields(a, b field) int {
	ca, cb := a.class(), b.class()
	if ca != cb {
		return ca - cb
	}
	switch ca {
	case 0:
		return 0
	case 1:
		switch {
		case !a.isFloat() && !b.isFloat():
			return cmpInt(a.int(), b.int())
		case a.isFloat() && b.isFloat():
			return cmpFloat(a.float(), b.float())
		case a.isFloat():
			return -intFloatCompare(b.int(), a.float())
		default:
			return intFloatCompare(a.int(), b.float())
		}
	}
	return bytes.Compare(a.body, b.body)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// intFloatCompare compares i and r exactly (no rounding of i to a float).
func intFloatCompare(i int64, r float64) int {
	if r < -9223372036854775808.0 {
		return 1
	}
	if r >= 9223372036854775808.0 {
		return -1
	}
	y := int64(r) // truncates toward zero; exact for |r| < 2^63
	if i != y {
		return cmpInt(i, y)
	}
	// i == trunc(r): only r's fraction decides
	return cmpFloat(float64(y), r)
}

// compareKeys compares the first n columns of two records.
func compareKeys(a, b []byte, n int) int {
	ia, ib := newRecordIter(a), newRecordIter(b)
	for range n {
		if c := compareFields(ia.next(), ib.next()); c != 0 {
			return c
		}
	}
	return 0
}

// keyValues decodes the first n columns of a record, for error messages.
func keyValues(rec []byte, n int) (vals []any, hasNull bool) {
	it := newRecordIter(rec)
	for range n {
		f := it.next()
		if f.class() == 0 {
			hasNull = true
		}
		vals = append(vals, f.value())
	}
	return vals, hasNull
}

// sortKey maps a record's first column to 64 bits that never contradict
// compareFields (a < b implies sortKey(a) <= sortKey(b)), so most
// comparisons of a sort are one integer compare. exactInt is for columns
// holding only integers: then equal keys mean equal values.
func sortKey(rec []byte, exactInt bool) uint64 {
	it := newRecordIter(rec)
	f := it.next()
	if exactInt {
		return uint64(f.int()) ^ 1<<63
	}
	switch f.class() {
	case 0:
		return 0
	case 1:
		r := float64(0)
		if f.isFloat() {
			r = f.float()
		} else {
			r = float64(f.int()) // rounding is monotonic
		}
		if r == 0 {
			r = 0 // -0 == 0
		}
		bits := math.Float64bits(r)
		if bits&(1<<63) != 0 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		return 1<<62 | bits>>2
	}
	var p [8]byte
	copy(p[:], f.body)
	return uint64(f.class())<<62 | binary.BigEndian.Uint64(p[:])>>2
}
