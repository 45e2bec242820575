package topics

import (
	"errors"
	"fmt"
	"hash/fnv"
)

// Topic names. Every topic bridgelog reads or writes is named here and
// nowhere else.
const (
	// TopicChain holds raw chain observations: contract logs, reorgs,
	// indexer cursor moves. Partitioned by chain log source key.
	TopicChain = "bridgelog.chain.v1"
	// TopicBridge holds deposit and withdrawal lifecycle events,
	// partitioned by the deposit or withdrawal id.
	TopicBridge = "bridgelog.bridge.v1"
	// TopicBatches holds the batch sequence of each settlement chain. One
	// partition key per sequence so one writer decides batch N+1.
	TopicBatches = "bridgelog.batches.v1"
	// TopicClaims holds claim intents and outcomes, partitioned by leaf so
	// that one consumer-group member owns a leaf at a time.
	TopicClaims = "bridgelog.claims.v1"
	// TopicSigning holds the two-phase signing protocol, partitioned by
	// signing event (stream) id.
	TopicSigning = "bridgelog.signing.v1"
	// TopicDeadLetter holds messages a handler could not process, with the
	// reason in their metadata.
	TopicDeadLetter = "bridgelog.deadletter.v1"
	// TopicBench holds synthetic events used by benchmarks and by the
	// generated demo log; production never writes it.
	TopicBench = "bridgelog.bench.v1"
)

// TopicSpec describes a topic's fixed shape.
type TopicSpec struct {
	Name       string
	Partitions int32
}

// DefaultPartitions is the partition count of the data topics. Changing it
// re-routes keys, so it is part of the log's format.
const DefaultPartitions = 6

// Topics lists every topic with its partition count.
var topicSpecs = []TopicSpec{
	{TopicChain, DefaultPartitions},
	{TopicBridge, DefaultPartitions},
	{TopicBatches, DefaultPartitions},
	{TopicClaims, DefaultPartitions},
	{TopicSigning, DefaultPartitions},
	{TopicDeadLetter, 1},
	{TopicBench, DefaultPartitions},
}

// Topics returns every topic bridgelog uses.
func Topics() []TopicSpec { return append([]TopicSpec(nil), topicSpecs...) }

// Spec returns the spec of a named topic.
func Spec(name string) (TopicSpec, error) {
	for _, s := range topicSpecs {
		if s.Name == name {
			return s, nil
		}
	}
	return TopicSpec{}, fmt.Errorf("%w: %q", ErrUnknownTopic, name)
}

// ErrUnknownTopic is returned for a topic name not in the catalog.
var ErrUnknownTopic = errors.New("unknown topic")

// PartitionFor maps a partition key onto one of n partitions. Both log
// engines use it, so a key lands in the same partition on either. It is
// FNV-1a, the same as kafka-go's and sarama's Hash balancers.
func PartitionFor(key []byte, n int32) int32 {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write(key)
	p := int32(h.Sum32()) % n
	if p < 0 {
		p = -p
	}
	return p
}
