package embeddedlog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/topics"
)

// segment is one file of a partition. size, next and index change only
// under the partition's lock, after the bytes they describe are fsynced.
type segment struct {
	path      string
	f         *os.File
	base      int64        // offset of the first frame
	next      int64        // offset after the last durable frame
	size      int64        // durable bytes, header included
	index     []indexEntry // sparse, ascending; index[0] is (base, header)
	indexedAt int64        // byte position of the last index entry
	// tip is what a sidecar needs of the frames written so far (the
	// first and last group, the last frame): kept by the writer, so the
	// segment's sidecar is written when a next segment seals it. nil:
	// unknown (the tail was cut at Open), and the next Open scans it.
	tip *sealed
}

// indexEntry maps a record offset to the byte position of its frame.
type indexEntry struct{ off, pos int64 }

// partition is one directory of segments.
type partition struct {
	topic   string
	id      int32
	dir     string
	metrics Metrics

	mu   sync.RWMutex
	segs []*segment // ascending base; never empty once written
}

func segmentName(base int64) string { return fmt.Sprintf("%020d.seg", base) }

// end is the offset the next append gets (only durable records count).
func (p *partition) end() int64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.endLocked()
}

func (p *partition) endLocked() int64 {
	if len(p.segs) == 0 {
		return 0
	}
	return p.segs[len(p.segs)-1].next
}

func (p *partition) closeFiles() error {
	var errs []error
	for _, s := range p.segs {
		if s.f != nil {
			errs = append(errs, s.f.Close())
		}
	}
	return errors.Join(errs...)
}

// maxReadBytes bounds what one Read loads; a Read returns fewer than max
// records rather than exceed it (but always at least one record).
const maxReadBytes = 16 << 20

// readSpan is what a reader needs of one segment, copied under the lock.
type readSpan struct {
	seg        *segment
	size, next int64
	start      indexEntry
	avgFrame   int64
}

// span finds the segment holding from and the index entry to start at.
func (p *partition) span(from int64) (readSpan, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	i := sort.Search(len(p.segs), func(i int) bool { return p.segs[i].base > from }) - 1
	if i < 0 || from >= p.segs[i].next {
		return readSpan{}, false
	}
	s := p.segs[i]
	j := sort.Search(len(s.index), func(j int) bool { return s.index[j].off > from }) - 1
	avg := int64(256)
	if n := s.next - s.base; n > 0 {
		avg = (s.size-segmentHeaderSize)/n + 1
	}
	return readSpan{seg: s, size: s.size, next: s.next, start: s.index[j], avgFrame: avg}, true
}

// read returns up to limit records from offset from. The records alias
// the buffers this call read into: from alloc, or new ones when it is nil.
func (p *partition) read(from int64, limit int, alloc func(n int) []byte) ([]topics.Record, error) {
	end := p.end()
	if from < 0 || from > end {
		return nil, fmt.Errorf("%w: %s/%d offset %d, end %d", topics.ErrOffsetRange, p.topic, p.id, from, end)
	}
	if from == end || limit <= 0 {
		return []topics.Record{}, nil
	}
	recs := make([]topics.Record, 0, min(int64(limit), end-from, 1<<16))
	budget := int64(maxReadBytes)
	for len(recs) < limit && budget > 0 {
		sp, ok := p.span(from)
		if !ok {
			break
		}
		before := from
		var err error
		var used int64
		recs, from, used, err = p.readSegment(sp, from, limit, recs, budget, alloc)
		if err != nil {
			return nil, err
		}
		budget -= used
		if from == before {
			break // byte budget spent
		}
	}
	return recs, nil
}

