// Package watermilllog runs Watermill (github.com/ThreeDotsLabs/watermill)
// on any [topics.Log], so the same handlers, middleware and router work on
// the embedded engine and on Kafka.
//
// Mapping between a Watermill message and a log record:
//   - The message payload is an encoded [topics.Envelope]; the record's
//     value is exactly those bytes, so projections reading the log with
//     [topics.Log.Read] see plain envelopes.
//   - The record key, and so the partition, is the envelope's
//     PartitionKey. Metadata never routes: a key living in two places
//     could disagree, and the envelope is what every engine stores.
//   - On the way in, metadata gets the envelope's id, type, partition key
//     and correlation id (the envelope's own id when it has none, so a
//     flow's first event names the flow) plus the record's position; the
//     message UUID is the envelope id.
//   - On the way out, a correlation id in metadata fills an envelope that
//     has none; other metadata is not stored, except on the dead-letter
//     topic, where the record is a [DeadLetter] frame holding all metadata
//     (the poison queue's reason) and the payload.
//
// Delivery is at least once and in order per partition: a subscriber
// hands out one message at a time, commits it when it is acked, and hands
// the same record out again when it is nacked.
package watermilllog

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Metadata keys set on subscribed messages.
const (
	MetaEnvelopeID    = "envelope_id"
	MetaEventType     = "event_type"
	MetaPartitionKey  = "partition_key"
	MetaCorrelationID = "correlation_id" // = middleware.CorrelationIDMetadataKey
	MetaLogTopic      = "log_topic"
	MetaLogPartition  = "log_partition"
	MetaLogOffset     = "log_offset"
	// MetaMalformed carries the decoding error of a record that is not a
	// valid envelope; such a record is still delivered (with the raw bytes
	// as payload) so that it fails its handler and reaches the dead-letter
	// topic instead of vanishing.
	MetaMalformed = "malformed"
)

// Errors.
var (
	ErrConfig = errors.New("watermilllog: invalid config")
	// ErrNoPartitionKey is returned for an envelope without PartitionKey:
	// its partition, and so its order, would be arbitrary.
	ErrNoPartitionKey = errors.New("watermilllog: envelope has no partition key")
	// ErrClosed is returned by a closed publisher or subscriber.
	ErrClosed = errors.New("watermilllog: closed")
)

// Config configures [NewPublisher] and [NewSubscriber]; the zero value
// works for a publisher, a subscriber needs ConsumerGroup.
type Config struct {
	// ConsumerGroup is the group every Subscribe joins.
	ConsumerGroup string
	// DeadLetterTopic is where messages are stored as [DeadLetter] frames;
	// default [topics.TopicDeadLetter].
	DeadLetterTopic string
	// PublishTimeout bounds one Publish (Watermill's Publish takes no
	// context). Default 30s.
	PublishTimeout time.Duration
	// CommitTimeout bounds committing one acked message. Default 10s.
	CommitTimeout time.Duration
	// NackResendDelay is the pause before a nacked message is delivered
	// again, so a failing handler does not spin. Default 100ms.
	NackResendDelay time.Duration
	// FetchRetryDelay is the pause after a failed fetch; it doubles up to
	// ten times this. Default 100ms.
	FetchRetryDelay time.Duration
	// Limits bounds the envelopes Publish accepts and Subscribe decodes.
	Limits topics.Limits
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics defaults to no metrics.
	Metrics Metrics
}

// Metrics counts bad input. Implementations must be safe for concurrent use.
type Metrics interface {
	// Malformed counts one record or payload that is not a valid envelope
	// (or dead-letter frame), on topic; dir is "publish" or "subscribe".
	Malformed(topic, dir string)
}

type noMetrics struct{}

func (noMetrics) Malformed(string, string) {}

func (c *Config) setDefaults() {
	if c.DeadLetterTopic == "" {
		c.DeadLetterTopic = topics.TopicDeadLetter
	}
	if c.PublishTimeout == 0 {
		c.PublishTimeout = 30 * time.Second
	}
	if c.CommitTimeout == 0 {
		c.CommitTimeout = 10 * time.Second
	}
	if c.NackResendDelay == 0 {
		c.NackResendDelay = 100 * time.Millisecond
	}
	if c.FetchRetryDelay == 0 {
		c.FetchRetryDelay = 100 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Metrics == nil {
		c.Metrics = noMetrics{}
	}
}

// Validate says what is wrong with c after defaults; subscriber says
// whether c is for a subscriber (which needs a group).
func (c Config) Validate(subscriber bool) error {
	c.setDefaults()
	var errs []error
	if subscriber && c.ConsumerGroup == "" {
		errs = append(errs, fmt.Errorf("%w: no ConsumerGroup", ErrConfig))
	}
	for name, d := range map[string]time.Duration{
		"PublishTimeout": c.PublishTimeout, "CommitTimeout": c.CommitTimeout,
		"NackResendDelay": c.NackResendDelay, "FetchRetryDelay": c.FetchRetryDelay,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%w: %s is negative (%s)", ErrConfig, name, d))
		}
	}
	return errors.Join(errs...)
}
