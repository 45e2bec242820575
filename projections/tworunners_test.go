package projections_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// testTwoRunners: two runners on one store (two processes by mistake, or
// `status` beside a relay) never both fold the same events. The one whose
// checkpoints are stale loses its commit with ErrCheckpointMoved, reloads
// and goes on; the rows equal a single runner's, duplicate counts included.
func testTwoRunners(t *testing.T, e env) {
	lg := e.newLog(t)
	ctx := ctxT(t)
	gen := func(seed uint64) {
		if _, err := synth.Generate(ctx, lg, synth.Config{Events: 1500, Seed: seed, AppendBatch: 100}, nil); err != nil {
			t.Fatal(err)
		}
	}
	gen(1)
	small := []projections.Option{projections.WithBatchSize(50), projections.WithCommitEvery(150),
		projections.WithPollInterval(5 * time.Millisecond)}
	st, reopen := e.newStore(t)
	a := newRunner(t, lg, st, builtins(), small...)
	b := newRunner(t, lg, reopen(), builtins(), small...)

	// b finds a's rows before it would load empty-looking tables from zero.
	catchUp(t, a)
	if s := catchUp(t, b); s.Applied["deposits@v1"] != 0 {
		t.Fatalf("b folded %d deposit events a had folded", s.Applied["deposits@v1"])
	}
	if got := indexes(t, st); !slices.Contains(got, "processed_events_v1_source_hash") {
		t.Fatalf("b dropped the indexes of tables a had filled: %v", got)
	}
	// b did not write those keys: it must still see a resent one as the
	// duplicate it is.
	tail, err := lg.EndOffsets(ctx, topics.TopicBridge)
	if err != nil {
		t.Fatal(err)
	}
	first, err := lg.Read(ctx, topics.TopicBridge, 0, tail[0]-1, 1)
	if err != nil || len(first) != 1 {
		t.Fatalf("read the last record of partition 0: %v", err)
	}
	if _, err := lg.Append(ctx, topics.TopicBridge, topics.Message{Key: first[0].Key, Value: first[0].Value}); err != nil {
		t.Fatal(err)
	}
	if s := catchUp(t, b); s.Records != 1 || s.Duplicates != 1 {
		t.Fatalf("b judged a resent event: %+v, want one duplicate", s)
	}
	// Now a is the stale one.
	if _, err := a.CatchUp(ctx); !errors.Is(err, projections.ErrCheckpointMoved) {
		t.Fatalf("a's catch-up after b's commit: %v, want ErrCheckpointMoved", err)
	}
	// Both have read the same checkpoints; a commits first, b's fold is stale.
	gen(2)
	catchUp(t, a)
	if _, err := b.CatchUp(ctx); !errors.Is(err, projections.ErrCheckpointMoved) {
		t.Fatalf("stale runner catch-up: %v, want ErrCheckpointMoved", err)
	}
	if s := catchUp(t, b); s.Records != 0 {
		t.Fatalf("after reloading, b folded %d records again", s.Records)
	}

	// Both follow while the log grows.
	fctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, r := range []*projections.Runner{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- r.Follow(fctx, nil)
		}()
	}
	for seed := uint64(3); seed <= 4; seed++ {
		gen(seed)
	}
	// A runner is not safe for concurrent use: an idle third one reads
	// the checkpoints both commit.
	watch := newRunner(t, lg, st, builtins())
	ends := map[string][]int64{}
	deadline := time.Now().Add(time.Minute)
	for {
		cps, err := watch.Checkpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		level := true
		for topic, offs := range cps {
			e, err := lg.EndOffsets(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			ends[topic] = e
			for p := range e {
				if offs[p] < e[p] {
					level = false
				}
			}
		}
		if level {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the runners did not catch up within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("follow: %v", err)
		}
	}

	// One runner alone on a fresh store.
	ref, _ := e.newStore(t)
	one := newRunner(t, lg, ref, builtins())
	if s := catchUp(t, one); s.Records != 6001 {
		t.Fatalf("reference folded %d records", s.Records)
	}
	want := digests(t, one)
	// a's runner may have lost its last race: read through a fresh one.
	got := digests(t, newRunner(t, lg, st, builtins()))
	for name, d := range want {
		if got[name] != d {
			t.Errorf("%s: two runners %s, one runner %s", name, got[name], d)
		}
	}
}
