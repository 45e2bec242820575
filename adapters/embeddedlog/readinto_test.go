package embeddedlog

import (
	"context"
	"errors"
	"os"
	"testing"
	"unsafe"
)

// recycler hands out buffers as a caller that reuses them would: after
// replay, the same buffers again, in the same order, still holding what
// the earlier read put in them.
type recycler struct {
	kept   [][]byte
	replay bool
	next   int
}

func (r *recycler) alloc(n int) []byte {
	if r.replay && r.next < len(r.kept) && len(r.kept[r.next]) == n {
		b := r.kept[r.next]
		r.next++
		return b
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xee // not zeros: the contents are the caller's
	}
	r.kept = append(r.kept, b)
	return b
}

func TestReadIntoUsesTheCallersBuffers(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	defer l.Close()
	appendEach(t, l, 0, 50, vlen)

	var r recycler
	recs, err := l.ReadInto(context.Background(), single, 0, 0, 1000, r.alloc)
	if err != nil {
		t.Fatal(err)
	}
	checkValues(t, recs, 50, vlen)
	if len(r.kept) == 0 {
		t.Fatal("ReadInto did not ask for a buffer")
	}
	// The records alias the buffers handed out.
	within := func(p []byte) bool {
		for _, b := range r.kept {
			lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			if at := uintptr(unsafe.Pointer(unsafe.SliceData(p))); at >= lo && at < lo+uintptr(len(b)) {
				return true
			}
		}
		return false
	}
	for _, rec := range recs {
		if !within(rec.Value) {
			t.Fatalf("record %d is not in a buffer from alloc", rec.Offset)
		}
	}
}

// A segment cut short under the open log must not be read out of what a
// recycled buffer held from an earlier read of the same bytes: that would
// serve records the file no longer has.
func TestReadIntoDoesNotServeStaleBufferBytes(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	defer l.Close()
	appendEach(t, l, 0, 50, vlen)

	r := recycler{}
	if _, err := l.ReadInto(context.Background(), single, 0, 0, 1000, r.alloc); err != nil {
		t.Fatal(err)
	}
	path := segPath(dir, single, 0, 0)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	r.replay = true
	recs, err := l.ReadInto(context.Background(), single, 0, 0, 1000, r.alloc)
	if r.next == 0 {
		t.Fatal("the second read did not get the recycled buffer: the test proves nothing")
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != path {
		t.Fatalf("read of a segment cut under the log: %d records, err %v; want a FileError naming %s", len(recs), err, path)
	}
}
