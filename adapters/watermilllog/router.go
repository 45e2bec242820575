package watermilllog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/bridgelog/bridgelog/topics"
)

// RouterConfig configures [NewRouter]. Only DeadLetters is required.
type RouterConfig struct {
	// DeadLetters receives messages whose handler still fails after the
	// retries, on DeadLetterTopic. Normally a [Publisher] on the same log.
	DeadLetters message.Publisher
	// DeadLetterTopic defaults to [topics.TopicDeadLetter].
	DeadLetterTopic string
	// MaxRetries is how many times a failing handler is retried before its
	// message is dead-lettered. Default 3; set -1 for none.
	MaxRetries int
	// InitialInterval, MaxInterval and Multiplier shape the exponential
	// backoff between retries: defaults 100ms, 5s, 2.
	InitialInterval time.Duration
	MaxInterval     time.Duration
	Multiplier      float64
	// CloseTimeout bounds how long Close waits for running handlers.
	// Default 30s.
	CloseTimeout time.Duration
}

func (c *RouterConfig) setDefaults() {
	if c.DeadLetterTopic == "" {
		c.DeadLetterTopic = topics.TopicDeadLetter
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 3
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.InitialInterval == 0 {
		c.InitialInterval = 100 * time.Millisecond
	}
	if c.MaxInterval == 0 {
		c.MaxInterval = 5 * time.Second
	}
	if c.Multiplier == 0 {
		c.Multiplier = 2
	}
	if c.CloseTimeout == 0 {
		c.CloseTimeout = 30 * time.Second
	}
}

// Validate says what is wrong with c after defaults.
func (c RouterConfig) Validate() error {
	c.setDefaults()
	var errs []error
	if c.DeadLetters == nil {
		errs = append(errs, fmt.Errorf("%w: no DeadLetters publisher", ErrConfig))
	}
	if c.InitialInterval < 0 || c.MaxInterval < c.InitialInterval || c.Multiplier < 1 {
		errs = append(errs, fmt.Errorf("%w: backoff %s..%s ×%g", ErrConfig, c.InitialInterval, c.MaxInterval, c.Multiplier))
	}
	return errors.Join(errs...)
}

// stopped reports a handler that gave up because its message's context
// was cancelled (the router or its subscriber is closing): not a poison
// message, so it is neither retried nor dead-lettered. It is nacked, and
// since its subscription is closing, left uncommitted for the partition's
// next owner.
func stopped(err error) bool { return errors.Is(err, context.Canceled) }

// NewRouter returns a Watermill router whose handlers are wrapped, outside
// in, by:
//
//  1. middleware.CorrelationID: messages a handler returns carry the
//     correlation id of the message it handled (and [Publisher] writes it
//     into their envelopes);
//  2. middleware.PoisonQueue: a message that still fails after the
//     retries goes to the dead-letter topic with the error in metadata
//     "reason_poisoned", and is acked so its partition moves on;
//  3. middleware.Retry: exponential backoff, MaxRetries attempts;
//
// except that a handler stopped by shutdown (an error wrapping
// context.Canceled) is neither retried nor dead-lettered;
//  4. middleware.Recoverer: a panic becomes an error, so it is retried and
//     then dead-lettered instead of killing the process.
//
// Add handlers with AddHandler / AddConsumerHandler and a [Subscriber].
func NewRouter(cfg RouterConfig, logger *slog.Logger) (*message.Router, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	wlog := watermill.NewSlogLogger(logger)
	r, err := message.NewRouter(message.RouterConfig{CloseTimeout: cfg.CloseTimeout}, wlog)
	if err != nil {
		return nil, fmt.Errorf("watermilllog: router: %w", err)
	}
	poison, err := middleware.PoisonQueueWithFilter(cfg.DeadLetters, cfg.DeadLetterTopic, func(err error) bool { return !stopped(err) })
	if err != nil {
		return nil, fmt.Errorf("watermilllog: poison queue: %w", err)
	}
	r.AddMiddleware(
		middleware.CorrelationID,
		poison,
		middleware.Retry{
			MaxRetries:      cfg.MaxRetries,
			InitialInterval: cfg.InitialInterval,
			MaxInterval:     cfg.MaxInterval,
			Multiplier:      cfg.Multiplier,
			// Each attempt gets the message's own context back, not one a
			// previous attempt may have replaced.
			ResetContextOnRetry: true,
			ShouldRetry:         func(p middleware.RetryParams) bool { return !stopped(p.Err) },
			Logger:              wlog,
		}.Middleware,
		middleware.Recoverer,
	)
	return r, nil
}
