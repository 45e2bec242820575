package kafkalog_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/topics"
	"github.com/bridgelog/bridgelog/topics/logtest"
)

func TestConformance(t *testing.T) {
	logtest.Run(t, func(t *testing.T) topics.Log {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// Not kafkatest.Open: the suite checks that unknown topics are refused.
		l, err := kafkalog.Open(ctx, kafkalog.Config{
			Brokers: kafkatest.Start(t),
			Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}
