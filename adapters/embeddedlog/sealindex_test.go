package embeddedlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/topics"
)

// twoPerSegment is a log of 10 records, two per segment: segments 0, 2,
// 4 and 6 are sealed, 8 is the last. Each record is its own group.
func twoPerSegment(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(frameAt(2)))
	appendEach(t, l, 0, 10, vlen)
	l.Close()
	return dir
}

func idxPath(dir string, base int64) string {
	return sealIndexPath(segPath(dir, single, 0, base))
}

// reopen opens and closes dir once.
func reopen(t *testing.T, dir string, opts ...Option) {
	t.Helper()
	mustOpen(t, dir, opts...).Close()
}

// TestSealedSegmentsOpenFromTheirIndex: Open takes sealed segments from
// their sidecars (damage in their data is found when it is read, not at
// Open), and WithFullScan restores the scan.
func TestSealedSegmentsOpenFromTheirIndex(t *testing.T) {
	dir := twoPerSegment(t)
	reopen(t, dir)
	for _, base := range []int64{0, 2, 4, 6} {
		if _, err := decodeSealedFile(idxPath(dir, base)); err != nil {
			t.Fatalf("sealed segment %d: %v", base, err)
		}
	}
	if _, err := os.Stat(idxPath(dir, 8)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the last segment has a sidecar (%v): it still grows", err)
	}

	// The same records and ends either way.
	l := mustOpen(t, dir)
	viaIndex := readAll(t, l, single, 0)
	l.Close()
	l = mustOpen(t, dir, WithFullScan(true))
	scanned := readAll(t, l, single, 0)
	l.Close()
	checkValues(t, viaIndex, 10, vlen)
	if !reflect.DeepEqual(viaIndex, scanned) {
		t.Fatal("records read through the sidecars differ from those of a full scan")
	}

	// Damage inside sealed data: a scan refuses to open (as in
	// TestMidFileCorruptionRefusesToOpen), so an Open that succeeds took
	// the segment from its sidecar; the read finds the damage and names it.
	first := segPath(dir, single, 0, 0)
	flipByte(t, first, frameAt(0)+frameHeaderSize+20)
	m := &countingMetrics{}
	l, err := Open(dir, WithLogger(quiet), WithMetrics(m))
	if err != nil {
		t.Fatalf("Open with a damaged sealed segment and its sidecar: %v", err)
	}
	_, err = l.Read(context.Background(), single, 0, 0, 10)
	var fe *FileError
	if !errors.Is(err, topics.ErrCorrupt) || !errors.As(err, &fe) || fe.File != first || fe.Offset != frameAt(0) {
		t.Fatalf("Read of the damaged record: %v, want ErrCorrupt at %s byte %d", err, first, frameAt(0))
	}
	if m.corrupt != 1 {
		t.Errorf("corruption counter %d, want 1", m.corrupt)
	}
	recs, err := l.Read(context.Background(), single, 0, 2, 100)
	if err != nil || len(recs) != 8 || recs[0].Offset != 2 {
		t.Fatalf("records after the damaged segment: %d, %v", len(recs), err)
	}
	l.Close()
	_, err = Open(dir, WithLogger(quiet), WithFullScan(true))
	if !errors.Is(err, topics.ErrCorrupt) || !errors.As(err, &fe) || fe.File != first || fe.Offset != frameAt(0) {
		t.Fatalf("Open with WithFullScan: %v, want ErrCorrupt at %s byte %d", err, first, frameAt(0))
	}
}

func decodeSealedFile(path string) (*sealed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeSealed(b)
}

