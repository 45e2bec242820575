package embeddedlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/bridgelog/bridgelog/topics"
)

// A reader ([OpenReadOnly]) reads a log that its writer (a relay, say) may
// be appending to. It takes no lock and creates, truncates and writes
// nothing, so any number of readers run beside the writer. It learns of
// new records by reading the files again (a refresh) whenever EndOffsets
// is called, or a Read or Scan starts at the end of what it shows.
//
// What a reader shows. The writer appends one group commit at a time
// (log.go): it writes the group's frames to every partition the group
// touches, fsyncs them, and only then starts the next group. A reader
// sees the files, not the writer's memory, so in each topic it shows
// exactly the groups up to some group V: each partition shows a prefix of
// its records, every group shown is whole in every partition it touched,
// and every group written before a shown one is shown too. That is a cut
// of the topic as the writer published it (topics are refreshed one after
// another, so there is no one instant across topics). A frame being
// written is not there yet: a partition's prefix ends before the first
// frame that does not parse.
//
// How it knows. Frames name their group, how many frames the group wrote
// to this partition and how many partitions it touched (frame.go), and
// groups are written one after another. So group g can be shown once
// (a) a later group was seen by the end of one refresh, and a next
// refresh has read every partition to its end: the writer had finished g
// before it began the later group; or (b) g and every group before it
// that (a) does not cover were seen whole: gparts partitions holding
// gpcount frames of it each. (b) shows the newest group as soon as it is
// written; (a) covers the rest within two refreshes.
//
// A group is shown once its frames are written, which can be just before
// the writer's fsync of them returns. If that fsync fails, the writer cuts
// the group off again (rollback); a reader that showed it fails its next
// refresh with [ErrChangedUnderReader] rather than go on from records
// that are gone. A writer that restarts recovers the log and may cut off
// an incomplete last group, which a reader never shows; it rewrites
// DIR/LOCK as it opens, and a reader that finds LOCK changed reads again
// from the end of what it shows.
//
// Damage. A frame that does not parse is damage ([topics.ErrCorrupt],
// naming file and byte offset, as [Open] says it), not a frame being
// written, when a later segment exists or a valid frame follows it in its
// segment, and it still does not parse when read again after that was
// seen: the writer writes a partition's bytes in order. Sealed segments
// are read from their index files, as Open reads them, or frame by frame
// with [WithFullScan].

// OpenReadOnly opens the log in dir as a reader (see above). dir must
// exist: a reader that cannot find a log says so ([ErrNoLog]) and creates
// nothing. Of the options, WithFullScan, WithContext (for this call),
// WithLogger, WithMetrics and WithIndexInterval apply. Append, Subscribe
// and Backup return [ErrReadOnly].
func OpenReadOnly(dir string, opts ...Option) (*Log, error) {
	l := &Log{dir: dir, readOnly: true, topics: map[string]*topicLog{}, done: make(chan struct{}), groups: map[groupKey]*group{}}
	for _, o := range opts {
		o(&l.cfg)
	}
	l.cfg.setDefaults()
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("embeddedlog: %w: %s does not exist", ErrNoLog, dir)
	case err != nil:
		return nil, fmt.Errorf("embeddedlog: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("embeddedlog: %w: %s is not a directory", ErrNoLog, dir)
	}
	for _, spec := range topics.Topics() {
		t, err := l.openTopicReader(spec)
		if t != nil {
			l.topics[spec.Name] = t
		}
		if err != nil {
			l.closeFiles()
			return nil, fmt.Errorf("embeddedlog: open %s read-only: %w", dir, err)
		}
	}
	return l, nil
}

// readTopic is what a reader knows of one topic beyond what it shows.
type readTopic struct {
	l     *Log
	parts []*readPart

	mu      sync.Mutex  // one refresh at a time; guards the fields below
	horizon uint64      // the newest group seen by the end of the last refresh
	shown   uint64      // every group up to this one is shown
	lock    fs.FileInfo // DIR/LOCK when last looked at (nil: none)
}

// readPart is what a reader has scanned of one partition. The partition's
// segments (p.segs) are what it shows.
type readPart struct {
	p         *partition
	segs      []*scanSeg // every segment opened, ascending; the scan goes on in the last
	gseq      uint64     // group of the last frame scanned
	runs      []run      // groups scanned and not shown yet, in order
	shownGseq uint64     // group of the last frame shown
}

// scanSeg is one segment file as far as a reader has scanned it.
type scanSeg struct {
	path      string
	f         *os.File
	base      int64
	end, next int64        // after the last frame scanned: byte position, offset
	index     []indexEntry // sparse, of the frames scanned; index[0] is (base, header)
	indexedAt int64
}

// run is the frames one group wrote to a partition, as far as scanned. A
// merged run stands for every group up to gseq, each older than a group
// seen after it: they are shown by rule (a) only.
type run struct {
	gseq           uint64
	count, gpcount uint32
	gparts         uint16
	merged         bool
	seg            int   // index in segs of the segment holding it
	end, next      int64 // byte position and offset after its last frame
}

func (l *Log) openTopicReader(spec topics.TopicSpec) (*topicLog, error) {
	t := &topicLog{name: spec.Name, log: l, notify: make(chan struct{})}
	rt := &readTopic{l: l}
	t.rd = rt
	tdir := filepath.Join(l.dir, spec.Name)
	if err := checkPartitionDirs(tdir, spec); err != nil {
		return nil, err
	}
	if _, err := rt.lockChanged(); err != nil {
		return nil, err
	}
	for i := range spec.Partitions {
		p := &partition{topic: spec.Name, id: i, dir: filepath.Join(tdir, fmt.Sprint(i)), metrics: l.cfg.metrics}
		t.parts = append(t.parts, p)
		rt.parts = append(rt.parts, &readPart{p: p})
	}
	// The first scan reads every partition side by side (it is most of
	// the open), keeping of each only its newest group apart: the older
	// ones are shown by rule (a) after the refresh that follows.
	errs := make([]error, len(rt.parts))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, rp := range rt.parts {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[i] = rp.open(l)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return t, err // the first in partition order, as Open says it
		}
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.advance()
	return t, rt.refreshLocked(l.cfg.ctx)
}

