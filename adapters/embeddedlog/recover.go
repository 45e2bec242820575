package embeddedlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bridgelog/bridgelog/topics"
)

// Recovery, per topic:
//
//  1. Each partition's segments are scanned frame by frame (checksums,
//     dense offsets). Segments before the last were fsynced whole before
//     the next one was created, so any damage there is corruption. Those
//     sealed segments are taken from their index files instead when the
//     files fit (sealindex.go), unless WithFullScan is set.
//  2. Damage in the last segment is a torn write only if it lies inside
//     the last group commit (the highest group sequence L found anywhere):
//     a group is written to every file, then every file is fsynced, and
//     only then may the next group start. So a bad frame followed by a
//     valid frame of an older group, or cutting short an older group
//     whose part in this partition is incomplete, is damage to data that
//     was fsynced: Open refuses with an error naming file and byte offset.
//  3. Group L is kept only if every partition it touched holds its whole
//     part; otherwise its frames are removed everywhere, so a batch that
//     spans partitions is all-or-nothing. Nothing of group L was
//     acknowledged unless all of it was fsynced.
//
// Damage exactly at the end of a partition's fsynced data, after a whole
// group part, cannot be told apart from a torn write and is truncated
// (with a warning and a metric), as other write-ahead logs do.

// tail summarises a scanned partition for the topic-wide decision.
type tail struct {
	p      *partition
	expect int64  // offset after the last good frame
	gseq   uint64 // group of the last good frame (0: none)
	run    groupRun
	bad    *badSpot
}

// groupRun is the last group's part at the end of a partition's good data.
type groupRun struct {
	count   uint32 // frames seen
	gpcount uint32 // frames the group wrote here
	gparts  uint16 // partitions the group touched
	seg     int    // segment index of the first frame
	pos     int64  // byte position of the first frame
	off     int64  // offset of the first frame
}

func (r groupRun) whole() bool { return r.count == r.gpcount }

// badSpot is where a partition's good data stops.
type badSpot struct {
	seg    int
	pos    int64
	cause  error
	sealed bool // a later segment exists: the bytes were fsynced
	// valid frames found after the damage
	later              bool
	laterMin, laterMax uint64
	laterGparts        uint16
}

// segScanner reads a segment file in large chunks and hands out frames.
type segScanner struct {
	f    *os.File
	path string
	size int64
	buf  []byte
	at0  int64 // file position of buf[0]
}

func (s *segScanner) frameAt(pos int64) (frame, int, error) {
	for {
		if pos >= s.at0 && pos <= s.at0+int64(len(s.buf)) {
			b := s.buf[pos-s.at0:]
			f, n, err := parseFrame(b)
			if !errors.Is(err, errShortFrame) || s.at0+int64(len(s.buf)) >= s.size {
				return f, n, err
			}
			need := int64(frameLen(b))
			if pos+need > s.size {
				return frame{}, 0, errShortFrame
			}
			if err := s.fill(pos, need); err != nil {
				return frame{}, 0, err
			}
			continue
		}
		if err := s.fill(pos, 8); err != nil {
			return frame{}, 0, err
		}
	}
}

func (s *segScanner) fill(pos, need int64) error {
	n := min(max(need, 1<<20), s.size-pos)
	n = max(n, 0)
	if int64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	s.buf = s.buf[:n]
	if _, err := s.f.ReadAt(s.buf, pos); err != nil && !errors.Is(err, io.EOF) {
		return &FileError{File: s.path, Offset: pos, Err: fmt.Errorf("read: %w", err)}
	}
	s.at0 = pos
	return nil
}

