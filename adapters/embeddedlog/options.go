package embeddedlog

import (
	"context"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// Option configures [Open].
type Option func(*config)

type config struct {
	maxMessageBytes int
	segmentBytes    int64
	indexEvery      int64
	truncateCorrupt bool
	fullScan        bool
	logger          *slog.Logger
	metrics         Metrics
	now             func() time.Time
	ctx             context.Context // Open's scan stops when it is done
}

func (c *config) setDefaults() {
	if c.maxMessageBytes <= 0 {
		c.maxMessageBytes = topics.DefaultMaxEnvelopeBytes
	}
	c.maxMessageBytes = min(c.maxMessageBytes, hardMaxValueBytes)
	if c.segmentBytes <= 0 {
		c.segmentBytes = 64 << 20
	}
	if c.indexEvery <= 0 {
		c.indexEvery = 4 << 10
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.metrics == nil {
		c.metrics = nopMetrics{}
	}
	if c.now == nil {
		c.now = time.Now
	}
}

// WithMaxMessageBytes bounds a message value (default
// [topics.DefaultMaxEnvelopeBytes], at most 64 MiB). Larger values are
// refused with an error wrapping [topics.ErrValueTooLarge].
func WithMaxMessageBytes(n int) Option { return func(c *config) { c.maxMessageBytes = n } }

// WithSegmentBytes sets the size at which a partition starts a new
// segment file (default 64 MiB). A batch never spans two segments.
func WithSegmentBytes(n int64) Option { return func(c *config) { c.segmentBytes = n } }

// WithIndexInterval sets how many bytes of frames lie between two entries
// of the in-memory sparse index (default 4 KiB).
func WithIndexInterval(n int64) Option { return func(c *config) { c.indexEvery = n } }

// WithTruncateCorrupt lets Open cut a partition at damage found inside
// fsynced data, dropping everything after it, instead of refusing to open.
// It is an operator's decision after reading the error; records are lost.
func WithTruncateCorrupt(ok bool) Option { return func(c *config) { c.truncateCorrupt = ok } }

// WithFullScan makes Open read every frame of every segment, as it did
// before sealed segments kept an index beside them: damage anywhere in the
// log is then found at Open rather than when the damaged records are read.
// It costs a read of the whole log. Without it Open reads the last segment
// of each partition and the others' index files.
func WithFullScan(ok bool) Option { return func(c *config) { c.fullScan = ok } }

// WithContext lets Open give up between segments once ctx is done,
// returning an error that wraps ctx's. A scan that reads every frame (a
// large log's first open, [WithFullScan], a backup's check) takes about a
// second per gigabyte here, which a shutdown should not wait for. Topics
// already opened are left as any Open leaves them; in the cancelled one
// nothing is truncated. ctx is not used after Open returns.
func WithContext(ctx context.Context) Option { return func(c *config) { c.ctx = ctx } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithMetrics sets the metrics sink (default: none).
func WithMetrics(m Metrics) Option { return func(c *config) { c.metrics = m } }

// WithClock sets the clock that stamps records (default time.Now).
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }
