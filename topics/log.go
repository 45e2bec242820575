package topics

import (
	"context"
	"errors"
	"time"
)

// Message is what a producer hands to [Log.Append]: the partition is
// chosen from Key with [PartitionFor].
type Message struct {
	Key   []byte
	Value []byte
}

// Position is where a record sits in the log.
type Position struct {
	Topic     string
	Partition int32
	Offset    int64
}

// Record is one message read back from the log.
type Record struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	Time      time.Time // when the engine stored it
}

// Position returns where r sits.
func (r Record) Position() Position {
	return Position{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
}

// Log is an append-only, partitioned log: the embedded engine and Kafka
// both implement it, so every handler and projection runs on either.
//
// Guarantees: an Append that returned nil is durable (on disk for the
// embedded engine, acknowledged by all in-sync replicas for Kafka) and
// its messages are in key order within their partitions. Offsets within
// a partition are dense and start at 0 on the embedded engine; Kafka
// offsets are increasing but may have gaps.
type Log interface {
	// Append writes msgs to topic and returns each one's position, in the
	// order given. Either all messages are durable or an error is returned
	// (the embedded engine never half-writes a batch; a Kafka error may
	// leave a prefix written, which source-key idempotency absorbs).
	Append(ctx context.Context, topic string, msgs ...Message) ([]Position, error)
	// Read returns up to max records of one partition starting at offset
	// from; an empty slice means from is at the end.
	Read(ctx context.Context, topic string, partition int32, from int64, max int) ([]Record, error)
	// EndOffsets returns, per partition, the offset the next append will get.
	EndOffsets(ctx context.Context, topic string) ([]int64, error)
	// Subscribe joins consumer group group on topic. Members of one group
	// split the partitions; each partition has one member at a time.
	Subscribe(ctx context.Context, topic, group string) (Subscription, error)
	// Close releases the engine's resources.
	Close() error
}

// Subscription is one member of a consumer group.
type Subscription interface {
	// Fetch blocks until a record is available on a partition assigned to
	// this member, or ctx ends. Records of one partition come in order.
	Fetch(ctx context.Context) (Record, error)
	// Commit marks records as processed: a restarted member resumes after
	// the highest committed offset of each partition.
	Commit(ctx context.Context, recs ...Record) error
	// Close leaves the group; its partitions go to the remaining members.
	Close() error
}

// Errors shared by the engines.
var (
	ErrClosed        = errors.New("log closed")
	ErrOffsetRange   = errors.New("offset out of range")
	ErrCorrupt       = errors.New("log corrupt")
	ErrBadPartition  = errors.New("no such partition")
	ErrValueTooLarge = errors.New("message over size bound")
)
