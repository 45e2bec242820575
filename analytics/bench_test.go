package analytics_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// BenchmarkSink sinks a 200,000-event synthetic log into a fresh
// warehouse on a throwaway ClickHouse (same machine, so server and sink
// share the cores).
//
//	go test -run '^$' -bench BenchmarkSink -benchtime 1x -count 3 ./analytics/
func BenchmarkSink(b *testing.B) {
	const events = 200_000
	srv := chtest.Start(b)
	ctx := context.Background()
	lg, err := embeddedlog.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer lg.Close()
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: events, Seed: 1, AppendBatch: 5000}, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		wh, err := clickhouse.Open(ctx, srv.NewDB(b))
		if err != nil {
			b.Fatal(err)
		}
		if err := analytics.Migrate(ctx, wh, time.Now()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		st, err := analytics.NewSink(lg, wh, analytics.Config{Logger: quietLogger()}).CatchUp(ctx)
		if err != nil || st.Records != events {
			b.Fatalf("sank %+v, %v", st, err)
		}
		b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
		wh.Close()
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
