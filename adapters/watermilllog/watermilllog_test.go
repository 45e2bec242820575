package watermilllog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/adapters/watermilllog"
	"github.com/bridgelog/bridgelog/topics"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// engines are the log engines every test runs on.
var engines = []struct {
	name string
	open func(t *testing.T) topics.Log
}{
	{"embedded", func(t *testing.T) topics.Log {
		l, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		return l
	}},
	{"kafka", func(t *testing.T) topics.Log {
		return kafkatest.Open(t, kafkalog.Config{Logger: quiet})
	}},
}

func forEachEngine(t *testing.T, fn func(t *testing.T, l topics.Log)) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { fn(t, e.open(t)) })
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func envelope(t *testing.T, typ, partitionKey, aggregate, correlation string) (*topics.Envelope, []byte) {
	t.Helper()
	e := &topics.Envelope{
		ID: topics.NewID(), Type: typ, SchemaVersion: 1,
		SourceKey: "test:" + aggregate, AggregateID: aggregate, PartitionKey: partitionKey,
		CorrelationID: correlation, OccurredAt: time.Unix(1700000000, 0).UTC(),
		Payload: []byte{0x80},
	}
	b, err := topics.EncodeEnvelope(e, topics.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return e, b
}

// readAll returns every record of topic, partition by partition.
func readAll(t *testing.T, l topics.Log, topic string) []topics.Record {
	t.Helper()
	ends, err := l.EndOffsets(ctxT(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []topics.Record
	for p, end := range ends {
		for from := int64(0); from < end; {
			recs, err := l.Read(ctxT(t), topic, int32(p), from, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) == 0 {
				break
			}
			out = append(out, recs...)
			from = recs[len(recs)-1].Offset + 1
		}
	}
	return out
}

func receive(t *testing.T, ch <-chan *message.Message) *message.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription channel closed")
		}
		return m
	case <-time.After(30 * time.Second):
		t.Fatal("no message within 30s")
		return nil
	}
}

