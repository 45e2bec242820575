// Package logtest is the conformance suite of [topics.Log]: every log
// engine (the embedded one, Kafka) runs [Run] in its own tests, so
// handlers and projections can rely on the same behaviour from either.
//
// The suite is engine-neutral: it never assumes offsets start at 0 or are
// dense (Kafka's may have gaps), only that they increase within a
// partition, and it tells its own records apart from anything already on
// the topic by a run id in every value. Consumer groups get fresh names.
//
// What it requires of an engine beyond the interface's doc comments:
//   - a new group starts at the earliest offset of each partition;
//   - Subscribe returns once the member holds its assignment, so when two
//     Subscribe calls have returned the group is stable;
//   - operations on a closed Log return an error wrapping [topics.ErrClosed];
//   - an unknown topic gives an error wrapping [topics.ErrUnknownTopic], a
//     partition outside the topic one wrapping [topics.ErrBadPartition].
package logtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Topic is the topic the suite writes to. It is the benchmark topic, which
// production never writes, with [topics.DefaultPartitions] partitions.
const Topic = topics.TopicBench

// waitBound bounds every blocking call the suite makes, so an engine that
// hangs fails the test instead of stalling the run. It is generous on
// purpose: it is a deadlock guard, not a performance assertion.
const waitBound = 60 * time.Second

// Run runs the suite. open must return a ready Log; the suite closes it when
// the subtest ends (a second Close by open's own cleanup must not fail
// with anything but [topics.ErrClosed]).
func Run(t *testing.T, open func(t *testing.T) topics.Log) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s *suite)
	}{
		{"AppendReadRoundTrip", testRoundTrip},
		{"KeyRouting", testKeyRouting},
		{"KeyOrder", testKeyOrder},
		{"ReadFromMiddle", testReadFromMiddle},
		{"EndOffsets", testEndOffsets},
		{"EmptyReadAtEnd", testEmptyReadAtEnd},
		{"ConcurrentAppend", testConcurrentAppend},
		{"BadTopicAndPartition", testBadTopicAndPartition},
		{"GroupSplit", testGroupSplit},
		{"GroupRebalanceKeepsCommits", testGroupRebalanceKeepsCommits},
		{"GroupMemberCloseHandsOver", testGroupMemberCloseHandsOver},
		{"CommitResume", testCommitResume},
		{"FetchWakesOnAppend", testFetchWakesOnAppend},
		{"FetchRespectsContext", testFetchRespectsContext},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := open(t)
			t.Cleanup(func() {
				if err := l.Close(); err != nil && !errors.Is(err, topics.ErrClosed) {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, &suite{log: l, run: newRunID()})
		})
	}
}

// suite carries one subtest's log and run id.
type suite struct {
	log topics.Log
	run string
}

func newRunID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b[:])
}

func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	t.Cleanup(cancel)
	return ctx
}

// value makes a value that names this run, so the suite can ignore records
// it did not write.
func (s *suite) value(i int) []byte { return fmt.Appendf(nil, "logtest/%s/%06d", s.run, i) }

func (s *suite) ours(r topics.Record) bool {
	return bytes.HasPrefix(r.Value, []byte("logtest/"+s.run+"/"))
}

// key returns a key that routes to partition p of n.
func (s *suite) keyFor(t *testing.T, p, n int32) []byte {
	t.Helper()
	for i := range 100000 {
		k := fmt.Appendf(nil, "%s-k%d", s.run, i)
		if topics.PartitionFor(k, n) == p {
			return k
		}
	}
	t.Fatalf("no key found for partition %d of %d", p, n)
	return nil
}

func partitions(t *testing.T) int32 {
	t.Helper()
	spec, err := topics.Spec(Topic)
	if err != nil {
		t.Fatal(err)
	}
	return spec.Partitions
}

