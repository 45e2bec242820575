package watermilllog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/bridgelog/bridgelog/topics"
)

// Subscriber is a Watermill [message.Subscriber] over a [topics.Log]: each
// Subscribe joins the configured consumer group as one member. It does
// not own the log: Close leaves it open.
type Subscriber struct {
	log    topics.Log
	cfg    Config
	logger *slog.Logger

	ctx    context.Context // ends when Close is called
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ message.Subscriber = (*Subscriber)(nil)

// NewSubscriber returns a subscriber reading l; cfg.ConsumerGroup is
// required.
func NewSubscriber(l topics.Log, cfg Config) (*Subscriber, error) {
	if err := cfg.Validate(true); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Subscriber{
		log: l, cfg: cfg, ctx: ctx, cancel: cancel,
		logger: cfg.Logger.With("component", "watermilllog.subscriber", "group", cfg.ConsumerGroup),
	}, nil
}

// Subscribe joins the consumer group on topic and returns the channel its
// messages arrive on, one at a time: the next comes after the previous is
// acked (and committed) or nacked (and then comes again). The channel is
// closed when ctx ends or the subscriber is closed.
func (s *Subscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	if s.ctx.Err() != nil {
		return nil, ErrClosed
	}
	sub, err := s.log.Subscribe(ctx, topic, s.cfg.ConsumerGroup)
	if err != nil {
		return nil, fmt.Errorf("watermilllog: subscribe %s group %s: %w", topic, s.cfg.ConsumerGroup, err)
	}
	// The loop ends with either ctx or Close.
	loopCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	out := make(chan *message.Message)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(out)
		defer stop()
		defer cancel()
		defer func() {
			if err := sub.Close(); err != nil {
				s.logger.Warn("leave consumer group", "topic", topic, "err", err)
			}
		}()
		s.consume(loopCtx, topic, sub, out)
	}()
	s.logger.Info("subscribed", "topic", topic)
	return out, nil
}

func (s *Subscriber) consume(ctx context.Context, topic string, sub topics.Subscription, out chan<- *message.Message) {
	dec := topics.NewDecoder(s.cfg.Limits)
	delay := s.cfg.FetchRetryDelay
	for {
		rec, err := sub.Fetch(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, topics.ErrClosed) {
				return
			}
			s.logger.Warn("fetch failed, retrying", "topic", topic, "err", err, "delay", delay)
			if !sleep(ctx, delay) {
				return
			}
			delay = min(2*delay, 10*s.cfg.FetchRetryDelay)
			continue
		}
		delay = s.cfg.FetchRetryDelay
		if !s.deliver(ctx, dec, rec, sub, out) {
			return
		}
	}
}

// deliver hands rec out until it is acked, then commits it. It returns
// false when ctx ended first.
func (s *Subscriber) deliver(ctx context.Context, dec *topics.Decoder, rec topics.Record, sub topics.Subscription, out chan<- *message.Message) bool {
	for {
		msg := s.toMessage(dec, rec)
		msgCtx, cancel := context.WithCancel(ctx)
		msg.SetContext(msgCtx)
		select {
		case out <- msg:
		case <-ctx.Done():
			cancel()
			return false
		}
		select {
		case <-msg.Acked():
			cancel()
			s.commit(ctx, sub, rec)
			return ctx.Err() == nil
		case <-msg.Nacked():
			cancel()
			if !sleep(ctx, s.cfg.NackResendDelay) {
				return false
			}
		case <-ctx.Done():
			cancel()
			// select picks at random among ready cases: an ack that came
			// just before Close must still be committed.
			select {
			case <-msg.Acked():
				s.commit(ctx, sub, rec)
			default:
			}
			return false
		}
	}
}

// commit commits an acked record, even when Close raced with the ack: the
// handler's work is done, redoing it is only the fallback.
func (s *Subscriber) commit(ctx context.Context, sub topics.Subscription, rec topics.Record) {
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CommitTimeout)
	defer ccancel()
	if err := sub.Commit(cctx, rec); err != nil {
		// The record stays uncommitted and may come again, to this
		// member or another: at least once.
		s.logger.Warn("commit failed", "topic", rec.Topic, "partition", rec.Partition, "offset", rec.Offset, "err", err)
	}
}

// toMessage builds a fresh message for one delivery of rec.
func (s *Subscriber) toMessage(dec *topics.Decoder, rec topics.Record) *message.Message {
	pos := fmt.Sprintf("%s/%d/%d", rec.Topic, rec.Partition, rec.Offset)
	payload := rec.Value
	md := message.Metadata{}
	var bad error
	if rec.Topic == s.cfg.DeadLetterTopic {
		d, err := DecodeDeadLetter(rec.Value, s.cfg.Limits)
		if err == nil {
			for k, v := range d.Metadata {
				md[k] = v
			}
			payload = d.Payload
		}
		bad = err
	} else {
		var env topics.Envelope
		if err := dec.Decode(rec.Value, &env); err == nil {
			md[MetaEnvelopeID] = env.ID
			md[MetaEventType] = env.Type
			md[MetaPartitionKey] = env.PartitionKey
			md[MetaCorrelationID] = env.CorrelationID
			if env.CorrelationID == "" {
				md[MetaCorrelationID] = env.ID
			}
		} else {
			bad = err
		}
	}
	if bad != nil {
		s.cfg.Metrics.Malformed(rec.Topic, "subscribe")
		s.logger.Warn("malformed record delivered for dead-lettering", "topic", rec.Topic,
			"partition", rec.Partition, "offset", rec.Offset, "err", bad)
		md[MetaMalformed] = fmt.Sprintf("record %s: %v", pos, bad)
	}
	md[MetaLogTopic] = rec.Topic
	md[MetaLogPartition] = strconv.Itoa(int(rec.Partition))
	md[MetaLogOffset] = strconv.FormatInt(rec.Offset, 10)
	uuid := md[MetaEnvelopeID]
	if uuid == "" {
		uuid = pos
	}
	msg := message.NewMessage(uuid, append([]byte(nil), payload...))
	msg.Metadata = md
	return msg
}

// Close ends every subscription (each leaves its group) and waits for
// them; the log stays open.
func (s *Subscriber) Close() error {
	s.cancel()
	s.wg.Wait()
	return nil
}

// RecordOf returns the log record a subscribed message was read from
// (its position from the metadata, its value the payload). Not for
// messages of the dead-letter topic, whose payload is unwrapped.
func RecordOf(msg *message.Message) (topics.Record, error) {
	part, err1 := strconv.ParseInt(msg.Metadata.Get(MetaLogPartition), 10, 32)
	off, err2 := strconv.ParseInt(msg.Metadata.Get(MetaLogOffset), 10, 64)
	topic := msg.Metadata.Get(MetaLogTopic)
	if err := errors.Join(err1, err2); err != nil || topic == "" {
		return topics.Record{}, fmt.Errorf("watermilllog: message %s has no log position: %v", msg.UUID, err)
	}
	return topics.Record{Topic: topic, Partition: int32(part), Offset: off, Value: msg.Payload}, nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
