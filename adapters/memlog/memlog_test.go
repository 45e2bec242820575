package memlog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/topics"
)

const topic = topics.TopicSigning

func newLog(t *testing.T, opts ...memlog.Option) *memlog.Log {
	t.Helper()
	l := memlog.New(append([]memlog.Option{memlog.WithLogger(quiet)}, opts...)...)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// keyFor returns a key that topics.PartitionFor routes to partition p.
func keyFor(t testing.TB, p int32) []byte {
	t.Helper()
	for i := range 10000 {
		k := fmt.Appendf(nil, "key-%d", i)
		if topics.PartitionFor(k, topics.DefaultPartitions) == p {
			return k
		}
	}
	t.Fatalf("no key for partition %d", p)
	return nil
}

func mustAppend(t *testing.T, l *memlog.Log, msgs ...topics.Message) []topics.Position {
	t.Helper()
	pos, err := l.Append(context.Background(), topic, msgs...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return pos
}

func mustRead(t *testing.T, l *memlog.Log, p int32, from int64, max int) []topics.Record {
	t.Helper()
	recs, err := l.Read(context.Background(), topic, p, from, max)
	if err != nil {
		t.Fatalf("Read %d from %d: %v", p, from, err)
	}
	return recs
}

func ends(t *testing.T, l *memlog.Log, name string) []int64 {
	t.Helper()
	e, err := l.EndOffsets(context.Background(), name)
	if err != nil {
		t.Fatalf("EndOffsets %s: %v", name, err)
	}
	return e
}

func TestEveryTopicExists(t *testing.T) {
	l := newLog(t)
	for _, spec := range topics.Topics() {
		if got := ends(t, l, spec.Name); !slices.Equal(got, make([]int64, spec.Partitions)) {
			t.Errorf("%s: end offsets %v, want %d zeros", spec.Name, got, spec.Partitions)
		}
		pos, err := l.Append(context.Background(), spec.Name, topics.Message{Key: []byte("k"), Value: []byte("v")})
		if err != nil {
			t.Fatalf("Append to %s: %v", spec.Name, err)
		}
		if want := topics.PartitionFor([]byte("k"), spec.Partitions); pos[0].Partition != want || pos[0].Offset != 0 {
			t.Errorf("%s: first record at %v, want partition %d offset 0", spec.Name, pos[0], want)
		}
	}
}

func TestOffsetsDenseFromZero(t *testing.T) {
	l := newLog(t)
	var msgs []topics.Message
	for i := range 60 {
		msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "k%d", i%13), Value: fmt.Appendf(nil, "v%d", i)})
	}
	next := make([]int64, topics.DefaultPartitions)
	for _, batch := range [][]topics.Message{msgs[:1], msgs[1:10], msgs[10:]} {
		for i, p := range mustAppend(t, l, batch...) {
			if p.Offset != next[p.Partition] {
				t.Fatalf("message %q at offset %d of partition %d, want %d", batch[i].Value, p.Offset, p.Partition, next[p.Partition])
			}
			next[p.Partition]++
		}
	}
	if got := ends(t, l, topic); !slices.Equal(got, next) {
		t.Errorf("end offsets %v, want %v", got, next)
	}
	for p := range int32(topics.DefaultPartitions) {
		for i, r := range mustRead(t, l, p, 0, 1000) {
			if r.Offset != int64(i) {
				t.Errorf("partition %d: record %d has offset %d", p, i, r.Offset)
			}
		}
	}
}

func TestAppendAllOrNothing(t *testing.T) {
	const bound = 100
	ok := topics.Message{Key: []byte("k"), Value: make([]byte, bound)}
	cases := []struct {
		name string
		msgs []topics.Message
	}{
		{"value over bound last", []topics.Message{ok, ok, {Key: []byte("k2"), Value: make([]byte, bound+1)}}},
		{"key over bound first", []topics.Message{{Key: make([]byte, 1<<16), Value: nil}, ok}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLog(t, memlog.WithMaxMessageBytes(bound))
			_, err := l.Append(context.Background(), topic, tc.msgs...)
			if !errors.Is(err, topics.ErrValueTooLarge) {
				t.Fatalf("Append: %v, want ErrValueTooLarge", err)
			}
			if got := ends(t, l, topic); !slices.Equal(got, make([]int64, topics.DefaultPartitions)) {
				t.Errorf("a refused Append stored records: end offsets %v", got)
			}
			if pos := mustAppend(t, l, ok); pos[0].Offset != 0 {
				t.Errorf("next Append at %v, want offset 0", pos[0])
			}
		})
	}
}

