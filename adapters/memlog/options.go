package memlog

import (
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Option configures [New].
type Option func(*config)

type config struct {
	maxValueBytes int
	now           func() time.Time
	logger        *slog.Logger
}

func (c *config) setDefaults() {
	if c.maxValueBytes <= 0 {
		c.maxValueBytes = topics.DefaultMaxEnvelopeBytes
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
}

// WithClock sets the clock that stamps records (default time.Now). It is
// called once per stored Append (its messages share the time), under the
// topic's lock, so a virtual clock sees one call per Append in Append order.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithMaxMessageBytes bounds a message value (default
// [topics.DefaultMaxEnvelopeBytes], the embedded engine's default). Larger
// values are refused with an error wrapping [topics.ErrValueTooLarge].
func WithMaxMessageBytes(n int) Option { return func(c *config) { c.maxValueBytes = n } }

// WithLogger sets the logger (default slog.Default()). The engine writes
// debug lines only: group membership and assignments.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }
