package embeddedlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bridgelog/bridgelog/topics"
)

// countingMetrics records what the engine reports.
type countingMetrics struct {
	mu        sync.Mutex
	truncated int
	bytes     int64
	corrupt   int
	rejected  map[string]int
	groups    int
	records   int
}

func (m *countingMetrics) TailTruncated(_ string, _ int32, n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.truncated++
	m.bytes += n
}
func (m *countingMetrics) CorruptionFound(string, int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.corrupt++
}
func (m *countingMetrics) AppendRejected(_ string, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rejected == nil {
		m.rejected = map[string]int{}
	}
	m.rejected[reason]++
}
func (m *countingMetrics) GroupCommitted(_ string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.groups++
	m.records += n
}

// syncBuffer is a log sink safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func mustOpen(t *testing.T, dir string, opts ...Option) *Log {
	t.Helper()
	l, err := Open(dir, append([]Option{WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l
}

// single is the one-partition topic: byte positions are easy to predict.
const single = topics.TopicDeadLetter

func segPath(dir, topic string, part int32, base int64) string {
	return filepath.Join(dir, topic, fmt.Sprint(part), segmentName(base))
}

// appendEach appends n records to the single-partition topic, one Append
// (so one group commit) each, with values of exactly vlen bytes.
func appendEach(t *testing.T, l *Log, first, n, vlen int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		if _, err := l.Append(context.Background(), single, topics.Message{Key: []byte("k"), Value: value(i, vlen)}); err != nil {
			t.Fatal(err)
		}
	}
}

func value(i, n int) []byte {
	v := fmt.Appendf(nil, "v%06d:", i)
	for len(v) < n {
		v = append(v, byte('a'+i%26))
	}
	return v[:n]
}

// readAll reads a whole partition.
func readAll(t *testing.T, l *Log, topic string, part int32) []topics.Record {
	t.Helper()
	var out []topics.Record
	for {
		recs, err := l.Read(context.Background(), topic, part, int64(len(out)), 1000)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if len(recs) == 0 {
			return out
		}
		out = append(out, recs...)
	}
}

func checkValues(t *testing.T, recs []topics.Record, n, vlen int) {
	t.Helper()
	if len(recs) != n {
		t.Fatalf("%d records, want %d", len(recs), n)
	}
	for i, r := range recs {
		if r.Offset != int64(i) || !bytes.Equal(r.Value, value(i, vlen)) {
			t.Fatalf("record %d: offset %d value %q", i, r.Offset, r.Value)
		}
	}
}

const vlen = 100

// frameAt is the byte position of record i in the first segment of a
// partition that holds only records of key "k" and value length vlen.
func frameAt(i int) int64 { return segmentHeaderSize + int64(i)*int64(frameHeaderSize+1+vlen) }

func appendToFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestTornTailIsTruncated(t *testing.T) {
	valid := appendFrame(nil, &frame{offset: 10, time: 1, gseq: 11, gpcount: 1, gparts: 1, key: []byte("k"), value: value(10, vlen)})
	// A valid frame of a group that says it wrote 3 frames here: the
	// rest of that group never made it, so the batch must vanish whole.
	partialGroup := appendFrame(nil, &frame{offset: 10, time: 1, gseq: 11, gpcount: 3, gparts: 1, key: []byte("k"), value: value(10, vlen)})
	cases := map[string][]byte{
		"short header":      valid[:5],
		"short body":        valid[:len(valid)-7],
		"checksum mismatch": append(bytes.Clone(valid[:len(valid)-1]), valid[len(valid)-1]^0xff),
		"garbage":           bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef, 0x01}, 300),
		"zeros":             make([]byte, 4096),
		"partial group":     partialGroup,
		"partial group and garbage": append(bytes.Clone(partialGroup),
			appendFrame(nil, &frame{offset: 11, time: 1, gseq: 11, gpcount: 3, gparts: 1, key: []byte("k"), value: value(11, vlen)})[:50]...),
	}
	for name, tail := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := mustOpen(t, dir)
			appendEach(t, l, 0, 10, vlen)
			l.Close()
			path := segPath(dir, single, 0, 0)
			appendToFile(t, path, tail)

			var logs syncBuffer
			m := &countingMetrics{}
			l, err := Open(dir, WithMetrics(m), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			if err != nil {
				t.Fatalf("Open after torn tail: %v", err)
			}
			defer l.Close()
			checkValues(t, readAll(t, l, single, 0), 10, vlen)
			if m.truncated == 0 || m.bytes != int64(len(tail)) {
				t.Errorf("metrics: %d truncations of %d bytes, want %d bytes", m.truncated, m.bytes, len(tail))
			}
			if out := logs.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, path) ||
				!strings.Contains(out, fmt.Sprintf("byte_offset=%d", frameAt(10))) {
				t.Errorf("warning does not name file and offset:\n%s", out)
			}
			if st, _ := os.Stat(path); st.Size() != frameAt(10) {
				t.Errorf("file is %d bytes after recovery, want %d", st.Size(), frameAt(10))
			}
			// Appends continue at the next offset, and survive a reopen.
			appendEach(t, l, 10, 5, vlen)
			l.Close()
			l = mustOpen(t, dir)
			defer l.Close()
			checkValues(t, readAll(t, l, single, 0), 15, vlen)
		})
	}
}

