package metrics

import (
	"fmt"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

func counterVec(r *Registry, name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: Prefix + name, Help: help}, labels)
	r.reg.MustRegister(v) // fixed names: a clash is a bug in this package, caught by its tests
	return v
}

func counter(r *Registry, name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: Prefix + name, Help: help})
	r.reg.MustRegister(c)
	return c
}

// add adds n to c unless n is negative, which Prometheus would panic on.
func (r *Registry) add(metric string, c prometheus.Counter, n int64) {
	if n < 0 {
		r.dropped(metric, ReasonNegativeCount, fmt.Errorf("count %d", n))
		return
	}
	c.Add(float64(n))
}

// with returns v's child for values, or nil after counting a refused value
// (invalid UTF-8 would make WithLabelValues panic).
func (r *Registry) with(metric string, v *prometheus.CounterVec, values ...string) prometheus.Counter {
	c, err := v.GetMetricWithLabelValues(values...)
	if err != nil {
		r.dropped(metric, ReasonLabelValue, err)
		return nil
	}
	return c
}

// ProjectionMetrics implements projections.Metrics.
type ProjectionMetrics struct {
	r         *Registry
	applied   *prometheus.CounterVec
	duplicate prometheus.Counter
	conflict  prometheus.Counter
	skipped   *prometheus.CounterVec
	errors    *prometheus.CounterVec
}

// skipReasons are the reasons projections document; they exist at 0.
var skipReasons = []string{"malformed", "unknown_type", "schema_too_new"}

func newProjectionMetrics(r *Registry) *ProjectionMetrics {
	p := &ProjectionMetrics{
		r: r,
		applied: counterVec(r, "projection_events_applied_total",
			"First-seen events folded into a projection.", "projection"),
		duplicate: counter(r, "events_duplicate_total",
			"Events whose source key was known with the same content (ignored)."),
		conflict: counter(r, "events_conflict_total",
			"Events whose source key was known with different content (a uniqueness violation)."),
		skipped: counterVec(r, "events_skipped_total",
			"Envelopes passed over under the Skip policy, by reason.", "reason"),
		errors: counterVec(r, "projection_errors_total",
			"Projection batches that failed, by projection.", "projection"),
	}
	for _, reason := range skipReasons {
		p.skipped.WithLabelValues(reason)
	}
	return p
}

// Applied counts n first-seen events folded by projection.
func (p *ProjectionMetrics) Applied(projection string, n int) {
	if c := p.r.with("projection_events_applied_total", p.applied, projection); c != nil {
		p.r.add("projection_events_applied_total", c, int64(n))
	}
}

// Duplicate counts n events already known with the same content.
func (p *ProjectionMetrics) Duplicate(n int) {
	p.r.add("events_duplicate_total", p.duplicate, int64(n))
}

// Conflict counts n events already known with other content.
func (p *ProjectionMetrics) Conflict(n int) { p.r.add("events_conflict_total", p.conflict, int64(n)) }

// Skipped counts n envelopes skipped for reason.
func (p *ProjectionMetrics) Skipped(reason string, n int) {
	if c := p.r.with("events_skipped_total", p.skipped, reason); c != nil {
		p.r.add("events_skipped_total", c, int64(n))
	}
}

// Error counts one failed batch of projection.
func (p *ProjectionMetrics) Error(projection string) {
	if c := p.r.with("projection_errors_total", p.errors, projection); c != nil {
		c.Inc()
	}
}

// EmbeddedLogMetrics implements embeddedlog.Metrics.
type EmbeddedLogMetrics struct {
	r              *Registry
	truncations    *prometheus.CounterVec
	truncatedBytes *prometheus.CounterVec
	corruptions    *prometheus.CounterVec
	rejected       *prometheus.CounterVec
	commitRecords  *prometheus.HistogramVec
}

func newEmbeddedLogMetrics(r *Registry) *EmbeddedLogMetrics {
	e := &EmbeddedLogMetrics{
		r: r,
		truncations: counterVec(r, "embeddedlog_tail_truncations_total",
			"Torn tails dropped when a partition was opened.", "topic", "partition"),
		truncatedBytes: counterVec(r, "embeddedlog_tail_truncated_bytes_total",
			"Bytes removed with torn tails.", "topic", "partition"),
		corruptions: counterVec(r, "embeddedlog_corruptions_total",
			"Damage found inside fsynced data.", "topic", "partition"),
		rejected: counterVec(r, "embeddedlog_appends_rejected_total",
			"Messages refused before writing, by reason.", "topic", "reason"),
		// One histogram gives both the fsync rounds (_count) and the records
		// they made durable (_sum), plus how well group commit batches.
		commitRecords: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    Prefix + "embeddedlog_group_commit_records",
			Help:    "Records made durable per fsync round.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 7), // 1 … 4096
		}, []string{"topic"}),
	}
	r.reg.MustRegister(e.commitRecords)
	return e
}

