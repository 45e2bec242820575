package projections_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// TestDecodeChunkOrder: one partition holds 1,000 deposits with garbage
// records among them, so a read chunk is decoded on two goroutines (the
// runner splits chunks of 256 records and more). The first bad record in
// log order is the one reported, whichever half it is in; under the Skip
// policy the rows equal those of a catch-up that reads 64 records at a
// time (never split).
func TestDecodeChunkOrder(t *testing.T) {
	ctx := ctxT(t)
	build := func(t *testing.T, garbageAt ...int) (topics.Log, []topics.Position) {
		lg := embeddedLog(t)
		var bad []topics.Position
		for i := range 1000 {
			for _, g := range garbageAt {
				if g == i {
					pos, err := lg.Append(ctx, topics.TopicBridge, topics.Message{Key: []byte("one"), Value: []byte(fmt.Sprint("garbage ", i))})
					if err != nil {
						t.Fatal(err)
					}
					bad = append(bad, pos...)
				}
			}
			r := domain.LogRef{ChainID: 338, TxHash: domain.Hash32{0xcd, byte(i >> 8), byte(i)}, LogIndex: 1}
			env, topic, err := cat.Wrap(detected(r, uint64(i+1)), topics.Meta{OccurredAt: t0, RecordedAt: t0})
			if err != nil {
				t.Fatal(err)
			}
			msg, err := env.Message(topics.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			msg.Key = []byte("one") // every record in one partition
			if _, err := lg.Append(ctx, topic, msg); err != nil {
				t.Fatal(err)
			}
		}
		return lg, bad
	}
	for _, c := range []struct {
		name      string
		garbageAt []int
	}{
		{"bad records in both halves", []int{300, 800}},
		{"a bad record in the second half only", []int{900}},
		{"a bad record in the first half only", []int{10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lg, bad := build(t, c.garbageAt...)
			st, _ := sqliteStore(t)
			_, err := newRunner(t, lg, st, builtins()).CatchUp(ctx)
			var de *projections.DecodeError
			if !errors.As(err, &de) || de.Position != bad[0] {
				t.Fatalf("reject policy: %v, want a DecodeError at %+v", err, bad[0])
			}

			digest := func(opts ...projections.Option) (projections.Summary, []projections.Digest) {
				st, _ := sqliteStore(t)
				opts = append(opts, projections.WithPolicy(topics.Skip))
				r := newRunner(t, lg, st, builtins(), opts...)
				s := catchUp(t, r)
				ds, err := r.Digests(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return s, ds
			}
			s, split := digest()
			_, whole := digest(projections.WithReadChunk(64))
			if s.Skipped != int64(len(c.garbageAt)) || s.Applied["deposits@v1"] != 1000 {
				t.Fatalf("skip policy: %+v", s)
			}
			if fmt.Sprint(split) != fmt.Sprint(whole) {
				t.Fatalf("rows differ with split decoding:\n%v\n%v", split, whole)
			}
		})
	}
}
