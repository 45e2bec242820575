// Package memlog is an in-memory engine of [topics.Log], for the signing
// coordinator's simulator and for tests. It keeps every record in memory
// for the life of the [Log] and writes nothing anywhere: it is not for
// production.
//
// Guarantees:
//   - every topic of [topics.Topics] exists with its partition count, and
//     keys are routed with [topics.PartitionFor], as on the other engines;
//   - offsets of a partition are dense and start at 0;
//   - an Append is all or nothing (every message is checked before any is
//     stored) and becomes visible to readers in one step: no Read,
//     EndOffsets or Fetch sees part of it;
//   - records that Read and Fetch return share no memory with the log or
//     with other calls' records, and the log keeps its own copy of what
//     was appended, so callers may reuse or modify their buffers;
//   - it is deterministic: no randomness, and the only clock is the one of
//     [WithClock], called once per stored Append;
//   - consumer groups behave as on the embedded engine: a new group starts
//     at offset 0, partitions are split round-robin over the members in
//     join order, Subscribe returns with the member's partitions assigned,
//     and a partition a member gains resumes after the group's last
//     commit. A member holds its partitions until it is closed, so a
//     simulator that crashes a signer closes the signer's subscriptions
//     (as a Kafka session timeout would) and keeps the Log, which stands
//     for the disk: the restarted signer replays it.
//
// Bounds match the embedded engine (value [WithMaxMessageBytes], key
// 65,535 bytes), so a test on memlog does not accept what production
// refuses.
package memlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Errors of the in-memory engine, besides the shared ones in topics.
var (
	// ErrNotAssigned: a member committed a partition it does not hold.
	ErrNotAssigned = errors.New("partition not assigned to this member")
	// ErrBadGroup: a consumer group name that cannot be used.
	ErrBadGroup = errors.New("bad consumer group name")
)

// maxKeyBytes is the embedded engine's key bound.
const maxKeyBytes = 1<<16 - 1

// Log is the in-memory engine. It is safe for concurrent use.
type Log struct {
	cfg    config
	topics map[string]*topicLog // fixed at New: read without a lock
	closed atomic.Bool
	done   chan struct{} // closed by Close: wakes waiting Fetches
}

var _ topics.Log = (*Log)(nil)

// topicLog is one topic. mu guards everything in it, the groups included;
// stored entries are never changed, so a copy of a partition's slice
// header taken under mu can be read after mu is released.
type topicLog struct {
	name  string
	mu    sync.Mutex
	parts [][]entry
	store arena
	// wake is closed at the next change a Fetch may wait for (records,
	// assignments); nil while nobody waits, so Append allocates no channel.
	wake   chan struct{}
	groups map[string]*group
	logger *slog.Logger
}

// entry is one stored record: key and value side by side in kv.
type entry struct {
	kv     []byte
	keyLen int
	time   int64 // Unix nanoseconds, as the embedded engine stores it
}

// New returns an empty log holding every topic of [topics.Topics].
func New(opts ...Option) *Log {
	l := &Log{topics: map[string]*topicLog{}, done: make(chan struct{})}
	for _, o := range opts {
		o(&l.cfg)
	}
	l.cfg.setDefaults()
	for _, spec := range topics.Topics() {
		l.topics[spec.Name] = &topicLog{name: spec.Name, parts: make([][]entry, spec.Partitions),
			groups: map[string]*group{}, logger: l.cfg.logger}
	}
	return l
}

// topic checks ctx and the log's state and finds a topic.
func (l *Log) topic(ctx context.Context, name string) (*topicLog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	t, ok := l.topics[name]
	if !ok {
		return nil, fmt.Errorf("memlog: %w: %q", topics.ErrUnknownTopic, name)
	}
	return t, nil
}

// Append stores msgs and returns their positions. Every message is checked
// first, so either all are stored, in one step, or none.
func (l *Log) Append(ctx context.Context, topic string, msgs ...topics.Message) ([]topics.Position, error) {
	t, err := l.topic(ctx, topic)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return []topics.Position{}, nil
	}
	n := int32(len(t.parts))
	pos := make([]topics.Position, len(msgs))
	for i, m := range msgs {
		if len(m.Value) > l.cfg.maxValueBytes || len(m.Key) > maxKeyBytes {
			return nil, fmt.Errorf("memlog: %w: topic %s message %d of %d: key %d bytes (bound %d), value %d bytes (bound %d)",
				topics.ErrValueTooLarge, topic, i, len(msgs), len(m.Key), maxKeyBytes, len(m.Value), l.cfg.maxValueBytes)
		}
		pos[i] = topics.Position{Topic: t.name, Partition: topics.PartitionFor(m.Key, n)}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Checked again under the lock: after Close returns, nothing is added.
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	now := l.cfg.now().UnixNano()
	for i, m := range msgs {
		p := pos[i].Partition
		pos[i].Offset = int64(len(t.parts[p]))
		t.parts[p] = append(t.parts[p], entry{kv: t.store.copy(m.Key, m.Value), keyLen: len(m.Key), time: now})
	}
	t.broadcast()
	return pos, nil
}

