package kafkalog

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// ErrConfig is wrapped by every error [Config.Validate] returns.
var ErrConfig = errors.New("kafkalog: invalid config")

// Config configures [Open]. Only Brokers must be set; every other field
// has a default filled in by setDefaults.
type Config struct {
	// Brokers are the bootstrap addresses, host:port.
	Brokers []string
	// ClientID names this process in broker logs and quotas.
	ClientID string

	// DialTimeout bounds opening a connection to a broker.
	DialTimeout time.Duration
	// RequestTimeout bounds metadata, list-offsets, fetch, commit and
	// topic-creation requests.
	RequestTimeout time.Duration
	// WriteTimeout bounds one Append: every produce request it sends.
	WriteTimeout time.Duration
	// ProduceAttempts is how many times one produce request is sent when
	// the broker answers with a retriable error (leader moved, not enough
	// replicas, ...). A retry may duplicate records the broker wrote before
	// failing; the Log contract lets source-key idempotency absorb that.
	ProduceAttempts int

	// FetchMaxWait is how long a group member's fetch waits on the broker
	// when its partitions have no new record (data that arrives ends the
	// wait at once), and the longest pause between its retries.
	//
	// There is deliberately no BatchTimeout (linger): Append sends its
	// messages at once through kafka.Client.Produce rather than kafka-go's
	// Writer, whose default 1 s BatchTimeout makes every synchronous
	// append wait a second. An Append call is the batch.
	FetchMaxWait time.Duration
	// BatchSize is the most records one produce request carries; a larger
	// Append is split into several requests per partition, sent in order.
	BatchSize int
	// BatchBytes is the most record bytes one produce request carries. Keep
	// it under the broker's message.max.bytes (1048588 by default).
	BatchBytes int
	// MaxMessageBytes bounds one message (key + value). Larger messages are
	// refused before anything is sent, with an error wrapping
	// [topics.ErrValueTooLarge].
	MaxMessageBytes int
	// FetchMaxBytes is the most bytes one Read asks the broker for.
	FetchMaxBytes int

	// RequiredAcks is the produce acknowledgement level. The default, -1
	// (all in-sync replicas), is what [topics.Log] promises; lowering it
	// breaks that promise.
	RequiredAcks int
	// ReplicationFactor of the topics EnsureTopics creates; -1 (the
	// default) uses the broker's default.replication.factor.
	ReplicationFactor int
	// DefaultPartitions is the partition count of topics that are not in
	// the catalog, when AllowUnknownTopics lets them be created.
	DefaultPartitions int32
	// AllowUnknownTopics lets Append, Read and Subscribe use topic names
	// that [topics.Spec] does not know, creating them on first use. Off by
	// default so that a typo cannot create a topic in production.
	AllowUnknownTopics bool
	// SkipEnsureTopics skips creating the catalog topics in Open, for
	// clusters where an operator owns topic creation.
	SkipEnsureTopics bool

	// Group membership timings, passed to kafka-go's Reader.
	HeartbeatInterval time.Duration
	SessionTimeout    time.Duration
	RebalanceTimeout  time.Duration
	JoinGroupBackoff  time.Duration

	// Logger receives one line per state change; nil means slog.Default().
	Logger *slog.Logger
	// Metrics counts refused input; nil means no metrics.
	Metrics Metrics
}

// Metrics counts what the log refuses. Implementations must be safe for
// concurrent use.
type Metrics interface {
	// Rejected counts one message refused before it reached the broker,
	// with a short stable reason such as "too_large".
	Rejected(topic, reason string)
}

type noMetrics struct{}

func (noMetrics) Rejected(string, string) {}

func (c *Config) setDefaults() {
	if c.ClientID == "" {
		c.ClientID = "bridgelog"
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = 5 * time.Second
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 10 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.ProduceAttempts == 0 {
		c.ProduceAttempts = 5
	}
	if c.FetchMaxWait == 0 {
		c.FetchMaxWait = 500 * time.Millisecond
	}
	if c.BatchSize == 0 {
		c.BatchSize = 10_000
	}
	// Both stay under Kafka's default message.max.bytes (1048588 bytes
	// per record batch) with room for batch and record headers.
	if c.BatchBytes == 0 {
		c.BatchBytes = 1_000_000
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = 1_000_000
	}
	if c.FetchMaxBytes == 0 {
		c.FetchMaxBytes = 4 << 20
	}
	if c.RequiredAcks == 0 {
		c.RequiredAcks = -1
	}
	if c.ReplicationFactor == 0 {
		c.ReplicationFactor = -1
	}
	if c.DefaultPartitions == 0 {
		c.DefaultPartitions = topics.DefaultPartitions
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = time.Second
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = 10 * time.Second
	}
	if c.RebalanceTimeout == 0 {
		c.RebalanceTimeout = 10 * time.Second
	}
	if c.JoinGroupBackoff == 0 {
		c.JoinGroupBackoff = 500 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Metrics == nil {
		c.Metrics = noMetrics{}
	}
}

// Validate says what is wrong with c after defaults are applied.
func (c Config) Validate() error {
	c.setDefaults()
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...))
	}
	if len(c.Brokers) == 0 {
		bad("no brokers")
	}
	for _, b := range c.Brokers {
		if b == "" {
			bad("empty broker address")
		}
	}
	for name, d := range map[string]time.Duration{
		"DialTimeout": c.DialTimeout, "RequestTimeout": c.RequestTimeout,
		"WriteTimeout": c.WriteTimeout, "FetchMaxWait": c.FetchMaxWait,
		"HeartbeatInterval": c.HeartbeatInterval, "SessionTimeout": c.SessionTimeout,
		"RebalanceTimeout": c.RebalanceTimeout, "JoinGroupBackoff": c.JoinGroupBackoff,
	} {
		if d < 0 {
			bad("%s is negative (%s)", name, d)
		}
	}
	if c.ProduceAttempts < 1 {
		bad("ProduceAttempts %d < 1", c.ProduceAttempts)
	}
	if c.BatchSize < 1 || c.BatchBytes < 1 || c.MaxMessageBytes < 1 || c.FetchMaxBytes < 1 {
		bad("BatchSize, BatchBytes, MaxMessageBytes and FetchMaxBytes must be positive")
	}
	if c.MaxMessageBytes > c.BatchBytes {
		bad("MaxMessageBytes %d exceeds BatchBytes %d: such a message could never be sent", c.MaxMessageBytes, c.BatchBytes)
	}
	switch c.RequiredAcks {
	case -1, 1:
	default:
		bad("RequiredAcks %d: want -1 (all) or 1 (leader)", c.RequiredAcks)
	}
	if c.DefaultPartitions < 1 {
		bad("DefaultPartitions %d < 1", c.DefaultPartitions)
	}
	if c.HeartbeatInterval >= c.SessionTimeout {
		bad("HeartbeatInterval %s must be below SessionTimeout %s", c.HeartbeatInterval, c.SessionTimeout)
	}
	return errors.Join(errs...)
}
