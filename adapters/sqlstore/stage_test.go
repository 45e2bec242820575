package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// TestStageIndexOrder: keys packed like PositionID (runs) and others (a
// map: negative, or out of order) come back from walk in ascending order
// with their latest offsets, and are counted once.
func TestStageIndexOrder(t *testing.T) {
	var x stageIndex
	want := map[int64]int64{}
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []int64{-5, -1, 0, 1, 1<<31 - 1, 1 << 31, 1<<denseShift - 1, 3<<denseShift | 7, 3<<denseShift | 1<<31 + 9}
	// Mostly increasing per partition, as a catch-up brings them, with
	// repeats (upserts) and some out of order.
	next := map[int64]int64{}
	for i := 0; i < 5000; i++ {
		p := int64(rng.IntN(4))
		switch rng.IntN(10) {
		case 0:
			keys = append(keys, p<<denseShift|int64(rng.IntN(3000))) // anywhere
		case 1, 2:
			if next[p] > 0 {
				keys = append(keys, p<<denseShift|rng.Int64N(next[p])) // an earlier key again
			}
		default:
			next[p] += 1 + rng.Int64N(3)
			keys = append(keys, p<<denseShift|next[p])
		}
	}
	for i, k := range keys {
		x.set(k, int64(i))
		want[k] = int64(i)
	}
	var got []int64
	err := x.walk(func(id, off int64) error {
		if want[id] != off {
			t.Fatalf("key %d: offset %d, want %d", id, off, want[id])
		}
		got = append(got, id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sorted := make([]int64, 0, len(want))
	for k := range want {
		sorted = append(sorted, k)
		if off, ok := x.get(k); !ok || off != want[k] {
			t.Fatalf("get %d: %d %v", k, off, ok)
		}
	}
	slices.Sort(sorted)
	if !slices.Equal(got, sorted) {
		t.Fatalf("walk order differs from key order (%d keys, %d walked)", len(sorted), len(got))
	}
	if x.len() != len(want) {
		t.Fatalf("len %d, want %d keys", x.len(), len(want))
	}
	if _, ok := x.get(2<<denseShift | 2999999); ok {
		t.Fatal("absent key found")
	}
}

// TestStageIndexPacksAddedKeys: keys only ever added, in order, as
// audit_keys stages them (several a position, offsets past 2^21 in a
// partition), stay packed in runs at a few bytes a key, none in the map;
// a key staged again unpacks its run and takes its new offset; walk
// gives every key back in order either way.
func TestStageIndexPacksAddedKeys(t *testing.T) {
	var x stageIndex
	const perOffset, offsets = 4, 1 << 16
	var want []int64
	var off int64
	for p := int64(0); p < 3; p++ {
		for o := int64(1<<21 - offsets/2); o < 1<<21+offsets/2; o++ {
			for k := int64(0); k < perOffset; k++ {
				id := 5<<59 | p<<47 | o<<11 | k // an audit_keys id
				x.set(id, off)
				want = append(want, id)
				off += 20 + p // rows of about 20 bytes
			}
		}
	}
	slices.Sort(want)
	if len(x.other) != 0 {
		t.Fatalf("%d keys in the map, want none", len(x.other))
	}
	packed := 0
	for _, r := range x.runs {
		if r.unpacked {
			t.Fatal("a run of added keys was unpacked")
		}
		packed += len(r.packed)
	}
	if per := float64(packed) / float64(len(want)); per > 5 {
		t.Fatalf("%.1f bytes a key packed, want at most 5", per)
	}
	again := want[len(want)/3]
	x.set(again, off)
	if got, ok := x.get(again); !ok || got != off {
		t.Fatalf("key staged again: offset %d %v, want %d", got, ok, off)
	}
	if got, ok := x.get(again + 1); !ok || got == off {
		t.Fatalf("its neighbour: offset %d %v", got, ok)
	}
	if _, ok := x.get(again + 5); ok {
		t.Fatal("absent key found")
	}
	unpacked := 0
	for _, r := range x.runs {
		if r.unpacked {
			unpacked++
		}
	}
	if unpacked != 1 {
		t.Fatalf("%d runs unpacked, want 1", unpacked)
	}
	var got []int64
	if err := x.drain(func(id, _ int64) error { got = append(got, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("walk gave %d keys, want %d in order", len(got), len(want))
	}
	if len(x.runs) != 0 {
		t.Fatalf("%d runs left after drain", len(x.runs))
	}
}

// TestTableStage: rows round-trip through the spill with their types;
// DO NOTHING keeps the first copy and an upsert the last; Add changes one
// column; Get scans a subset of columns into the destinations the folds
// use; bad rows are refused with ErrStagedRow.
func TestTableStage(t *testing.T) {
	table := projections.Table{Name: "t_v1", PrimaryKey: []string{"id"}, Columns: []projections.Column{
		{Name: "id", Type: projections.Integer}, {Name: "name", Type: projections.Text},
		{Name: "n", Type: projections.Integer}, {Name: "note", Type: projections.Text, Nullable: true},
	}}
	st, err := newTableStage(filepath.Join(t.TempDir(), "s.db.stage-"), table)
	if err != nil {
		t.Fatal(err)
	}
	defer st.remove()
	cols := table.ColumnNames()
	big := string(make([]byte, 2*spillPending)) // wider than a read window, and written out at once
	rows := []any{
		int64(1), "one", int64(10), sql.NullString{String: "x", Valid: true},
		int64(2), "two", int32(20), sql.NullString{},
		int64(3), big, int64(-30), nil,
	}
	id := []string{"id"}
	if err := st.Put(cols, rows, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(cols, []any{int64(1), "uno", int64(11), nil}, id, nil); err != nil { // DO NOTHING
		t.Fatal(err)
	}
	if err := st.Put(cols, []any{int64(2), "dos", sql.NullInt64{Int64: 22, Valid: true}, "y"}, id, []string{"name", "n", "note"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Add(3, "n", 5); err != nil {
		t.Fatal(err)
	}
	// Pointers are read as their values (nil: NULL), in an insert and in
	// an update.
	five, name5, note5 := int64(5), "five", "n5"
	if err := st.Put(cols, []any{&five, &name5, &five, (*string)(nil)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	name5, note5 = "fünf", "note"
	if err := st.Put(cols, []any{&five, &name5, int64(55), &note5}, id, []string{"name", "note"}); err != nil {
		t.Fatal(err)
	}
	name5, note5 = "changed after Put", "changed after Put"
	// An update of some columns keeps the others.
	if err := st.Put(cols, []any{int64(4), "four", int64(40), "z"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(cols, []any{int64(4), "vier", int64(44), nil}, id, []string{"n"}); err != nil {
		t.Fatal(err)
	}
	// Without ON CONFLICT a stored key is an error, as in SQL; conflicts
	// on another key cannot be staged.
	if err := st.Put(cols, []any{int64(4), "x", int64(0), nil}, nil, nil); !errors.Is(err, ErrStagedRow) {
		t.Errorf("a second row 4 without ON CONFLICT: %v", err)
	}
	if err := st.Put(cols, []any{int64(5), "x", int64(0), nil}, []string{"name"}, nil); !errors.Is(err, ErrStagedRow) {
		t.Errorf("conflicts on name: %v", err)
	}
	type row struct {
		name string
		n    int64
		note sql.NullString
	}
	got := map[int64]row{}
	err = st.Get([]int64{3, 1, 2, 4, 5, 99}, []string{"id", "name", "n", "note"}, func(rs projections.RowScanner) error {
		var id int64
		var r row
		if err := rs.Scan(&id, &r.name, &r.n, &r.note); err != nil {
			return err
		}
		got[id] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]row{
		1: {"one", 10, sql.NullString{String: "x", Valid: true}},
		2: {"dos", 22, sql.NullString{String: "y", Valid: true}},
		3: {big, -25, sql.NullString{}},
		4: {"four", 44, sql.NullString{String: "z", Valid: true}},
		5: {"fünf", 5, sql.NullString{String: "note", Valid: true}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("row %d: name of %d bytes, n %d, note %v; want %d bytes, %d, %v", id, len(got[id].name), got[id].n, got[id].note, len(w.name), w.n, w.note)
		}
	}
	var order []int64
	st.flush()
	st.at.walk(func(id, off int64) error { order = append(order, id); return nil })
	if !slices.Equal(order, []int64{1, 2, 3, 4, 5}) {
		t.Fatalf("order %v", order)
	}
	for _, bad := range []struct {
		cols []string
		row  []any
	}{
		{[]string{"id", "name", "n"}, []any{int64(4), "a", int64(1)}},
		{cols, []any{"4", "a", int64(1), nil}},
		{cols, []any{int64(4), struct{}{}, int64(1), nil}},
		{cols, []any{int64(4), int64(5), int64(1), nil}},        // an integer in a TEXT column
		{cols, []any{int64(4), "a", "1", nil}},                  // text in an INTEGER column
		{cols, []any{int64(4), nil, int64(1), nil}},             // NULL in a NOT NULL column
		{cols, []any{int64(4), "a", float64(1), nil}},           // a REAL
		{cols, []any{int64(4), "a", sql.NullInt64{}, int64(3)}}, // NULL, then an integer in TEXT
		{cols, []any{int64(6), &name5, &name5, nil}},            // a *string in an INTEGER column
		{cols, []any{int64(6), (*string)(nil), int64(1), nil}},  // a nil pointer in a NOT NULL column
		{cols, []any{(*int64)(nil), "a", int64(1), nil}},        // a nil key
	} {
		if err := st.Put(bad.cols, bad.row, nil, nil); !errors.Is(err, ErrStagedRow) {
			t.Errorf("Put(%v, %v): %v, want ErrStagedRow", bad.cols, bad.row, err)
		}
	}
	if err := st.Add(99, "n", 1); !errors.Is(err, ErrStagedRow) {
		t.Errorf("Add to a missing row: %v", err)
	}
	if err := st.Add(1, "name", 1); !errors.Is(err, ErrStagedRow) {
		t.Errorf("Add to a text column: %v", err)
	}
}

// TestStageReadsBack: rows are read back right after they were staged
// (from the pending buffer or, a buffer or more later, from the spill
// file through the read windows) and once all are written; every read
// returns the row as staged.
func TestStageReadsBack(t *testing.T) {
	table := projections.Table{Name: "w_v1", PrimaryKey: []string{"id"}, Columns: []projections.Column{
		{Name: "id", Type: projections.Integer}, {Name: "body", Type: projections.Text}, {Name: "n", Type: projections.Integer},
	}}
	st, err := newTableStage(filepath.Join(t.TempDir(), "s.db.stage-"), table)
	if err != nil {
		t.Fatal(err)
	}
	defer st.remove()
	cols := table.ColumnNames()
	body := func(id int64) string { return fmt.Sprintf("%0*d", 60+int(id%200), id) }
	check := func(ids ...int64) {
		t.Helper()
		n := 0
		err := st.Get(ids, cols, func(rs projections.RowScanner) error {
			var id, v int64
			var b string
			if err := rs.Scan(&id, &b, &v); err != nil {
				return err
			}
			if b != body(id) || v != -id {
				return fmt.Errorf("row %d reads %q, %d", id, b, v)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != len(ids) {
			t.Fatalf("read %d of rows %v", n, ids)
		}
	}
	const rows = 20000 // ≈ 3 MB: a dozen pending buffers written out
	for id := int64(1); id <= rows; id++ {
		if err := st.Put(cols, []any{id, body(id), -id}, nil, nil); err != nil {
			t.Fatal(err)
		}
		// The row just staged, one a buffer or so back, and an old one.
		check(id, max(1, id-1500), max(1, id/2))
	}
	if err := st.flush(); err != nil {
		t.Fatal(err)
	}
	if st.pendingAt != st.end {
		t.Fatalf("after flush: pending at %d, end %d", st.pendingAt, st.end)
	}
	all := make([]int64, rows)
	for i := range all {
		all[i] = int64(i + 1)
	}
	check(all...)

	// A record of 2 MiB or more has a longer length than the three bytes
	// reserved for it, before and after it is written out.
	huge := strings.Repeat("h", 2<<20+10)
	if err := st.Put(cols, []any{int64(rows + 1), huge, int64(7)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		err := st.Get([]int64{rows + 1, rows}, cols, func(rs projections.RowScanner) error {
			var id, v int64
			var b string
			if err := rs.Scan(&id, &b, &v); err != nil {
				return err
			}
			if id == rows+1 && (b != huge || v != 7) || id == rows && b != body(rows) {
				return fmt.Errorf("row %d reads %d bytes, %d", id, len(b), v)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.flush(); err != nil {
			t.Fatal(err)
		}
	}
}