// readSegment appends records of one segment, from offset from on, read
// into buffers from alloc (new ones when it is nil).
func (p *partition) readSegment(sp readSpan, from int64, limit int, recs []topics.Record, budget int64, alloc func(n int) []byte) ([]topics.Record, int64, int64, error) {
	pos, expect := sp.start.pos, sp.start.off
	var used int64
	var buf []byte
	for pos < sp.size && len(recs) < limit {
		if len(buf) < 8 || len(buf) < frameLen(buf) {
			// (Re)fill: everything still needed in one buffer, estimated
			// from the segment's average frame size.
			need := int64(frameLen(buf))
			want := max((from-expect)*sp.avgFrame+int64(limit-len(recs))*sp.avgFrame+512, need)
			if room := budget - used; want > room {
				if len(recs) > 0 && room < need {
					break // return what we have; the caller reads on
				}
				want = max(room, need)
			}
			want = min(want, sp.size-pos)
			var nb []byte
			if alloc != nil {
				nb = alloc(int(want))
			} else {
				nb = make([]byte, want)
			}
			n, err := sp.seg.f.ReadAt(nb, pos)
			if err != nil && !(errors.Is(err, io.EOF)) {
				return nil, 0, 0, &FileError{File: sp.seg.path, Offset: pos, Err: fmt.Errorf("read: %w", err)}
			}
			// A file cut short under the log reads as zeros, which no
			// frame parses as, never as what a recycled buffer held.
			clear(nb[n:])
			buf = nb
			used += want
		}
		f, n, refill, err := p.frameAt(sp, buf, pos, expect)
		if err != nil {
			return nil, 0, 0, err
		}
		if refill {
			continue // with the frame's full length
		}
		if f.offset >= from {
			recs = append(recs, p.record(f))
			from = f.offset + 1
		}
		expect++
		pos += int64(n)
		buf = buf[n:]
	}
	if pos >= sp.size {
		from = max(from, sp.next)
	}
	return recs, from, used, nil
}

// frameLen is the full length of the frame starting buf, as far as known.
// frameAt parses the frame at pos, the expect-th of the segment, from buf
// (the segment's bytes from pos on). refill says buf holds only part of
// it and more can be read; damage is a corruption error naming the file
// and position, never data.
func (p *partition) frameAt(sp readSpan, buf []byte, pos, expect int64) (f frame, n int, refill bool, err error) {
	f, n, err = parseFrame(buf)
	if errors.Is(err, errShortFrame) {
		if int64(len(buf)) >= sp.size-pos {
			// The durable size says a whole frame is there.
			return f, 0, false, p.corrupt(sp.seg, pos, err)
		}
		return f, 0, true, nil
	}
	if err == nil && f.offset != expect {
		err = fmt.Errorf("%w: offset %d, expected %d", errBadFrame, f.offset, expect)
	}
	if err != nil {
		return f, 0, false, p.corrupt(sp.seg, pos, err)
	}
	return f, n, false, nil
}

// record is frame f as a record of p.
func (p *partition) record(f frame) topics.Record {
	return topics.Record{Topic: p.topic, Partition: p.id, Offset: f.offset,
		Key: f.key, Value: f.value, Time: time.Unix(0, f.time).UTC()}
}

func frameLen(buf []byte) int {
	if len(buf) < 8 {
		return 8
	}
	body := int(uint32(buf[0]) | uint32(buf[1])<<8 | uint32(buf[2])<<16 | uint32(buf[3])<<24)
	return 8 + min(body, maxBodyBytes)
}

func (p *partition) corrupt(s *segment, pos int64, cause error) error {
	p.metrics.CorruptionFound(p.topic, p.id)
	return &FileError{File: s.path, Offset: pos, Err: fmt.Errorf("%w: %s/%d: %v", topics.ErrCorrupt, p.topic, p.id, cause)}
}

// createSegment makes a new empty segment file with base offset base and
// makes it durable (file and directory entry) before returning.
func (p *partition) createSegment(base int64) (*segment, error) {
	path := filepath.Join(p.dir, segmentName(base))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, ownerfs.FileMode)
	if err != nil {
		return nil, fmt.Errorf("create segment: %w", err)
	}
	if _, err := f.WriteAt(segmentHeader(base), 0); err != nil {
		f.Close()
		os.Remove(path)
		return nil, &FileError{File: path, Offset: 0, Err: fmt.Errorf("write header: %w", err)}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, &FileError{File: path, Offset: -1, Err: fmt.Errorf("fsync: %w", err)}
	}
	if err := syncDir(p.dir); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return &segment{
		path: path, f: f, base: base, next: base, size: segmentHeaderSize,
		index: []indexEntry{{base, segmentHeaderSize}}, indexedAt: segmentHeaderSize,
		tip: &sealed{},
	}, nil
}

// syncDir makes directory entries (new files, renames) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir for fsync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return &FileError{File: dir, Offset: -1, Err: fmt.Errorf("fsync dir: %w", err)}
	}
	return nil
}
