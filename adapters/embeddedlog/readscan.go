package embeddedlog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/bridgelog/bridgelog/topics"
)

// How a reader scans one partition (see reader.go): frame by frame from
// where it stopped, never writing.

// open scans the segments of a partition: sealed ones from their index
// files where they fit (unless WithFullScan), the last frame by frame.
func (rp *readPart) open(l *Log) error {
	bases, err := segmentBases(rp.p.dir)
	if err != nil {
		return err
	}
	for i, base := range bases {
		if l.cfg.ctx != nil {
			if err := l.cfg.ctx.Err(); err != nil {
				return fmt.Errorf("scan %s stopped: %w", rp.p.dir, err)
			}
		}
		last := i == len(bases)-1
		s, torn, err := rp.openSeg(base)
		if torn && last {
			break // being created: a later refresh finds it
		}
		if err != nil {
			return rp.counted(l, err)
		}
		if n := len(rp.segs); n > 0 && base != rp.segs[n-1].next {
			s.f.Close()
			return rp.counted(l, &FileError{File: s.path, Offset: 0, Err: fmt.Errorf("%w: segment starts at offset %d, previous ends at %d", topics.ErrCorrupt, base, rp.segs[n-1].next)})
		}
		rp.segs = append(rp.segs, s)
		if last {
			break
		}
		if !l.cfg.fullScan && rp.useSealed(l, s) {
			continue
		}
		size, err := fileSize(s)
		if err != nil {
			return err
		}
		// A later segment exists, so what stops this scan is damage
		// (an error), never a frame being written.
		if _, err := rp.scanFrames(l, s, size, true); err != nil {
			return err
		}
	}
	return rp.scan(l, true)
}

// openSeg opens segment file base of the partition for reading and checks
// its header; torn: its creation has not finished (see checkSegmentHeader).
func (rp *readPart) openSeg(base int64) (s *scanSeg, torn bool, err error) {
	path := filepath.Join(rp.p.dir, segmentName(base))
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("open segment: %w", err)
	}
	st, err := f.Stat()
	if err == nil {
		torn, err = checkSegmentHeader(f, path, base, st.Size())
	}
	if err != nil {
		f.Close()
		return nil, torn, err
	}
	return &scanSeg{path: path, f: f, base: base, end: segmentHeaderSize, next: base,
		index: []indexEntry{{base, segmentHeaderSize}}, indexedAt: segmentHeaderSize}, false, nil
}

// useSealed takes sealed segment s from its index file when that fits the
// file and follows on from the segments before; it reports whether it did.
func (rp *readPart) useSealed(l *Log, s *scanSeg) bool {
	size, err := fileSize(s)
	if err != nil {
		return false
	}
	sd, err := l.loadSealed(&segment{path: s.path, f: s.f, base: s.base, size: size})
	if err == nil && sd.firstGseq <= rp.gseq {
		err = fmt.Errorf("%w: first group %d after group %d", errSealIndex, sd.firstGseq, rp.gseq)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.cfg.logger.Warn("embeddedlog: scanning a sealed segment instead of using its index",
				"file", s.path, "err", err.Error())
		}
		return false
	}
	s.end, s.next, s.index, s.indexedAt = sd.size, sd.next, sd.index, sd.indexedAt
	si := len(rp.segs) - 1
	if sd.run.pos > segmentHeaderSize {
		rp.runs = append(rp.runs, run{gseq: sd.lastGseq - 1, merged: true, seg: si, end: sd.run.pos, next: sd.run.off})
	}
	rp.mergeRuns()
	rp.runs = append(rp.runs, run{gseq: sd.lastGseq, count: sd.run.count, gpcount: sd.run.gpcount, gparts: sd.run.gparts,
		seg: si, end: sd.size, next: sd.next})
	rp.gseq = sd.lastGseq
	return true
}

