package analytics_test

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

const benchEvents = 200_000

var benchBatch = flag.Int("sink.batch", 0, "records per insert of BenchmarkSinkVsRawInsert, sink and raw alike (0: the sink's default)")

// syntheticLog is a log of events synthetic events.
func syntheticLog(b *testing.B, ctx context.Context, events int) topics.Log {
	b.Helper()
	lg, err := embeddedlog.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lg.Close() })
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: events, Seed: 1, AppendBatch: 5000}, nil); err != nil {
		b.Fatal(err)
	}
	return lg
}

// BenchmarkRowOf decodes one record into its row: the sink's own work per
// event, without a server.
//
//	go test -run '^$' -bench BenchmarkRowOf ./analytics/
func BenchmarkRowOf(b *testing.B) {
	const events = 20_000
	ctx := context.Background()
	recs := logRecords(b, ctx, syntheticLog(b, ctx, events))
	cat := topics.DefaultCatalog()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		analytics.RowOf(cat, &recs[i%len(recs)])
	}
}

// measured is a run's events per second of wall time, and the
// microseconds of this process's CPU time it took per event (the
// server's is not in it).
type measured struct{ perSecond, cpuPerEvent float64 }

// measure times run.
func measure(b *testing.B, run func()) measured {
	b.Helper()
	cpu0, start := cpuTime(b), time.Now()
	run()
	wall, cpu := time.Since(start), cpuTime(b)-cpu0
	return measured{float64(benchEvents) / wall.Seconds(), float64(cpu.Microseconds()) / benchEvents}
}

// cpuTime is the user and system time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sinkOnce sinks lg into a fresh warehouse, batch records per insert (0:
// the sink's default).
func sinkOnce(b *testing.B, ctx context.Context, srv *chtest.Server, lg topics.Log, batch int) measured {
	b.Helper()
	wh := newWarehouse(b, srv)
	return measure(b, func() {
		st, err := analytics.NewSink(lg, wh, analytics.Config{Batch: batch, Logger: quietLogger()}).CatchUp(ctx)
		if err != nil || st.Records != benchEvents {
			b.Fatalf("sank %+v, %v", st, err)
		}
	})
}

// BenchmarkSink sinks a 200,000-event synthetic log into a fresh
// warehouse on a throwaway ClickHouse (same machine, so server and sink
// share the cores).
//
//	go test -run '^$' -bench 'BenchmarkSink$' -benchtime 1x -count 3 ./analytics/
func BenchmarkSink(b *testing.B) {
	srv := chtest.Start(b)
	ctx := context.Background()
	lg := syntheticLog(b, ctx, benchEvents)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		m := sinkOnce(b, ctx, srv, lg, 0)
		b.ReportMetric(m.perSecond, "events/s")
		b.ReportMetric(m.cpuPerEvent, "client-cpu-µs/event")
	}
}

// sinkVsRawRuns counts the runs of BenchmarkSinkVsRawInsert in this process.
var sinkVsRawRuns int

// BenchmarkSinkVsRawInsert measures, in one run on one server, the sink
// and a plain clickhouse-go batch insert of the same rows (computed with
// RowOf before the clock starts: each record's event row, audit copy and
// keys; PrepareBatch, Append per row, Send, three batches per batch of
// the sink's default size or -sink.batch), each into a fresh
// database. The ratio of their events/s (sink/raw) is what the sink costs
// over the insert itself: reading the log, decoding, the checkpoints. The
// two take turns at going first from one run to the next (-count), as the
// server merges the parts of the one before in the background.
// client-cpu-µs/event is this process's CPU time per event, which other
// work on the machine disturbs less than wall time.
//
//	go test -run '^$' -bench BenchmarkSinkVsRawInsert -benchtime 1x -count 5 ./analytics/
func BenchmarkSinkVsRawInsert(b *testing.B) {
	batch := *benchBatch
	if batch == 0 {
		batch = analytics.DefaultBatch
	}
	srv := chtest.Start(b)
	ctx := context.Background()
	lg := syntheticLog(b, ctx, benchEvents)
	rows := allRows(b, ctx, lg)
	b.ResetTimer()
	var sink, raw measured
	for n := 0; n < b.N; n++ {
		if sinkVsRawRuns++; sinkVsRawRuns%2 == 1 {
			sink, raw = sinkOnce(b, ctx, srv, lg, batch), rawInsertOnce(b, ctx, srv, rows, batch)
		} else {
			raw, sink = rawInsertOnce(b, ctx, srv, rows, batch), sinkOnce(b, ctx, srv, lg, batch)
		}
		b.ReportMetric(sink.perSecond, "sink-events/s")
		b.ReportMetric(raw.perSecond, "raw-events/s")
		b.ReportMetric(sink.perSecond/raw.perSecond, "ratio")
		b.ReportMetric(sink.cpuPerEvent, "sink-client-cpu-µs/event")
		b.ReportMetric(raw.cpuPerEvent, "raw-client-cpu-µs/event")
	}
}

