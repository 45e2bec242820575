package memlog_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/topics"
	"github.com/bridgelog/bridgelog/topics/logtest"
)

// quiet keeps test output readable.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestConformance(t *testing.T) {
	logtest.Run(t, func(t *testing.T) topics.Log {
		return memlog.New(memlog.WithLogger(quiet))
	})
}
