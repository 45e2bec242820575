package kafkalog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/topics"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAppendReturnsPositionsThatReadBack(t *testing.T) {
	l := kafkatest.Open(t, kafkalog.Config{})
	ctx := ctxT(t)
	var msgs []topics.Message
	for i := range 300 {
		msgs = append(msgs, topics.Message{
			Key:   fmt.Appendf(nil, "deposit-%d", i%37),
			Value: fmt.Appendf(nil, "value-%d", i),
		})
	}
	// Two appends: the second one's offsets must continue the first's.
	pos1, err := l.Append(ctx, topics.TopicBridge, msgs[:100]...)
	if err != nil {
		t.Fatal(err)
	}
	pos2, err := l.Append(ctx, topics.TopicBridge, msgs[100:]...)
	if err != nil {
		t.Fatal(err)
	}
	pos := append(pos1, pos2...)
	if len(pos) != len(msgs) {
		t.Fatalf("%d positions for %d messages", len(pos), len(msgs))
	}
	next := map[int32]int64{}
	for i, p := range pos {
		if p.Topic != topics.TopicBridge {
			t.Fatalf("position %d topic %q", i, p.Topic)
		}
		// One producer, offsets dense from 0 on kfake and in call order.
		if p.Offset != next[p.Partition] {
			t.Fatalf("message %d at %d/%d, want offset %d", i, p.Partition, p.Offset, next[p.Partition])
		}
		next[p.Partition]++
		recs, err := l.Read(ctx, topics.TopicBridge, p.Partition, p.Offset, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].Position() != p ||
			!bytes.Equal(recs[0].Key, msgs[i].Key) || !bytes.Equal(recs[0].Value, msgs[i].Value) {
			t.Fatalf("read at %+v = %+v, want key %s value %s", p, recs, msgs[i].Key, msgs[i].Value)
		}
		if recs[0].Time.IsZero() {
			t.Fatalf("record %+v has no time", p)
		}
	}
	ends, err := l.EndOffsets(ctx, topics.TopicBridge)
	if err != nil {
		t.Fatal(err)
	}
	if len(ends) != topics.DefaultPartitions {
		t.Fatalf("%d end offsets", len(ends))
	}
	for p, end := range ends {
		if end != next[int32(p)] {
			t.Fatalf("partition %d ends at %d, appended %d", p, end, next[int32(p)])
		}
	}
}

func TestRoutingIsPartitionFor(t *testing.T) {
	l := kafkatest.Open(t, kafkalog.Config{})
	ctx := ctxT(t)
	var msgs []topics.Message
	for i := range 500 {
		msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "evm:338:0x%x:%d", i*7919, i), Value: []byte("v")})
	}
	msgs = append(msgs, topics.Message{Key: nil, Value: []byte("no key")})
	pos, err := l.Append(ctx, topics.TopicChain, msgs...)
	if err != nil {
		t.Fatal(err)
	}
	used := map[int32]bool{}
	for i, p := range pos {
		if want := topics.PartitionFor(msgs[i].Key, topics.DefaultPartitions); p.Partition != want {
			t.Fatalf("key %q went to partition %d, PartitionFor says %d", msgs[i].Key, p.Partition, want)
		}
		used[p.Partition] = true
	}
	if len(used) != topics.DefaultPartitions {
		t.Fatalf("500 keys used only partitions %v", used)
	}
	// The Balancer given to a kafka-go Writer routes the same way.
	ids := []int{0, 1, 2, 3, 4, 5}
	for i, m := range msgs {
		if got := (kafkalog.Balancer{}).Balance(kafka.Message{Key: m.Key}, ids...); int32(got) != pos[i].Partition {
			t.Fatalf("Balancer put %q on %d, Append on %d", m.Key, got, pos[i].Partition)
		}
	}
}

