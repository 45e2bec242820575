package kafkalog

import (
	"github.com/segmentio/kafka-go"

	"github.com/bridgelog/bridgelog/topics"
)

// Balancer routes a message by [topics.PartitionFor] of its key, so a key
// lands in the same partition on Kafka as on the embedded engine. It is
// what Append uses, and it can be given to a kafka-go Writer.
//
// It assumes partitions lists every partition of the topic, 0..n-1, as the
// Writer passes them; the partition count is part of the log's format.
type Balancer struct{}

// Balance implements kafka.Balancer.
func (Balancer) Balance(msg kafka.Message, partitions ...int) int {
	if len(partitions) == 0 {
		return 0
	}
	return partitions[topics.PartitionFor(msg.Key, int32(len(partitions)))]
}

var _ kafka.Balancer = Balancer{}
