package watermilllog

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/bridgelog/bridgelog/topics"
)

// Consumer runs one handler over a topic as a member of a consumer group,
// on a router from [NewRouter]: a record whose handling keeps failing is
// retried and then dead-lettered with the reason. It is the Watermill
// wiring of a handler that only sees records (handlers.ClaimConsumer).
type Consumer struct {
	Log   topics.Log
	Topic string
	// Name names the router's handler, with the group: Name-group.
	// Default Topic.
	Name   string
	Logger *slog.Logger // default slog.Default()
}

// Consume runs handle over the records of c.Topic this member of group is
// given, until ctx ends (nil) or the subscription ends by itself (an
// error wrapping [topics.ErrClosed]: the member serves nothing any more).
// malformed is why a record is not an envelope ("" when it is). An error
// of handle gets the record retried, and dead-lettered when the retries
// fail too. Stopped mid-record, the record is left uncommitted for its
// next owner.
func (c Consumer) Consume(ctx context.Context, group string,
	handle func(ctx context.Context, rec topics.Record, malformed string) error) error {
	logger, name := c.Logger, c.Name
	if logger == nil {
		logger = slog.Default()
	}
	if name == "" {
		name = c.Topic
	}
	cfg := Config{ConsumerGroup: group, Logger: logger}
	sub, err := NewSubscriber(c.Log, cfg)
	if err != nil {
		return fmt.Errorf("%s subscriber: %w", name, err)
	}
	defer sub.Close()
	deadLetters, err := NewPublisher(c.Log, cfg)
	if err != nil {
		return fmt.Errorf("%s dead-letter publisher: %w", name, err)
	}
	defer deadLetters.Close()
	router, err := NewRouter(RouterConfig{DeadLetters: deadLetters}, logger)
	if err != nil {
		return fmt.Errorf("%s router: %w", name, err)
	}
	router.AddConsumerHandler(name+"-"+group, c.Topic, sub, func(msg *message.Message) error {
		rec, err := RecordOf(msg)
		if err != nil {
			return err
		}
		return handle(msg.Context(), rec, msg.Metadata.Get(MetaMalformed))
	})
	stop := context.AfterFunc(ctx, func() { router.Close() })
	defer stop()
	err = router.Run(ctx)
	switch {
	case ctx.Err() != nil:
		return nil
	case err != nil:
		return fmt.Errorf("%s router: %w", name, err)
	}
	return fmt.Errorf("%s router stopped while running: %w", name, topics.ErrClosed)
}