func (s *suite) append(t *testing.T, msgs ...topics.Message) []topics.Position {
	t.Helper()
	pos, err := s.log.Append(s.ctx(t), Topic, msgs...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(pos) != len(msgs) {
		t.Fatalf("Append returned %d positions for %d messages", len(pos), len(msgs))
	}
	return pos
}

// readOne reads the record at p, failing unless it is exactly there.
func (s *suite) readOne(t *testing.T, p topics.Position) topics.Record {
	t.Helper()
	recs, err := s.log.Read(s.ctx(t), p.Topic, p.Partition, p.Offset, 1)
	if err != nil {
		t.Fatalf("Read %v: %v", p, err)
	}
	if len(recs) != 1 {
		t.Fatalf("Read %v: %d records, want 1", p, len(recs))
	}
	if recs[0].Position() != p {
		t.Fatalf("Read %v returned record at %v", p, recs[0].Position())
	}
	return recs[0]
}

func (s *suite) endOffsets(t *testing.T) []int64 {
	t.Helper()
	end, err := s.log.EndOffsets(s.ctx(t), Topic)
	if err != nil {
		t.Fatalf("EndOffsets: %v", err)
	}
	if len(end) != int(partitions(t)) {
		t.Fatalf("EndOffsets: %d partitions, want %d", len(end), partitions(t))
	}
	return end
}

func testRoundTrip(t *testing.T, s *suite) {
	n := partitions(t)
	before := s.endOffsets(t)
	var msgs []topics.Message
	for i := range 20 {
		msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "%s-%d", s.run, i), Value: s.value(i)})
	}
	msgs = append(msgs, topics.Message{Key: []byte(s.run + "-empty"), Value: nil}) // empty value is legal
	pos := s.append(t, msgs...)
	for i, p := range pos {
		if p.Topic != Topic {
			t.Errorf("message %d: topic %q, want %q", i, p.Topic, Topic)
		}
		if p.Partition < 0 || p.Partition >= n {
			t.Fatalf("message %d: partition %d out of [0,%d)", i, p.Partition, n)
		}
		if p.Offset < before[p.Partition] {
			t.Errorf("message %d: offset %d below end offset %d before the append", i, p.Offset, before[p.Partition])
		}
		r := s.readOne(t, p)
		if !bytes.Equal(r.Key, msgs[i].Key) || !bytes.Equal(r.Value, msgs[i].Value) {
			t.Errorf("message %d at %v: read key %q value %q, want %q %q", i, p, r.Key, r.Value, msgs[i].Key, msgs[i].Value)
		}
		if r.Time.IsZero() {
			t.Errorf("message %d at %v: zero Time", i, p)
		}
		if d := time.Since(r.Time); d < -time.Hour || d > time.Hour {
			t.Errorf("message %d at %v: Time %v is not about now", i, p, r.Time)
		}
	}
	// Positions in one partition follow the order given.
	last := map[int32]int64{}
	for i, p := range pos {
		if prev, ok := last[p.Partition]; ok && p.Offset <= prev {
			t.Errorf("message %d: offset %d not after %d in partition %d", i, p.Offset, prev, p.Partition)
		}
		last[p.Partition] = p.Offset
	}
	// Appending nothing is not an error.
	if got, err := s.log.Append(s.ctx(t), Topic); err != nil || len(got) != 0 {
		t.Errorf("empty Append: %v, %d positions", err, len(got))
	}
}

func testKeyRouting(t *testing.T, s *suite) {
	n := partitions(t)
	var msgs []topics.Message
	for i := range 200 {
		msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "route-%d-%s", i, s.run), Value: s.value(i)})
	}
	pos := s.append(t, msgs...)
	seen := map[int32]bool{}
	for i, p := range pos {
		if want := topics.PartitionFor(msgs[i].Key, n); p.Partition != want {
			t.Errorf("key %q went to partition %d, PartitionFor says %d", msgs[i].Key, p.Partition, want)
		}
		seen[p.Partition] = true
	}
	if len(seen) != int(n) {
		t.Errorf("200 keys reached %d of %d partitions", len(seen), n)
	}
	// Same key, separate appends: same partition.
	k := []byte(s.run + "-sticky")
	p1 := s.append(t, topics.Message{Key: k, Value: s.value(1000)})
	p2 := s.append(t, topics.Message{Key: k, Value: s.value(1001)})
	if p1[0].Partition != p2[0].Partition || p2[0].Offset <= p1[0].Offset {
		t.Errorf("same key: %v then %v", p1[0], p2[0])
	}
}

