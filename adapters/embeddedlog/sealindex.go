package embeddedlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// A sealed segment (one with a later segment after it) never changes:
// appends go to the last segment only, and only a truncation, which
// removes the sidecars first, cuts a sealed one. So what a clean scan of
// a sealed segment learns (its sparse index, its end, the last group's
// part in it) is kept beside it in <base>.idx, and later Opens read that
// instead of every frame. The writer keeps it when it starts the next
// segment (it knows all of that already), and an Open that had to scan a
// sealed segment keeps it too. Opening a log then costs the last segment
// of each partition, not the log's size.
//
// The sidecar is a cache: it is written without fsync, and any doubt
// (missing, torn, another version, a checksum or a size that does not
// match, a last frame that is not the one it names) sends Open back to
// the scan, which rewrites it. Readers check every frame they return
// (checksum and offset), so even a wrong index could only make a read
// fail, never return wrong records. What the sidecar gives up is finding
// damage inside sealed data at Open; reads still find it, and
// [WithFullScan] restores the check at Open.
//
// Layout, little endian:
//
//	0  [4]byte "BLSI"
//	4  u32 version (1)
//	8  i64 base        16 i64 size (bytes, header included)
//	24 i64 next offset 32 i64 byte position of the last frame
//	40 u32 the last frame's CRC32C field
//	44 u32 frames of the last group here   48 u32 frames that group wrote here
//	52 u16 partitions that group touched   54 u16 zero
//	56 i64 byte position of the last group's first frame
//	64 i64 offset of that frame
//	72 u64 group of the first frame        80 u64 group of the last frame
//	88 i64 indexedAt   96 u32 index entries n
//	100 n × (i64 offset, i64 byte position)
//	then u32 CRC32C of everything before it.
const (
	sealMagic      = "BLSI"
	sealVersion    = 1
	sealFixedBytes = 100
)

// sealIndexPath is the sidecar of the segment file segPath.
func sealIndexPath(segPath string) string { return strings.TrimSuffix(segPath, ".seg") + ".idx" }

// sealed is what a clean scan of a sealed segment found.
type sealed struct {
	base, size, next    int64
	lastPos             int64
	lastCRC             uint32
	run                 groupRun // seg is not stored
	firstGseq, lastGseq uint64
	indexedAt           int64
	index               []indexEntry
}

var errSealIndex = errors.New("sealed-segment index unusable")

// sealedState is what the sidecar of s keeps, from what the writer or the
// Open that scanned it knows; nil if s is nil, holds no frame, or its tip
// is unknown. The caller holds the partition's lock.
func (s *segment) sealedState() *sealed {
	if s == nil || s.tip == nil || s.tip.firstGseq == 0 {
		return nil
	}
	sd := *s.tip
	sd.base, sd.size, sd.next, sd.indexedAt = s.base, s.size, s.next, s.indexedAt
	sd.index = slices.Clone(s.index)
	return &sd
}

