package watermilllog

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/bridgelog/bridgelog/topics"
)

// Publisher is a Watermill [message.Publisher] that appends to a
// [topics.Log]. It does not own the log: Close leaves it open.
type Publisher struct {
	log    topics.Log
	cfg    Config
	logger *slog.Logger
	closed atomic.Bool
}

var _ message.Publisher = (*Publisher)(nil)

// NewPublisher returns a publisher appending to l.
func NewPublisher(l topics.Log, cfg Config) (*Publisher, error) {
	if err := cfg.Validate(false); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Publisher{log: l, cfg: cfg, logger: cfg.Logger.With("component", "watermilllog.publisher")}, nil
}

// Publish appends msgs to topic in one Append, so on the embedded engine
// they are durable together. It returns once they are durable. The first
// message's context, bounded by PublishTimeout, bounds the call.
func (p *Publisher) Publish(topic string, msgs ...*message.Message) error {
	if p.closed.Load() {
		return ErrClosed
	}
	if len(msgs) == 0 {
		return nil
	}
	out := make([]topics.Message, len(msgs))
	dec := topics.NewDecoder(p.cfg.Limits)
	for i, m := range msgs {
		var err error
		if topic == p.cfg.DeadLetterTopic {
			out[i], err = p.deadLetter(m)
		} else {
			out[i], err = p.envelope(dec, m)
		}
		if err != nil {
			p.cfg.Metrics.Malformed(topic, "publish")
			return fmt.Errorf("watermilllog: publish message %s (%d of %d) to %s: %w", m.UUID, i, len(msgs), topic, err)
		}
	}
	ctx, cancel := context.WithTimeout(msgs[0].Context(), p.cfg.PublishTimeout)
	defer cancel()
	if _, err := p.log.Append(ctx, topic, out...); err != nil {
		return fmt.Errorf("watermilllog: publish %d messages to %s: %w", len(msgs), topic, err)
	}
	return nil
}

// envelope turns m into a record of its envelope, filling a missing
// correlation id from metadata (where middleware.CorrelationID puts it).
func (p *Publisher) envelope(dec *topics.Decoder, m *message.Message) (topics.Message, error) {
	var env topics.Envelope
	if err := dec.Decode(m.Payload, &env); err != nil {
		return topics.Message{}, err
	}
	if env.PartitionKey == "" {
		return topics.Message{}, fmt.Errorf("%w: envelope %s type %s", ErrNoPartitionKey, env.ID, env.Type)
	}
	value := []byte(m.Payload)
	if cid := m.Metadata.Get(MetaCorrelationID); env.CorrelationID == "" && cid != "" {
		env.CorrelationID = cid
		var err error
		if value, err = topics.EncodeEnvelope(&env, p.cfg.Limits); err != nil {
			return topics.Message{}, err
		}
	}
	return topics.Message{Key: []byte(env.PartitionKey), Value: value}, nil
}

// deadLetter frames m with its metadata. The payload need not be a valid
// envelope: a malformed record must still be kept.
func (p *Publisher) deadLetter(m *message.Message) (topics.Message, error) {
	md := make(map[string]string, len(m.Metadata))
	for k, v := range m.Metadata {
		md[k] = v
	}
	b, err := EncodeDeadLetter(DeadLetter{Metadata: md, Payload: m.Payload})
	if err != nil {
		return topics.Message{}, err
	}
	return topics.Message{Key: []byte(md[MetaPartitionKey]), Value: b}, nil
}

// Close stops the publisher; the log stays open.
func (p *Publisher) Close() error {
	p.closed.Store(true)
	return nil
}