// loadPartition opens and scans the segments of one partition directory.
func (l *Log) loadPartition(p *partition) (*tail, error) {
	bases, err := segmentBases(p.dir)
	if err != nil {
		return nil, err
	}
	t := &tail{p: p}
	for i, base := range bases {
		if l.cfg.ctx != nil {
			if err := l.cfg.ctx.Err(); err != nil {
				return nil, fmt.Errorf("scan %s stopped: %w", p.dir, err)
			}
		}
		last := i == len(bases)-1
		s, err := l.openSegment(p, base, last)
		if err != nil {
			return nil, err
		}
		if s == nil { // a torn, empty last segment: removed
			break
		}
		if len(p.segs) > 0 && s.base != t.expect {
			s.f.Close()
			return nil, &FileError{File: s.path, Offset: 0, Err: fmt.Errorf("%w: segment starts at offset %d, previous ends at %d", topics.ErrCorrupt, s.base, t.expect)}
		}
		t.expect = s.base
		p.segs = append(p.segs, s)
		if !last && !l.cfg.fullScan && l.useSealed(t, len(p.segs)-1) {
			continue
		}
		sd, err := l.scanSegment(t, len(p.segs)-1)
		if err != nil {
			return nil, err
		}
		switch {
		case !last && sd != nil:
			l.writeSealed(s, sd)
		case last && t.bad == nil && s.next == s.base:
			s.tip = &sealed{} // no frame yet: the writer fills it
		case last && sd != nil:
			sd.index = nil // the segment's own index grows on
			s.tip = sd
		}
		if t.bad != nil {
			t.bad.sealed = !last
			if !last {
				// settle refuses to open, or (by operator option) drops
				// this segment's rest and every later segment.
				t.bad.cause = fmt.Errorf("%w (segment %s follows)", t.bad.cause, segmentName(bases[i+1]))
				t.laterSegments(bases[i+1:])
			} else if err := l.findLater(t); err != nil {
				return nil, err
			}
			break
		}
	}
	return t, nil
}

// segmentBases lists the base offsets of the segment files in dir,
// ascending. A missing dir has none.
func segmentBases(dir string) ([]int64, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var bases []int64
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".seg") {
			continue
		}
		base, err := strconv.ParseInt(strings.TrimSuffix(name, ".seg"), 10, 64)
		if err != nil || segmentName(base) != name {
			return nil, &FileError{File: filepath.Join(dir, name), Offset: -1, Err: fmt.Errorf("%w: not a segment name", ErrLayout)}
		}
		bases = append(bases, base)
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] < bases[j] })
	return bases, nil
}

// laterSegments remembers segment files after a damaged sealed one, so a
// truncation can remove them.
func (t *tail) laterSegments(bases []int64) {
	for _, b := range bases {
		t.p.segs = append(t.p.segs, &segment{path: filepath.Join(t.p.dir, segmentName(b)), base: -1})
	}
}

// openSegment opens one segment file and checks its header. It returns
// nil, nil for a last segment whose creation was torn (it is removed).
func (l *Log) openSegment(p *partition, base int64, last bool) (*segment, error) {
	path := filepath.Join(p.dir, segmentName(base))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open segment: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat segment: %w", err)
	}
	torn, err := checkSegmentHeader(f, path, base, st.Size())
	switch {
	case torn && last:
		f.Close()
		l.cfg.logger.Warn("embeddedlog: removing segment with torn header", "file", path, "bytes", st.Size())
		l.cfg.metrics.TailTruncated(p.topic, p.id, st.Size())
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove torn segment: %w", err)
		}
		return nil, syncDir(p.dir)
	case err != nil:
		f.Close()
		if errors.Is(err, topics.ErrCorrupt) {
			l.cfg.metrics.CorruptionFound(p.topic, p.id)
		}
		return nil, err
	}
	return &segment{path: path, f: f, base: base, next: base, size: st.Size(),
		index: []indexEntry{{base, segmentHeaderSize}}, indexedAt: segmentHeaderSize}, nil
}

