package watermilllog_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/watermilllog"
	"github.com/bridgelog/bridgelog/topics"
)

// TestConsumerHandsRecordsAndDeadLettersRefusals: a consumer hands each
// record of its topic to the handler with its position, and says why a
// record is not an envelope; a record the handler keeps refusing goes to
// the dead-letter topic with the handler's error. Consume returns nil when
// its context ends.
func TestConsumerHandsRecordsAndDeadLettersRefusals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, l topics.Log) {
		ctx := ctxT(t)
		_, good := envelope(t, "claim.requested", "leaf-1", "claim-1", "")
		for _, v := range [][]byte{good, []byte("not an envelope")} {
			if _, err := l.Append(ctx, topics.TopicClaims, topics.Message{Key: []byte("leaf-1"), Value: v}); err != nil {
				t.Fatal(err)
			}
		}
		var (
			mu        sync.Mutex
			handled   = map[int64]int{}
			malformed = map[int64]string{}
		)
		run, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- watermilllog.Consumer{Log: l, Topic: topics.TopicClaims, Logger: quiet}.Consume(run, "claimers",
				func(_ context.Context, rec topics.Record, bad string) error {
					mu.Lock()
					defer mu.Unlock()
					handled[rec.Offset]++
					if bad != "" {
						malformed[rec.Offset] = bad
						return errors.New("refused: " + bad)
					}
					return nil
				})
		}()
		deadline := time.Now().Add(30 * time.Second)
		for len(readAll(t, l, topics.TopicDeadLetter)) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		if err := <-done; err != nil {
			t.Fatalf("Consume after its context ended: %v, want nil", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if handled[0] != 1 || malformed[0] != "" {
			t.Errorf("the envelope was handled %d times (malformed %q), want once", handled[0], malformed[0])
		}
		if handled[1] != 4 || malformed[1] == "" {
			t.Errorf("the garbage was handled %d times (malformed %q), want 4 (3 retries) with a reason", handled[1], malformed[1])
		}
		letters := readAll(t, l, topics.TopicDeadLetter)
		if len(letters) != 1 {
			t.Fatalf("%d dead letters, want 1", len(letters))
		}
		d, err := watermilllog.DecodeDeadLetter(letters[0].Value, topics.Limits{})
		if err != nil || d.Reason() != "refused: "+malformed[1] {
			t.Fatalf("dead letter reason %q (%v), want the handler's error", d.Reason(), err)
		}
	})
}