// TestAppendVisibleInOneStep appends batches of one message per partition
// while a reader checks that it never sees a batch in some partitions only.
func TestAppendVisibleInOneStep(t *testing.T) {
	l := newLog(t)
	var batch []topics.Message
	for p := range int32(topics.DefaultPartitions) {
		batch = append(batch, topics.Message{Key: keyFor(t, p), Value: []byte("v")})
	}
	const batches = 2000
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for range batches {
			if _, err := l.Append(context.Background(), topic, batch...); err != nil {
				t.Errorf("Append: %v", err)
				return
			}
		}
	})
	observe := func() error {
		e := ends(t, l, topic)
		if slices.Min(e) != slices.Max(e) {
			return fmt.Errorf("end offsets %v: a batch is visible in some partitions only", e)
		}
		if e[0] == 0 {
			return nil
		}
		// The newest record reads back while appends go on.
		if recs := mustRead(t, l, 0, e[0]-1, 2); len(recs) == 0 || string(recs[0].Value) != "v" {
			return fmt.Errorf("Read of the newest record at %d: %v", e[0]-1, recs)
		}
		return nil
	}
	observed := 0
	for running := true; running; observed++ {
		select {
		case <-done:
			running = false
		default:
		}
		if err := observe(); err != nil {
			t.Error(err)
			break
		}
	}
	wg.Wait()
	if e := ends(t, l, topic); e[0] != batches || slices.Min(e) != slices.Max(e) {
		t.Errorf("after %d batches: end offsets %v", batches, e)
	}
	t.Logf("%d observations during the appends", observed)
}

func TestClockStampsRecords(t *testing.T) {
	base := time.Date(2030, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))
	calls := 0
	clock := func() time.Time {
		calls++
		return base.Add(time.Duration(calls) * time.Second)
	}
	l := newLog(t, memlog.WithClock(clock), memlog.WithMaxMessageBytes(10))
	key := keyFor(t, 0)
	mustAppend(t, l, topics.Message{Key: key, Value: []byte("a")}, topics.Message{Key: key, Value: []byte("b")})
	mustAppend(t, l)
	if _, err := l.Append(context.Background(), topic, topics.Message{Key: key, Value: make([]byte, 11)}); err == nil {
		t.Fatal("Append over the bound succeeded")
	}
	mustAppend(t, l, topics.Message{Key: key, Value: []byte("c")})
	if calls != 2 {
		t.Errorf("clock called %d times for 2 stored Appends", calls)
	}
	want := []time.Time{base.Add(time.Second).UTC(), base.Add(time.Second).UTC(), base.Add(2 * time.Second).UTC()}
	var got []time.Time
	for _, r := range mustRead(t, l, 0, 0, 10) {
		got = append(got, r.Time)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("record times %v, want %v (UTC, one per Append)", got, want)
	}
}

func TestRecordsShareNoMemory(t *testing.T) {
	l := newLog(t)
	key, value := keyFor(t, 3), []byte("value")
	mustAppend(t, l, topics.Message{Key: key, Value: value}, topics.Message{Key: key, Value: []byte("next")})
	value[0] = 'X' // the caller reuses its buffer

	recs := mustRead(t, l, 3, 0, 2)
	if string(recs[0].Value) != "value" {
		t.Fatalf("stored value %q changed with the caller's buffer", recs[0].Value)
	}
	_ = append(recs[0].Key, 'K')   // must not run into the value
	_ = append(recs[0].Value, 'V') // must not run into the next record
	if string(recs[0].Value) != "value" || string(recs[1].Key) != string(key) {
		t.Fatalf("records of one Read overlap: value %q, next key %q", recs[0].Value, recs[1].Key)
	}
	recs[0].Value[0] = 'Y' // the reader owns its records
	if again := mustRead(t, l, 3, 0, 1); string(again[0].Value) != "value" {
		t.Fatalf("stored value %q changed with a reader's record", again[0].Value)
	}
}