func testKeyOrder(t *testing.T, s *suite) {
	key := []byte(s.run + "-ordered")
	var want [][]byte
	var all []topics.Position
	for b := range 5 {
		var msgs []topics.Message
		for i := range 10 {
			v := s.value(b*10 + i)
			want = append(want, v)
			msgs = append(msgs, topics.Message{Key: key, Value: v})
		}
		all = append(all, s.append(t, msgs...)...)
	}
	part := all[0].Partition
	recs, err := s.log.Read(s.ctx(t), Topic, part, all[0].Offset, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for _, r := range recs {
		if s.ours(r) && bytes.Equal(r.Key, key) {
			got = append(got, r.Value)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("read back %d of %d records", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func testReadFromMiddle(t *testing.T, s *suite) {
	key := s.keyFor(t, 2%partitions(t), partitions(t))
	var msgs []topics.Message
	for i := range 30 {
		msgs = append(msgs, topics.Message{Key: key, Value: s.value(i)})
	}
	pos := s.append(t, msgs...)
	for _, from := range []int{0, 1, 13, 29} {
		recs, err := s.log.Read(s.ctx(t), Topic, pos[from].Partition, pos[from].Offset, 5)
		if err != nil {
			t.Fatalf("Read from %d: %v", from, err)
		}
		if len(recs) == 0 || len(recs) > 5 {
			t.Fatalf("Read from %d max 5: %d records", from, len(recs))
		}
		for j, r := range recs {
			i := from + j
			if i >= len(pos) {
				break
			}
			if r.Position() != pos[i] || !bytes.Equal(r.Value, msgs[i].Value) {
				t.Fatalf("Read from %d, record %d: %v %q, want %v %q", from, j, r.Position(), r.Value, pos[i], msgs[i].Value)
			}
		}
		if from+5 <= len(pos) && len(recs) != 5 {
			t.Errorf("Read from %d max 5: %d records, want 5", from, len(recs))
		}
	}
	// Reading from just past a record starts at the next one.
	recs, err := s.log.Read(s.ctx(t), Topic, pos[10].Partition, pos[10].Offset+1, 1)
	if err != nil || len(recs) != 1 || recs[0].Position() != pos[11] {
		t.Fatalf("Read from offset after record 10: %v %v, want %v", recs, err, pos[11])
	}
	// Records returned by one Read stay intact after the next Read.
	a, _ := s.log.Read(s.ctx(t), Topic, pos[0].Partition, pos[0].Offset, 3)
	b, _ := s.log.Read(s.ctx(t), Topic, pos[0].Partition, pos[3].Offset, 3)
	if len(a) < 3 || len(b) < 3 || !bytes.Equal(a[0].Value, msgs[0].Value) || !bytes.Equal(b[0].Value, msgs[3].Value) {
		t.Fatalf("records of consecutive reads were overwritten")
	}
}

func testEndOffsets(t *testing.T, s *suite) {
	n := partitions(t)
	before := s.endOffsets(t)
	var msgs []topics.Message
	for p := range n {
		for i := range 3 {
			msgs = append(msgs, topics.Message{Key: s.keyFor(t, p, n), Value: s.value(int(p)*10 + i)})
		}
	}
	pos := s.append(t, msgs...)
	after := s.endOffsets(t)
	lastOf := map[int32]int64{}
	for _, p := range pos {
		lastOf[p.Partition] = max(lastOf[p.Partition], p.Offset)
	}
	for p := range n {
		if after[p] <= lastOf[p] {
			t.Errorf("partition %d: end offset %d not past last appended offset %d", p, after[p], lastOf[p])
		}
		if after[p] < before[p]+3 {
			t.Errorf("partition %d: end offset moved from %d to %d after 3 appends", p, before[p], after[p])
		}
	}
	if _, err := s.log.EndOffsets(s.ctx(t), "no.such.topic"); !errors.Is(err, topics.ErrUnknownTopic) {
		t.Errorf("EndOffsets of unknown topic: %v, want ErrUnknownTopic", err)
	}
}

func testEmptyReadAtEnd(t *testing.T, s *suite) {
	n := partitions(t)
	s.append(t, topics.Message{Key: s.keyFor(t, 0, n), Value: s.value(0)})
	end := s.endOffsets(t)
	for p := range n {
		recs, err := s.log.Read(s.ctx(t), Topic, p, end[p], 10)
		if err != nil {
			t.Errorf("Read partition %d at end %d: %v", p, end[p], err)
		}
		if len(recs) != 0 {
			t.Errorf("Read partition %d at end %d: %d records, want none", p, end[p], len(recs))
		}
	}
}

func testConcurrentAppend(t *testing.T, s *suite) {
	const writers, batches, perBatch = 8, 25, 4
	type result struct {
		pos  []topics.Position
		msgs []topics.Message
	}
	results := make([]result, writers)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for b := range batches {
				var msgs []topics.Message
				for i := range perBatch {
					id := (w*batches+b)*perBatch + i
					msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "%s-w%d-%d", s.run, w, i), Value: s.value(id)})
				}
				pos, err := s.log.Append(s.ctx(t), Topic, msgs...)
				if err != nil {
					errs <- err
					return
				}
				results[w].pos = append(results[w].pos, pos...)
				results[w].msgs = append(results[w].msgs, msgs...)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Append: %v", err)
	}
	seen := map[topics.Position]bool{}
	for _, r := range results {
		for i, p := range r.pos {
			if seen[p] {
				t.Fatalf("position %v handed out twice", p)
			}
			seen[p] = true
			if got := s.readOne(t, p); !bytes.Equal(got.Value, r.msgs[i].Value) {
				t.Fatalf("at %v: %q, want %q", p, got.Value, r.msgs[i].Value)
			}
		}
	}
}

func testBadTopicAndPartition(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	if _, err := s.log.Append(ctx, "no.such.topic", topics.Message{Key: []byte("k"), Value: []byte("v")}); !errors.Is(err, topics.ErrUnknownTopic) {
		t.Errorf("Append to unknown topic: %v, want ErrUnknownTopic", err)
	}
	if _, err := s.log.Read(ctx, "no.such.topic", 0, 0, 1); !errors.Is(err, topics.ErrUnknownTopic) {
		t.Errorf("Read of unknown topic: %v, want ErrUnknownTopic", err)
	}
	for _, p := range []int32{-1, partitions(t)} {
		if _, err := s.log.Read(ctx, Topic, p, 0, 1); !errors.Is(err, topics.ErrBadPartition) {
			t.Errorf("Read of partition %d: %v, want ErrBadPartition", p, err)
		}
	}
	if _, err := s.log.Subscribe(ctx, "no.such.topic", "g-"+s.run); !errors.Is(err, topics.ErrUnknownTopic) {
		t.Errorf("Subscribe to unknown topic: %v, want ErrUnknownTopic", err)
	}
}

// member is a consumer the group tests drive from a goroutine.
type member struct {
	sub  topics.Subscription
	mu   sync.Mutex
	recs []topics.Record
}

// consume fetches until ctx ends, keeping (and committing) the suite's records.
func (m *member) consume(ctx context.Context, s *suite) error {
	for {
		r, err := m.sub.Fetch(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("fetch: %w", err)
		}
		if !s.ours(r) {
			continue
		}
		// Fetch may return a buffer it reuses; keep a copy.
		r.Key, r.Value = bytes.Clone(r.Key), bytes.Clone(r.Value)
		if err := m.sub.Commit(ctx, r); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("commit: %w", err)
		}
		m.mu.Lock()
		m.recs = append(m.recs, r)
		m.mu.Unlock()
	}
}

func (m *member) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.recs)
}