func TestReadBounds(t *testing.T) {
	l := kafkatest.Open(t, kafkalog.Config{FetchMaxBytes: 4096})
	ctx := ctxT(t)
	const topic = "test.read"
	var msgs []topics.Message
	for i := range 1000 {
		msgs = append(msgs, topics.Message{Key: []byte("one key"), Value: bytes.Repeat([]byte{byte(i)}, 100)})
	}
	for i := 0; i < len(msgs); i += 100 {
		if _, err := l.Append(ctx, topic, msgs[i:i+100]...); err != nil {
			t.Fatal(err)
		}
	}
	p := topics.PartitionFor([]byte("one key"), topics.DefaultPartitions)

	// A small FetchMaxBytes makes Read return partial results; paging
	// through them must yield every record once, in order.
	var got []topics.Record
	for from := int64(0); ; {
		recs, err := l.Read(ctx, topic, p, from, 300)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			break
		}
		if len(recs) > 300 {
			t.Fatalf("Read returned %d records, max 300", len(recs))
		}
		got = append(got, recs...)
		from = recs[len(recs)-1].Offset + 1
	}
	if len(got) != len(msgs) {
		t.Fatalf("paged %d records, want %d", len(got), len(msgs))
	}
	for i, r := range got {
		if r.Offset != int64(i) || !bytes.Equal(r.Value, msgs[i].Value) {
			t.Fatalf("record %d: offset %d value %x…", i, r.Offset, r.Value[:1])
		}
	}

	cases := []struct {
		name      string
		partition int32
		from      int64
		wantErr   error
	}{
		{"at the end: empty, no wait", p, 1000, nil},
		{"past the end", p, 1001, topics.ErrOffsetRange},
		{"negative offset", p, -1, topics.ErrOffsetRange},
		{"partition too high", topics.DefaultPartitions, 0, topics.ErrBadPartition},
		{"negative partition", -1, 0, topics.ErrBadPartition},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := l.Read(ctx, topic, c.partition, c.from, 10)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
			if len(recs) != 0 {
				t.Fatalf("%d records", len(recs))
			}
		})
	}
}

func TestOversizedMessageIsTypedError(t *testing.T) {
	rejected := &countingMetrics{}
	l := kafkatest.Open(t, kafkalog.Config{MaxMessageBytes: 1000, Metrics: rejected})
	ctx := ctxT(t)
	_, err := l.Append(ctx, topics.TopicClaims,
		topics.Message{Key: []byte("a"), Value: []byte("fine")},
		topics.Message{Key: []byte("b"), Value: make([]byte, 1000)})
	if !errors.Is(err, topics.ErrValueTooLarge) {
		t.Fatalf("err %v, want ErrValueTooLarge", err)
	}
	if !strings.Contains(err.Error(), "message 1") {
		t.Fatalf("error %q does not name the message", err)
	}
	if rejected.n.Load() != 1 {
		t.Fatalf("rejected counter %d, want 1", rejected.n.Load())
	}
	ends, err := l.EndOffsets(ctx, topics.TopicClaims)
	if err != nil {
		t.Fatal(err)
	}
	for p, e := range ends {
		if e != 0 {
			t.Fatalf("partition %d has %d records after a refused append", p, e)
		}
	}
}

func TestBrokerSizeRefusalIsTypedError(t *testing.T) {
	// The broker's bound is below ours: its MessageSizeTooLarge must come
	// back as ErrValueTooLarge too.
	brokers := kafkatest.Start(t, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "2000"}))
	l := kafkatest.Open(t, kafkalog.Config{Brokers: brokers})
	_, err := l.Append(ctxT(t), topics.TopicClaims, topics.Message{Key: []byte("k"), Value: make([]byte, 5000)})
	if !errors.Is(err, topics.ErrValueTooLarge) {
		t.Fatalf("err %v, want ErrValueTooLarge", err)
	}
}

type countingMetrics struct{ n atomic.Int64 }

func (m *countingMetrics) Rejected(topic, reason string) {
	if reason == "too_large" {
		m.n.Add(1)
	}
}