// joinGroup subscribes a new member of cfg's group to topic; it leaves
// when the test ends.
func joinGroup(t *testing.T, l topics.Log, cfg watermilllog.Config, topic string) <-chan *message.Message {
	t.Helper()
	sub, err := watermilllog.NewSubscriber(l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	ch, err := sub.Subscribe(ctxT(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestPublishSubscribeRoundTrip(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l topics.Log) {
		ctx := ctxT(t)
		pub, err := watermilllog.NewPublisher(l, watermilllog.Config{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		e1, b1 := envelope(t, "deposit.observed", "dep-1", "dep-1", "flow-1")
		e2, b2 := envelope(t, "deposit.observed", "dep-2", "dep-2", "")
		e3, b3 := envelope(t, "deposit.observed", "dep-3", "dep-3", "")
		m2 := message.NewMessage("m2", b2)
		m2.Metadata.Set(watermilllog.MetaCorrelationID, "flow-2") // fills the empty envelope field
		if err := pub.Publish(topics.TopicBridge, message.NewMessage("m1", b1), m2, message.NewMessage("m3", b3)); err != nil {
			t.Fatal(err)
		}

		// The log holds plain envelopes, routed by partition key.
		onLog := map[string]topics.Envelope{}
		for _, r := range readAll(t, l, topics.TopicBridge) {
			env, err := topics.DecodeEnvelope(r.Value)
			if err != nil {
				t.Fatalf("record %v is not an envelope: %v", r.Position(), err)
			}
			if r.Partition != topics.PartitionFor([]byte(env.PartitionKey), topics.DefaultPartitions) || string(r.Key) != env.PartitionKey {
				t.Fatalf("envelope %s with key %q at %v", env.ID, r.Key, r.Position())
			}
			if env.ID == e1.ID && !bytes.Equal(r.Value, b1) {
				t.Fatalf("an envelope needing no change was re-encoded")
			}
			onLog[env.ID] = env
		}
		if len(onLog) != 3 || onLog[e2.ID].CorrelationID != "flow-2" || onLog[e1.ID].CorrelationID != "flow-1" || onLog[e3.ID].CorrelationID != "" {
			t.Fatalf("log holds %+v", onLog)
		}

		sub, err := watermilllog.NewSubscriber(l, watermilllog.Config{ConsumerGroup: "roundtrip", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		ch, err := sub.Subscribe(ctx, topics.TopicBridge)
		if err != nil {
			t.Fatal(err)
		}
		wantCorr := map[string]string{e1.ID: "flow-1", e2.ID: "flow-2", e3.ID: e3.ID}
		for range 3 {
			m := receive(t, ch)
			env, err := topics.DecodeEnvelope(m.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if m.UUID != env.ID || m.Metadata.Get(watermilllog.MetaEnvelopeID) != env.ID ||
				m.Metadata.Get(watermilllog.MetaEventType) != "deposit.observed" ||
				m.Metadata.Get(watermilllog.MetaPartitionKey) != env.PartitionKey ||
				m.Metadata.Get(watermilllog.MetaLogTopic) != topics.TopicBridge ||
				m.Metadata.Get(watermilllog.MetaLogOffset) == "" {
				t.Fatalf("message %s metadata %v", m.UUID, m.Metadata)
			}
			if got := m.Metadata.Get(watermilllog.MetaCorrelationID); got != wantCorr[env.ID] {
				t.Fatalf("message %s correlation id %q, want %q", m.UUID, got, wantCorr[env.ID])
			}
			delete(wantCorr, env.ID)
			m.Ack()
		}
		if len(wantCorr) != 0 {
			t.Fatalf("not received: %v", wantCorr)
		}
	})
}

func TestNackRedeliversInOrderAndAckCommits(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l topics.Log) {
		ctx := ctxT(t)
		pub, err := watermilllog.NewPublisher(l, watermilllog.Config{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i := range 3 {
			e, b := envelope(t, "claim.intent", "leaf-7", "leaf-7", "")
			ids = append(ids, e.ID)
			if err := pub.Publish(topics.TopicClaims, message.NewMessage(fmt.Sprint(i), b)); err != nil {
				t.Fatal(err)
			}
		}
		cfg := watermilllog.Config{ConsumerGroup: "nack", Logger: quiet, NackResendDelay: time.Millisecond}
		sub, err := watermilllog.NewSubscriber(l, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := sub.Subscribe(ctx, topics.TopicClaims)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ack := range []bool{false, false, true, true, false, true} {
			m := receive(t, ch)
			got = append(got, m.UUID)
			if ack {
				m.Ack()
			} else {
				m.Nack()
			}
		}
		want := []string{ids[0], ids[0], ids[0], ids[1], ids[2], ids[2]}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("deliveries %v, want %v", got, want)
		}
		if err := sub.Close(); err != nil {
			t.Fatal(err)
		}
		if _, ok := <-ch; ok {
			t.Fatal("channel still open after Close")
		}

		// A new member of the group starts after the acked messages.
		e4, b4 := envelope(t, "claim.intent", "leaf-7", "leaf-7", "")
		if err := pub.Publish(topics.TopicClaims, message.NewMessage("4", b4)); err != nil {
			t.Fatal(err)
		}
		if m := receive(t, joinGroup(t, l, cfg, topics.TopicClaims)); m.UUID != e4.ID {
			t.Fatalf("after restart got %s, want the unacked %s", m.UUID, e4.ID)
		}
	})
}

func TestPublishRefusesBadPayloads(t *testing.T) {
	l := engines[0].open(t)
	rec := &countingMetrics{}
	pub, err := watermilllog.NewPublisher(l, watermilllog.Config{Logger: quiet, Metrics: rec})
	if err != nil {
		t.Fatal(err)
	}
	_, noKey := envelope(t, "deposit.observed", "", "dep-1", "")
	cases := []struct {
		name    string
		payload []byte
		want    error
	}{
		{"not an envelope", []byte("hello"), topics.ErrMalformed},
		{"no partition key", noKey, watermilllog.ErrNoPartitionKey},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := pub.Publish(topics.TopicBridge, message.NewMessage("x", c.payload))
			if !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}
	if rec.count() != 2 {
		t.Fatalf("malformed counter %d, want 2", rec.count())
	}
	if recs := readAll(t, l, topics.TopicBridge); len(recs) != 0 {
		t.Fatalf("%d records appended by refused publishes", len(recs))
	}
	// The dead-letter topic takes anything: a malformed record must not be lost.
	m := message.NewMessage("x", []byte("hello"))
	m.Metadata.Set("reason_poisoned", "bad bytes")
	if err := pub.Publish(topics.TopicDeadLetter, m); err != nil {
		t.Fatal(err)
	}
	dl := readAll(t, l, topics.TopicDeadLetter)
	if len(dl) != 1 {
		t.Fatalf("%d dead letters", len(dl))
	}
	d, err := watermilllog.DecodeDeadLetter(dl[0].Value, topics.Limits{})
	if err != nil || d.Reason() != "bad bytes" || string(d.Payload) != "hello" {
		t.Fatalf("dead letter %+v, %v", d, err)
	}
}

type countingMetrics struct {
	mu sync.Mutex
	n  int
}

func (m *countingMetrics) Malformed(string, string) { m.mu.Lock(); m.n++; m.mu.Unlock() }
func (m *countingMetrics) count() int               { m.mu.Lock(); defer m.mu.Unlock(); return m.n }

func TestDeadLetterFrameRejectsGarbage(t *testing.T) {
	good, err := watermilllog.EncodeDeadLetter(watermilllog.DeadLetter{Metadata: map[string]string{"a": "b"}, Payload: []byte("p")})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"empty":     nil,
		"envelope":  func() []byte { _, b := envelope(t, "x", "k", "a", ""); return b }(),
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte(nil), good...), 0),
	} {
		if _, err := watermilllog.DecodeDeadLetter(b, topics.Limits{}); !errors.Is(err, topics.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

func TestRouterRetriesThenDeadLetters(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l topics.Log) {
		ctx := ctxT(t)
		pub, err := watermilllog.NewPublisher(l, watermilllog.Config{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		sub, err := watermilllog.NewSubscriber(l, watermilllog.Config{ConsumerGroup: "claimer", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		const maxRetries = 2
		router, err := watermilllog.NewRouter(watermilllog.RouterConfig{
			DeadLetters: pub, MaxRetries: maxRetries,
			InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond,
		}, quiet)
		if err != nil {
			t.Fatal(err)
		}
		var (
			mu       sync.Mutex
			attempts = map[string]int{}
		)
		router.AddHandler("claim-deposits", topics.TopicBridge, sub, topics.TopicClaims, pub,
			func(m *message.Message) ([]*message.Message, error) {
				mu.Lock()
				attempts[m.UUID]++
				mu.Unlock()
				in, err := topics.DecodeEnvelope(m.Payload)
				if err != nil {
					return nil, fmt.Errorf("decode %s: %w", m.Metadata.Get(watermilllog.MetaMalformed), err)
				}
				if in.AggregateID == "poison" {
					return nil, errors.New("cannot process poison")
				}
				if in.AggregateID == "panic" {
					panic("handler bug")
				}
				// The output envelope has no correlation id of its own: it
				// must come from the input through the middleware.
				_, out := envelope(t, "claim.intent", in.PartitionKey, in.AggregateID, "")
				return []*message.Message{message.NewMessage(topics.NewID(), out)}, nil
			})

		var inputs []*message.Message
		corr := map[string]string{} // aggregate -> correlation id
		for i := range 5 {
			agg := fmt.Sprintf("dep-%d", i)
			corr[agg] = fmt.Sprintf("flow-%d", i)
			_, b := envelope(t, "deposit.observed", agg, agg, corr[agg])
			inputs = append(inputs, message.NewMessage(agg, b))
		}
		poison, poisonBytes := envelope(t, "deposit.observed", "dep-poison", "poison", "flow-p")
		_, panicBytes := envelope(t, "deposit.observed", "dep-panic", "panic", "")
		inputs = append(inputs, message.NewMessage("p", poisonBytes), message.NewMessage("q", panicBytes))
		if err := pub.Publish(topics.TopicBridge, inputs...); err != nil {
			t.Fatal(err)
		}
		// A record that is not an envelope, appended behind the publisher's back.
		garbage, err := l.Append(ctx, topics.TopicBridge, topics.Message{Key: []byte("dep-0"), Value: []byte("garbage")})
		if err != nil {
			t.Fatal(err)
		}

		runErr := make(chan error, 1)
		go func() { runErr <- router.Run(ctx) }()
		<-router.Running()

		var claims, dead []topics.Record
		for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			claims, dead = readAll(t, l, topics.TopicClaims), readAll(t, l, topics.TopicDeadLetter)
			if len(claims) >= 5 && len(dead) >= 3 {
				break
			}
		}
		if err := router.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-runErr; err != nil {
			t.Fatal(err)
		}
		if err := sub.Close(); err != nil {
			t.Fatal(err)
		}
		if len(claims) != 5 || len(dead) != 3 {
			t.Fatalf("%d claims and %d dead letters, want 5 and 3", len(claims), len(dead))
		}
		for _, r := range claims {
			env, err := topics.DecodeEnvelope(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			if env.CorrelationID != corr[env.AggregateID] {
				t.Errorf("claim for %s has correlation id %q, want %q", env.AggregateID, env.CorrelationID, corr[env.AggregateID])
			}
		}
		for _, r := range dead {
			d, err := watermilllog.DecodeDeadLetter(r.Value, topics.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Metadata["topic_poisoned"] != topics.TopicBridge || d.Metadata["handler_poisoned"] != "claim-deposits" {
				t.Errorf("dead letter metadata %v", d.Metadata)
			}
			switch {
			case bytes.Equal(d.Payload, poisonBytes):
				if !strings.Contains(d.Reason(), "cannot process poison") || d.Metadata[watermilllog.MetaEnvelopeID] != poison.ID {
					t.Errorf("poison dead letter: reason %q metadata %v", d.Reason(), d.Metadata)
				}
			case bytes.Equal(d.Payload, panicBytes):
				if !strings.Contains(d.Reason(), "handler bug") {
					t.Errorf("panic dead letter reason %q", d.Reason())
				}
			case string(d.Payload) == "garbage":
				if !strings.Contains(d.Reason(), topics.ErrMalformed.Error()) ||
					d.Metadata[watermilllog.MetaLogOffset] != fmt.Sprint(garbage[0].Offset) {
					t.Errorf("garbage dead letter: reason %q metadata %v", d.Reason(), d.Metadata)
				}
			default:
				t.Errorf("unexpected dead letter %q", d.Payload)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if attempts[poison.ID] != maxRetries+1 {
			t.Errorf("poison handled %d times, want %d", attempts[poison.ID], maxRetries+1)
		}
	})
}

// TestRouterStopMidHandlerIsNotPoison: a handler still working when the
// router closes gives up with its context's error; that message is not
// retried, not dead-lettered and not committed, so the group's next
// member gets it again.
func TestRouterStopMidHandlerIsNotPoison(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l topics.Log) {
		ctx := ctxT(t)
		pub, err := watermilllog.NewPublisher(l, watermilllog.Config{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		e, b := envelope(t, "claim.requested", "leaf-1", "leaf-1", "")
		if err := pub.Publish(topics.TopicClaims, message.NewMessage(e.ID, b)); err != nil {
			t.Fatal(err)
		}
		cfg := watermilllog.Config{ConsumerGroup: "stopper", Logger: quiet}
		sub, err := watermilllog.NewSubscriber(l, cfg)
		if err != nil {
			t.Fatal(err)
		}
		router, err := watermilllog.NewRouter(watermilllog.RouterConfig{DeadLetters: pub, InitialInterval: time.Millisecond}, quiet)
		if err != nil {
			t.Fatal(err)
		}
		entered := make(chan struct{}, 10)
		var calls atomic.Int32
		router.AddConsumerHandler("slow", topics.TopicClaims, sub, func(m *message.Message) error {
			calls.Add(1)
			entered <- struct{}{}
			<-m.Context().Done() // working until the router stops
			return fmt.Errorf("claim interrupted: %w", m.Context().Err())
		})
		runCtx, stop := context.WithCancel(ctx)
		runErr := make(chan error, 1)
		go func() { runErr <- router.Run(runCtx) }()
		select {
		case <-entered:
		case <-ctx.Done():
			t.Fatal("handler never called")
		}
		stop()
		if err := router.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-runErr; err != nil {
			t.Fatal(err)
		}
		if n := calls.Load(); n != 1 {
			t.Fatalf("handler called %d times: a stopped handler was retried", n)
		}
		if dl := readAll(t, l, topics.TopicDeadLetter); len(dl) != 0 {
			t.Fatalf("%d dead letters: a stopped handler's message was poisoned", len(dl))
		}
		if m := receive(t, joinGroup(t, l, cfg, topics.TopicClaims)); m.UUID != e.ID {
			t.Fatalf("next member got %s, want the interrupted %s again", m.UUID, e.ID)
		}
	})
}
