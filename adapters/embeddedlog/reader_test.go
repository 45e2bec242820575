package embeddedlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

func mustOpenReadOnly(t *testing.T, dir string, opts ...Option) *Log {
	t.Helper()
	l, err := OpenReadOnly(dir, append([]Option{WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatalf("OpenReadOnly: %v", err)
	}
	return l
}

// tree is every file under dir with its contents, to show a reader
// changed nothing.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(path)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for name, b := range before {
		if a, ok := after[name]; !ok {
			t.Errorf("%s: %s is gone", what, name)
		} else if a != b {
			t.Errorf("%s: %s changed (%d bytes, was %d)", what, name, len(a), len(b))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s: %s was created", what, name)
		}
	}
}

// TestReadOnlyOpenCreatesNothing: a missing directory is ErrNoLog and
// stays missing; an empty one is an empty log and stays empty; a log's
// files, a sealed segment without its index file among them, are read
// and left exactly as they were (no LOCK, no index file written).
func TestReadOnlyOpenCreatesNothing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "data", "log")
	if _, err := OpenReadOnly(missing); !errors.Is(err, ErrNoLog) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("OpenReadOnly of a missing directory: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the missing directory's parent was created: %v", err)
	}

	empty := t.TempDir()
	l := mustOpenReadOnly(t, empty)
	ends, err := l.EndOffsets(context.Background(), topics.TopicBridge)
	if err != nil || len(ends) != topics.DefaultPartitions || ends[0] != 0 {
		t.Fatalf("an empty directory: ends %v, %v", ends, err)
	}
	if recs, err := l.Read(context.Background(), topics.TopicBridge, 0, 0, 10); err != nil || len(recs) != 0 {
		t.Fatalf("Read of an empty log: %v, %v", recs, err)
	}
	l.Close()
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Fatalf("a reader wrote into an empty directory: %v", entries)
	}

	dir := twoPerSegment(t) // 10 records; segments 0, 2, 4, 6 sealed
	if err := os.Remove(idxPath(dir, 2)); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	for _, full := range []bool{false, true} {
		l := mustOpenReadOnly(t, dir, WithFullScan(full))
		checkValues(t, readAll(t, l, single, 0), 10, vlen)
		l.Close()
		sameTree(t, fmt.Sprintf("full scan %v", full), before, tree(t, dir))
	}
}

// TestReadOnlyRefusesWrites: a reader appends, joins groups and backs up
// nothing.
func TestReadOnlyRefusesWrites(t *testing.T) {
	l := mustOpenReadOnly(t, t.TempDir())
	defer l.Close()
	ctx := context.Background()
	if _, err := l.Append(ctx, single, topics.Message{Key: []byte("k"), Value: []byte("v")}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Append: %v", err)
	}
	if _, err := l.Subscribe(ctx, single, "g"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Subscribe: %v", err)
	}
	if _, err := l.Backup(ctx, filepath.Join(t.TempDir(), "b")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Backup: %v", err)
	}
}

