// Package embeddedlog is the embedded default engine of [topics.Log]:
// durable segment files on local disk, written by one process; readers
// ([OpenReadOnly], reader.go) in any process read beside it.
//
// Layout: DIR/LOCK (flock, one writer per directory), DIR/<topic>/<n>/
// holding segment files named by their first offset, and
// DIR/<topic>/groups/ holding each consumer group's committed offsets.
// Every record is a frame with length, CRC32C, offset and timestamp (see
// frame.go); an Append returns only after its frames are fsynced, and
// concurrent Appends to a topic share one fsync round (group commit). Open
// recovers each topic: a torn tail is truncated and reported, damage inside
// fsynced data stops Open with an error naming the file and byte offset.
// Sealed segments keep what a scan learnt of them in an index file beside
// them (sealindex.go), so Open reads only each partition's last segment;
// damage in a sealed segment is then reported when it is read, or at Open
// with [WithFullScan].
package embeddedlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/topics"
)

// Log is the embedded engine. It is safe for concurrent use.
type Log struct {
	dir      string
	cfg      config
	lock     *os.File
	readOnly bool // opened by OpenReadOnly (reader.go)
	topics   map[string]*topicLog

	// mu is held shared by every operation that touches files and
	// exclusively by Close, so Close never pulls a file from under a reader.
	mu     sync.RWMutex
	closed atomic.Bool
	done   chan struct{} // closed by Close: wakes waiting Fetches

	gmu    sync.Mutex // consumer groups and their members
	groups map[groupKey]*group
}

var _ topics.Log = (*Log)(nil)

// topicLog is one topic: its partitions and its group-commit queue.
type topicLog struct {
	name  string
	log   *Log
	parts []*partition

	mu       sync.Mutex
	queue    []*pending // Appends waiting for the next group
	flushing bool       // a leader is writing a group
	failed   error      // sticky: a write could not be rolled back
	gseq     uint64     // last group sequence; only the leader touches it

	nmu    sync.Mutex
	notify chan struct{} // closed (and replaced) when records become readable or groups change

	// pub is held while a group is published to its partitions, and
	// shared by a backup's cut, which so sees every group whole or not.
	pub sync.RWMutex

	rd *readTopic // a reader's scan of the topic; nil in a writer
}

// pending is one Append waiting in the group-commit queue.
type pending struct {
	msgs     []topics.Message
	parts    []int32
	pos      []topics.Position
	err      error
	finished bool          // set by the leader before wake
	wake     chan struct{} // the leader says: done, or: you lead now
}

// Open opens (creating if needed) the log in dir and recovers every topic
// of [topics.Topics]. Only one Log may have dir open at a time.
func Open(dir string, opts ...Option) (*Log, error) {
	l := &Log{dir: dir, topics: map[string]*topicLog{}, done: make(chan struct{}), groups: map[groupKey]*group{}}
	for _, o := range opts {
		o(&l.cfg)
	}
	l.cfg.setDefaults()
	if err := os.MkdirAll(dir, ownerfs.DirMode); err != nil {
		return nil, fmt.Errorf("embeddedlog: create %s: %w", dir, err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("embeddedlog: %w", err)
	}
	l.lock = lock
	for _, spec := range topics.Topics() {
		t, err := l.openTopic(spec)
		if t != nil {
			l.topics[spec.Name] = t
		}
		if err != nil {
			l.closeFiles()
			return nil, fmt.Errorf("embeddedlog: open %s: %w", dir, err)
		}
	}
	return l, nil
}

func (l *Log) openTopic(spec topics.TopicSpec) (*topicLog, error) {
	t := &topicLog{name: spec.Name, log: l, notify: make(chan struct{})}
	tdir := filepath.Join(l.dir, spec.Name)
	if err := mkdirDurable(tdir); err != nil {
		return nil, err
	}
	if err := checkPartitionDirs(tdir, spec); err != nil {
		return nil, err
	}
	for i := range spec.Partitions {
		p := &partition{topic: spec.Name, id: i, dir: filepath.Join(tdir, strconv.Itoa(int(i))), metrics: l.cfg.metrics}
		t.parts = append(t.parts, p)
		if err := mkdirDurable(p.dir); err != nil {
			return t, err
		}
	}
	// The partitions are scanned side by side: each is on its own until
	// settle decides for the topic, and the scan is most of a large log's
	// open. The first failure in partition order is the one reported.
	tails := make([]*tail, len(t.parts))
	errs := make([]error, len(t.parts))
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, p := range t.parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			tails[i], errs[i] = l.loadPartition(p)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return t, err
		}
	}
	gseq, err := l.settle(spec.Name, tails)
	t.gseq = gseq
	return t, err
}