// checkSegmentHeader checks the header of segment file f (size bytes),
// named for offset base. torn says the header is not valid but the file
// is no longer than a header: its creation never finished, and nothing
// was written to it (a group is written only after the header's fsync).
// That is corruption only in a segment others follow, which err then
// says; a writer removes such a last segment, a reader waits for it.
func checkSegmentHeader(f *os.File, path string, base, size int64) (torn bool, err error) {
	h := make([]byte, segmentHeaderSize)
	n, _ := f.ReadAt(h, 0)
	hbase, herr := parseSegmentHeader(h[:n])
	switch {
	case errors.Is(herr, ErrFormatTooNew):
		return false, &FileError{File: path, Offset: 0, Err: herr}
	case herr != nil:
		return size <= segmentHeaderSize, &FileError{File: path, Offset: 0, Err: fmt.Errorf("%w: %v", topics.ErrCorrupt, herr)}
	case hbase != base:
		return false, &FileError{File: path, Offset: 0, Err: fmt.Errorf("%w: header base offset %d, file name says %d", topics.ErrCorrupt, hbase, base)}
	}
	return false, nil
}

// useSealed takes sealed segment p.segs[si] from its sidecar instead of
// scanning it, when the sidecar fits the file and follows on from the
// segments before; it reports whether it did.
func (l *Log) useSealed(t *tail, si int) bool {
	s := t.p.segs[si]
	sd, err := l.loadSealed(s)
	if err == nil && sd.firstGseq <= t.gseq {
		// A group never spans segments, so the scan would find this odd.
		err = fmt.Errorf("%w: first group %d after group %d", errSealIndex, sd.firstGseq, t.gseq)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.cfg.logger.Warn("embeddedlog: scanning a sealed segment instead of using its index",
				"file", s.path, "err", err.Error())
		}
		return false
	}
	s.size, s.next, s.index, s.indexedAt = sd.size, sd.next, sd.index, sd.indexedAt
	t.expect, t.gseq = sd.next, sd.lastGseq
	t.run = sd.run
	t.run.seg = si
	return true
}

// scanSegment walks the frames of p.segs[si], building its index and the
// partition's tail; it stops at the first bad frame and records it. When
// the segment has frames and no damage, it returns what a sidecar keeps.
func (l *Log) scanSegment(t *tail, si int) (*sealed, error) {
	s := t.p.segs[si]
	sc := &segScanner{f: s.f, path: s.path, size: s.size}
	pos := int64(segmentHeaderSize)
	var firstGseq uint64
	var lastPos int64
	var lastCRC uint32
	for pos < s.size {
		f, n, err := sc.frameAt(pos)
		if err == nil {
			switch {
			case f.offset != t.expect:
				err = fmt.Errorf("%w: offset %d, expected %d", errBadFrame, f.offset, t.expect)
			case f.gseq < t.gseq:
				err = fmt.Errorf("%w: group %d after group %d", errBadFrame, f.gseq, t.gseq)
			case f.gseq == t.gseq && (t.run.count >= t.run.gpcount || f.gpcount != t.run.gpcount || f.gparts != t.run.gparts):
				err = fmt.Errorf("%w: group %d frame %d does not fit its group (%d frames)", errBadFrame, f.gseq, t.run.count+1, t.run.gpcount)
			}
		}
		if err != nil {
			if !errors.Is(err, errBadFrame) && !errors.Is(err, errShortFrame) {
				return nil, err // an I/O error, not damage
			}
			t.bad = &badSpot{seg: si, pos: pos, cause: err}
			break
		}
		if firstGseq == 0 {
			firstGseq = f.gseq
		}
		lastPos, lastCRC = pos, binary.LittleEndian.Uint32(sc.buf[pos-sc.at0+4:])
		if f.gseq != t.gseq {
			t.run = groupRun{gpcount: f.gpcount, gparts: f.gparts, seg: si, pos: pos, off: f.offset}
			t.gseq = f.gseq
		}
		t.run.count++
		if pos-s.indexedAt >= l.cfg.indexEvery {
			s.index = append(s.index, indexEntry{f.offset, pos})
			s.indexedAt = pos
		}
		t.expect++
		pos += int64(n)
	}
	s.size = pos // readers and writers stop at the good data
	s.next = t.expect
	if t.bad != nil || firstGseq == 0 || t.run.seg != si {
		return nil, nil
	}
	return &sealed{base: s.base, size: s.size, next: s.next, lastPos: lastPos, lastCRC: lastCRC,
		run: t.run, firstGseq: firstGseq, lastGseq: t.gseq, indexedAt: s.indexedAt, index: s.index}, nil
}

