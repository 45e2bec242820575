package sqlitefile

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// BenchmarkRecordEncoder encodes a processed_events row as the bulk
// loader's stage does: values passed by pointer, the key column NULL.
func BenchmarkRecordEncoder(b *testing.B) {
	rowid, part, off, hash := int64(123456789), int64(3), int64(4567), int64(-987654321)
	topic := "bridgelog.bridge.v1"
	key := "338:0xabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdefabcdef1234:7:0xfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeed"
	typ, id := "deposit.detected", "0194f0c2-7b1e-7c3a-9f00-123456789abc"
	content, at := "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "2026-11-22T17:00:00.000000000Z"
	vals := []any{&rowid, &topic, part, &off, &key, &hash, &typ, &id, &content, &at, int64(0)}
	var dst []byte
	var e RecordEncoder
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = e.Append(dst[:0], vals, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordEncoder: values passed by pointer encode as the values
// themselves; an encoder reused across records of other widths writes
// what AppendRecord writes; a nil pointer or NaN is refused by position.
func TestRecordEncoder(t *testing.T) {
	i, s := int64(-300), "text"
	big := int64(1 << 50)
	rows := [][]any{
		{nil, int64(0), int64(1), int64(127), int64(-129), big, 2.5, "", "x", []byte{1, 2, 3}},
		{&i, &s, &big},
		{int64(7)},
		{},
		{&s, nil, []byte{}, int64(32768), int64(8388608), int64(2147483648), int64(-1 << 62)},
	}
	var e RecordEncoder
	for round := 0; round < 2; round++ {
		for n, vals := range rows {
			for _, null := range []int{-1, 0} {
				got, err := e.Append([]byte{0xaa}, vals, null)
				if err != nil {
					t.Fatalf("row %d: %v", n, err)
				}
				want, bad := appendRecordSlowForTest(vals, null)
				if bad >= 0 || string(got[1:]) != string(want) || got[0] != 0xaa {
					t.Fatalf("row %d null %d: %x, want %x", n, null, got, want)
				}
			}
		}
	}
	var nilStr *string
	for _, vals := range [][]any{{int64(1), nilStr}, {math.NaN()}, {int64(1), int32(2)}} {
		if _, err := e.Append(nil, vals, -1); !errors.Is(err, ErrValue) {
			t.Fatalf("%v: %v, want ErrValue", vals, err)
		}
	}
}

// appendRecordSlowForTest writes a record the plain way, value by value,
// with pointers taken as their values: what the encoder must match.
func appendRecordSlowForTest(vals []any, null int) ([]byte, int) {
	plain := make([]any, len(vals))
	for k, v := range vals {
		switch x := v.(type) {
		case *int64:
			plain[k] = *x
		case *string:
			plain[k] = *x
		default:
			plain[k] = v
		}
		if k == null {
			plain[k] = nil
		}
	}
	var hdr, body []byte
	for _, v := range plain {
		var st uint64
		switch x := v.(type) {
		case nil:
		case int64:
			n := 8
			switch u := max(x, ^x); {
			case u <= 127:
				n = 1
			case u <= 32767:
				n = 2
			case u <= 8388607:
				n = 3
			case u <= 2147483647:
				n = 4
			case u <= 1<<47-1:
				n = 6
			}
			if x == 0 || x == 1 {
				st, n = 8+uint64(x), 0
			} else {
				st = map[int]uint64{1: 1, 2: 2, 3: 3, 4: 4, 6: 5, 8: 6}[n]
			}
			for b := n - 1; b >= 0; b-- {
				body = append(body, byte(uint64(x)>>(8*b)))
			}
		case float64:
			st = 7
			body = binary.BigEndian.AppendUint64(body, math.Float64bits(x))
		case string:
			st = uint64(len(x))*2 + 13
			body = append(body, x...)
		case []byte:
			st = uint64(len(x))*2 + 12
			body = append(body, x...)
		}
		hdr = binary.AppendUvarint(hdr, st) // every type here is under 128: one byte, as in SQLite
	}
	rec := append([]byte{byte(len(hdr) + 1)}, hdr...)
	return append(rec, body...), -1
}