// advance shows the groups rules (a) and (b) allow, and moves the horizon
// to the newest group this refresh saw.
func (rt *readTopic) advance() {
	start := max(rt.horizon, rt.shown+1) // every group before start is shown or may be
	type tally struct {
		whole  int
		broken bool
		gparts uint16
	}
	seen := map[uint64]*tally{}
	for _, rp := range rt.parts {
		for _, r := range rp.runs {
			if r.merged || r.gseq < start {
				continue
			}
			c := seen[r.gseq]
			if c == nil {
				c = &tally{gparts: r.gparts}
				seen[r.gseq] = c
			}
			if r.count == r.gpcount && r.gparts == c.gparts {
				c.whole++
			} else {
				c.broken = true
			}
		}
	}
	v := start - 1
	for c := seen[v+1]; c != nil && !c.broken && c.whole == int(c.gparts); c = seen[v+1] {
		v++
	}
	rt.shown = v
	for _, rp := range rt.parts {
		k := 0
		for k < len(rp.runs) && rp.runs[k].gseq <= v {
			k++
		}
		if k > 0 {
			rp.show(rp.runs[k-1])
			rp.runs = append([]run(nil), rp.runs[k:]...)
		}
		rt.horizon = max(rt.horizon, rp.gseq)
	}
}

// show makes the partition's records up to the end of run r readable.
func (rp *readPart) show(r run) {
	p := rp.p
	p.mu.Lock()
	defer p.mu.Unlock()
	from := max(len(p.segs)-1, 0)
	for i := len(p.segs); i <= r.seg; i++ {
		s := rp.segs[i]
		p.segs = append(p.segs, &segment{path: s.path, f: s.f, base: s.base, next: s.base, size: segmentHeaderSize})
	}
	for i := from; i <= r.seg; i++ {
		s, vs := rp.segs[i], p.segs[i]
		vs.size, vs.next = s.end, s.next // a segment before r's was scanned to its end
		if i == r.seg {
			vs.size, vs.next = r.end, r.next
		}
		// The scan appends to s.index past what is shown, never into it.
		shown := indexBefore(s.index, vs.size)
		vs.index, vs.indexedAt = shown[:len(shown):len(shown)], shown[len(shown)-1].pos
	}
	rp.shownGseq = r.gseq
}

// refresh reads the topic's files again and shows what the writer has
// published since.
func (rt *readTopic) refresh(ctx context.Context) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.refreshLocked(ctx)
}

// refreshLocked is refresh with rt.mu held. A second pass shows what the
// first one saw but could not show yet:
// every group older than the newest it saw (rule (a)). So a refresh shows
// at least every group written before it began, even when the writer's
// group numbers have a gap (a group it cut off when it recovered, or
// rolled back).
func (rt *readTopic) refreshLocked(ctx context.Context) error {
	if err := rt.pass(ctx); err != nil || rt.horizon <= rt.shown {
		return err
	}
	return rt.pass(ctx)
}

// pass scans every partition to its end and shows what it may.
func (rt *readTopic) pass(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		changed, err := rt.lockChanged()
		if err != nil {
			return err
		}
		if err = rt.scanAll(ctx, changed || attempt > 0); err == nil {
			rt.advance()
			return nil
		}
		// Damage found while a new writer opened the log may be its
		// recovery under way: read again, once, from what is shown.
		if again, lerr := rt.lockChanged(); attempt > 0 || lerr != nil || !again || !errors.Is(err, topics.ErrCorrupt) {
			return err
		}
	}
}

// scanAll scans every partition to the end of its files; rewind first
// forgets what was scanned beyond what is shown.
func (rt *readTopic) scanAll(ctx context.Context, rewind bool) error {
	for _, rp := range rt.parts {
		if rewind {
			rp.rewind()
		}
	}
	for _, rp := range rt.parts {
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := rp.check(); err != nil {
			return err
		}
		if err := rp.scan(rt.l, false); err != nil {
			return err
		}
	}
	return nil
}

// lockChanged says whether DIR/LOCK changed since the last look: a writer
// (re)opened the log. Another LOCK file in its place means another log
// directory: [ErrChangedUnderReader].
func (rt *readTopic) lockChanged() (bool, error) {
	path := filepath.Join(rt.l.dir, "LOCK")
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		fi, err = nil, nil
	}
	if err != nil {
		return false, fmt.Errorf("embeddedlog: %w", err)
	}
	old := rt.lock
	switch {
	case old == nil && fi == nil:
		return false, nil
	case old != nil && fi != nil && !os.SameFile(old, fi):
		return false, &FileError{File: path, Offset: -1, Err: fmt.Errorf("%w: another log directory is in its place", ErrChangedUnderReader)}
	case old != nil && fi != nil && old.ModTime().Equal(fi.ModTime()) && old.Size() == fi.Size():
		return false, nil
	}
	rt.lock = fi
	return true, nil
}

func (rt *readTopic) closeFiles() error {
	var errs []error
	for _, rp := range rt.parts {
		for _, s := range rp.segs {
			errs = append(errs, s.f.Close())
		}
	}
	return errors.Join(errs...)
}