func TestMidFileCorruptionRefusesToOpen(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	appendEach(t, l, 0, 10, vlen)
	l.Close()
	path := segPath(dir, single, 0, 0)
	flipByte(t, path, frameAt(3)+frameHeaderSize+20) // inside record 3's value

	m := &countingMetrics{}
	_, err := Open(dir, WithLogger(quiet), WithMetrics(m))
	if !errors.Is(err, topics.ErrCorrupt) {
		t.Fatalf("Open: %v, want ErrCorrupt", err)
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != path || fe.Offset != frameAt(3) {
		t.Fatalf("error %v does not name %s at byte %d", err, path, frameAt(3))
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprint(frameAt(3))) {
		t.Errorf("message %q lacks file or offset", err)
	}
	if m.corrupt != 1 {
		t.Errorf("corruption counter %d, want 1", m.corrupt)
	}
	if st, _ := os.Stat(path); st.Size() != frameAt(10) {
		t.Errorf("refused Open changed the file: %d bytes", st.Size())
	}

	// The operator's option cuts at the damage, and the log works again.
	l, err = Open(dir, WithLogger(quiet), WithTruncateCorrupt(true))
	if err != nil {
		t.Fatalf("Open with WithTruncateCorrupt: %v", err)
	}
	defer l.Close()
	checkValues(t, readAll(t, l, single, 0), 3, vlen)
	appendEach(t, l, 3, 2, vlen)
	checkValues(t, readAll(t, l, single, 0), 5, vlen)
}

func TestCorruptionAtEndOfSealedSegment(t *testing.T) {
	dir := t.TempDir()
	// Two records per segment.
	l := mustOpen(t, dir, WithSegmentBytes(frameAt(2)))
	appendEach(t, l, 0, 6, vlen)
	l.Close()
	first := segPath(dir, single, 0, 0)
	if _, err := os.Stat(segPath(dir, single, 0, 2)); err != nil {
		t.Fatalf("expected a second segment: %v", err)
	}
	// The last record of a segment that was sealed: it was fsynced before
	// the next segment was created, so this is not a torn write. (A full
	// scan: otherwise Open takes the sealed segment from its sidecar, see
	// TestSealedSegmentsOpenFromTheirIndex.)
	flipByte(t, first, frameAt(1)+frameHeaderSize+5)
	_, err := Open(dir, WithLogger(quiet), WithFullScan(true))
	var fe *FileError
	if !errors.Is(err, topics.ErrCorrupt) || !errors.As(err, &fe) || fe.File != first || fe.Offset != frameAt(1) {
		t.Fatalf("Open: %v, want ErrCorrupt at %s byte %d", err, first, frameAt(1))
	}
}

// TestTruncateCorruptKeepsWholeGroupsBeforeSealedDamage: cutting at
// damage inside a sealed segment, by the operator's option, keeps every
// record before the damage, the group just before it included: what
// follows the damage there is newer than anything in another partition.
func TestTruncateCorruptKeepsWholeGroupsBeforeSealedDamage(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(frameAt(2))) // two records per segment
	appendEach(t, l, 0, 6, vlen)
	l.Close()
	// Offset 3, the second record of sealed segment 2.
	flipByte(t, segPath(dir, single, 0, 2), frameAt(1)+frameHeaderSize+5)
	m := &countingMetrics{}
	l, err := Open(dir, WithLogger(quiet), WithMetrics(m), WithFullScan(true), WithTruncateCorrupt(true))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkValues(t, readAll(t, l, single, 0), 3, vlen)
	if m.corrupt != 1 {
		t.Errorf("corruption counter %d, want 1", m.corrupt)
	}
	for _, base := range []int64{4} {
		if _, err := os.Stat(segPath(dir, single, 0, base)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("segment %d after the damage is still there: %v", base, err)
		}
	}
}