// TestReaderBesideWriter: readers opened before and while writers append
// batches across partitions (segments rolling) see, after each refresh,
// every batch acknowledged before the refresh began, and the writer's
// bytes; at the end they see all of it. One reader refreshes through
// EndOffsets and reads to those ends, which must hold whole batches only;
// the other refreshes by reading at its end, as log tail --follow does.
func TestReaderBesideWriter(t *testing.T) {
	const (
		topic     = topics.TopicBridge
		writers   = 3
		batchSize = 5
		rounds    = 40
	)
	dir := t.TempDir()
	w := mustOpen(t, dir, WithSegmentBytes(16<<10))
	ctx := context.Background()
	early := mustOpenReadOnly(t, dir) // before anything was written
	defer early.Close()

	var stop atomic.Bool
	var acked [writers]atomic.Int64 // batches acknowledged per writer
	var wg sync.WaitGroup
	stopWriters := func() { stop.Store(true); wg.Wait() }
	defer stopWriters()
	for wr := range writers {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				msgs := make([]topics.Message, batchSize)
				for j := range msgs {
					msgs[j] = topics.Message{Key: fmt.Appendf(nil, "w%d-%d-%d", wr, i, j), Value: fmt.Appendf(nil, "batch w%d-%d %d/%d", wr, i, j, batchSize)}
				}
				if _, err := w.Append(ctx, topic, msgs...); err != nil {
					t.Error(err)
					return
				}
				acked[wr].Store(int64(i + 1))
			}
		})
	}
	waitFor := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); acked[0].Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the writers acknowledged %d batches in 30 s", acked[0].Load())
			}
		}
	}
	waitFor(20)
	late := mustOpenReadOnly(t, dir) // while the writers append
	defer late.Close()

	type view struct {
		l       *Log
		recs    [][]topics.Record // per partition
		batches map[string]int    // w-i → messages seen
		byRead  bool              // refresh by reading at the end, not EndOffsets
	}
	views := []*view{{l: early, batches: map[string]int{}}, {l: late, batches: map[string]int{}, byRead: true}}
	for _, v := range views {
		v.recs = make([][]topics.Record, topics.DefaultPartitions)
	}
	catchUp := func(v *view) {
		t.Helper()
		var before [writers]int64
		for wr := range before {
			before[wr] = acked[wr].Load()
		}
		// Reading at the end refreshes: only reads up to the ends of one
		// refresh read one cut.
		ends := make([]int64, len(v.recs))
		for p := range ends {
			ends[p] = math.MaxInt64
		}
		if !v.byRead {
			var err error
			if ends, err = v.l.EndOffsets(ctx, topic); err != nil {
				t.Fatal(err)
			}
		}
		for p := range v.recs {
			for int64(len(v.recs[p])) < ends[p] {
				recs, err := v.l.Read(ctx, topic, int32(p), int64(len(v.recs[p])), 1000)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) == 0 {
					break
				}
				for _, r := range recs {
					if r.Offset != int64(len(v.recs[p])) {
						t.Fatalf("%s/%d: record at offset %d, want %d", topic, p, r.Offset, len(v.recs[p]))
					}
					var wr, n, j, size int
					fmt.Sscanf(string(r.Value), "batch w%d-%d %d/%d", &wr, &n, &j, &size)
					v.batches[fmt.Sprintf("%d-%d", wr, n)]++
					v.recs[p] = append(v.recs[p], topics.Record{Key: bytes.Clone(r.Key), Value: bytes.Clone(r.Value)})
				}
			}
		}
		for k, n := range v.batches {
			if n != batchSize && !v.byRead {
				t.Fatalf("after a refresh, batch %s has %d of its %d messages", k, n, batchSize)
			}
		}
		for wr, n := range before {
			for i := range n {
				if v.batches[fmt.Sprintf("%d-%d", wr, i)] != batchSize {
					t.Fatalf("batch %d-%d was acknowledged before the refresh and is not seen", wr, i)
				}
			}
		}
	}
	for r := range rounds {
		waitFor(int64(20 + 5*r))
		for _, v := range views {
			catchUp(v)
		}
	}
	stopWriters()
	for _, v := range views {
		catchUp(v)
		for p, got := range v.recs {
			want := readAll(t, w, topic, int32(p))
			if len(got) != len(want) {
				t.Fatalf("after the writers stopped, the reader reads %d records of %s/%d, the writer %d", len(got), topic, p, len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i].Key, want[i].Key) || !bytes.Equal(got[i].Value, want[i].Value) {
					t.Fatalf("%s/%d@%d: the reader read %q, the writer wrote %q", topic, p, i, got[i].Value, want[i].Value)
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReaderLeavesTornTailsToTheWriter: a torn frame at the end of a
// partition and a batch whose part in another partition is missing are
// not shown and not cut off; the writer that opens the log next cuts them
// and appends in their place, and the reader follows it there.
func TestReaderLeavesTornTailsToTheWriter(t *testing.T) {
	const topic = topics.TopicBench
	k0, k1 := keyFor(0), keyFor(1)
	dir := t.TempDir()
	ctx := context.Background()
	w := mustOpen(t, dir)
	if _, err := w.Append(ctx, topic, topics.Message{Key: k0, Value: []byte("a0")}, topics.Message{Key: k1, Value: []byte("a1")}); err != nil {
		t.Fatal(err)
	}
	p1 := segPath(dir, topic, 1, 0)
	st, _ := os.Stat(p1)
	if _, err := w.Append(ctx, topic, topics.Message{Key: k0, Value: []byte("b0")}, topics.Message{Key: k1, Value: []byte("b1")}); err != nil {
		t.Fatal(err)
	}
	appendEach(t, w, 0, 3, vlen)
	w.Close()
	// As if the writer died writing: the batch's part in partition 1 never
	// reached the file, and half a frame did in the single topic.
	if err := os.Truncate(p1, st.Size()); err != nil {
		t.Fatal(err)
	}
	torn := appendFrame(nil, &frame{offset: 3, time: 1, gseq: 9, gpcount: 1, gparts: 1, key: []byte("k"), value: value(3, vlen)})
	appendToFile(t, segPath(dir, single, 0, 0), torn[:len(torn)/2])
	before := tree(t, dir)

	r := mustOpenReadOnly(t, dir)
	defer r.Close()
	if ends, _ := r.EndOffsets(ctx, topic); ends[0] != 1 || ends[1] != 1 {
		t.Fatalf("the reader shows %v of a log whose second batch is torn, want 1 and 1", ends[:2])
	}
	checkValues(t, readAll(t, r, single, 0), 3, vlen)
	sameTree(t, "reader", before, tree(t, dir))

	// The writer recovers (cutting both) and appends at the same offsets.
	w = mustOpen(t, dir)
	if _, err := w.Append(ctx, topic, topics.Message{Key: k0, Value: []byte("c0")}, topics.Message{Key: k0, Value: []byte("d0")}, topics.Message{Key: k1, Value: []byte("c1")}); err != nil {
		t.Fatal(err)
	}
	appendEach(t, w, 3, 2, vlen)
	for _, p := range []int32{0, 1} {
		got, want := readAll(t, r, topic, p), readAll(t, w, topic, p)
		if len(got) != len(want) || len(got) < 2 {
			t.Fatalf("%s/%d: the reader reads %d records, the writer %d", topic, p, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].Value, want[i].Value) {
				t.Fatalf("%s/%d@%d: the reader reads %q, the writer %q", topic, p, i, got[i].Value, want[i].Value)
			}
		}
	}
	checkValues(t, readAll(t, r, single, 0), 5, vlen)
	w.Close()
}

// TestReaderReportsDamage: a bad frame with valid frames after it is
// damage to a reader as to Open (the file and byte offset, a metric), and
// the file is left as it is.
func TestReaderReportsDamage(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir)
	appendEach(t, w, 0, 6, vlen)
	w.Close()
	path := segPath(dir, single, 0, 0)
	flipByte(t, path, frameAt(2)+frameHeaderSize+1)
	before := tree(t, dir)
	m := &countingMetrics{}
	_, err := OpenReadOnly(dir, WithLogger(quiet), WithMetrics(m))
	var fe *FileError
	if !errors.Is(err, topics.ErrCorrupt) || !errors.As(err, &fe) || fe.File != path || fe.Offset != frameAt(2) {
		t.Fatalf("OpenReadOnly of a damaged log: %v", err)
	}
	if m.corrupt == 0 {
		t.Error("the damage was not counted")
	}
	sameTree(t, "reader", before, tree(t, dir))

	// In a sealed segment, found with WithFullScan.
	dir = twoPerSegment(t)
	flipByte(t, segPath(dir, single, 0, 2), frameAt(0)+frameHeaderSize+1)
	if _, err := OpenReadOnly(dir, WithLogger(quiet), WithFullScan(true)); !errors.Is(err, topics.ErrCorrupt) {
		t.Fatalf("OpenReadOnly with a full scan of a damaged sealed segment: %v", err)
	}
}

// TestReaderStopsWhenShownRecordsVanish: records a reader has shown that
// are then cut from the file (the writer rolled back a failed append), or
// another log directory in the place of the one it reads, fail its next
// refresh instead of being read as if nothing had happened.
func TestReaderStopsWhenShownRecordsVanish(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir)
	appendEach(t, w, 0, 4, vlen)
	w.Close()
	r := mustOpenReadOnly(t, dir)
	defer r.Close()
	checkValues(t, readAll(t, r, single, 0), 4, vlen)
	if err := os.Truncate(segPath(dir, single, 0, 0), frameAt(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.EndOffsets(context.Background(), single); !errors.Is(err, ErrChangedUnderReader) {
		t.Fatalf("EndOffsets after shown records were cut: %v", err)
	}

	// Another log directory put in the place of the one being read (by a
	// restore, say) is not read as the same log.
	dir = t.TempDir()
	w = mustOpen(t, dir)
	appendEach(t, w, 0, 4, vlen)
	w.Close()
	r = mustOpenReadOnly(t, dir)
	defer r.Close()
	if err := os.Rename(dir, dir+".aside"); err != nil {
		t.Fatal(err)
	}
	w = mustOpen(t, dir)
	appendEach(t, w, 0, 6, vlen)
	w.Close()
	if _, err := r.EndOffsets(context.Background(), single); !errors.Is(err, ErrChangedUnderReader) {
		t.Fatalf("EndOffsets after the directory was replaced: %v", err)
	}
}

// TestReaderShowsAFrameOnceWhole: a frame only partly written, as a
// reader may find one the writer is writing, is not shown; once the rest
// is there, the next refresh shows it.
func TestReaderShowsAFrameOnceWhole(t *testing.T) {
	dir := t.TempDir()
	w := mustOpen(t, dir)
	appendEach(t, w, 0, 3, vlen) // groups 1 to 3
	w.Close()
	path := segPath(dir, single, 0, 0)
	next := appendFrame(nil, &frame{offset: 3, time: 1, gseq: 4, gpcount: 1, gparts: 1, key: []byte("k"), value: value(3, vlen)})
	appendToFile(t, path, next[:frameHeaderSize+10])
	r := mustOpenReadOnly(t, dir)
	defer r.Close()
	checkValues(t, readAll(t, r, single, 0), 3, vlen)
	appendToFile(t, path, next[frameHeaderSize+10:])
	checkValues(t, readAll(t, r, single, 0), 4, vlen)
}