func (s *sealed) encode() []byte {
	b := make([]byte, sealFixedBytes, sealFixedBytes+16*len(s.index)+4)
	copy(b, sealMagic)
	le := binary.LittleEndian
	le.PutUint32(b[4:], sealVersion)
	le.PutUint64(b[8:], uint64(s.base))
	le.PutUint64(b[16:], uint64(s.size))
	le.PutUint64(b[24:], uint64(s.next))
	le.PutUint64(b[32:], uint64(s.lastPos))
	le.PutUint32(b[40:], s.lastCRC)
	le.PutUint32(b[44:], s.run.count)
	le.PutUint32(b[48:], s.run.gpcount)
	le.PutUint16(b[52:], s.run.gparts)
	le.PutUint64(b[56:], uint64(s.run.pos))
	le.PutUint64(b[64:], uint64(s.run.off))
	le.PutUint64(b[72:], s.firstGseq)
	le.PutUint64(b[80:], s.lastGseq)
	le.PutUint64(b[88:], uint64(s.indexedAt))
	le.PutUint32(b[96:], uint32(len(s.index)))
	for _, e := range s.index {
		b = le.AppendUint64(b, uint64(e.off))
		b = le.AppendUint64(b, uint64(e.pos))
	}
	return le.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeSealed parses a sidecar and checks that it is whole and
// self-consistent; whether it fits its segment is for [Log.loadSealed].
func decodeSealed(b []byte) (*sealed, error) {
	le := binary.LittleEndian
	if len(b) < sealFixedBytes+4 || string(b[:4]) != sealMagic {
		return nil, fmt.Errorf("%w: not an index file", errSealIndex)
	}
	if v := le.Uint32(b[4:]); v != sealVersion {
		return nil, fmt.Errorf("%w: version %d", errSealIndex, v)
	}
	if le.Uint16(b[54:]) != 0 {
		return nil, fmt.Errorf("%w: reserved bytes set", errSealIndex)
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != le.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checksum", errSealIndex)
	}
	n := int(le.Uint32(b[96:]))
	if len(body) != sealFixedBytes+16*n || n < 1 {
		return nil, fmt.Errorf("%w: %d index entries in %d bytes", errSealIndex, n, len(b))
	}
	s := &sealed{
		base: int64(le.Uint64(b[8:])), size: int64(le.Uint64(b[16:])), next: int64(le.Uint64(b[24:])),
		lastPos: int64(le.Uint64(b[32:])), lastCRC: le.Uint32(b[40:]),
		run: groupRun{count: le.Uint32(b[44:]), gpcount: le.Uint32(b[48:]), gparts: le.Uint16(b[52:]),
			pos: int64(le.Uint64(b[56:])), off: int64(le.Uint64(b[64:]))},
		firstGseq: le.Uint64(b[72:]), lastGseq: le.Uint64(b[80:]),
		indexedAt: int64(le.Uint64(b[88:])),
		index:     make([]indexEntry, n),
	}
	for i := range s.index {
		e := b[sealFixedBytes+16*i:]
		s.index[i] = indexEntry{off: int64(le.Uint64(e)), pos: int64(le.Uint64(e[8:]))}
	}
	first, last := s.index[0], s.index[n-1]
	switch {
	case first != indexEntry{s.base, segmentHeaderSize}:
		return nil, fmt.Errorf("%w: index starts at %+v", errSealIndex, first)
	case s.next <= s.base || s.lastPos < segmentHeaderSize || s.lastPos >= s.size || last.pos > s.lastPos || last.off >= s.next:
		return nil, fmt.Errorf("%w: bounds", errSealIndex)
	case s.firstGseq == 0 || s.lastGseq < s.firstGseq || s.run.count == 0 || s.run.pos > s.lastPos || s.run.off >= s.next:
		return nil, fmt.Errorf("%w: group fields", errSealIndex)
	case s.indexedAt != last.pos:
		return nil, fmt.Errorf("%w: indexedAt", errSealIndex)
	}
	for i := 1; i < n; i++ {
		if s.index[i].off <= s.index[i-1].off || s.index[i].pos <= s.index[i-1].pos {
			return nil, fmt.Errorf("%w: index not ascending", errSealIndex)
		}
	}
	return s, nil
}

// loadSealed reads the sidecar of segment s and checks it against the
// file: same base and size, and the frame it names as the last one is
// there with the offset and checksum it recorded. Any mismatch is an
// error; the caller then scans.
func (l *Log) loadSealed(s *segment) (*sealed, error) {
	b, err := os.ReadFile(sealIndexPath(s.path))
	if err != nil {
		return nil, err
	}
	sd, err := decodeSealed(b)
	if err != nil {
		return nil, err
	}
	if sd.base != s.base || sd.size != s.size {
		return nil, fmt.Errorf("%w: made for base %d, %d bytes; the segment is base %d, %d bytes",
			errSealIndex, sd.base, sd.size, s.base, s.size)
	}
	var h [frameHeaderSize]byte
	if _, err := s.f.ReadAt(h[:], sd.lastPos); err != nil {
		return nil, fmt.Errorf("%w: read last frame: %v", errSealIndex, err)
	}
	le := binary.LittleEndian
	if sd.lastPos+8+int64(le.Uint32(h[0:])) != sd.size || le.Uint32(h[4:]) != sd.lastCRC ||
		int64(le.Uint64(h[8:])) != sd.next-1 || le.Uint64(h[24:]) != sd.lastGseq {
		return nil, fmt.Errorf("%w: the last frame is not the one recorded", errSealIndex)
	}
	return sd, nil
}

// writeSealed keeps what a clean scan found of sealed segment s. It is
// best effort: a log that cannot write it opens by scanning next time.
func (l *Log) writeSealed(s *segment, sd *sealed) {
	path := sealIndexPath(s.path)
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, sd.encode(), ownerfs.FileMode)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		l.cfg.logger.Warn("embeddedlog: cannot keep a sealed segment's index; the next open scans it again",
			"file", path, "err", err.Error())
	}
}

// removeSealed deletes the sidecars of segs, before a truncation changes
// them, and makes the removal durable.
func removeSealed(dir string, segs []*segment) error {
	removed := false
	for _, s := range segs {
		switch err := os.Remove(sealIndexPath(s.path)); {
		case err == nil:
			removed = true
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("remove sealed-segment index: %w", err)
		}
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}