// checkPartitionDirs refuses a topic directory holding a partition the
// topic does not have. A missing directory holds none.
func checkPartitionDirs(tdir string, spec topics.TopicSpec) error {
	entries, err := os.ReadDir(tdir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", tdir, err)
	}
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && (n < 0 || n >= int(spec.Partitions)) {
			return &FileError{File: filepath.Join(tdir, e.Name()), Offset: -1,
				Err: fmt.Errorf("%w: topic %s has %d partitions", ErrLayout, spec.Name, spec.Partitions)}
		}
	}
	return nil
}

// mkdirDurable creates dir if missing and makes its entry durable.
func mkdirDurable(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, ownerfs.DirMode); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return syncDir(filepath.Dir(dir))
}

func (l *Log) closeFiles() error {
	var errs []error
	for _, t := range l.topics {
		if t.rd != nil {
			errs = append(errs, t.rd.closeFiles()) // the partitions' files among them
			continue
		}
		for _, p := range t.parts {
			errs = append(errs, p.closeFiles())
		}
	}
	errs = append(errs, unlockDir(l.lock))
	return errors.Join(errs...)
}

// enter starts an operation; leave ends it.
func (l *Log) enter() error {
	if l.closed.Load() {
		return topics.ErrClosed
	}
	l.mu.RLock()
	if l.closed.Load() {
		l.mu.RUnlock()
		return topics.ErrClosed
	}
	return nil
}

func (l *Log) leave() { l.mu.RUnlock() }

// enterTopic starts a call on a topic: ctx is not done, the log is open
// (the caller defers leave) and the topic is known.
func (l *Log) enterTopic(ctx context.Context, name string) (*topicLog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := l.enter(); err != nil {
		return nil, err
	}
	t, err := l.topic(name)
	if err != nil {
		l.leave()
		return nil, err
	}
	return t, nil
}

func (l *Log) topic(name string) (*topicLog, error) {
	t, ok := l.topics[name]
	if !ok {
		return nil, fmt.Errorf("embeddedlog: %w: %q", topics.ErrUnknownTopic, name)
	}
	return t, nil
}

func (t *topicLog) partition(id int32) (*partition, error) {
	if id < 0 || int(id) >= len(t.parts) {
		return nil, fmt.Errorf("embeddedlog: %w: %s/%d (topic has %d)", topics.ErrBadPartition, t.name, id, len(t.parts))
	}
	return t.parts[id], nil
}

// Append writes msgs to topic; it returns after they are fsynced. All of
// msgs become durable or (after a crash or an error) none of them.
func (l *Log) Append(ctx context.Context, topic string, msgs ...topics.Message) ([]topics.Position, error) {
	if l.readOnly {
		return nil, fmt.Errorf("embeddedlog: append to %s: %w", topic, ErrReadOnly)
	}
	t, err := l.enterTopic(ctx, topic)
	if err != nil {
		return nil, err
	}
	defer l.leave()
	if len(msgs) == 0 {
		return []topics.Position{}, nil
	}
	n := int32(len(t.parts))
	parts := make([]int32, len(msgs))
	for i, m := range msgs {
		if len(m.Value) > l.cfg.maxMessageBytes || len(m.Key) > maxKeyBytes {
			l.cfg.metrics.AppendRejected(topic, "value_too_large")
			return nil, fmt.Errorf("embeddedlog: %w: topic %s message %d of %d: key %d bytes (bound %d), value %d bytes (bound %d)",
				topics.ErrValueTooLarge, topic, i, len(msgs), len(m.Key), maxKeyBytes, len(m.Value), l.cfg.maxMessageBytes)
		}
		parts[i] = topics.PartitionFor(m.Key, n)
	}
	p := &pending{msgs: msgs, parts: parts, pos: make([]topics.Position, len(msgs)), wake: make(chan struct{}, 1)}
	t.commit(p)
	if p.err != nil {
		return nil, p.err
	}
	return p.pos, nil
}

