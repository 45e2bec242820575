package memlog_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/topics"
)

// benchValueBytes is about the size of an encoded envelope.
const benchValueBytes = 250

// benchRecordsPerLog is how many records one simulated signer's log holds
// before the benchmark starts a fresh one, so memory stays bounded however
// large b.N gets.
const benchRecordsPerLog = 200_000

func benchMessages(n int) []topics.Message {
	msgs := make([]topics.Message, n)
	for i := range msgs {
		v := make([]byte, benchValueBytes)
		copy(v, fmt.Sprintf("value-%d", i))
		msgs[i] = topics.Message{Key: fmt.Appendf(nil, "stream-%d", i%1000), Value: v}
	}
	return msgs
}

// BenchmarkAppend measures one Append of batch messages; allocs/op is per
// Append. Growing the log (arena chunks, partition slices) is counted.
func BenchmarkAppend(b *testing.B) {
	msgs := benchMessages(1000)
	ctx := context.Background()
	for _, batch := range []int{1, 10} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			l := memlog.New(memlog.WithLogger(quiet))
			stored := 0
			b.ReportAllocs()
			b.SetBytes(int64(batch * benchValueBytes))
			for i := 0; i < b.N; i++ {
				if stored+batch > benchRecordsPerLog {
					b.StopTimer()
					_ = l.Close()
					l = memlog.New(memlog.WithLogger(quiet))
					stored = 0
					b.StartTimer()
				}
				off := (i * batch) % (len(msgs) - batch)
				if _, err := l.Append(ctx, topics.TopicSigning, msgs[off:off+batch]...); err != nil {
					b.Fatal(err)
				}
				stored += batch
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/record")
			_ = l.Close()
		})
	}
}

// BenchmarkRead measures one Read of up to max records from a partition of
// a log holding benchRecordsPerLog records; allocs/op is per Read.
func BenchmarkRead(b *testing.B) {
	l := memlog.New(memlog.WithLogger(quiet))
	defer l.Close()
	ctx := context.Background()
	msgs := benchMessages(1000)
	for i := 0; i < benchRecordsPerLog; i += len(msgs) {
		if _, err := l.Append(ctx, topics.TopicSigning, msgs...); err != nil {
			b.Fatal(err)
		}
	}
	ends, err := l.EndOffsets(ctx, topics.TopicSigning)
	if err != nil {
		b.Fatal(err)
	}
	const part = 0
	for _, limit := range []int{1, 100} {
		b.Run(fmt.Sprintf("max=%d", limit), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(limit * benchValueBytes))
			from := int64(0)
			for b.Loop() {
				if from+int64(limit) > ends[part] {
					from = 0
				}
				recs, err := l.Read(ctx, topics.TopicSigning, part, from, limit)
				if err != nil || len(recs) != limit {
					b.Fatalf("Read from %d: %d records, %v", from, len(recs), err)
				}
				from += int64(limit)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*limit), "ns/record")
		})
	}
}
