package sqlitefile

import (
	"errors"
	"fmt"
)

// Rows kept as records. A caller that holds rows between writing and
// appending them (a bulk load stages rows in a spill file) can keep them
// in SQLite's own record format: AppendRecord encodes a row once,
// DecodeRecord reads it back, and AddRecord appends it to a table as it
// is, without decoding and encoding it again.

// ErrRecord: a record is malformed or does not fit the table.
var ErrRecord = errors.New("sqlitefile: bad record")

// AppendRecord appends to dst the schema-format-4 record of vals, as
// SQLite stores a table row: the column at nullCol (the INTEGER PRIMARY
// KEY, which aliases the rowid; -1 for none) is stored as NULL. Values:
// nil, int64, float64 (not NaN), string, []byte, or a non-nil *int64 or
// *string, read during the call (a caller with the values at hand spares
// boxing each one).
func AppendRecord(dst []byte, vals []any, nullCol int) ([]byte, error) {
	dst, i := appendRecord(dst, vals, true, nullCol)
	return dst, valueError(vals, i)
}

// valueError reports the value at bad (none when bad < 0).
func valueError(vals []any, bad int) error {
	if bad < 0 {
		return nil
	}
	return fmt.Errorf("%w: column %d: unsupported value %T", ErrValue, bad, vals[bad])
}

// RecordEncoder is [AppendRecord] with scratch kept from call to call, for
// a caller that encodes many records (one goroutine at a time).
type RecordEncoder struct {
	cols []preparedCol
}

// Append appends the record of vals to dst, as [AppendRecord] does.
func (e *RecordEncoder) Append(dst []byte, vals []any, nullCol int) ([]byte, error) {
	if cap(e.cols) < len(vals) {
		e.cols = make([]preparedCol, len(vals))
	}
	dst, i := appendRecordWith(dst, vals, true, nullCol, e.cols)
	return dst, valueError(vals, i)
}

// DecodeRecord appends the values of rec to dst: nil, int64, float64,
// string or []byte (copies: nothing aliases rec).
func DecodeRecord(rec []byte, dst []any) ([]any, error) {
	var buf [32]field
	fs, err := splitRecord(rec, buf[:0])
	for _, f := range fs {
		dst = append(dst, f.value())
	}
	return dst, err
}

// ValueKind is the storage class of a record value.
type ValueKind uint8

const (
	NullValue ValueKind = iota
	IntValue
	FloatValue
	TextValue
	BlobValue
)

// RecordValue is one value of a record. Bytes (text or blob) aliases the
// record.
type RecordValue struct {
	Kind  ValueKind
	Int   int64
	Float float64
	Bytes []byte
}

// RecordValues appends the values of rec to dst without copying them: for
// a caller that only reads them (a digest of the rows written).
func RecordValues(rec []byte, dst []RecordValue) ([]RecordValue, error) {
	var buf [32]field
	fs, err := splitRecord(rec, buf[:0])
	for _, f := range fs {
		var v RecordValue
		switch f.class() {
		case 1:
			if f.isFloat() {
				v.Kind, v.Float = FloatValue, f.float()
			} else {
				v.Kind, v.Int = IntValue, f.int()
			}
		case 2:
			v.Kind, v.Bytes = TextValue, f.body
		case 3:
			v.Kind, v.Bytes = BlobValue, f.body
		}
		dst = append(dst, v)
	}
	return dst, err
}

// splitRecord checks rec's layout and appends its fields, in order, to
// dst. The fields seen before a fault are appended too.
func splitRecord(rec []byte, dst []field) ([]field, error) {
	h, n, ok := safeVarint(rec)
	if !ok || h < uint64(n) || h > uint64(len(rec)) {
		return dst, fmt.Errorf("%w: header size", ErrRecord)
	}
	hp, bp := n, int(h)
	for i := 0; hp < int(h); i++ {
		st, m := uint64(rec[hp]), 1 // most serial types fit one byte
		if st >= 0x80 {
			if st, m, ok = safeVarint(rec[hp:int(h)]); !ok {
				return dst, fmt.Errorf("%w: serial type of field %d", ErrRecord, i)
			}
		}
		if st == 10 || st == 11 {
			return dst, fmt.Errorf("%w: serial type of field %d", ErrRecord, i)
		}
		hp += m
		l := bodyLen(st)
		if l < 0 || l > len(rec)-bp {
			return dst, fmt.Errorf("%w: field %d runs past the record", ErrRecord, i)
		}
		dst = append(dst, field{st: st, body: rec[bp : bp+l]})
		bp += l
	}
	if bp != len(rec) {
		return dst, fmt.Errorf("%w: %d bytes past the last field", ErrRecord, len(rec)-bp)
	}
	return dst, nil
}

// safeVarint decodes a varint that may be truncated.
func safeVarint(b []byte) (uint64, int, bool) {
	if len(b) >= 9 {
		v, n := getVarint(b)
		return v, n, true
	}
	for i, c := range b {
		if c < 0x80 {
			v, n := getVarint(b[: i+1 : i+1])
			return v, n, true
		}
	}
	return 0, 0, false
}

// AddRecord appends one row already encoded by [AppendRecord] (its
// INTEGER PRIMARY KEY column NULL); rowids must be strictly increasing, as
// for [TableWriter.Add]. The record is checked against the table
// definition and copied; index entries are taken from its fields.
func (t *TableWriter) AddRecord(rowid int64, rec []byte) error {
	a := t.a
	if err := t.ready(rowid); err != nil {
		return err
	}
	if !a.fmt4 {
		return a.fail(fmt.Errorf("%w: %s: records need schema format 4", ErrUnsupported, a.path), "value")
	}
	var err error
	t.fields, err = splitRecord(rec, t.fields[:0])
	bad := ""
	if err == nil && len(t.fields) != t.def.Cols {
		bad = fmt.Sprintf("%d fields for %d columns", len(t.fields), t.def.Cols)
	} else if err == nil && t.def.RowidCol >= 0 && t.fields[t.def.RowidCol].st != 0 {
		bad = fmt.Sprintf("rowid column %d is not NULL", t.def.RowidCol)
	}
	if err == nil && bad != "" {
		err = fmt.Errorf("%w: %s", ErrRecord, bad)
	}
	if err != nil {
		return a.fail(&ValueError{Path: a.path, Table: t.def.Name, Rowid: rowid, Column: -1, Reason: err.Error()}, "value")
	}
	return t.place(rowid, rec)
}

// place appends a checked record whose fields are in t.fields: its table
// cell, then an entry in each index built from those fields and the rowid.
func (t *TableWriter) place(rowid int64, rec []byte) error {
	a := t.a
	if err := t.addCell(rowid, rec); err != nil {
		return a.fail(err, "")
	}
	st, n := intType(rowid, a.fmt4)
	putInt(t.rid[:], rowid, n) // a field of t: a local array would escape, an allocation per row
	rowField := field{st: st, body: t.rid[:n]}
	for _, ib := range t.idx {
		t.keyFields = t.keyFields[:0]
		for _, c := range ib.def.Columns {
			if c == t.def.RowidCol {
				t.keyFields = append(t.keyFields, rowField)
			} else {
				t.keyFields = append(t.keyFields, t.fields[c])
			}
		}
		t.keyFields = append(t.keyFields, rowField)
		if err := ib.addFields(t.keyFields); err != nil {
			return a.fail(fmt.Errorf("%w: %s index %s: %v", ErrTooLarge, a.path, ib.def.Name, err), "")
		}
	}
	t.rows++
	t.last = rowid
	return nil
}

// fieldsSize returns the header length and the whole length of the
// record of fs.
func fieldsSize(fs []field) (h, n int) {
	typeBytes, body := 0, 0
	for _, f := range fs {
		typeBytes += varintLen(f.st)
		body += len(f.body)
	}
	h = headerLen(typeBytes)
	return h, h + body
}

// appendFields appends the record of fields (serial types and bodies
// taken as they are) to dst.
func appendFields(dst []byte, fs []field) []byte {
	h, n := fieldsSize(fs)
	start := len(dst)
	dst = grow(dst, n)
	rec := dst[start:]
	p := putVarint(rec, uint64(h))
	q := h
	for _, f := range fs {
		p += putVarint(rec[p:], f.st)
		q += copy(rec[q:], f.body)
	}
	return dst
}
