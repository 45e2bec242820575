package analytics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// stalledWarehouse holds every insert of events until release is closed,
// saying on held when one is waiting: a ClickHouse that does not answer.
type stalledWarehouse struct {
	analytics.Warehouse
	held    chan struct{}
	release chan struct{}
}

func (w *stalledWarehouse) InsertColumns(ctx context.Context, table string, cols []string, values []any) error {
	if table == analytics.EventsTable {
		select {
		case w.held <- struct{}{}:
		default:
		}
		<-w.release
	}
	return w.Warehouse.InsertColumns(ctx, table, cols, values)
}

// downWarehouse fails every insert as a refused connection does.
type downWarehouse struct{ analytics.Warehouse }

func (downWarehouse) InsertColumns(context.Context, string, []string, []any) error { return errDropped }

// TestSinkNeverBlocksTheWriter: the sink reads an embedded log its
// writer (a relay, a signer) holds open and appends to, the way
// `analytics sink` does (embeddedlog.OpenReadOnly: no lock, no writes).
// While the sink is stuck in an insert of a ClickHouse that does not
// answer, and while ClickHouse is down, the writer appends on (rolling
// segments the sink has open), and what the sink missed it writes once
// ClickHouse is back.
func TestSinkNeverBlocksTheWriter(t *testing.T) {
	srv := chtest.Start(t)
	ctx := ctxT(t)
	dir := t.TempDir()
	writer, err := embeddedlog.Open(dir, embeddedlog.WithSegmentBytes(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	seed := uint64(100)
	appendEvents := func() {
		t.Helper()
		seed++
		if _, err := synth.Generate(ctx, writer, synth.Config{Events: 500, Seed: seed, InFlight: 50}, nil); err != nil {
			t.Fatalf("the writer's append: %v", err)
		}
	}
	// appendWhile appends ten rounds while the sink is stuck, failing if
	// the writer cannot.
	appendWhile := func(what string) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 10 {
				appendEvents()
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("the writer could not append in a minute while %s", what)
		}
	}
	appendEvents()
	reader, err := embeddedlog.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	wh := newWarehouse(t, srv)

	stalled := &stalledWarehouse{Warehouse: wh, held: make(chan struct{}, 1), release: make(chan struct{})}
	sunk := make(chan error, 1)
	go func() {
		_, err := analytics.NewSink(reader, stalled, analytics.Config{Batch: 300, Logger: quietLogger()}).CatchUp(ctx)
		sunk <- err
	}()
	<-stalled.held
	appendWhile("the sink waited on ClickHouse")
	close(stalled.release)
	if err := <-sunk; err != nil {
		t.Fatalf("the sink after ClickHouse answered: %v", err)
	}

	down := analytics.NewSink(reader, downWarehouse{wh}, analytics.Config{Attempts: 2, Logger: quietLogger()})
	if _, err := down.CatchUp(ctx); !errors.Is(err, errDropped) {
		t.Fatalf("sinking into a ClickHouse that is down: %v, want the network's error", err)
	}
	appendWhile("ClickHouse was down")

	if _, err := analytics.NewSink(reader, wh, analytics.Config{Logger: quietLogger()}).CatchUp(ctx); err != nil {
		t.Fatalf("the sink once ClickHouse is back: %v", err)
	}
	if got, want := countFinal(t, wh, "FINAL"), uint64(len(readLog(t, writer))); got != want {
		t.Fatalf("the warehouse holds %d events, the writer's log %d", got, want)
	}
	appendEvents() // the writer is still fit to append
}