func TestReadBounds(t *testing.T) {
	l := newLog(t)
	mustAppend(t, l, topics.Message{Key: keyFor(t, 1), Value: []byte("v")})
	cases := []struct {
		from    int64
		max     int
		want    int
		wantErr error
	}{
		{0, 10, 1, nil},
		{0, math.MaxInt, 1, nil},
		{1, math.MaxInt, 0, nil},
		{0, 0, 0, nil},
		{1, 10, 0, nil},
		{2, 10, 0, topics.ErrOffsetRange},
		{-1, 10, 0, topics.ErrOffsetRange},
	}
	for _, tc := range cases {
		recs, err := l.Read(context.Background(), topic, 1, tc.from, tc.max)
		if !errors.Is(err, tc.wantErr) || len(recs) != tc.want {
			t.Errorf("Read from %d max %d: %d records, %v; want %d, %v", tc.from, tc.max, len(recs), err, tc.want, tc.wantErr)
		}
	}
}

func subscribe(t *testing.T, l *memlog.Log, group string) topics.Subscription {
	t.Helper()
	s, err := l.Subscribe(context.Background(), topic, group)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func fetch(t *testing.T, s topics.Subscription) topics.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a deadlock guard
	defer cancel()
	r, err := s.Fetch(ctx)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return r
}

// TestGroupAssignmentRoundRobin: members own partition p mod n in join
// order, so a run assigns the same partitions every time.
func TestGroupAssignmentRoundRobin(t *testing.T) {
	l := newLog(t)
	members := []topics.Subscription{subscribe(t, l, "g"), subscribe(t, l, "g"), subscribe(t, l, "g")}
	for p := range int32(topics.DefaultPartitions) {
		mustAppend(t, l, topics.Message{Key: keyFor(t, p), Value: []byte("v")})
	}
	for i, m := range members {
		var got []int32
		for range 2 {
			got = append(got, fetch(t, m).Partition)
		}
		slices.Sort(got)
		if want := []int32{int32(i), int32(i + 3)}; !slices.Equal(got, want) {
			t.Errorf("member %d fetched partitions %v, want %v", i, got, want)
		}
	}
}

// TestCommitAllOrNothing: a commit naming a partition the member does not
// own is refused whole, so a later member starts where nothing was committed.
func TestCommitAllOrNothing(t *testing.T) {
	l := newLog(t)
	a, b := subscribe(t, l, "g"), subscribe(t, l, "g")
	mustAppend(t, l, topics.Message{Key: keyFor(t, 0), Value: []byte("p0")}, topics.Message{Key: keyFor(t, 1), Value: []byte("p1")})
	ra, rb := fetch(t, a), fetch(t, b)
	if err := a.Commit(context.Background(), ra, rb); !errors.Is(err, memlog.ErrNotAssigned) {
		t.Fatalf("Commit of another member's partition: %v, want ErrNotAssigned", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(context.Background(), ra); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("Commit after member Close: %v, want ErrClosed", err)
	}
	c := subscribe(t, l, "g")
	if r := fetch(t, c); r.Position() != ra.Position() {
		t.Errorf("after a refused commit the group resumed at %v, want %v", r.Position(), ra.Position())
	}
}

func TestSubscribeBadGroup(t *testing.T) {
	l := newLog(t)
	if _, err := l.Subscribe(context.Background(), topic, ""); !errors.Is(err, memlog.ErrBadGroup) {
		t.Errorf("Subscribe with an empty group: %v, want ErrBadGroup", err)
	}
}

// TestDeterministic: two logs given the same calls and clock return the
// same records, times included.
func TestDeterministic(t *testing.T) {
	run := func() [][]topics.Record {
		tick := time.Unix(1700000000, 0)
		l := newLog(t, memlog.WithClock(func() time.Time { tick = tick.Add(time.Millisecond); return tick }))
		for i := range 50 {
			mustAppend(t, l, topics.Message{Key: fmt.Appendf(nil, "k%d", i%7), Value: fmt.Appendf(nil, "v%d", i)},
				topics.Message{Key: fmt.Appendf(nil, "j%d", i%5), Value: bytes.Repeat([]byte{byte(i)}, i)})
		}
		var out [][]topics.Record
		for p := range int32(topics.DefaultPartitions) {
			out = append(out, mustRead(t, l, p, 0, 1000))
		}
		return out
	}
	if a, b := run(), run(); !reflect.DeepEqual(a, b) {
		t.Error("two identical runs read back different records")
	}
}
