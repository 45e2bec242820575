// Package kafkalog implements [topics.Log] on Apache Kafka with
// github.com/segmentio/kafka-go.
//
// Production runs against a real Apache Kafka cluster. The tests (and the
// dev broker in deploy/kfake) use kfake from franz-go, a Kafka-protocol
// fake that lives in one Go process: it speaks the same wire protocol, but
// it is a test fake, not a broker to keep data in.
//
// Shape of the implementation:
//   - Append produces each partition's share of a call with
//     kafka.Client.Produce, because kafka-go's Writer does not report the
//     offsets it wrote and Append must return positions. Routing is
//     [Balancer], which is [topics.PartitionFor], so a key lands in the
//     same partition here as on the embedded engine.
//   - Read is Fetch requests that never wait for data (an empty result
//     means the end); EndOffsets is one ListOffsets request.
//   - Subscribe is a kafka-go Reader with a GroupID (FetchMessage and
//     synchronous CommitMessages); it returns once the group is stable
//     with the new member in it. [Log.ResetGroupOffsets] moves a stopped
//     group back for replay.
//   - Topics are created with the catalog's partition counts, deletion
//     cleanup and unlimited retention; a topic whose partition count
//     differs from the catalog is refused ([ErrPartitionMismatch]).
//
// Every request runs under a context deadline from [Config].
package kafkalog
