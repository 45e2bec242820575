package kafkalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/bridgelog/bridgelog/topics"
)

// ErrPartitionMismatch means a topic exists with a partition count other
// than the catalog's: keys would route differently than on the embedded
// engine, so the log refuses to use it.
var ErrPartitionMismatch = errors.New("kafkalog: topic partition count differs from the catalog")

// Log is a [topics.Log] on a Kafka cluster. It is safe for concurrent use.
type Log struct {
	cfg       Config
	log       *slog.Logger
	transport *kafka.Transport
	client    *kafka.Client

	mu    sync.Mutex
	parts map[string][]int // partition ids of each topic seen, 0..n-1
	subs  map[*subscription]struct{}

	closed atomic.Bool
}

var _ topics.Log = (*Log)(nil)

// Open connects to the cluster and, unless cfg.SkipEnsureTopics, creates
// the catalog's topics that do not exist yet. It fails if no broker answers
// within cfg.RequestTimeout.
func Open(ctx context.Context, cfg Config) (*Log, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	transport := &kafka.Transport{
		ClientID:    cfg.ClientID,
		DialTimeout: cfg.DialTimeout,
		// A topic another process created shows up within a second.
		MetadataTTL: time.Second,
	}
	l := &Log{
		cfg:       cfg,
		log:       cfg.Logger.With("component", "kafkalog"),
		transport: transport,
		client:    &kafka.Client{Addr: kafka.TCP(cfg.Brokers...), Transport: transport},
		parts:     make(map[string][]int),
		subs:      make(map[*subscription]struct{}),
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
	defer cancel()
	if _, err := l.client.Metadata(rctx, &kafka.MetadataRequest{Topics: []string{}}); err != nil {
		transport.CloseIdleConnections()
		return nil, fmt.Errorf("kafkalog: connect to %v: %w", cfg.Brokers, err)
	}
	if !cfg.SkipEnsureTopics {
		if err := l.EnsureTopics(ctx); err != nil {
			transport.CloseIdleConnections()
			return nil, err
		}
	}
	l.log.Info("kafka log open", "brokers", cfg.Brokers, "client_id", cfg.ClientID)
	return l, nil
}

// EnsureTopics creates every topic of [topics.Topics] that does not exist,
// with the catalog's partition count, and checks that existing ones have
// that count.
func (l *Log) EnsureTopics(ctx context.Context) error {
	specs := topics.Topics()
	ctx, cancel := context.WithTimeout(ctx, l.cfg.RequestTimeout)
	defer cancel()
	if err := l.createTopics(ctx, specs...); err != nil {
		return err
	}
	for _, s := range specs {
		if _, err := l.lookup(ctx, s.Name, s.Partitions); err != nil {
			return err
		}
	}
	return nil
}

func (l *Log) createTopics(ctx context.Context, specs ...topics.TopicSpec) error {
	req := &kafka.CreateTopicsRequest{}
	for _, s := range specs {
		req.Topics = append(req.Topics, kafka.TopicConfig{
			Topic:             s.Name,
			NumPartitions:     int(s.Partitions),
			ReplicationFactor: l.cfg.ReplicationFactor,
			// The log is the source of truth: never compact it (that drops
			// superseded events) and never expire it (Kafka's default
			// retention is 7 days).
			ConfigEntries: []kafka.ConfigEntry{
				{ConfigName: "cleanup.policy", ConfigValue: "delete"},
				{ConfigName: "retention.ms", ConfigValue: "-1"},
			},
		})
	}
	res, err := l.client.CreateTopics(ctx, req)
	if err != nil {
		return fmt.Errorf("kafkalog: create topics: %w", err)
	}
	for _, s := range specs {
		switch err := res.Errors[s.Name]; {
		case err == nil:
			l.log.Info("topic created", "topic", s.Name, "partitions", s.Partitions)
		case errors.Is(err, kafka.TopicAlreadyExists):
		default:
			return fmt.Errorf("kafkalog: create topic %s: %w", s.Name, err)
		}
	}
	return nil
}

// partitions returns the partition ids of topic, creating the topic if it
// is allowed to and missing.
func (l *Log) partitions(ctx context.Context, topic string) ([]int, error) {
	l.mu.Lock()
	ids, ok := l.parts[topic]
	l.mu.Unlock()
	if ok {
		return ids, nil
	}
	want := l.cfg.DefaultPartitions
	if spec, err := topics.Spec(topic); err == nil {
		want = spec.Partitions
	} else if !l.cfg.AllowUnknownTopics {
		return nil, fmt.Errorf("kafkalog: %w", err)
	}
	if !l.cfg.SkipEnsureTopics {
		if err := l.createTopics(ctx, topics.TopicSpec{Name: topic, Partitions: want}); err != nil {
			return nil, err
		}
	}
	return l.lookup(ctx, topic, want)
}

// lookup reads topic's partition count from metadata, waiting for a topic
// that was just created to appear, and caches it.
func (l *Log) lookup(ctx context.Context, topic string, want int32) ([]int, error) {
	var lastErr error
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		md, err := l.client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
		switch {
		case err != nil:
			lastErr = err
		case len(md.Topics) != 1:
			lastErr = fmt.Errorf("metadata for %d topics", len(md.Topics))
		case md.Topics[0].Error != nil:
			lastErr = md.Topics[0].Error
		default:
			n := len(md.Topics[0].Partitions)
			if n != int(want) {
				return nil, fmt.Errorf("%w: %s has %d partitions, want %d", ErrPartitionMismatch, topic, n, want)
			}
			ids := make([]int, n)
			for i := range ids {
				ids[i] = i
			}
			l.mu.Lock()
			l.parts[topic] = ids
			l.mu.Unlock()
			return ids, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("kafkalog: metadata of %s: %w (last: %v)", topic, ctx.Err(), lastErr)
		case <-time.After(delay):
		}
	}
}

