package embeddedlog

// Metrics receives the engine's counters. Implementations must be safe for
// concurrent use; the zero Option set uses a no-op.
type Metrics interface {
	// TailTruncated counts a torn tail dropped at open (bytes removed).
	TailTruncated(topic string, partition int32, bytes int64)
	// CorruptionFound counts damage inside fsynced data (at open or read).
	CorruptionFound(topic string, partition int32)
	// AppendRejected counts a message refused before writing (reason is a
	// stable word such as "value_too_large").
	AppendRejected(topic, reason string)
	// GroupCommitted counts one fsync round and the records it made durable.
	GroupCommitted(topic string, records int)
}

type nopMetrics struct{}

func (nopMetrics) TailTruncated(string, int32, int64) {}
func (nopMetrics) CorruptionFound(string, int32)      {}
func (nopMetrics) AppendRejected(string, string)      {}
func (nopMetrics) GroupCommitted(string, int)         {}
