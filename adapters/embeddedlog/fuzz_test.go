package embeddedlog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/topics"
)

// FuzzFrame: the frame decoder never panics, never claims more bytes than
// it was given, and whatever it accepts re-encodes to the same bytes.
func FuzzFrame(f *testing.F) {
	good := appendFrame(nil, &frame{offset: 7, time: 1700000000, gseq: 3, gpcount: 2, gparts: 1, key: []byte("key"), value: []byte("value")})
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(good[:8])
	f.Add(append(bytes.Clone(good), good...))
	f.Add([]byte{})
	f.Add(segmentHeader(42))
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, n, err := parseFrame(b)
		if err != nil {
			if !errors.Is(err, errShortFrame) && !errors.Is(err, errBadFrame) {
				t.Fatalf("unexpected error kind: %v", err)
			}
		} else {
			if n < frameHeaderSize || n > len(b) {
				t.Fatalf("frame of %d bytes from %d", n, len(b))
			}
			if again := appendFrame(nil, &fr); !bytes.Equal(again, b[:n]) {
				t.Fatalf("re-encoding differs:\n%x\n%x", again, b[:n])
			}
		}
		if base, err := parseSegmentHeader(b); err == nil && !bytes.Equal(segmentHeader(base)[:20], b[:20]) { // 20..32 reserved
			t.Fatalf("header re-encoding differs")
		}
	})
}

// FuzzRecover: whatever bytes a crash or a disk leaves in a segment,
// recovery never panics; it either refuses with ErrCorrupt or leaves a
// partition whose every record reads back with its checksum intact, and
// damage after the original records never costs one of them.
func FuzzRecover(f *testing.F) {
	orig := fuzzSegment()
	next := appendFrame(nil, &frame{offset: 4, time: 9, gseq: 5, gpcount: 1, gparts: 1, key: []byte("k"), value: []byte("v4")})
	f.Add(uint16(0), []byte{}, []byte{})
	f.Add(uint16(0), []byte{}, next)
	f.Add(uint16(0), []byte{}, next[:13])
	f.Add(uint16(0), []byte{}, bytes.Repeat([]byte{0}, 100))
	f.Add(uint16(60), []byte{0xff}, []byte{})
	f.Add(uint16(60), []byte{0xff}, next)
	f.Add(uint16(len(orig)-3), []byte{1, 2, 3}, []byte{})
	f.Add(uint16(3), []byte("XX"), []byte{})
	f.Fuzz(func(t *testing.T, at uint16, patch, rest []byte) {
		seg := append(bytes.Clone(orig), rest...)
		patched := int(at) < len(seg) && len(patch) > 0
		if patched {
			copy(seg[at:], patch)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, segmentName(0)), seg, 0o644); err != nil {
			t.Fatal(err)
		}
		l := &Log{cfg: config{logger: quiet}}
		l.cfg.setDefaults()
		p := &partition{topic: single, id: 0, dir: dir, metrics: nopMetrics{}}
		defer p.closeFiles()
		tl, err := l.loadPartition(p)
		if err == nil {
			_, err = l.settle(single, []*tail{tl})
		}
		if err != nil {
			if !errors.Is(err, topics.ErrCorrupt) && !errors.Is(err, ErrFormatTooNew) {
				t.Fatalf("recovery failed with %v", err)
			}
			return
		}
		recs, err := p.read(0, 1<<20, nil)
		if err != nil {
			t.Fatalf("read after recovery: %v", err)
		}
		for i, r := range recs {
			if r.Offset != int64(i) {
				t.Fatalf("record %d at offset %d", i, r.Offset)
			}
		}
		if !patched && len(recs) < 4 {
			t.Fatalf("a tail of %d bytes cost original records: %d left", len(rest), len(recs))
		}
	})
}

// fuzzSegment is a segment with 4 records in 3 group commits.
func fuzzSegment() []byte {
	b := segmentHeader(0)
	b = appendFrame(b, &frame{offset: 0, time: 1, gseq: 1, gpcount: 1, gparts: 1, key: []byte("k"), value: []byte("v0")})
	b = appendFrame(b, &frame{offset: 1, time: 2, gseq: 2, gpcount: 2, gparts: 1, key: []byte("k"), value: []byte("v1")})
	b = appendFrame(b, &frame{offset: 2, time: 2, gseq: 2, gpcount: 2, gparts: 1, key: []byte("k"), value: []byte("v2")})
	b = appendFrame(b, &frame{offset: 3, time: 3, gseq: 4, gpcount: 1, gparts: 1, key: []byte("k"), value: []byte("v3")})
	return b
}

// FuzzSealedIndex: a sidecar's decoder never panics, whatever bytes a
// crash or a disk left, and what it accepts re-encodes to the same bytes
// and holds together (an ascending index inside the segment's bounds).
func FuzzSealedIndex(f *testing.F) {
	good := (&sealed{base: 10, size: 9000, next: 60, lastPos: 8800, lastCRC: 7,
		run: groupRun{count: 2, gpcount: 2, gparts: 1, pos: 8600, off: 58}, firstGseq: 3, lastGseq: 40,
		indexedAt: 4200, index: []indexEntry{{10, segmentHeaderSize}, {30, 4200}}}).encode()
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(good[:sealFixedBytes])
	f.Add(good[:len(good)-4]) // the body: the fuzz adds a fitting checksum
	f.Add([]byte(sealMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		// As found, and with a checksum that fits, so the checks behind the
		// checksum are reached too.
		for _, in := range [][]byte{b, binary.LittleEndian.AppendUint32(bytes.Clone(b), crc32.Checksum(b, castagnoli))} {
			sd, err := decodeSealed(in)
			if err != nil {
				if !errors.Is(err, errSealIndex) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				continue
			}
			if again := sd.encode(); !bytes.Equal(again, in) {
				t.Fatalf("re-encoding differs:\n%x\n%x", again, in)
			}
			for i, e := range sd.index {
				if e.pos < segmentHeaderSize || e.pos > sd.lastPos || e.off < sd.base || e.off >= sd.next ||
					(i > 0 && (e.off <= sd.index[i-1].off || e.pos <= sd.index[i-1].pos)) {
					t.Fatalf("index entry %d %+v out of bounds of %+v", i, e, sd)
				}
			}
		}
	})
}
