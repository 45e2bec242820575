package kafkalog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/topics"
)

// TestLargestEnvelopeFits: an envelope at the codec's size bound, with the
// longest partition key, is accepted by the Kafka engine's default bound,
// so nothing the codec accepts is refused by one engine only.
func TestLargestEnvelopeFits(t *testing.T) {
	key := strings.Repeat("k", 4096)
	env := topics.Envelope{ID: topics.NewID(), Type: "bench.large", PartitionKey: key}
	raw, err := topics.EncodeEnvelope(&env, topics.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	env.Payload = make([]byte, topics.DefaultMaxEnvelopeBytes-len(raw)-8)
	raw, err = topics.EncodeEnvelope(&env, topics.Limits{})
	if err != nil {
		t.Fatalf("envelope just under the bound refused: %v", err)
	}
	lg := kafkatest.Open(t, kafkalog.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pos, err := lg.Append(ctx, topics.TopicBench, topics.Message{Key: []byte(key), Value: raw})
	if err != nil {
		t.Fatalf("a %d-byte envelope with a %d-byte key refused by the Kafka engine: %v", len(raw), len(key), err)
	}
	recs, err := lg.Read(ctx, topics.TopicBench, pos[0].Partition, pos[0].Offset, 1)
	if err != nil || len(recs) != 1 || len(recs[0].Value) != len(raw) {
		t.Fatalf("read back: %d records, %v", len(recs), err)
	}
}