// allRows are the rows of every record of lg.
func allRows(b *testing.B, ctx context.Context, lg topics.Log) []analytics.Row {
	b.Helper()
	cat := topics.DefaultCatalog()
	recs := logRecords(b, ctx, lg)
	rows := make([]analytics.Row, len(recs))
	for i := range recs {
		rows[i] = analytics.RowOf(cat, &recs[i])
	}
	if len(rows) != benchEvents {
		b.Fatalf("%d rows from a log of %d events", len(rows), benchEvents)
	}
	return rows
}

// logRecords are every record of lg.
func logRecords(b *testing.B, ctx context.Context, lg topics.Log) []topics.Record {
	b.Helper()
	var out []topics.Record
	for _, t := range topics.Topics() {
		ends, err := lg.EndOffsets(ctx, t.Name)
		if err != nil {
			b.Fatal(err)
		}
		for p, end := range ends {
			for from := int64(0); from < end; {
				recs, err := lg.Read(ctx, t.Name, int32(p), from, 20000)
				if err != nil {
					b.Fatal(err)
				}
				out = append(out, recs...)
				from = recs[len(recs)-1].Offset + 1
			}
		}
	}
	return out
}

// rawInsertOnce inserts rows into a fresh warehouse with plain
// clickhouse-go batches of batchSize rows: the same rows the sink writes,
// each record's event row, its audit copy and its keys.
func rawInsertOnce(b *testing.B, ctx context.Context, srv *chtest.Server, rows []analytics.Row, batchSize int) measured {
	b.Helper()
	dsn := srv.NewDB(b)
	warehouseAt(b, dsn) // the schema
	conn := chtest.Open(b, dsn)
	return measure(b, func() { rawInsert(b, ctx, conn, rows, batchSize) })
}

func rawInsert(b *testing.B, ctx context.Context, conn driver.Conn, rows []analytics.Row, batchSize int) {
	events := "INSERT INTO " + analytics.EventsTable + " (" + strings.Join(analytics.EventColumns, ", ") + ")"
	copies := "INSERT INTO " + analytics.AuditEventsTable + " (" + strings.Join(analytics.AuditEventColumns, ", ") + ")"
	keys := "INSERT INTO " + analytics.KeysTable + " (key, kind, topic, log_partition, log_offset)"
	for len(rows) > 0 {
		n := min(batchSize, len(rows))
		rawBatch(b, ctx, conn, events, rows[:n], func(r *analytics.Row, add func(...any)) {
			add(r.Topic, r.Partition, r.Offset, r.EventID, r.Type, r.SchemaVersion, r.SourceKey,
				r.AggregateID, r.CorrelationID, r.CausationID, r.OccurredAt, r.RecordedAt,
				r.OccurredMs, r.RecordedMs, r.ChainID, r.TxHash, r.GasUsed, r.Status, r.Reason, r.IsError,
				r.Payload, r.DecodeError)
		})
		rawBatch(b, ctx, conn, copies, rows[:n], func(r *analytics.Row, add func(...any)) {
			add(r.Topic, r.Partition, r.Offset, r.RecordedAt, r.RecordedMs, r.Type, r.SourceKey, r.EventID,
				r.AggregateID, r.CorrelationID, r.Payload, r.DecodeError)
		})
		rawBatch(b, ctx, conn, keys, rows[:n], func(r *analytics.Row, add func(...any)) {
			for _, k := range r.Keys {
				add(k.Key, k.Kind, r.Topic, r.Partition, r.Offset)
			}
		})
		rows = rows[n:]
	}
}

// rawBatch sends one plain batch of the values each row gives.
func rawBatch(b *testing.B, ctx context.Context, conn driver.Conn, insert string, rows []analytics.Row,
	values func(r *analytics.Row, add func(...any))) {
	batch, err := conn.PrepareBatch(ctx, insert)
	if err != nil {
		b.Fatal(err)
	}
	add := func(v ...any) {
		if err := batch.Append(v...); err != nil {
			b.Fatal(err)
		}
	}
	for i := range rows {
		values(&rows[i], add)
	}
	if err := batch.Send(); err != nil {
		b.Fatal(err)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