// TestSealedIndexInDoubtIsScanned: a sidecar that is torn, damaged, of
// another segment, or that does not fit its segment is not used: Open
// scans the segment (and so finds damage in it), says so, and writes a
// good sidecar again.
func TestSealedIndexInDoubtIsScanned(t *testing.T) {
	reencode := func(change func(*sealed)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			sd, err := decodeSealedFile(idxPath(dir, 2))
			if err != nil {
				t.Fatal(err)
			}
			change(sd)
			if err := os.WriteFile(idxPath(dir, 2), sd.encode(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name  string
		spoil func(t *testing.T, dir string)
	}{
		{"torn", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(idxPath(dir, 2))
			if err := os.WriteFile(idxPath(dir, 2), b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, dir string) {
			if err := os.WriteFile(idxPath(dir, 2), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a byte flipped", func(t *testing.T, dir string) { flipByte(t, idxPath(dir, 2), 30) }},
		{"another segment's", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(idxPath(dir, 4))
			if err := os.WriteFile(idxPath(dir, 2), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"another version", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(idxPath(dir, 2))
			b[4] = sealVersion + 1
			if err := os.WriteFile(idxPath(dir, 2), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"another size", reencode(func(sd *sealed) { sd.size++ })},
		{"another last frame", reencode(func(sd *sealed) { sd.lastCRC ^= 1 })},
		{"a first group not after the segment before", reencode(func(sd *sealed) { sd.firstGseq = 1 })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := twoPerSegment(t)
			reopen(t, dir)
			good, err := os.ReadFile(idxPath(dir, 2))
			if err != nil {
				t.Fatal(err)
			}
			c.spoil(t, dir)
			seg := segPath(dir, single, 0, 2)
			flipByte(t, seg, frameAt(0)+frameHeaderSize+20)
			var logs syncBuffer
			_, err = Open(dir, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			var fe *FileError
			if !errors.Is(err, topics.ErrCorrupt) || !errors.As(err, &fe) || fe.File != seg {
				t.Fatalf("Open: %v, want the scan's ErrCorrupt in %s", err, seg)
			}
			if !strings.Contains(logs.String(), "scanning a sealed segment instead of using its index") ||
				!strings.Contains(logs.String(), seg) {
				t.Errorf("the fallback was not logged with the file: %s", logs.String())
			}
			flipByte(t, seg, frameAt(0)+frameHeaderSize+20) // restored
			l := mustOpen(t, dir)
			checkValues(t, readAll(t, l, single, 0), 10, vlen)
			l.Close()
			if got, err := os.ReadFile(idxPath(dir, 2)); err != nil || !bytes.Equal(got, good) {
				t.Fatalf("sidecar not written again after the scan (%v)", err)
			}
		})
	}
}

// TestTruncationRemovesSealedIndexes: cutting the log (here by the
// operator's WithTruncateCorrupt) removes the sidecars of the segments it
// changes, so a segment that grows back to its old size with other
// records is never read through a stale index.
func TestTruncationRemovesSealedIndexes(t *testing.T) {
	dir := twoPerSegment(t)
	reopen(t, dir)
	// Damage in sealed segment 2 (offsets 2 and 3), at offset 3.
	flipByte(t, segPath(dir, single, 0, 2), frameAt(1)+frameHeaderSize+20)
	l := mustOpen(t, dir, WithFullScan(true), WithTruncateCorrupt(true), WithSegmentBytes(frameAt(2)))
	kept := readAll(t, l, single, 0)
	checkValues(t, kept, 3, vlen)
	idx, _ := filepath.Glob(filepath.Join(dir, single, "0", "*.idx"))
	if want := []string{idxPath(dir, 0)}; !reflect.DeepEqual(idx, want) {
		t.Fatalf("sidecars after the truncation: %v, want only %v", idx, want)
	}
	// Other records in the same places: segment 2 grows back to the size
	// its old sidecar recorded.
	other := func(i int) topics.Message {
		return topics.Message{Key: []byte("k"), Value: value(i+500, vlen)}
	}
	for i := len(kept); i < 10; i++ {
		if _, err := l.Append(context.Background(), single, other(i)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	reopen(t, dir)
	l = mustOpen(t, dir)
	defer l.Close()
	recs := readAll(t, l, single, 0)
	if len(recs) != 10 {
		t.Fatalf("%d records after regrowth, want 10", len(recs))
	}
	checkValues(t, recs[:len(kept)], len(kept), vlen)
	for i := len(kept); i < 10; i++ {
		if !bytes.Equal(recs[i].Value, other(i).Value) {
			t.Fatalf("record %d: %q", i, recs[i].Value)
		}
	}
}

// TestSealedIndexesAndTornCrossPartitionGroup: where a partition's tail
// state comes from a sidecar, a batch spanning partitions is still
// all-or-nothing, exactly as a full scan decides: when that partition
// lacks the torn batch, and when it holds the batch's only whole part, in
// a sealed segment (a later batch had created the next segment and
// crashed before writing to it), so that the cut goes into sealed data.
func TestSealedIndexesAndTornCrossPartitionGroup(t *testing.T) {
	const topic = topics.TopicBench
	k0, k1 := keyFor(0), keyFor(1)
	cases := []struct {
		name string
		tear func(t *testing.T, dir string)
	}{
		{"the partition lacks the batch", func(t *testing.T, dir string) {
			// The crash hit before partition 0's part of the last batch was
			// written: its last segment holds the header only.
			if err := os.Truncate(segPath(dir, topic, 0, 4), segmentHeaderSize); err != nil {
				t.Fatal(err)
			}
		}},
		{"the partition holds the batch in sealed data", func(t *testing.T, dir string) {
			// A next batch created partition 0's next segment and wrote
			// nothing; a reopen then seals segment 4 and keeps its sidecar.
			if err := os.WriteFile(segPath(dir, topic, 0, 5), segmentHeader(5), 0o644); err != nil {
				t.Fatal(err)
			}
			reopen(t, dir)
			if _, err := os.Stat(sealIndexPath(segPath(dir, topic, 0, 4))); err != nil {
				t.Fatalf("segment 4 of partition 0 has no sidecar: %v", err)
			}
			// Partition 1's part of the last batch is torn.
			if err := os.Truncate(segPath(dir, topic, 1, 4), segmentHeaderSize+10); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			msg := func(k []byte, i int) topics.Message { return topics.Message{Key: k, Value: value(i, vlen)} }
			// One group's part per segment: every batch starts new segments.
			part := int64(frameHeaderSize + len(k0) + vlen)
			l := mustOpen(t, dir, WithSegmentBytes(segmentHeaderSize+part))
			ctx := context.Background()
			for i := 0; i < 5; i++ {
				if _, err := l.Append(ctx, topic, msg(k0, i), msg(k1, i)); err != nil {
					t.Fatal(err)
				}
			}
			l.Close()
			reopen(t, dir)
			if _, err := os.Stat(sealIndexPath(segPath(dir, topic, 0, 3))); err != nil {
				t.Fatalf("sealed segment 3 of partition 0 has no sidecar: %v", err)
			}
			c.tear(t, dir)
			scanDir := t.TempDir()
			if err := os.CopyFS(scanDir, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}

			open := func(dir string, opts ...Option) ([]int64, [][]topics.Record, *countingMetrics) {
				m := &countingMetrics{}
				l := mustOpen(t, dir, append(opts, WithMetrics(m))...)
				defer l.Close()
				end, err := l.EndOffsets(ctx, topic)
				if err != nil {
					t.Fatal(err)
				}
				return end, [][]topics.Record{readAll(t, l, topic, 0), readAll(t, l, topic, 1)}, m
			}
			end, recs, m := open(dir)
			sEnd, sRecs, sm := open(scanDir, WithFullScan(true))
			if end[0] != 4 || end[1] != 4 {
				t.Fatalf("end offsets %v after a torn cross-partition batch, want 4 and 4", end)
			}
			if !reflect.DeepEqual(end, sEnd) || !reflect.DeepEqual(recs, sRecs) || m.truncated != sm.truncated || m.truncated == 0 {
				t.Fatalf("through sidecars: %v, %d truncations; full scan: %v, %d", end, m.truncated, sEnd, sm.truncated)
			}
		})
	}
}

// TestWriterSealsSegments: the writer keeps a segment's sidecar when a
// next segment seals it, so even a log that was never reopened (a relay
// that ran for months) opens without scanning; it is the very file a
// scan writes. After a cut at Open the writer does not know the tail's
// groups, writes none, and the next Open scans that segment.
func TestWriterSealsSegments(t *testing.T) {
	const topic = topics.TopicBench
	dir := t.TempDir()
	l := mustOpen(t, dir, WithSegmentBytes(2048), WithIndexInterval(300))
	ctx := context.Background()
	for i := 0; i < 400; {
		var batch []topics.Message // batches of 1 to 5, over several partitions
		for range 1 + i%5 {
			batch = append(batch, topics.Message{Key: fmt.Appendf(nil, "key-%d", i%37), Value: value(i, 10+i%70)})
			i++
		}
		if _, err := l.Append(ctx, topic, batch...); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	written := map[string][]byte{}
	idx, _ := filepath.Glob(filepath.Join(dir, topic, "*", "*.idx"))
	for _, p := range idx {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		written[p] = b
	}
	segs, _ := filepath.Glob(filepath.Join(dir, topic, "*", "*.seg"))
	if parts := topics.DefaultPartitions; len(idx) != len(segs)-int(parts) || len(idx) < 10 {
		t.Fatalf("%d sidecars for %d segments in %d partitions: every sealed segment should have one", len(idx), len(segs), parts)
	}
	// The same bytes as a scan's.
	for p := range written {
		os.Remove(p)
	}
	reopen(t, dir, WithFullScan(true), WithIndexInterval(300))
	for p, b := range written {
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%s: the writer's sidecar differs from the scan's (%v)", p, err)
		}
	}

	// A torn tail cut at Open: the tip is unknown, so sealing that
	// segment writes no sidecar, and the next Open scans it.
	p0 := filepath.Join(dir, topic, "0")
	segs, _ = filepath.Glob(filepath.Join(p0, "*.seg"))
	lastSeg := segs[len(segs)-1]
	appendToFile(t, lastSeg, []byte{1, 2, 3})
	l = mustOpen(t, dir, WithSegmentBytes(2048))
	k0 := keyFor(0)
	for i := range 30 {
		if _, err := l.Append(ctx, topic, topics.Message{Key: k0, Value: value(i, 90)}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if _, err := os.Stat(sealIndexPath(lastSeg)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a sidecar for the segment whose tail was cut: %v", err)
	}
	segs2, _ := filepath.Glob(filepath.Join(p0, "*.seg"))
	if len(segs2) < len(segs)+2 {
		t.Fatalf("%d segments, want new ones after %s", len(segs2), lastSeg)
	}
	if _, err := os.Stat(sealIndexPath(segs2[len(segs)])); err != nil {
		t.Fatalf("a segment created after the cut has no sidecar: %v", err)
	}
	reopen(t, dir)
	if _, err := decodeSealedFile(sealIndexPath(lastSeg)); err != nil {
		t.Fatalf("the next Open did not scan and keep %s: %v", lastSeg, err)
	}
}