// commit queues p and waits until a group containing it is durable. The
// first Append to find no group in flight leads: it writes everything
// queued as one group, fsyncs, wakes the others, and hands the lead to the
// next waiter, so Appends arriving during an fsync share the next one.
func (t *topicLog) commit(p *pending) {
	t.mu.Lock()
	if t.failed != nil {
		t.mu.Unlock()
		p.err = t.failed
		return
	}
	t.queue = append(t.queue, p)
	if t.flushing {
		t.mu.Unlock()
		<-p.wake
		if p.finished {
			return
		}
		t.mu.Lock() // handed the lead
	} else {
		t.flushing = true
	}
	batch := t.queue
	t.queue = nil
	t.mu.Unlock()

	err := t.write(batch)
	for _, q := range batch {
		q.err, q.finished = err, true
		if q != p {
			q.wake <- struct{}{}
		}
	}

	t.mu.Lock()
	if len(t.queue) > 0 {
		next := t.queue[0]
		t.mu.Unlock()
		next.wake <- struct{}{}
		return
	}
	t.flushing = false
	t.mu.Unlock()
}

// partWrite is one partition's share of a group.
type partWrite struct {
	p         *partition
	frames    int
	bytes     int
	seg       *segment
	buf       []byte
	next      int64
	index     []indexEntry
	indexedAt int64
	last      int // position in buf of the last frame
}

// write makes one group durable: frames to every touched partition, then
// fsync of every touched file, then publication to readers.
func (t *topicLog) write(batch []*pending) error {
	t.mu.Lock()
	failed := t.failed
	t.mu.Unlock()
	if failed != nil {
		return failed
	}
	cfg := &t.log.cfg
	byPart := make([]*partWrite, len(t.parts))
	records := 0
	for _, q := range batch {
		for i, m := range q.msgs {
			pw := byPart[q.parts[i]]
			if pw == nil {
				pw = &partWrite{p: t.parts[q.parts[i]]}
				byPart[q.parts[i]] = pw
			}
			pw.frames++
			pw.bytes += frameSize(m.Key, m.Value)
			records++
		}
	}
	var touched []*partWrite
	for _, pw := range byPart {
		if pw == nil {
			continue
		}
		touched = append(touched, pw)
		seg, err := t.activeSegment(pw.p, pw.bytes)
		if err != nil {
			return fmt.Errorf("embeddedlog: append to %s/%d: %w", t.name, pw.p.id, err)
		}
		pw.seg, pw.next, pw.indexedAt = seg, seg.next, seg.indexedAt
		pw.buf = make([]byte, 0, pw.bytes)
	}
	t.gseq++
	now := cfg.now().UnixNano()
	for _, q := range batch {
		for i, m := range q.msgs {
			pw := byPart[q.parts[i]]
			if pos := pw.seg.size + int64(len(pw.buf)); pos-pw.indexedAt >= cfg.indexEvery {
				pw.index = append(pw.index, indexEntry{pw.next, pos})
				pw.indexedAt = pos
			}
			pw.last = len(pw.buf)
			pw.buf = appendFrame(pw.buf, &frame{
				offset: pw.next, time: now, gseq: t.gseq,
				gpcount: uint32(pw.frames), gparts: uint16(len(touched)),
				key: m.Key, value: m.Value,
			})
			q.pos[i] = topics.Position{Topic: t.name, Partition: pw.p.id, Offset: pw.next}
			pw.next++
		}
	}
	for _, pw := range touched {
		if _, err := pw.seg.f.WriteAt(pw.buf, pw.seg.size); err != nil {
			return t.rollback(touched, &FileError{File: pw.seg.path, Offset: pw.seg.size, Err: fmt.Errorf("write: %w", err)})
		}
	}
	if err := syncAll(touched); err != nil {
		return t.rollback(touched, err)
	}
	t.pub.Lock()
	defer t.pub.Unlock()
	for _, pw := range touched {
		s := pw.seg
		pw.p.mu.Lock()
		if tp := s.tip; tp != nil {
			if tp.firstGseq == 0 {
				tp.firstGseq = t.gseq
			}
			tp.lastGseq = t.gseq
			tp.lastPos = s.size + int64(pw.last)
			tp.lastCRC = binary.LittleEndian.Uint32(pw.buf[pw.last+4:])
			tp.run = groupRun{count: uint32(pw.frames), gpcount: uint32(pw.frames), gparts: uint16(len(touched)),
				pos: s.size, off: s.next}
		}
		s.size += int64(len(pw.buf))
		s.next = pw.next
		s.index = append(s.index, pw.index...)
		s.indexedAt = pw.indexedAt
		pw.p.mu.Unlock()
	}
	cfg.metrics.GroupCommitted(t.name, records)
	t.broadcast()
	return nil
}