// Append implements [topics.Log]. Each partition's messages go out as one
// or more produce requests in order, partitions in parallel; the offsets
// come from the brokers' produce responses.
func (l *Log) Append(ctx context.Context, topic string, msgs ...topics.Message) ([]topics.Position, error) {
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	for i, m := range msgs {
		if size := len(m.Key) + len(m.Value); size > l.cfg.MaxMessageBytes {
			l.cfg.Metrics.Rejected(topic, "too_large")
			return nil, fmt.Errorf("%w: %s message %d of %d is %d bytes, bound %d",
				topics.ErrValueTooLarge, topic, i, len(msgs), size, l.cfg.MaxMessageBytes)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.WriteTimeout)
	defer cancel()
	ids, err := l.partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	byPart := make([][]int, len(ids))
	var b Balancer
	for i, m := range msgs {
		p := b.Balance(kafka.Message{Key: m.Key}, ids...)
		byPart[p] = append(byPart[p], i)
	}
	pos := make([]topics.Position, len(msgs))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for p, idx := range byPart {
		if len(idx) == 0 {
			continue
		}
		if len(idx) == len(msgs) { // one partition: no goroutine needed
			errs[p] = l.producePartition(ctx, topic, p, msgs, idx, pos)
			break
		}
		wg.Go(func() { errs[p] = l.producePartition(ctx, topic, p, msgs, idx, pos) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pos, nil
}

// recordOverhead approximates a record's header bytes in a batch, so that
// a request's estimate stays above its real size.
const recordOverhead = 32

func (l *Log) producePartition(ctx context.Context, topic string, p int, msgs []topics.Message, idx []int, pos []topics.Position) error {
	now := time.Now()
	chunk := make([]topics.Message, 0, min(len(idx), l.cfg.BatchSize))
	for start := 0; start < len(idx); {
		chunk = chunk[:0]
		bytes := 0
		end := start
		for end < len(idx) && len(chunk) < l.cfg.BatchSize {
			m := msgs[idx[end]]
			size := len(m.Key) + len(m.Value) + recordOverhead
			if len(chunk) > 0 && bytes+size > l.cfg.BatchBytes {
				break
			}
			bytes += size
			chunk = append(chunk, m)
			end++
		}
		res, err := l.produce(ctx, topic, p, chunk, now)
		if err != nil {
			// Earlier chunks of this partition stay written: the Log
			// contract allows a prefix, which source-key idempotency absorbs.
			return fmt.Errorf("kafkalog: produce %d records to %s/%d: %w", end-start, topic, p, mapErr(err))
		}
		for j := start; j < end; j++ {
			pos[idx[j]] = topics.Position{Topic: topic, Partition: int32(p), Offset: res.BaseOffset + int64(j-start)}
		}
		start = end
	}
	return nil
}

// produce sends msgs as one produce request, again on a retriable broker
// error while attempts and ctx last.
func (l *Log) produce(ctx context.Context, topic string, p int, msgs []topics.Message, now time.Time) (*kafka.ProduceResponse, error) {
	delay := 50 * time.Millisecond
	records := make([]kafka.Record, len(msgs))
	for attempt := 1; ; attempt++ {
		// Fresh records each attempt: kafka.Bytes are readers, and the
		// failed attempt has read them to the end.
		for i, m := range msgs {
			records[i] = kafka.Record{Time: now, Key: bytesOrNil(m.Key), Value: bytesOrNil(m.Value)}
		}
		res, err := l.client.Produce(ctx, &kafka.ProduceRequest{
			Topic:        topic,
			Partition:    p,
			RequiredAcks: kafka.RequiredAcks(l.cfg.RequiredAcks),
			Records:      kafka.NewRecordReader(records...),
		})
		if err == nil && res.Error != nil {
			err = res.Error
		}
		if err == nil && len(res.RecordErrors) > 0 {
			for i, rerr := range res.RecordErrors {
				err = fmt.Errorf("record %d: %w", i, rerr)
				break
			}
		}
		if err == nil {
			return res, nil
		}
		var kerr kafka.Error
		if attempt >= l.cfg.ProduceAttempts || !errors.As(err, &kerr) || !kerr.Temporary() {
			return nil, err
		}
		l.log.Warn("produce failed, retrying", "topic", topic, "partition", p, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (after %d attempts, last: %w)", ctx.Err(), attempt, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

func bytesOrNil(b []byte) kafka.Bytes {
	if b == nil {
		return nil
	}
	return kafka.NewBytes(b)
}

// mapErr adds the [topics] error a Kafka error stands for, keeping the
// original in the chain.
func mapErr(err error) error {
	switch {
	case errors.Is(err, kafka.MessageSizeTooLarge), errors.Is(err, kafka.RecordListTooLarge):
		return fmt.Errorf("%w: %w", topics.ErrValueTooLarge, err)
	case errors.Is(err, kafka.OffsetOutOfRange):
		return fmt.Errorf("%w: %w", topics.ErrOffsetRange, err)
	case errors.Is(err, kafka.UnknownTopicOrPartition):
		return fmt.Errorf("%w: %w", topics.ErrBadPartition, err)
	}
	return err
}

// Read implements [topics.Log] with Fetch requests that do not wait for
// data: at the end of the partition it returns an empty slice at once.
//
// kafka-go decodes every record batch of a fetch response into a 64 KiB
// page, so asking for far more bytes than max records need makes a small
// Read cost megabytes; each request asks for about what the remaining
// records should take, by the sizes seen so far, and Read repeats until it
// has max records, reaches the end, or has read FetchMaxBytes.
func (l *Log) Read(ctx context.Context, topic string, partition int32, from int64, max int) ([]topics.Record, error) {
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.RequestTimeout)
	defer cancel()
	ids, err := l.partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	if partition < 0 || int(partition) >= len(ids) {
		return nil, fmt.Errorf("%w: %s/%d, topic has %d", topics.ErrBadPartition, topic, partition, len(ids))
	}
	if from < 0 {
		return nil, fmt.Errorf("%w: %s/%d offset %d", topics.ErrOffsetRange, topic, partition, from)
	}
	if max <= 0 {
		return nil, nil
	}
	var out []topics.Record
	next, budget, avg := from, l.cfg.FetchMaxBytes, 256
	for len(out) < max && budget > 0 {
		want := min(budget, (max-len(out))*avg)
		recs, size, end, err := l.fetch(ctx, topic, partition, next, want, max-len(out))
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]topics.Record, 0, min(max, int(max64(end-from, 0))))
		}
		out = append(out, recs...)
		if len(recs) == 0 || recs[len(recs)-1].Offset+1 >= end {
			break
		}
		next = recs[len(recs)-1].Offset + 1
		budget -= size
		avg = size/len(recs) + 1
	}
	if out == nil {
		out = []topics.Record{}
	}
	return out, nil
}

// fetch sends one Fetch for up to maxBytes from offset from and returns
// up to max records at or after it, their key and value bytes, and the
// partition's high watermark.
func (l *Log) fetch(ctx context.Context, topic string, partition int32, from int64, maxBytes, max int) ([]topics.Record, int, int64, error) {
	res, err := l.client.Fetch(ctx, &kafka.FetchRequest{
		Topic:     topic,
		Partition: int(partition),
		Offset:    from,
		MinBytes:  0, // answer at once, even with nothing to return
		MaxBytes:  int64(maxBytes),
		MaxWait:   l.cfg.FetchMaxWait,
	})
	if err != nil {
		return nil, 0, 0, fmt.Errorf("kafkalog: fetch %s/%d@%d: %w", topic, partition, from, mapErr(err))
	}
	if res.Error != nil {
		return nil, 0, 0, fmt.Errorf("kafkalog: fetch %s/%d@%d (log %d..%d): %w",
			topic, partition, from, res.LogStartOffset, res.HighWatermark, mapErr(res.Error))
	}
	var out []topics.Record
	size := 0
	for len(out) < max {
		r, err := res.Records.ReadRecord()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("kafkalog: read %s/%d@%d: %w", topic, partition, from, err)
		}
		if r.Offset < from { // a batch may start before the offset asked for
			closeBytes(r.Key, r.Value)
			continue
		}
		key, kerr := kafka.ReadAll(r.Key)
		value, verr := kafka.ReadAll(r.Value)
		closeBytes(r.Key, r.Value)
		if err := errors.Join(kerr, verr); err != nil {
			return nil, 0, 0, fmt.Errorf("kafkalog: read %s/%d@%d: %w", topic, partition, r.Offset, err)
		}
		size += len(key) + len(value) + recordOverhead
		out = append(out, topics.Record{
			Topic: topic, Partition: partition, Offset: r.Offset,
			Key: key, Value: value, Time: r.Time,
		})
	}
	return out, size, res.HighWatermark, nil
}

// closeBytes hands the pages holding a record's key and value back to
// kafka-go's pool; records left unread are reclaimed by the GC instead.
func closeBytes(bs ...kafka.Bytes) {
	for _, b := range bs {
		if b != nil {
			_ = b.Close()
		}
	}
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// EndOffsets implements [topics.Log] with one ListOffsets request.
func (l *Log) EndOffsets(ctx context.Context, topic string) ([]int64, error) {
	if l.closed.Load() {
		return nil, topics.ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.RequestTimeout)
	defer cancel()
	ids, err := l.partitions(ctx, topic)
	if err != nil {
		return nil, err
	}
	reqs := make([]kafka.OffsetRequest, len(ids))
	for i, p := range ids {
		reqs[i] = kafka.LastOffsetOf(p)
	}
	res, err := l.client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
	if err != nil {
		return nil, fmt.Errorf("kafkalog: list offsets of %s: %w", topic, err)
	}
	out := make([]int64, len(ids))
	seen := 0
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			return nil, fmt.Errorf("kafkalog: end offset of %s/%d: %w", topic, p.Partition, mapErr(p.Error))
		}
		if p.Partition < 0 || p.Partition >= len(out) {
			return nil, fmt.Errorf("kafkalog: list offsets of %s: unexpected partition %d", topic, p.Partition)
		}
		out[p.Partition] = p.LastOffset
		seen++
	}
	if seen != len(ids) {
		return nil, fmt.Errorf("kafkalog: list offsets of %s: %d of %d partitions answered", topic, seen, len(ids))
	}
	return out, nil
}

// Close closes the open subscriptions (each leaves its group) and the
// connections.
func (l *Log) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	l.mu.Lock()
	subs := make([]*subscription, 0, len(l.subs))
	for s := range l.subs {
		subs = append(subs, s)
	}
	l.mu.Unlock()
	var errs []error
	for _, s := range subs {
		errs = append(errs, s.Close())
	}
	l.transport.CloseIdleConnections()
	l.log.Info("kafka log closed")
	return errors.Join(errs...)
}