func TestTwoMembersSplitPartitionsAndSeeEachRecordOnce(t *testing.T) {
	l := kafkatest.Open(t, kafkalog.Config{})
	ctx := ctxT(t)
	const group = "split"
	a, err := l.Subscribe(ctx, topics.TopicSigning, group)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Subscribe(ctx, topics.TopicSigning, group)
	if err != nil {
		t.Fatal(err)
	}
	// Subscribe returns once the group is stable with the member in it, so
	// no rebalance (which may redeliver uncommitted records) happens while
	// the records below are consumed.

	const n = 1200
	var msgs []topics.Message
	for i := range n {
		msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "stream-%d", i%50), Value: fmt.Appendf(nil, "%d", i)})
	}
	if _, err := l.Append(ctx, topics.TopicSigning, msgs...); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		seen  = map[topics.Position]int{}
		total int
		parts = [2]map[int32]bool{{}, {}}
	)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for i, sub := range []topics.Subscription{a, b} {
		wg.Go(func() {
			for {
				rec, err := sub.Fetch(ctx)
				if err != nil {
					select {
					case <-done:
					default:
						t.Errorf("member %d: %v", i, err)
					}
					return
				}
				if err := sub.Commit(ctx, rec); err != nil {
					t.Errorf("member %d commit: %v", i, err)
					return
				}
				mu.Lock()
				seen[rec.Position()]++
				parts[i][rec.Partition] = true
				total++
				if total == n {
					close(done)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("received %d of %d records", total, n)
	}
	// Let a straggler duplicate, if any, arrive before counting.
	time.Sleep(300 * time.Millisecond)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if total != n || len(seen) != n {
		t.Fatalf("%d deliveries of %d distinct records, want %d of each", total, len(seen), n)
	}
	if len(parts[0]) != 3 || len(parts[1]) != 3 {
		t.Fatalf("members consumed partitions %v and %v, want 3 each", parts[0], parts[1])
	}
	for p := range parts[0] {
		if parts[1][p] {
			t.Fatalf("partition %d consumed by both members", p)
		}
	}
}

func TestCommittedOffsetsSurviveReaderRestart(t *testing.T) {
	l := kafkatest.Open(t, kafkalog.Config{DefaultPartitions: 1})
	ctx := ctxT(t)
	const topic, group = "test.restart", "projector"
	var msgs []topics.Message
	for i := range 20 {
		msgs = append(msgs, topics.Message{Key: []byte("k"), Value: fmt.Appendf(nil, "%d", i)})
	}
	if _, err := l.Append(ctx, topic, msgs...); err != nil {
		t.Fatal(err)
	}
	sub, err := l.Subscribe(ctx, topic, group)
	if err != nil {
		t.Fatal(err)
	}
	var recs []topics.Record
	for range 10 {
		r, err := sub.Fetch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	// Commit out of order: the highest offset wins, a lower one later does
	// not move the group back.
	if err := sub.Commit(ctx, recs[6], recs[3]); err != nil {
		t.Fatal(err)
	}
	if err := sub.Commit(ctx, recs[2]); err != nil {
		t.Fatal(err)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Fetch(ctx); !errors.Is(err, topics.ErrClosed) {
		t.Fatalf("Fetch after Close: %v, want ErrClosed", err)
	}
	committed, err := l.CommittedOffsets(ctx, group, topic)
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) != 1 || committed[0] != 7 {
		t.Fatalf("committed %v, want [7]", committed)
	}

	sub2, err := l.Subscribe(ctx, topic, group)
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	r, err := sub2.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Offset != 7 || string(r.Value) != "7" {
		t.Fatalf("restarted member resumed at offset %d value %q, want 7", r.Offset, r.Value)
	}
}

func TestReplayFromAnOffset(t *testing.T) {
	l := kafkatest.Open(t, kafkalog.Config{DefaultPartitions: 1})
	ctx := ctxT(t)
	const topic, group = "test.replay", "handlers"
	var msgs []topics.Message
	for i := range 50 {
		msgs = append(msgs, topics.Message{Key: []byte("k"), Value: fmt.Appendf(nil, "%d", i)})
	}
	if _, err := l.Append(ctx, topic, msgs...); err != nil {
		t.Fatal(err)
	}
	// Read from an explicit offset.
	recs, err := l.Read(ctx, topic, 0, 42, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 || recs[0].Offset != 42 || string(recs[0].Value) != "42" {
		t.Fatalf("Read from 42: %d records starting %+v", len(recs), recs)
	}

	// Consume everything, then move the group back to 30.
	sub, err := l.Subscribe(ctx, topic, group)
	if err != nil {
		t.Fatal(err)
	}
	var last topics.Record
	for range 50 {
		if last, err = sub.Fetch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := sub.Commit(ctx, last); err != nil {
		t.Fatal(err)
	}
	// While a member is in the group, Kafka refuses an outside commit.
	if err := l.ResetGroupOffsets(ctx, group, topic, map[int32]int64{0: 30}); err == nil {
		t.Fatal("reset with an active member succeeded")
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.ResetGroupOffsets(ctx, group, topic, map[int32]int64{0: 30}); err != nil {
		t.Fatal(err)
	}
	if err := l.ResetGroupOffsets(ctx, group, topic, map[int32]int64{3: 30}); !errors.Is(err, topics.ErrBadPartition) {
		t.Fatalf("reset of partition 3: %v, want ErrBadPartition", err)
	}
	sub2, err := l.Subscribe(ctx, topic, group)
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	for want := int64(30); want < 50; want++ {
		r, err := sub2.Fetch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Offset != want {
			t.Fatalf("replayed offset %d, want %d", r.Offset, want)
		}
	}
}

func TestTopicsFromTheCatalog(t *testing.T) {
	brokers := kafkatest.Start(t)
	ctx := ctxT(t)
	l, err := kafkalog.Open(ctx, kafkalog.Config{Brokers: brokers})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client := &kafka.Client{Addr: kafka.TCP(brokers...), Timeout: 5 * time.Second}
	for _, s := range topics.Topics() {
		md, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{s.Name}})
		if err != nil {
			t.Fatal(err)
		}
		if len(md.Topics) != 1 || md.Topics[0].Error != nil || len(md.Topics[0].Partitions) != int(s.Partitions) {
			t.Fatalf("topic %s: %+v, want %d partitions", s.Name, md.Topics, s.Partitions)
		}
	}
	// Names outside the catalog are refused unless allowed.
	if _, err := l.Append(ctx, "bridgelog.typo.v1", topics.Message{Value: []byte("x")}); !errors.Is(err, topics.ErrUnknownTopic) {
		t.Fatalf("append to unknown topic: %v, want ErrUnknownTopic", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, topics.TopicChain, topics.Message{Value: []byte("x")}); !errors.Is(err, topics.ErrClosed) {
		t.Fatalf("append after close: %v, want ErrClosed", err)
	}
}

func TestExistingTopicWithOtherPartitionCountIsRefused(t *testing.T) {
	brokers := kafkatest.Start(t, kfake.SeedTopics(3, topics.TopicBridge))
	_, err := kafkalog.Open(ctxT(t), kafkalog.Config{Brokers: brokers})
	if !errors.Is(err, kafkalog.ErrPartitionMismatch) {
		t.Fatalf("open: %v, want ErrPartitionMismatch", err)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  kafkalog.Config
		ok   bool
	}{
		{"brokers only", kafkalog.Config{Brokers: []string{"localhost:9092"}}, true},
		{"no brokers", kafkalog.Config{}, false},
		{"empty broker", kafkalog.Config{Brokers: []string{""}}, false},
		{"acks unset means all", kafkalog.Config{Brokers: []string{"b:1"}, RequiredAcks: 0}, true},
		{"acks 2", kafkalog.Config{Brokers: []string{"b:1"}, RequiredAcks: 2}, false},
		{"message above batch", kafkalog.Config{Brokers: []string{"b:1"}, MaxMessageBytes: 10, BatchBytes: 5}, false},
		{"negative timeout", kafkalog.Config{Brokers: []string{"b:1"}, WriteTimeout: -time.Second}, false},
		{"heartbeat above session", kafkalog.Config{Brokers: []string{"b:1"}, HeartbeatInterval: time.Minute}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.cfg.Validate()
			if (err == nil) != c.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, c.ok)
			}
			if err != nil && !errors.Is(err, kafkalog.ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
		})
	}
}

func TestOpenFailsWithoutBroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := kafkalog.Open(ctx, kafkalog.Config{Brokers: []string{"127.0.0.1:1"}, RequestTimeout: time.Second})
	if err == nil {
		t.Fatal("open against a closed port succeeded")
	}
}

func TestAppendRetriesRetriableBrokerErrors(t *testing.T) {
	c := kafkatest.StartCluster(t)
	l := kafkatest.Open(t, kafkalog.Config{Brokers: c.ListenAddrs()})
	ctx := ctxT(t)
	// fail answers the next n produce requests with code; the control
	// function runs on the cluster's goroutine, the test reads after Append.
	var (
		mu    sync.Mutex
		n     int
		code  int16
		calls int
	)
	fail := func(times int, c int16) { mu.Lock(); n, code, calls = times, c, 0; mu.Unlock() }
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		if calls >= n {
			return nil, nil, false
		}
		calls++
		preq := req.(*kmsg.ProduceRequest)
		resp := preq.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range preq.Topics {
			t := kmsg.NewProduceResponseTopic()
			t.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				p := kmsg.NewProduceResponseTopicPartition()
				p.Partition = rp.Partition
				p.ErrorCode = code
				t.Partitions = append(t.Partitions, p)
			}
			resp.Topics = append(resp.Topics, t)
		}
		return resp, nil, true
	})

	fail(2, kerr.NotLeaderForPartition.Code) // as if the leader had moved twice
	pos, err := l.Append(ctx, topics.TopicClaims, topics.Message{Key: []byte("leaf"), Value: []byte("v")})
	if err != nil {
		t.Fatalf("append across two NotLeader answers: %v", err)
	}
	mu.Lock()
	if calls != 2 {
		t.Fatalf("%d injected failures, want 2", calls)
	}
	mu.Unlock()
	recs, err := l.Read(ctx, pos[0].Topic, pos[0].Partition, pos[0].Offset, 1)
	if err != nil || len(recs) != 1 || string(recs[0].Value) != "v" {
		t.Fatalf("read back %+v, %v", recs, err)
	}

	fail(1, kerr.TopicAuthorizationFailed.Code) // not retriable: one attempt
	if _, err := l.Append(ctx, topics.TopicClaims, topics.Message{Key: []byte("leaf"), Value: []byte("w")}); !errors.Is(err, kafka.TopicAuthorizationFailed) {
		t.Fatalf("append refused by the broker: %v, want TopicAuthorizationFailed", err)
	}

	fail(100, kerr.NotEnoughReplicas.Code) // retriable, but attempts run out
	if _, err := l.Append(ctx, topics.TopicClaims, topics.Message{Key: []byte("leaf"), Value: []byte("x")}); !errors.Is(err, kafka.NotEnoughReplicas) {
		t.Fatalf("append with replicas missing: %v, want NotEnoughReplicas", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 5 {
		t.Fatalf("%d attempts, want ProduceAttempts (5)", calls)
	}
}