// findLater looks for valid frames after the bad spot of the last segment,
// resynchronising byte by byte (lengths after damage cannot be trusted).
func (l *Log) findLater(t *tail) error {
	s := t.p.segs[t.bad.seg]
	st, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("stat segment: %w", err)
	}
	rest := make([]byte, st.Size()-t.bad.pos)
	if _, err := s.f.ReadAt(rest, t.bad.pos); err != nil && !errors.Is(err, io.EOF) {
		return &FileError{File: s.path, Offset: t.bad.pos, Err: fmt.Errorf("read: %w", err)}
	}
	resync(rest, t.expect, t.gseq, func(f frame) {
		b := t.bad
		if !b.later || f.gseq < b.laterMin {
			b.laterMin = f.gseq
		}
		if !b.later || f.gseq > b.laterMax {
			b.laterMax, b.laterGparts = f.gseq, f.gparts
		}
		b.later = true
	})
	return nil
}

// resync calls found for each valid frame in rest, the bytes from a bad
// frame on, found byte by byte after its first byte (lengths after damage
// cannot be trusted): frames with offsets from expect on and groups from
// gseq on.
func resync(rest []byte, expect int64, gseq uint64, found func(frame)) {
	maxOff := expect + int64(len(rest))/frameHeaderSize + 1
	for q := 1; q+frameHeaderSize <= len(rest); q++ {
		// Cheap filters first: almost every position fails on these.
		body := binary.LittleEndian.Uint32(rest[q:])
		if body < frameFixedBody || body > maxBodyBytes || q+8+int(body) > len(rest) {
			continue
		}
		off := int64(binary.LittleEndian.Uint64(rest[q+8:]))
		if off < expect || off > maxOff {
			continue
		}
		f, n, err := parseFrame(rest[q:])
		if err != nil || f.gseq < gseq {
			continue
		}
		found(f)
		q += n - 1
	}
}