// activeSegment returns the segment the next frames of p go to, starting
// a new one when the current one would grow past the segment size.
func (t *topicLog) activeSegment(p *partition, bytes int) (*segment, error) {
	var cur *segment
	if len(p.segs) > 0 {
		cur = p.segs[len(p.segs)-1]
	}
	if cur != nil && (cur.size == segmentHeaderSize || cur.size+int64(bytes) <= t.log.cfg.segmentBytes) {
		return cur, nil
	}
	base := int64(0)
	if cur != nil {
		base = cur.next
	}
	s, err := p.createSegment(base)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.segs = append(p.segs, s)
	sd := cur.sealedState()
	p.mu.Unlock()
	if sd != nil {
		t.log.writeSealed(cur, sd) // cur is sealed now: a later segment exists
	}
	return s, nil
}

// syncAll fsyncs the files of a group, in parallel when there are several
// (each fsync mostly waits for the device).
func syncAll(pws []*partWrite) error {
	if len(pws) == 1 {
		if err := pws[0].seg.f.Sync(); err != nil {
			return &FileError{File: pws[0].seg.path, Offset: -1, Err: fmt.Errorf("fsync: %w", err)}
		}
		return nil
	}
	errs := make([]error, len(pws))
	var wg sync.WaitGroup
	for i, pw := range pws {
		wg.Go(func() {
			if err := pw.seg.f.Sync(); err != nil {
				errs[i] = &FileError{File: pw.seg.path, Offset: -1, Err: fmt.Errorf("fsync: %w", err)}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// rollback cuts the files of a failed group back to their durable size.
// If that fails too, the topic refuses further appends: what is on disk
// is unknown until a reopen recovers it.
func (t *topicLog) rollback(pws []*partWrite, cause error) error {
	var errs []error
	for _, pw := range pws {
		if err := pw.seg.f.Truncate(pw.seg.size); err != nil {
			errs = append(errs, err)
		} else if err := pw.seg.f.Sync(); err != nil {
			errs = append(errs, err)
		}
	}
	err := fmt.Errorf("embeddedlog: append to %s: %w", t.name, cause)
	if len(errs) > 0 {
		err = fmt.Errorf("%w; rollback failed, topic needs a reopen: %w", err, errors.Join(errs...))
		t.mu.Lock()
		t.failed = err
		t.mu.Unlock()
	}
	t.log.cfg.logger.Error("embeddedlog: group commit failed", "topic", t.name, "err", err.Error())
	return err
}

// broadcast wakes everything waiting on this topic.
func (t *topicLog) broadcast() {
	t.nmu.Lock()
	close(t.notify)
	t.notify = make(chan struct{})
	t.nmu.Unlock()
}

// waitChan returns a channel closed at the next broadcast. Take it before
// checking state, so no broadcast is missed.
func (t *topicLog) waitChan() <-chan struct{} {
	t.nmu.Lock()
	defer t.nmu.Unlock()
	return t.notify
}

// Read returns up to max records of one partition from offset from. The
// records alias a buffer owned by this call's result. A reader
// ([OpenReadOnly]) asked for records from the end of what it shows looks
// at the files again first.
func (l *Log) Read(ctx context.Context, topic string, partition int32, from int64, max int) ([]topics.Record, error) {
	return l.ReadInto(ctx, topic, partition, from, max, nil)
}

// ReadInto is [Log.Read] into buffers taken from alloc, which must return
// n bytes the caller owns (their contents do not matter; nil means new
// buffers). The records
// alias them: a caller that recycles the buffers must be done with the
// records and everything that aliases them first.
func (l *Log) ReadInto(ctx context.Context, topic string, partition int32, from int64, max int, alloc func(n int) []byte) ([]topics.Record, error) {
	t, err := l.enterTopic(ctx, topic)
	if err != nil {
		return nil, err
	}
	defer l.leave()
	p, err := t.partition(partition)
	if err != nil {
		return nil, err
	}
	if t.rd != nil && from >= p.end() {
		if err := t.rd.refresh(ctx); err != nil {
			return nil, err
		}
	}
	return p.read(from, max, alloc)
}

// EndOffsets returns, per partition, the offset the next append gets.
// A reader ([OpenReadOnly]) looks at the files again first.
func (l *Log) EndOffsets(ctx context.Context, topic string) ([]int64, error) {
	t, err := l.enterTopic(ctx, topic)
	if err != nil {
		return nil, err
	}
	defer l.leave()
	if t.rd != nil {
		if err := t.rd.refresh(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]int64, len(t.parts))
	for i, p := range t.parts {
		out[i] = p.end()
	}
	return out, nil
}

// Close waits for operations in flight, then closes every file and the
// directory lock. Later calls return [topics.ErrClosed]; Close twice is nil.
func (l *Log) Close() error {
	if !l.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(l.done)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.closeFiles(); err != nil {
		return fmt.Errorf("embeddedlog: close: %w", err)
	}
	return nil
}