// TailTruncated counts a torn tail of bytes dropped at open.
func (e *EmbeddedLogMetrics) TailTruncated(topic string, partition int32, bytes int64) {
	p := strconv.Itoa(int(partition))
	if c := e.r.with("embeddedlog_tail_truncations_total", e.truncations, topic, p); c != nil {
		c.Inc()
	}
	if c := e.r.with("embeddedlog_tail_truncated_bytes_total", e.truncatedBytes, topic, p); c != nil {
		e.r.add("embeddedlog_tail_truncated_bytes_total", c, bytes)
	}
}

// CorruptionFound counts damage inside fsynced data.
func (e *EmbeddedLogMetrics) CorruptionFound(topic string, partition int32) {
	if c := e.r.with("embeddedlog_corruptions_total", e.corruptions, topic, strconv.Itoa(int(partition))); c != nil {
		c.Inc()
	}
}

// AppendRejected counts a message refused before writing.
func (e *EmbeddedLogMetrics) AppendRejected(topic, reason string) {
	if c := e.r.with("embeddedlog_appends_rejected_total", e.rejected, topic, reason); c != nil {
		c.Inc()
	}
}

// GroupCommitted observes one fsync round of records.
func (e *EmbeddedLogMetrics) GroupCommitted(topic string, records int) {
	if records < 0 {
		e.r.dropped("embeddedlog_group_commit_records", ReasonNegativeCount, fmt.Errorf("records %d", records))
		return
	}
	o, err := e.commitRecords.GetMetricWithLabelValues(topic)
	if err != nil {
		e.r.dropped("embeddedlog_group_commit_records", ReasonLabelValue, err)
		return
	}
	o.Observe(float64(records))
}

// KafkaLogMetrics implements kafkalog.Metrics.
type KafkaLogMetrics struct {
	r        *Registry
	rejected *prometheus.CounterVec
}

func newKafkaLogMetrics(r *Registry) *KafkaLogMetrics {
	return &KafkaLogMetrics{r: r, rejected: counterVec(r, "kafkalog_rejected_total",
		"Messages refused before they reached the broker, by reason.", "topic", "reason")}
}

// Rejected counts one message refused before the broker.
func (k *KafkaLogMetrics) Rejected(topic, reason string) {
	if c := k.r.with("kafkalog_rejected_total", k.rejected, topic, reason); c != nil {
		c.Inc()
	}
}

// WatermillMetrics implements watermilllog.Metrics.
type WatermillMetrics struct {
	r         *Registry
	malformed *prometheus.CounterVec
}

func newWatermillMetrics(r *Registry) *WatermillMetrics {
	return &WatermillMetrics{r: r, malformed: counterVec(r, "watermill_malformed_total",
		"Records or payloads that were not valid envelopes, by direction (publish, subscribe).", "topic", "dir")}
}

// Malformed counts one record or payload that is not a valid envelope.
func (w *WatermillMetrics) Malformed(topic, dir string) {
	if c := w.r.with("watermill_malformed_total", w.malformed, topic, dir); c != nil {
		c.Inc()
	}
}

// AnalyticsMetrics implements analytics.Metrics.
type AnalyticsMetrics struct {
	r           *Registry
	sunk        *prometheus.CounterVec
	undecodable *prometheus.CounterVec
	failed      *prometheus.CounterVec
}

func newAnalyticsMetrics(r *Registry) *AnalyticsMetrics {
	return &AnalyticsMetrics{
		r: r,
		sunk: counterVec(r, "analytics_records_total",
			"Log records written to the analytics warehouse, by topic.", "topic"),
		undecodable: counterVec(r, "analytics_undecodable_total",
			"Records written to the warehouse with a decode error instead of an event, by topic.", "topic"),
		failed: counterVec(r, "analytics_insert_errors_total",
			"Failed warehouse writes, by table.", "table"),
	}
}

// Sunk counts n records of topic written to the warehouse.
func (a *AnalyticsMetrics) Sunk(topic string, n int) {
	if c := a.r.with("analytics_records_total", a.sunk, topic); c != nil {
		a.r.add("analytics_records_total", c, int64(n))
	}
}

// Undecodable counts n records of topic written with a decode error.
func (a *AnalyticsMetrics) Undecodable(topic string, n int) {
	if c := a.r.with("analytics_undecodable_total", a.undecodable, topic); c != nil {
		a.r.add("analytics_undecodable_total", c, int64(n))
	}
}

// InsertFailed counts one failed write to table.
func (a *AnalyticsMetrics) InsertFailed(table string) {
	if c := a.r.with("analytics_insert_errors_total", a.failed, table); c != nil {
		c.Inc()
	}
}
