package embeddedlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// A segment file is a header followed by frames, one frame per record:
//
//	0  u32 body length (bytes after the first 8)
//	4  u32 CRC32C (Castagnoli) of the body
//	8  i64 offset
//	16 i64 store time, Unix nanoseconds
//	24 u64 group sequence: the group commit (one fsync round) that wrote it
//	32 u32 frames of that group in this partition
//	36 u16 partitions that group touched
//	38 u16 key length
//	40 key, then value
//
// The group fields let recovery tell a torn last write (drop it) from
// damage inside data that was already fsynced (stop and report), and keep
// a batch that spans partitions all-or-nothing. All integers little endian.
const (
	frameHeaderSize = 40
	frameFixedBody  = frameHeaderSize - 8 // body bytes before the key
	maxKeyBytes     = 1<<16 - 1
	// hardMaxValueBytes bounds a value no matter the options, so that a
	// corrupt length field can never make recovery allocate gigabytes.
	hardMaxValueBytes = 64 << 20
	maxBodyBytes      = frameFixedBody + maxKeyBytes + hardMaxValueBytes
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frame is one decoded record frame. key and value alias the input.
type frame struct {
	offset  int64
	time    int64
	gseq    uint64
	gpcount uint32 // frames of group gseq in this partition
	gparts  uint16 // partitions group gseq touched
	key     []byte
	value   []byte
}

var (
	// errShortFrame: the input ends inside the frame (a torn tail, or a
	// scanner that must read more).
	errShortFrame = errors.New("short frame")
	// errBadFrame: the frame's bytes are wrong (length, checksum, fields).
	errBadFrame = errors.New("bad frame")
)

// frameSize returns the full size of a frame with this key and value.
func frameSize(key, value []byte) int { return frameHeaderSize + len(key) + len(value) }

// appendFrame appends the encoding of f to dst.
func appendFrame(dst []byte, f *frame) []byte {
	body := frameFixedBody + len(f.key) + len(f.value)
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(body))
	dst = binary.LittleEndian.AppendUint32(dst, 0) // CRC, filled below
	dst = binary.LittleEndian.AppendUint64(dst, uint64(f.offset))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(f.time))
	dst = binary.LittleEndian.AppendUint64(dst, f.gseq)
	dst = binary.LittleEndian.AppendUint32(dst, f.gpcount)
	dst = binary.LittleEndian.AppendUint16(dst, f.gparts)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(f.key)))
	dst = append(dst, f.key...)
	dst = append(dst, f.value...)
	binary.LittleEndian.PutUint32(dst[start+4:], crc32.Checksum(dst[start+8:], castagnoli))
	return dst
}

// parseFrame decodes the frame at the start of b and returns it with its
// size. It never reads past b and never trusts a length before bounding it.
func parseFrame(b []byte) (frame, int, error) {
	if len(b) < 8 {
		return frame{}, 0, errShortFrame
	}
	body := binary.LittleEndian.Uint32(b)
	if body < frameFixedBody || body > maxBodyBytes {
		return frame{}, 0, fmt.Errorf("%w: body length %d", errBadFrame, body)
	}
	n := 8 + int(body)
	if len(b) < n {
		return frame{}, 0, errShortFrame
	}
	if got, want := crc32.Checksum(b[8:n], castagnoli), binary.LittleEndian.Uint32(b[4:]); got != want {
		return frame{}, 0, fmt.Errorf("%w: checksum %08x, frame says %08x", errBadFrame, got, want)
	}
	f := frame{
		offset:  int64(binary.LittleEndian.Uint64(b[8:])),
		time:    int64(binary.LittleEndian.Uint64(b[16:])),
		gseq:    binary.LittleEndian.Uint64(b[24:]),
		gpcount: binary.LittleEndian.Uint32(b[32:]),
		gparts:  binary.LittleEndian.Uint16(b[36:]),
	}
	klen := int(binary.LittleEndian.Uint16(b[38:]))
	if klen > n-frameHeaderSize {
		return frame{}, 0, fmt.Errorf("%w: key length %d in a %d-byte frame", errBadFrame, klen, n)
	}
	if f.offset < 0 || f.gseq == 0 || f.gpcount == 0 || f.gparts == 0 {
		return frame{}, 0, fmt.Errorf("%w: offset %d group %d/%d/%d", errBadFrame, f.offset, f.gseq, f.gpcount, f.gparts)
	}
	f.key = b[frameHeaderSize : frameHeaderSize+klen : frameHeaderSize+klen]
	f.value = b[frameHeaderSize+klen : n : n]
	return f, n, nil
}

// The segment file header:
//
//	0  "BLGSEG"
//	6  u16 format version
//	8  i64 base offset (offset of the first frame)
//	16 u32 CRC32C of bytes 0..16
//	20 12 reserved zero bytes
const (
	segmentHeaderSize = 32
	segmentMagic      = "BLGSEG"
	// formatVersion is the segment layout this binary writes and reads.
	// Bump it only with a reader that still reads older layouts.
	formatVersion = 1
)

func segmentHeader(base int64) []byte {
	h := make([]byte, segmentHeaderSize)
	copy(h, segmentMagic)
	binary.LittleEndian.PutUint16(h[6:], formatVersion)
	binary.LittleEndian.PutUint64(h[8:], uint64(base))
	binary.LittleEndian.PutUint32(h[16:], crc32.Checksum(h[:16], castagnoli))
	return h
}

// errBadHeader: the header is not ours or is damaged (not: newer format).
var errBadHeader = errors.New("bad segment header")

// parseSegmentHeader returns the base offset. A header from a newer format
// gives an error wrapping ErrFormatTooNew.
func parseSegmentHeader(h []byte) (int64, error) {
	if len(h) < segmentHeaderSize {
		return 0, fmt.Errorf("%w: %d bytes", errBadHeader, len(h))
	}
	if string(h[:6]) != segmentMagic {
		return 0, fmt.Errorf("%w: magic %q", errBadHeader, h[:6])
	}
	if v := binary.LittleEndian.Uint16(h[6:]); v > formatVersion {
		return 0, fmt.Errorf("%w: format %d, this binary reads up to %d", ErrFormatTooNew, v, formatVersion)
	} else if v != formatVersion {
		return 0, fmt.Errorf("%w: format %d", errBadHeader, v)
	}
	if got, want := crc32.Checksum(h[:16], castagnoli), binary.LittleEndian.Uint32(h[16:]); got != want {
		return 0, fmt.Errorf("%w: checksum %08x, header says %08x", errBadHeader, got, want)
	}
	base := int64(binary.LittleEndian.Uint64(h[8:]))
	if base < 0 {
		return 0, fmt.Errorf("%w: base offset %d", errBadHeader, base)
	}
	return base, nil
}