// TestTornLastGroupDroppedWhole: damage inside the last group commit, even
// with valid frames of that group after it, is a torn write: the whole
// batch goes, nothing is reported as corruption.
func TestTornLastGroupDroppedWhole(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	appendEach(t, l, 0, 4, vlen)
	var batch []topics.Message
	for i := 4; i < 9; i++ {
		batch = append(batch, topics.Message{Key: []byte("k"), Value: value(i, vlen)})
	}
	if _, err := l.Append(context.Background(), single, batch...); err != nil {
		t.Fatal(err)
	}
	l.Close()
	flipByte(t, segPath(dir, single, 0, 0), frameAt(6)+frameHeaderSize+1)
	m := &countingMetrics{}
	l, err := Open(dir, WithLogger(quiet), WithMetrics(m))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer l.Close()
	checkValues(t, readAll(t, l, single, 0), 4, vlen)
	if m.corrupt != 0 || m.truncated == 0 {
		t.Errorf("metrics: corrupt %d truncated %d", m.corrupt, m.truncated)
	}
}

// TestBatchAcrossPartitionsAllOrNothing: a batch whose part in one
// partition did not reach the disk is removed from the other too.
func TestBatchAcrossPartitionsAllOrNothing(t *testing.T) {
	const topic = topics.TopicBench
	k0, k1 := keyFor(0), keyFor(1)
	dir := t.TempDir()
	l := mustOpen(t, dir)
	ctx := context.Background()
	if _, err := l.Append(ctx, topic, topics.Message{Key: k0, Value: []byte("a0")}, topics.Message{Key: k1, Value: []byte("a1")}); err != nil {
		t.Fatal(err)
	}
	p1 := segPath(dir, topic, 1, 0)
	st, _ := os.Stat(p1)
	before := st.Size()
	if _, err := l.Append(ctx, topic, topics.Message{Key: k0, Value: []byte("b0")}, topics.Message{Key: k1, Value: []byte("b1")}, topics.Message{Key: k0, Value: []byte("c0")}); err != nil {
		t.Fatal(err)
	}
	l.Close()

	// Intact, the batch is kept in both partitions.
	l = mustOpen(t, dir)
	if end, _ := l.EndOffsets(ctx, topic); end[0] != 3 || end[1] != 2 {
		t.Fatalf("end offsets %v, want 3 and 2", end)
	}
	l.Close()

	// As if the crash hit before partition 1's part was written.
	if err := os.Truncate(p1, before); err != nil {
		t.Fatal(err)
	}
	m := &countingMetrics{}
	l, err := Open(dir, WithLogger(quiet), WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	end, _ := l.EndOffsets(ctx, topic)
	if end[0] != 1 || end[1] != 1 {
		t.Fatalf("end offsets %v after a torn cross-partition batch, want 1 and 1", end)
	}
	if r := readAll(t, l, topic, 0); len(r) != 1 || string(r[0].Value) != "a0" {
		t.Fatalf("partition 0 holds %v", r)
	}
	if m.truncated == 0 {
		t.Error("dropping the incomplete batch was not counted")
	}
}

func keyFor(p int32) []byte {
	for i := 0; ; i++ {
		k := fmt.Appendf(nil, "key-%d", i)
		if topics.PartitionFor(k, topics.DefaultPartitions) == p {
			return k
		}
	}
}

func flipByte(t *testing.T, path string, at int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, at); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, at); err != nil {
		t.Fatal(err)
	}
}

func TestNewerFormatIsRefused(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	appendEach(t, l, 0, 1, vlen)
	l.Close()
	path := segPath(dir, single, 0, 0)
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	f.WriteAt([]byte{formatVersion + 1, 0}, 6)
	f.Close()
	_, err := Open(dir, WithLogger(quiet))
	var fe *FileError
	if !errors.Is(err, ErrFormatTooNew) || !errors.As(err, &fe) || fe.File != path {
		t.Fatalf("Open: %v, want ErrFormatTooNew naming %s", err, path)
	}
}