// scan goes on from where the partition's scan stopped, to the end of its
// files: the rest of the current segment, then any segment started since.
// keepLast merges every run but the newest.
func (rp *readPart) scan(l *Log, keepLast bool) error {
	for {
		next := int64(0)
		var cur *scanSeg
		if n := len(rp.segs); n > 0 {
			cur = rp.segs[n-1]
			size, err := fileSize(cur)
			if err != nil {
				return err
			}
			if size > cur.end {
				if wait, err := rp.scanFrames(l, cur, size, keepLast); err != nil || wait {
					return err
				}
			}
			if cur.next == cur.base {
				return nil // no frame yet: the writer fills this segment first
			}
			next = cur.next
		}
		s, torn, err := rp.openSeg(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) || torn:
			return nil // not started, or its creation not finished
		case err != nil:
			return rp.counted(l, err)
		}
		if cur != nil {
			// The writer finished cur before it started s: read cur to
			// its end first.
			if size, err := fileSize(cur); err != nil || size != cur.end {
				s.f.Close()
				if err != nil {
					return err
				}
				continue
			}
		}
		rp.segs = append(rp.segs, s)
	}
}

// scanFrames scans segment s (the last in segs) from where its scan
// stopped to byte size. wait says it stopped at a frame not (yet) whole.
func (rp *readPart) scanFrames(l *Log, s *scanSeg, size int64, keepLast bool) (wait bool, err error) {
	sc := &segScanner{f: s.f, path: s.path, size: size}
	retried := int64(-1)
	for pos := s.end; pos < size; {
		f, n, err := sc.frameAt(pos)
		if err == nil {
			err = rp.fits(f, s.next)
		}
		if err != nil {
			if !errors.Is(err, errBadFrame) && !errors.Is(err, errShortFrame) {
				return false, err // an I/O error, not damage
			}
			if retried == pos {
				return true, nil // the next refresh looks again
			}
			again, err := rp.damaged(l, s, pos, err)
			if err != nil || !again {
				return true, err
			}
			if size, err = fileSize(s); err != nil {
				return false, err
			}
			sc = &segScanner{f: s.f, path: s.path, size: size} // read afresh
			retried = pos
			continue
		}
		rp.add(f, s, pos, n, keepLast, l.cfg.indexEvery)
		pos += int64(n)
	}
	return false, nil
}

// fits checks frame f against what the partition's scan expects next.
func (rp *readPart) fits(f frame, expect int64) error {
	switch {
	case f.offset != expect:
		return fmt.Errorf("%w: offset %d, expected %d", errBadFrame, f.offset, expect)
	case f.gseq < rp.gseq:
		return fmt.Errorf("%w: group %d after group %d", errBadFrame, f.gseq, rp.gseq)
	case f.gseq == rp.gseq:
		n := len(rp.runs)
		if n == 0 || rp.runs[n-1].merged || rp.runs[n-1].count >= rp.runs[n-1].gpcount ||
			f.gpcount != rp.runs[n-1].gpcount || f.gparts != rp.runs[n-1].gparts {
			return fmt.Errorf("%w: group %d frame does not fit its group", errBadFrame, f.gseq)
		}
	}
	return nil
}

// add takes frame f, at byte pos of segment s, into the scan.
func (rp *readPart) add(f frame, s *scanSeg, pos int64, n int, keepLast bool, indexEvery int64) {
	if pos-s.indexedAt >= indexEvery {
		s.index = append(s.index, indexEntry{f.offset, pos})
		s.indexedAt = pos
	}
	s.end, s.next = pos+int64(n), f.offset+1
	rp.gseq = f.gseq
	if k := len(rp.runs); k > 0 && rp.runs[k-1].gseq == f.gseq { // fits made sure it continues that run
		r := &rp.runs[k-1]
		r.count++
		r.end, r.next = s.end, s.next
		return
	}
	if keepLast {
		rp.mergeRuns()
	}
	rp.runs = append(rp.runs, run{gseq: f.gseq, count: 1, gpcount: f.gpcount, gparts: f.gparts,
		seg: len(rp.segs) - 1, end: s.end, next: s.next})
}

// mergeRuns folds every run into one merged run.
func (rp *readPart) mergeRuns() {
	if n := len(rp.runs); n > 1 || n == 1 && !rp.runs[0].merged {
		last := rp.runs[n-1]
		rp.runs = append(rp.runs[:0], run{gseq: last.gseq, merged: true, seg: last.seg, end: last.end, next: last.next})
	}
}