// broadcast wakes every waiting Fetch. Called with t.mu held.
func (t *topicLog) broadcast() {
	if t.wake != nil {
		close(t.wake)
		t.wake = nil
	}
}

// waitChan returns a channel closed at the next broadcast. Called with
// t.mu held, after the caller found nothing to do, so no change is missed.
func (t *topicLog) waitChan() <-chan struct{} {
	if t.wake == nil {
		t.wake = make(chan struct{})
	}
	return t.wake
}

// Read returns up to max records of one partition from offset from; an
// empty slice means from is the end. from past the end is an error
// wrapping [topics.ErrOffsetRange]. The records are the caller's own.
func (l *Log) Read(ctx context.Context, topic string, partition int32, from int64, max int) ([]topics.Record, error) {
	t, err := l.topic(ctx, topic)
	if err != nil {
		return nil, err
	}
	if partition < 0 || int(partition) >= len(t.parts) {
		return nil, fmt.Errorf("memlog: %w: %s/%d (topic has %d)", topics.ErrBadPartition, topic, partition, len(t.parts))
	}
	t.mu.Lock()
	if l.closed.Load() {
		t.mu.Unlock()
		return nil, topics.ErrClosed
	}
	ents, err := t.span(partition, from, max)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return t.records(partition, from, ents), nil
}

// span returns the entries of partition p from offset from, at most max
// of them. Called with t.mu held; the result may be read without it.
func (t *topicLog) span(p int32, from int64, max int) ([]entry, error) {
	ents := t.parts[p]
	end := int64(len(ents))
	if from < 0 || from > end {
		return nil, fmt.Errorf("memlog: %w: %s/%d offset %d, end %d", topics.ErrOffsetRange, t.name, p, from, end)
	}
	if max <= 0 {
		return nil, nil
	}
	return ents[from : from+min(int64(max), end-from)], nil // from+max may overflow
}

// records copies ents, the entries of partition p from offset from, into
// records that share one new buffer.
func (t *topicLog) records(p int32, from int64, ents []entry) []topics.Record {
	size := 0
	for i := range ents {
		size += len(ents[i].kv)
	}
	buf := make([]byte, size)
	recs := make([]topics.Record, len(ents))
	at := 0
	for i := range ents {
		e := &ents[i]
		kv := buf[at : at+len(e.kv) : at+len(e.kv)]
		at += copy(kv, e.kv)
		recs[i] = topics.Record{
			Topic: t.name, Partition: p, Offset: from + int64(i),
			Key: kv[:e.keyLen:e.keyLen], Value: kv[e.keyLen:],
			Time: time.Unix(0, e.time).UTC(),
		}
	}
	return recs
}

// EndOffsets returns, per partition, the offset the next append gets.
func (l *Log) EndOffsets(ctx context.Context, topic string) ([]int64, error) {
	t, err := l.topic(ctx, topic)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	ends := make([]int64, len(t.parts))
	for p, ents := range t.parts {
		ends[p] = int64(len(ents))
	}
	return ends, nil
}

// Close ends the log: later calls, and Fetches waiting now, return
// [topics.ErrClosed]. Closing twice is not an error.
func (l *Log) Close() error {
	if !l.closed.CompareAndSwap(false, true) {
		return nil
	}
	// Taking every topic's lock once orders Close after the calls in
	// flight: each of them checked closed under the lock.
	for _, t := range l.topics {
		t.mu.Lock()
		t.mu.Unlock()
	}
	close(l.done)
	return nil
}

// arena holds the bytes of a topic's records in shared chunks, so an
// Append of small messages allocates only now and then.
type arena struct {
	free      []byte // the current chunk: len is used, cap is its size
	chunkSize int
}

const (
	minChunk = 4 << 10
	maxChunk = 1 << 20
	// ownChunk: a record this large gets an allocation of its own rather
	// than ending a chunk early.
	ownChunk = 64 << 10
)

// copy returns key and value side by side in memory the arena owns.
func (a *arena) copy(key, value []byte) []byte {
	n := len(key) + len(value)
	if n == 0 {
		return nil
	}
	if n >= ownChunk {
		return append(append(make([]byte, 0, n), key...), value...)
	}
	if cap(a.free)-len(a.free) < n {
		a.chunkSize = min(max(2*a.chunkSize, minChunk), maxChunk)
		a.free = make([]byte, 0, a.chunkSize)
	}
	start := len(a.free)
	a.free = append(append(a.free, key...), value...)
	return a.free[start:len(a.free):len(a.free)]
}