func TestTornSegmentCreationIsRemoved(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	appendEach(t, l, 0, 3, vlen)
	l.Close()
	torn := segPath(dir, single, 0, 3)
	if err := os.WriteFile(torn, []byte("BLG"), 0o644); err != nil {
		t.Fatal(err)
	}
	l = mustOpen(t, dir)
	defer l.Close()
	if _, err := os.Stat(torn); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("torn segment still there: %v", err)
	}
	checkValues(t, readAll(t, l, single, 0), 3, vlen)
	appendEach(t, l, 3, 1, vlen)
	checkValues(t, readAll(t, l, single, 0), 4, vlen)
}

func TestSecondOpenIsLocked(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	if _, err := Open(dir, WithLogger(quiet)); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	l.Close()
	l = mustOpen(t, dir) // released by Close
	l.Close()
}

func TestValueTooLarge(t *testing.T) {
	m := &countingMetrics{}
	l := mustOpen(t, t.TempDir(), WithMaxMessageBytes(100), WithMetrics(m))
	defer l.Close()
	ctx := context.Background()
	_, err := l.Append(ctx, single, topics.Message{Key: []byte("k"), Value: make([]byte, 100)}, topics.Message{Key: []byte("k"), Value: make([]byte, 101)})
	if !errors.Is(err, topics.ErrValueTooLarge) || !strings.Contains(err.Error(), single) {
		t.Fatalf("Append: %v, want ErrValueTooLarge naming %s", err, single)
	}
	if m.rejected["value_too_large"] != 1 {
		t.Errorf("rejections %v", m.rejected)
	}
	if end, _ := l.EndOffsets(ctx, single); end[0] != 0 {
		t.Errorf("a refused batch wrote %d records", end[0])
	}
	if _, err := l.Append(ctx, single, topics.Message{Key: make([]byte, maxKeyBytes+1)}); !errors.Is(err, topics.ErrValueTooLarge) {
		t.Errorf("oversized key: %v", err)
	}
}

func TestReadAcrossSegmentsAndIndex(t *testing.T) {
	dir := t.TempDir()
	// Small segments and a dense index, so reads cross both often.
	l := mustOpen(t, dir, WithSegmentBytes(4096), WithIndexInterval(300))
	ctx := context.Background()
	const n = 300
	for i := 0; i < n; i += 7 {
		var batch []topics.Message
		for j := i; j < min(i+7, n); j++ {
			batch = append(batch, topics.Message{Key: []byte("k"), Value: value(j, 20+j%90)})
		}
		if _, err := l.Append(ctx, single, batch...); err != nil {
			t.Fatal(err)
		}
	}
	check := func(l *Log) {
		t.Helper()
		for from := 0; from < n; from += 13 {
			for _, max := range []int{1, 5, 64, 1000} {
				recs, err := l.Read(ctx, single, 0, int64(from), max)
				if err != nil {
					t.Fatal(err)
				}
				if want := min(max, n-from); len(recs) != want {
					t.Fatalf("Read(%d, %d): %d records, want %d", from, max, len(recs), want)
				}
				for k, r := range recs {
					if i := from + k; r.Offset != int64(i) || !bytes.Equal(r.Value, value(i, 20+i%90)) {
						t.Fatalf("Read(%d,%d)[%d]: offset %d value %q", from, max, k, r.Offset, r.Value)
					}
				}
			}
		}
		if _, err := l.Read(ctx, single, 0, n+1, 1); !errors.Is(err, topics.ErrOffsetRange) {
			t.Errorf("Read past the end: %v, want ErrOffsetRange", err)
		}
	}
	check(l)
	l.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, single, "0", "*.seg"))
	if len(segs) < 5 {
		t.Fatalf("%d segments, want several", len(segs))
	}
	l = mustOpen(t, dir, WithIndexInterval(300)) // the index is rebuilt at open
	defer l.Close()
	check(l)
}