// settle applies the topic-wide rules above to the scanned partitions of
// one topic and returns the highest group sequence seen.
func (l *Log) settle(topic string, tails []*tail) (uint64, error) {
	var last uint64 // L
	var lastParts uint16
	for _, t := range tails {
		if t.gseq > last {
			last, lastParts = t.gseq, t.run.gparts
		}
		if t.bad != nil && t.bad.later && t.bad.laterMax > last {
			last, lastParts = t.bad.laterMax, t.bad.laterGparts
		}
	}
	lostLast := false
	for _, t := range tails {
		b := t.bad
		if b == nil {
			continue
		}
		var torn bool
		switch {
		case b.sealed:
			torn = false
		case b.later:
			torn = b.laterMin == last && b.laterMax == last &&
				((t.gseq == last && !t.run.whole()) || (t.gseq < last && t.run.whole()))
		default:
			torn = t.gseq == last || t.run.whole()
		}
		s := t.p.segs[b.seg]
		if torn {
			lostLast = lostLast || b.later || (t.gseq == last && !t.run.whole())
			dropped := l.fileSize(s) - b.pos
			l.cfg.logger.Warn("embeddedlog: truncating torn tail", "topic", topic, "partition", t.p.id,
				"file", s.path, "byte_offset", b.pos, "bytes", dropped, "cause", b.cause.Error())
			l.cfg.metrics.TailTruncated(topic, t.p.id, dropped)
		} else {
			l.cfg.metrics.CorruptionFound(topic, t.p.id)
			cerr := &FileError{File: s.path, Offset: b.pos, Err: fmt.Errorf(
				"%w: %s/%d: %v, inside fsynced data (record offset %d; valid data follows: %t); WithTruncateCorrupt drops everything from here",
				topics.ErrCorrupt, topic, t.p.id, b.cause, t.expect, b.later || b.sealed)}
			if !l.cfg.truncateCorrupt {
				return 0, cerr
			}
			// Everything from the damage on goes, and with it, as a rule,
			// group L. Not when the damage is in a sealed segment after a
			// whole group L: whatever follows there is newer than every
			// other partition's data, so it wrote to this partition alone.
			lostLast = lostLast || !(b.sealed && t.gseq == last && t.run.whole())
			l.cfg.logger.Error("embeddedlog: truncating corrupt partition by operator option", "topic", topic,
				"partition", t.p.id, "file", s.path, "byte_offset", b.pos, "err", cerr.Error())
		}
		if err := l.truncate(t, b.seg, b.pos, t.expect); err != nil {
			return 0, err
		}
	}
	if last == 0 {
		return 0, nil
	}
	whole := 0
	for _, t := range tails {
		if t.gseq == last && t.run.whole() {
			whole++
		}
	}
	if !lostLast && whole == int(lastParts) {
		return last, nil
	}
	// The last group commit is incomplete: it was never acknowledged.
	for _, t := range tails {
		if t.gseq != last {
			continue
		}
		s := t.p.segs[t.run.seg]
		dropped := l.fileSize(s) - t.run.pos
		l.cfg.logger.Warn("embeddedlog: dropping incomplete group commit", "topic", topic, "partition", t.p.id,
			"file", s.path, "byte_offset", t.run.pos, "group", last, "records", t.run.count, "bytes", dropped)
		l.cfg.metrics.TailTruncated(topic, t.p.id, dropped)
		if err := l.truncate(t, t.run.seg, t.run.pos, t.run.off); err != nil {
			return 0, err
		}
	}
	return last, nil
}

func (l *Log) fileSize(s *segment) int64 {
	if s.f == nil {
		return 0
	}
	st, err := s.f.Stat()
	if err != nil {
		return s.size
	}
	return st.Size()
}

// truncate cuts partition t.p at byte pos of segment si (the record at
// that position has offset off) and removes every later segment.
func (l *Log) truncate(t *tail, si int, pos, off int64) error {
	p := t.p
	s := p.segs[si]
	if err := removeSealed(p.dir, p.segs[si:]); err != nil {
		return err
	}
	if err := s.f.Truncate(pos); err != nil {
		return &FileError{File: s.path, Offset: pos, Err: fmt.Errorf("truncate: %w", err)}
	}
	if err := s.f.Sync(); err != nil {
		return &FileError{File: s.path, Offset: -1, Err: fmt.Errorf("fsync: %w", err)}
	}
	s.size, s.next = pos, off
	s.tip = nil // its last group is gone: the next Open scans the segment
	for len(s.index) > 1 && s.index[len(s.index)-1].pos >= pos {
		s.index = s.index[:len(s.index)-1]
	}
	s.indexedAt = s.index[len(s.index)-1].pos
	removed := false
	for _, later := range p.segs[si+1:] {
		if later.f != nil {
			later.f.Close()
		}
		if err := os.Remove(later.path); err != nil {
			return fmt.Errorf("remove segment after truncation: %w", err)
		}
		removed = true
	}
	p.segs = p.segs[:si+1]
	t.expect = off
	t.bad = nil
	if t.gseq > 0 && t.run.seg == si && t.run.pos >= pos {
		t.gseq, t.run = 0, groupRun{} // the run is gone; older groups are whole
	}
	if removed {
		return syncDir(p.dir)
	}
	return nil
}