func (s *suite) subscribe(t *testing.T, group string) *member {
	t.Helper()
	sub, err := s.log.Subscribe(s.ctx(t), Topic, group)
	if err != nil {
		t.Fatalf("Subscribe %s: %v", group, err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	return &member{sub: sub}
}

// appendSpread appends count records spread over every partition.
func (s *suite) appendSpread(t *testing.T, first, count int) map[string]topics.Position {
	t.Helper()
	n := partitions(t)
	var msgs []topics.Message
	for i := first; i < first+count; i++ {
		msgs = append(msgs, topics.Message{Key: s.keyFor(t, int32(i)%n, n), Value: s.value(i)})
	}
	pos := s.append(t, msgs...)
	want := map[string]topics.Position{}
	for i, p := range pos {
		want[string(msgs[i].Value)] = p
	}
	return want
}

// runMembers lets members consume until together they hold total of the
// suite's records (or the bound passes), then stops them.
func runMembers(t *testing.T, s *suite, total int, members ...*member) {
	t.Helper()
	ctx, cancel := context.WithCancel(s.ctx(t))
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(members))
	for _, m := range members {
		wg.Go(func() {
			if err := m.consume(ctx, s); err != nil {
				errs <- err
			}
		})
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(waitBound)
	for time.Now().Before(deadline) {
		got := 0
		for _, m := range members {
			got += m.count()
		}
		if got >= total {
			break
		}
		select {
		case err := <-errs:
			cancel()
			wg.Wait()
			t.Fatal(err)
		case <-tick.C:
		}
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// checkExactlyOnce checks that members together saw want exactly once, at
// the right positions, and that no partition was served to two of them.
func checkExactlyOnce(t *testing.T, want map[string]topics.Position, members ...*member) {
	t.Helper()
	seen := map[string]int{}
	owner := map[int32]int{}
	for i, m := range members {
		for _, r := range m.recs {
			v := string(r.Value)
			p, ok := want[v]
			if !ok {
				continue
			}
			seen[v]++
			if r.Position() != p {
				t.Errorf("record %q fetched at %v, appended at %v", v, r.Position(), p)
			}
			if o, ok := owner[r.Partition]; ok && o != i {
				t.Errorf("partition %d served to members %d and %d", r.Partition, o, i)
			}
			owner[r.Partition] = i
		}
	}
	for v := range want {
		if seen[v] != 1 {
			t.Errorf("record %q seen %d times, want exactly once", v, seen[v])
		}
	}
}

func testGroupSplit(t *testing.T, s *suite) {
	group := "logtest-split-" + s.run
	a := s.subscribe(t, group)
	b := s.subscribe(t, group)
	want := s.appendSpread(t, 0, 120)
	runMembers(t, s, len(want), a, b)
	checkExactlyOnce(t, want, a, b)
	if a.count() == 0 || b.count() == 0 {
		t.Errorf("members got %d and %d records: the partitions were not split", a.count(), b.count())
	}
}

// testGroupRebalanceKeepsCommits: a lone member consumes and commits, a
// second one joins; nothing committed is fetched again and the rest is
// seen exactly once.
func testGroupRebalanceKeepsCommits(t *testing.T, s *suite) {
	group := "logtest-rebalance-" + s.run
	a := s.subscribe(t, group)
	first := s.appendSpread(t, 0, 60)
	runMembers(t, s, len(first), a)
	b := s.subscribe(t, group)
	second := s.appendSpread(t, 60, 60)
	runMembers(t, s, len(first)+len(second), a, b)
	all := map[string]topics.Position{}
	for k, v := range first {
		all[k] = v
	}
	for k, v := range second {
		all[k] = v
	}
	// Ownership may legitimately move between the two phases, so check
	// exactly-once over everything and single ownership per phase.
	seen := map[string]int{}
	for _, m := range []*member{a, b} {
		for _, r := range m.recs {
			seen[string(r.Value)]++
		}
	}
	for v := range all {
		if seen[v] != 1 {
			t.Errorf("record %q seen %d times, want exactly once", v, seen[v])
		}
	}
	if b.count() == 0 {
		t.Errorf("the member that joined got nothing")
	}
	ownerB := map[int32]bool{}
	for _, r := range b.recs {
		ownerB[r.Partition] = true
	}
	for _, r := range a.recs[min(len(first), len(a.recs)):] {
		if ownerB[r.Partition] {
			t.Errorf("after the rebalance partition %d was served to both members", r.Partition)
		}
	}
}

// testGroupMemberCloseHandsOver: when one of two members leaves, the other
// gets its partitions, starting after what the leaver committed.
func testGroupMemberCloseHandsOver(t *testing.T, s *suite) {
	group := "logtest-handover-" + s.run
	a := s.subscribe(t, group)
	b := s.subscribe(t, group)
	first := s.appendSpread(t, 0, 60)
	runMembers(t, s, len(first), a, b)
	checkExactlyOnce(t, first, a, b)
	if err := b.sub.Close(); err != nil {
		t.Fatalf("member Close: %v", err)
	}
	second := s.appendSpread(t, 60, 60)
	before := a.count()
	runMembers(t, s, before+len(second), a)
	seen := map[string]int{}
	for _, r := range a.recs[before:] {
		seen[string(r.Value)]++
		if _, old := first[string(r.Value)]; old {
			t.Errorf("record %q committed before the hand-over was fetched again", r.Value)
		}
	}
	for v := range second {
		if seen[v] != 1 {
			t.Errorf("after the hand-over, record %q seen %d times by the remaining member, want 1", v, seen[v])
		}
	}
}

func testCommitResume(t *testing.T, s *suite) {
	group := "logtest-resume-" + s.run
	key := s.keyFor(t, 1, partitions(t))
	var msgs []topics.Message
	for i := range 10 {
		msgs = append(msgs, topics.Message{Key: key, Value: s.value(i)})
	}
	pos := s.append(t, msgs...)

	a := s.subscribe(t, group)
	ctx := s.ctx(t)
	var got []topics.Record
	for len(got) < 5 {
		r, err := a.sub.Fetch(ctx)
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		if s.ours(r) {
			got = append(got, r)
		} else if err := a.sub.Commit(ctx, r); err != nil { // skip what other runs left
			t.Fatalf("Commit: %v", err)
		}
	}
	// Committing only the highest record is enough.
	if err := a.sub.Commit(ctx, got[4]); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if err := a.sub.Close(); err != nil {
		t.Fatalf("member Close: %v", err)
	}

	b := s.subscribe(t, group)
	for {
		r, err := b.sub.Fetch(ctx)
		if err != nil {
			t.Fatalf("Fetch after resubscribe: %v", err)
		}
		if !s.ours(r) {
			continue
		}
		if r.Position() != pos[5] || !bytes.Equal(r.Value, msgs[5].Value) {
			t.Fatalf("resumed at %v %q, want %v %q (the record after the commit)", r.Position(), r.Value, pos[5], msgs[5].Value)
		}
		break
	}
}

func testFetchWakesOnAppend(t *testing.T, s *suite) {
	group := "logtest-wake-" + s.run
	m := s.subscribe(t, group)
	ctx := s.ctx(t)
	type res struct {
		r   topics.Record
		err error
	}
	out := make(chan res, 1)
	go func() {
		for {
			r, err := m.sub.Fetch(ctx)
			if err != nil || s.ours(r) {
				out <- res{r, err}
				return
			}
		}
	}()
	// Give the fetcher a moment to block; the test is correct either way.
	time.Sleep(50 * time.Millisecond)
	pos := s.append(t, topics.Message{Key: []byte(s.run), Value: s.value(7)})
	select {
	case got := <-out:
		if got.err != nil {
			t.Fatalf("Fetch: %v", got.err)
		}
		if got.r.Position() != pos[0] {
			t.Fatalf("Fetch returned %v, want %v", got.r.Position(), pos[0])
		}
	case <-time.After(waitBound):
		t.Fatal("Fetch did not return after an append")
	}
}

func testFetchRespectsContext(t *testing.T, s *suite) {
	m := s.subscribe(t, "logtest-ctx-"+s.run)
	// An ended context: Fetch must not block.
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	if _, err := m.sub.Fetch(done); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context: %v, want context.Canceled", err)
	}
	// A context cancelled while Fetch waits: Fetch returns its error. The
	// loop drains whatever the topic already holds first.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		for {
			if _, err := m.sub.Fetch(ctx); err != nil {
				errc <- err
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Fetch after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(waitBound):
		t.Fatal("Fetch did not return after its context was cancelled")
	}
	// A deadline works the same way.
	dctx, dcancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer dcancel()
	for {
		if _, err := m.sub.Fetch(dctx); err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Fetch past deadline: %v, want context.DeadlineExceeded", err)
			}
			break
		}
	}
}

func testClosed(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	pos := s.append(t, topics.Message{Key: []byte(s.run), Value: s.value(0)})
	sub, err := s.log.Subscribe(ctx, Topic, "logtest-closed-"+s.run)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.log.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	checks := map[string]error{}
	_, checks["Append"] = s.log.Append(ctx, Topic, topics.Message{Key: []byte("k"), Value: []byte("v")})
	_, checks["Read"] = s.log.Read(ctx, Topic, pos[0].Partition, pos[0].Offset, 1)
	_, checks["EndOffsets"] = s.log.EndOffsets(ctx, Topic)
	_, checks["Subscribe"] = s.log.Subscribe(ctx, Topic, "logtest-closed2-"+s.run)
	fctx, fcancel := context.WithTimeout(ctx, waitBound)
	defer fcancel()
	for {
		// A record buffered before Close is acceptable; keep fetching.
		if _, err := sub.Fetch(fctx); err != nil {
			checks["Fetch"] = err
			break
		}
	}
	for op, err := range checks {
		if !errors.Is(err, topics.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", op, err)
		}
	}
	_ = sub.Close() // leaving a group of a closed log must not hang
}