// damaged decides about a frame at byte pos of segment s that does not
// parse or fit (cause): damage (an error), the writer's frame finished
// meanwhile (again: scan on), or a frame being written (neither).
func (rp *readPart) damaged(l *Log, s *scanSeg, pos int64, cause error) (again bool, err error) {
	later, err := rp.laterData(s, pos)
	if err != nil || !later {
		return false, err
	}
	// What follows was written before this was read again (see above).
	sc := &segScanner{f: s.f, path: s.path}
	if sc.size, err = fileSize(s); err != nil {
		return false, err
	}
	f, _, err := sc.frameAt(pos)
	if err == nil {
		err = rp.fits(f, s.next)
	}
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, errBadFrame) && !errors.Is(err, errShortFrame) {
		return false, err
	}
	return false, rp.p.corruptAt(s, pos, fmt.Errorf("%v, inside written data (record offset %d; valid data follows)", cause, s.next))
}

// laterData says whether anything was written after byte pos of segment
// s: a later segment, or a valid frame further on in s.
func (rp *readPart) laterData(s *scanSeg, pos int64) (bool, error) {
	bases, err := segmentBases(rp.p.dir)
	if err != nil {
		return false, err
	}
	if len(bases) > 0 && bases[len(bases)-1] > s.base {
		return true, nil
	}
	size, err := fileSize(s)
	if err != nil || size <= pos {
		return false, err
	}
	rest := make([]byte, size-pos)
	if _, err := s.f.ReadAt(rest, pos); err != nil && !errors.Is(err, io.EOF) {
		return false, &FileError{File: s.path, Offset: pos, Err: fmt.Errorf("read: %w", err)}
	}
	found := false
	resync(rest, s.next, rp.gseq, func(frame) { found = true })
	return found, nil
}

// counted counts err as damage found if it is.
func (rp *readPart) counted(l *Log, err error) error {
	if errors.Is(err, topics.ErrCorrupt) {
		l.cfg.metrics.CorruptionFound(rp.p.topic, rp.p.id)
	}
	return err
}

// corruptAt is damage at byte pos of a segment a reader scans.
func (p *partition) corruptAt(s *scanSeg, pos int64, cause error) error {
	return p.corrupt(&segment{path: s.path}, pos, cause)
}

// check makes sure the files still hold what the partition shows, and
// reads again what was scanned beyond it if its file was cut since (a
// restarted writer drops an incomplete last group).
func (rp *readPart) check() error {
	rp.p.mu.RLock()
	var vis *segment
	if n := len(rp.p.segs); n > 0 {
		vis = rp.p.segs[n-1]
	}
	rp.p.mu.RUnlock()
	if vis != nil {
		st, err := vis.f.Stat()
		if err != nil {
			return fmt.Errorf("embeddedlog: stat segment: %w", err)
		}
		if st.Size() < vis.size {
			return &FileError{File: vis.path, Offset: st.Size(), Err: fmt.Errorf("%w: %s/%d was read to byte %d", ErrChangedUnderReader, rp.p.topic, rp.p.id, vis.size)}
		}
	}
	if n := len(rp.segs); n > 0 {
		size, err := fileSize(rp.segs[n-1])
		if err != nil {
			return err
		}
		if size < rp.segs[n-1].end {
			rp.rewind()
		}
	}
	return nil
}

// rewind forgets what was scanned beyond what the partition shows.
func (rp *readPart) rewind() {
	rp.p.mu.RLock()
	shown := len(rp.p.segs)
	var size, next int64
	if shown > 0 {
		size, next = rp.p.segs[shown-1].size, rp.p.segs[shown-1].next
	}
	rp.p.mu.RUnlock()
	keep := min(max(shown, 1), len(rp.segs))
	for _, s := range rp.segs[keep:] {
		s.f.Close()
	}
	rp.segs = rp.segs[:keep]
	if keep > 0 {
		s := rp.segs[keep-1]
		if shown == 0 {
			size, next = segmentHeaderSize, s.base
		}
		s.index = indexBefore(s.index, size)
		s.end, s.next, s.indexedAt = size, next, s.index[len(s.index)-1].pos
	}
	rp.runs = nil
	rp.gseq = rp.shownGseq
}

// indexBefore is the part of a segment's index about frames before byte
// end: at least its first entry, (base, header).
func indexBefore(index []indexEntry, end int64) []indexEntry {
	return index[:max(1, sort.Search(len(index), func(j int) bool { return index[j].pos >= end }))]
}

func fileSize(s *scanSeg) (int64, error) {
	st, err := s.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("embeddedlog: stat segment %s: %w", s.path, err)
	}
	return st.Size(), nil
}
