package kafkalog_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/topics"
)

// BenchmarkKafkaProduceConsume appends benchEvents events of ~250 bytes in
// batches of benchBatch, then reads every one back with Read, per
// partition in parallel, against an in-process kfake broker. events/s
// counts each event once for its produce and consume together.
func BenchmarkKafkaProduceConsume(b *testing.B) {
	const (
		benchEvents = 200_000
		benchBatch  = 10_000
	)
	l := kafkatest.Open(b, kafkalog.Config{})
	ctx := context.Background()
	msgs := make([]topics.Message, benchEvents)
	for i := range msgs {
		value := make([]byte, 250-20)
		copy(value, fmt.Sprintf("event %d", i))
		msgs[i] = topics.Message{Key: fmt.Appendf(nil, "aggregate-%06d", i%5000), Value: value}
	}
	b.SetBytes(250 * benchEvents)
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime(b)
	var produceTime, consumeTime time.Duration
	for range b.N {
		t0 := time.Now()
		from, err := l.EndOffsets(ctx, topics.TopicBench)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(msgs); i += benchBatch {
			if _, err := l.Append(ctx, topics.TopicBench, msgs[i:min(i+benchBatch, len(msgs))]...); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		produceTime += t1.Sub(t0)
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			total int
		)
		for p := range from {
			wg.Go(func() {
				n := 0
				for off := from[p]; ; {
					recs, err := l.Read(ctx, topics.TopicBench, int32(p), off, 50_000)
					if err != nil {
						b.Error(err)
						return
					}
					if len(recs) == 0 {
						break
					}
					n += len(recs)
					off = recs[len(recs)-1].Offset + 1
				}
				mu.Lock()
				total += n
				mu.Unlock()
			})
		}
		wg.Wait()
		consumeTime += time.Since(t1)
		if total != benchEvents {
			b.Fatalf("consumed %d of %d events", total, benchEvents)
		}
	}
	events := float64(b.N * benchEvents)
	// CPU per event (client and in-process broker together) is steadier
	// than wall-clock rates on a machine shared with other work.
	b.ReportMetric(float64((cpuTime(b)-cpuStart).Nanoseconds())/events, "cpu-ns/event")
	b.ReportMetric(events/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(events/produceTime.Seconds(), "produced/s")
	b.ReportMetric(events/consumeTime.Seconds(), "consumed/s")
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkKafkaGroupConsume consumes benchEvents ~250-byte events through
// one consumer-group member (Subscription.Fetch), committing every 1000th,
// which is how handlers and projections read.
func BenchmarkKafkaGroupConsume(b *testing.B) {
	const benchEvents = 200_000
	l := kafkatest.Open(b, kafkalog.Config{})
	ctx := context.Background()
	msgs := make([]topics.Message, 10_000)
	for i := range msgs {
		msgs[i] = topics.Message{Key: fmt.Appendf(nil, "aggregate-%06d", i%5000), Value: make([]byte, 230)}
	}
	for range b.N {
		for i := 0; i < benchEvents; i += len(msgs) {
			if _, err := l.Append(ctx, topics.TopicBench, msgs...); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(250 * benchEvents)
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime(b)
	sub, err := l.Subscribe(ctx, topics.TopicBench, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	for i := range b.N * benchEvents {
		rec, err := sub.Fetch(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := sub.Commit(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
	}
	events := float64(b.N * benchEvents)
	b.ReportMetric(events/time.Since(start).Seconds(), "events/s")
	b.ReportMetric(float64((cpuTime(b)-cpuStart).Nanoseconds())/events, "cpu-ns/event")
}
