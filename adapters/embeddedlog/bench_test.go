package embeddedlog

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// benchEnvelope is a typical envelope (about 250 bytes encoded).
func benchEnvelope(i int) topics.Message {
	agg := fmt.Sprintf("dep-%08d", i%100000)
	e := &topics.Envelope{
		ID: topics.NewID(), Type: "bench.synthetic", SchemaVersion: 1,
		SourceKey:   fmt.Sprintf("evm:338:0x%040x:%d", i, i%7),
		AggregateID: agg, PartitionKey: agg,
		CausationID: topics.NewID(), CorrelationID: topics.NewID(),
		OccurredAt: time.Unix(1700000000, int64(i)).UTC(), RecordedAt: time.Unix(1700000001, int64(i)).UTC(),
		Payload: make([]byte, 40),
	}
	b, err := topics.EncodeEnvelope(e, topics.Limits{})
	if err != nil {
		panic(err)
	}
	return topics.Message{Key: []byte(agg), Value: b}
}

func benchMessages(n int) []topics.Message {
	msgs := make([]topics.Message, n)
	for i := range msgs {
		msgs[i] = benchEnvelope(i)
	}
	return msgs
}

// BenchmarkAppend measures durable appends (each returns after fsync).
// Batches spread over all partitions of the topic; "writers" Appends run
// concurrently and share fsync rounds.
func BenchmarkAppend(b *testing.B) {
	msgs := benchMessages(10000)
	b.Logf("envelope size %d bytes", len(msgs[0].Value))
	for _, c := range []struct{ batch, writers int }{{1, 1}, {1, 16}, {100, 1}, {100, 4}, {1000, 1}} {
		b.Run(fmt.Sprintf("batch=%d/writers=%d", c.batch, c.writers), func(b *testing.B) {
			l, err := Open(b.TempDir(), WithLogger(quiet))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			ctx := context.Background()
			var events int64
			var mu sync.Mutex
			b.SetBytes(int64(len(msgs[0].Value) * c.batch))
			start := time.Now()
			// b.Loop cannot be shared by goroutines: split the b.N batches.
			n := b.N
			var wg sync.WaitGroup
			for w := range c.writers {
				wg.Go(func() {
					done := int64(0)
					for i := w; i < n; i += c.writers {
						off := (i * c.batch) % (len(msgs) - c.batch)
						if _, err := l.Append(ctx, topics.TopicBench, msgs[off:off+c.batch]...); err != nil {
							b.Error(err)
							return
						}
						done += int64(c.batch)
					}
					mu.Lock()
					events += done
					mu.Unlock()
				})
			}
			wg.Wait()
			b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// scanDir holds 1M pre-written envelopes, shared by every run of
// BenchmarkScanDecode in this process.
var scanDir struct {
	once sync.Once
	dir  string
	err  error
}

const scanRecords = 1_000_000

func scanFixture(b *testing.B) string {
	scanDir.once.Do(func() {
		dir, err := os.MkdirTemp("", "embeddedlog-scan-")
		if err != nil {
			scanDir.err = err
			return
		}
		scanDir.dir = dir
		l, err := Open(dir, WithLogger(quiet))
		if err != nil {
			scanDir.err = err
			return
		}
		defer l.Close()
		msgs := benchMessages(10000)
		for i := 0; i < scanRecords; i += 5000 {
			if _, err := l.Append(context.Background(), topics.TopicBench, msgs[(i/5000%2)*5000:][:5000]...); err != nil {
				scanDir.err = err
				return
			}
		}
	})
	if scanDir.err != nil {
		b.Fatal(scanDir.err)
	}
	return scanDir.dir
}

// BenchmarkScanDecode reads 1M records from the start of every partition
// and decodes each value with topics.Decoder: one goroutine per partition
// ("parallel", as consumers of a group do) or one for all ("serial").
// scan-only skips the decode to show the log's own share. The lower-case
// modes use Read (a fresh buffer per call); the "Scan-" modes use
// Log.Scan, which reuses one buffer (the replay fast path).
func BenchmarkScanDecode(b *testing.B) {
	dir := scanFixture(b)
	l, err := Open(dir, WithLogger(quiet))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	end, err := l.EndOffsets(ctx, topics.TopicBench)
	if err != nil {
		b.Fatal(err)
	}
	// scanFast uses Log.Scan, which reuses its buffer (records valid
	// only inside the callback): the replay path.
	scanFast := func(p int32, decode bool) (int64, error) {
		d := topics.NewDecoder(topics.Limits{})
		var e topics.Envelope
		var n int64
		_, err := l.Scan(ctx, topics.TopicBench, p, 0, func(r topics.Record) error {
			n++
			if decode {
				return d.Decode(r.Value, &e)
			}
			return nil
		})
		return n, err
	}
	scan := func(p int32, decode bool) (int64, error) {
		d := topics.NewDecoder(topics.Limits{})
		var e topics.Envelope
		var n int64
		for off := int64(0); off < end[p]; {
			recs, err := l.Read(ctx, topics.TopicBench, p, off, 4096)
			if err != nil {
				return n, err
			}
			for i := range recs {
				if decode {
					if err := d.Decode(recs[i].Value, &e); err != nil {
						return n, err
					}
				}
			}
			n += int64(len(recs))
			off = recs[len(recs)-1].Offset + 1
		}
		return n, nil
	}
	for _, mode := range []string{"parallel", "serial", "scan-only", "Scan-parallel", "Scan-serial", "Scan-only"} {
		b.Run(mode, func(b *testing.B) {
			var events int64
			start := time.Now()
			for b.Loop() {
				var wg sync.WaitGroup
				counts := make([]int64, len(end))
				for p := range int32(len(end)) {
					run := func() {
						do := scan
						if strings.HasPrefix(mode, "Scan") {
							do = scanFast
						}
						n, err := do(p, !strings.HasSuffix(mode, "only"))
						if err != nil {
							b.Error(err)
						}
						counts[p] = n
					}
					if strings.HasSuffix(mode, "parallel") {
						wg.Go(run)
					} else {
						run()
					}
				}
				wg.Wait()
				for _, n := range counts {
					events += n
				}
			}
			if events < scanRecords {
				b.Fatalf("scanned %d records, want at least %d", events, scanRecords)
			}
			b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
		})
	}
	// decode-only: topics.Decoder alone on values already in memory (one
	// goroutine), the ceiling for the serial mode.
	b.Run("decode-only", func(b *testing.B) {
		recs, err := l.Read(ctx, topics.TopicBench, 0, 0, 100_000)
		if err != nil {
			b.Fatal(err)
		}
		d := topics.NewDecoder(topics.Limits{})
		var e topics.Envelope
		var events int64
		start := time.Now()
		for b.Loop() {
			for i := range recs {
				if err := d.Decode(recs[i].Value, &e); err != nil {
					b.Fatal(err)
				}
			}
			events += int64(len(recs))
		}
		b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
	})
}
