package embeddedlog_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/topics"
	"github.com/bridgelog/bridgelog/topics/logtest"
)

// quiet keeps test output readable; tests that check log lines use their own.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestConformance(t *testing.T) {
	logtest.Run(t, func(t *testing.T) topics.Log {
		l, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}
