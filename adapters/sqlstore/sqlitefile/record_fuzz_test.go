package sqlitefile

import (
	"errors"
	"testing"
)

// FuzzRecord: reading a record never panics, whatever its bytes (a spill
// file can be damaged on disk). RecordValues and DecodeRecord agree on
// what they read, and a record they both accept is written back by
// AppendRecord byte for byte when it is in the canonical form.
func FuzzRecord(f *testing.F) {
	for _, vals := range [][]any{
		{nil, int64(0), int64(1), int64(-1), "text", []byte{1, 2}, 2.5},
		{int64(1 << 40), "", []byte{}},
		{},
	} {
		rec, err := AppendRecord(nil, vals, -1)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(rec)
	}
	f.Add([]byte{0x81})          // a header size that runs past the end
	f.Add([]byte{2, 12, 0xff})   // a body past the end
	f.Add([]byte{3, 0x81, 0x00}) // a two-byte serial type
	f.Add([]byte{2, 10})         // a reserved serial type
	f.Fuzz(func(t *testing.T, rec []byte) {
		rv, err1 := RecordValues(rec, nil)
		dv, err2 := DecodeRecord(rec, nil)
		if (err1 == nil) != (err2 == nil) || len(rv) != len(dv) {
			t.Fatalf("RecordValues %d values, %v; DecodeRecord %d values, %v", len(rv), err1, len(dv), err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrRecord) {
				t.Fatalf("error %v is not an ErrRecord", err1)
			}
			return
		}
		for i, v := range rv {
			var ok bool
			switch d := dv[i].(type) {
			case nil:
				ok = v.Kind == NullValue
			case int64:
				ok = v.Kind == IntValue && v.Int == d
			case float64:
				ok = v.Kind == FloatValue && (v.Float == d || v.Float != v.Float && d != d)
			case string:
				ok = v.Kind == TextValue && string(v.Bytes) == d
			case []byte:
				ok = v.Kind == BlobValue && string(v.Bytes) == string(d)
			}
			if !ok {
				t.Fatalf("value %d: RecordValues %+v, DecodeRecord %#v", i, v, dv[i])
			}
		}
		back, err := AppendRecord(nil, dv, -1)
		if err != nil {
			return // a NaN, which a record holds but AppendRecord refuses
		}
		if again, err := DecodeRecord(back, nil); err != nil || len(again) != len(dv) {
			t.Fatalf("re-encoded record reads as %d values, %v", len(again), err)
		}
	})
}