func TestConcurrentAppendsShareFsync(t *testing.T) {
	m := &countingMetrics{}
	l := mustOpen(t, t.TempDir(), WithMetrics(m))
	defer l.Close()
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := l.Append(context.Background(), single, topics.Message{Key: []byte("k"), Value: value(w*each+i, 50)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if m.records != writers*each {
		t.Fatalf("%d records committed, want %d", m.records, writers*each)
	}
	// With 8 writers waiting on each fsync, rounds must be shared.
	if m.groups >= writers*each {
		t.Errorf("%d fsync rounds for %d appends: no group commit", m.groups, writers*each)
	}
	t.Logf("%d appends in %d fsync rounds", writers*each, m.groups)
}

func TestCommittedOffsetsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	l := mustOpen(t, dir)
	appendEach(t, l, 0, 10, vlen)
	sub, err := l.Subscribe(ctx, single, "projections.deposits/v1")
	if err != nil {
		t.Fatal(err)
	}
	var last topics.Record
	for range 4 {
		if last, err = sub.Fetch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := sub.Commit(ctx, last); err != nil {
		t.Fatal(err)
	}
	l.Close()

	l = mustOpen(t, dir)
	sub, err = l.Subscribe(ctx, single, "projections.deposits/v1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sub.Fetch(ctx)
	if err != nil || r.Offset != 4 {
		t.Fatalf("after reopen: %v %v, want offset 4", r.Offset, err)
	}
	l.Close()

	// A damaged offsets file is reported with its name, not guessed at.
	files, _ := filepath.Glob(filepath.Join(dir, single, "groups", "*.json"))
	if len(files) != 1 {
		t.Fatalf("group files %v", files)
	}
	os.WriteFile(files[0], []byte("{not json"), 0o644)
	l = mustOpen(t, dir)
	defer l.Close()
	_, err = l.Subscribe(ctx, single, "projections.deposits/v1")
	if !errors.Is(err, topics.ErrCorrupt) || !strings.Contains(err.Error(), files[0]) {
		t.Fatalf("Subscribe with damaged offsets: %v", err)
	}
}

// TestRevokedPartitionStops: a member that had records of a partition
// buffered stops handing them out once the partition moves to a new member.
func TestRevokedPartitionStops(t *testing.T) {
	const topic = topics.TopicBench
	ctx := context.Background()
	l := mustOpen(t, t.TempDir())
	defer l.Close()
	var batch []topics.Message
	for p := range int32(topics.DefaultPartitions) {
		for i := range 20 {
			batch = append(batch, topics.Message{Key: keyFor(p), Value: fmt.Appendf(nil, "%d/%d", p, i)})
		}
	}
	if _, err := l.Append(ctx, topic, batch...); err != nil {
		t.Fatal(err)
	}
	a, _ := l.Subscribe(ctx, topic, "g")
	// a alone owns everything; it reads partition 0 whole and one record
	// of partition 1, so it holds the rest of partition 1 in its buffer.
	for i := range 21 {
		r, err := a.Fetch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := int32(i / 20); r.Partition != want {
			t.Fatalf("fetch %d came from partition %d, want %d", i, r.Partition, want)
		}
	}
	b, _ := l.Subscribe(ctx, topic, "g")
	// Round-robin in join order: a keeps 0,2,4 and b gets 1,3,5. Nothing
	// was committed, so b reads partition 1 from its start.
	for name, s := range map[string]topics.Subscription{"a": a, "b": b} {
		counts := map[int32]int{}
		for range 60 - map[string]int{"a": 20, "b": 0}[name] {
			r, err := s.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if mine := (r.Partition%2 == 0) == (name == "a"); !mine {
				t.Fatalf("member %s got a record of partition %d, which it no longer owns", name, r.Partition)
			}
			counts[r.Partition]++
		}
		for p, n := range counts {
			if n != 20 {
				t.Errorf("member %s: %d records of partition %d, want 20", name, n, p)
			}
		}
	}
}

// TestReadByteBudget: a Read of big records stops near maxReadBytes and
// the next Read continues where it stopped.
func TestReadByteBudget(t *testing.T) {
	l := mustOpen(t, t.TempDir(), WithMaxMessageBytes(8<<20))
	defer l.Close()
	ctx := context.Background()
	const big = 7 << 20
	for i := range 4 {
		if _, err := l.Append(ctx, single, topics.Message{Key: []byte("k"), Value: value(i, big)}); err != nil {
			t.Fatal(err)
		}
	}
	var got []topics.Record
	reads := 0
	for len(got) < 4 {
		recs, err := l.Read(ctx, single, 0, int64(len(got)), 100)
		if err != nil || len(recs) == 0 {
			t.Fatalf("Read from %d: %v, %d records", len(got), err, len(recs))
		}
		got = append(got, recs...)
		reads++
	}
	if reads < 2 {
		t.Errorf("28 MiB came back in one Read; the %d MiB bound was ignored", maxReadBytes>>20)
	}
	for i, r := range got {
		if r.Offset != int64(i) || !bytes.Equal(r.Value, value(i, big)) {
			t.Fatalf("record %d wrong after bounded reads", i)
		}
	}
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(4096), WithIndexInterval(300), WithMaxMessageBytes(3<<20))
	defer l.Close()
	ctx := context.Background()
	const n = 200
	size := func(i int) int {
		if i == 150 {
			return scanChunk + 1000 // bigger than the reused buffer
		}
		return 20 + i%90
	}
	for i := range n {
		if _, err := l.Append(ctx, single, topics.Message{Key: []byte("k"), Value: value(i, size(i))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, from := range []int64{0, 1, 77, 150, 199, 200} {
		var got []int64
		next, err := l.Scan(ctx, single, 0, from, func(r topics.Record) error {
			if !bytes.Equal(r.Value, value(int(r.Offset), size(int(r.Offset)))) {
				return fmt.Errorf("offset %d: wrong value", r.Offset)
			}
			got = append(got, r.Offset)
			return nil
		})
		if err != nil || next != n || len(got) != int(n-from) || (len(got) > 0 && got[0] != from) {
			t.Fatalf("Scan from %d: next %d, err %v, %d records", from, next, err, len(got))
		}
	}
	stop := errors.New("stop")
	next, err := l.Scan(ctx, single, 0, 10, func(r topics.Record) error {
		if r.Offset == 12 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || next != 12 {
		t.Fatalf("Scan stopped by fn: next %d err %v", next, err)
	}
	if _, err := l.Scan(ctx, single, 0, n+1, nil); !errors.Is(err, topics.ErrOffsetRange) {
		t.Fatalf("Scan past end: %v", err)
	}
	l.Close()
	if _, err := l.Scan(ctx, single, 0, 0, nil); !errors.Is(err, topics.ErrClosed) {
		t.Fatalf("Scan after Close: %v", err)
	}
}

// TestCorruptionInTwoPartitionsNamesTheFirst: the partitions of a topic
// are scanned side by side at open; with damage in two of them (frames
// that fail their checksum, then files that are not segments), the error
// names the lower partition's file every time.
func TestCorruptionInTwoPartitionsNamesTheFirst(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir)
	const topic = topics.TopicBridge
	for i := range 20 {
		for c := byte('a'); c <= 'z'; c++ { // one-byte keys: frameAt holds in every partition
			if _, err := l.Append(context.Background(), topic, topics.Message{Key: []byte{c}, Value: value(i, vlen)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	spec, err := topics.Spec(topic)
	if err != nil {
		t.Fatal(err)
	}
	var used []int32
	for p := range spec.Partitions {
		if len(readAll(t, l, topic, p)) >= 10 {
			used = append(used, p)
		}
	}
	l.Close()
	if len(used) < 2 {
		t.Fatalf("keys a–z filled only partitions %v", used)
	}
	first, second := segPath(dir, topic, used[0], 0), segPath(dir, topic, used[len(used)-1], 0)
	flipByte(t, second, frameAt(2)+frameHeaderSize+20)
	flipByte(t, first, frameAt(5)+frameHeaderSize+20)
	for range 10 {
		_, err := Open(dir, WithLogger(quiet))
		var fe *FileError
		if !errors.Is(err, topics.ErrCorrupt) || !errors.As(err, &fe) || fe.File != first || fe.Offset != frameAt(5) {
			t.Fatalf("Open: %v, want corruption named in %s at byte %d", err, first, frameAt(5))
		}
	}
	var strays []string
	for _, p := range []int32{used[len(used)-1], used[0]} {
		stray := filepath.Join(dir, topic, fmt.Sprint(p), "7.seg")
		if err := os.WriteFile(stray, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		strays = append(strays, stray)
	}
	for range 10 {
		_, err := Open(dir, WithLogger(quiet))
		var fe *FileError
		if !errors.Is(err, ErrLayout) || !errors.As(err, &fe) || fe.File != strays[1] {
			t.Fatalf("Open: %v, want the stray file %s named", err, strays[1])
		}
	}
}
