// Package metrics exposes bridgelog's counters, gauges and histograms to
// Prometheus. It implements the consumer-side metric interfaces of
// handlers, projections, the log engines and the two-phase signer on one
// private [prometheus.Registry], so nothing here touches prometheus'
// global default registry.
//
// A metric call never panics: input Prometheus would refuse (a negative
// count, an invalid name, a name reused with another label set or kind)
// or that means nothing (a signer metric name twophase does not declare)
// is dropped, counted in bridgelog_metrics_errors_total{reason} and logged
// once per metric and reason.
package metrics

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Prefix starts every bridgelog metric name.
const Prefix = "bridgelog_"

// Reasons counted by bridgelog_metrics_errors_total.
const (
	ReasonNegativeCount = "negative_count" // Count, a counter method or a signer observation got n < 0
	ReasonInvalidName   = "invalid_name"   // metric or label name Prometheus refuses
	ReasonLabelMismatch = "label_mismatch" // name seen before with other label keys, or a signer label that does not fit its metric
	ReasonKindMismatch  = "kind_mismatch"  // name seen before as counter, now gauge, or back
	ReasonLabelValue    = "label_value"    // label value Prometheus refuses (invalid UTF-8), or an empty signer id
	ReasonRegister      = "register"       // the registry refused the collector (name clash)
	ReasonUnknownMetric = "unknown_metric" // a signer observation whose name is not in twophase.MetricNames
	ReasonInvalidValue  = "invalid_value"  // a signer observation of NaN or ±Inf
)

// scrapeTimeout bounds one /metrics gathering so a stuck collector cannot
// hold a scrape connection forever.
const scrapeTimeout = 10 * time.Second

// Registry owns a Prometheus registry with Go, process and build-info
// collectors and bridgelog's metrics. Safe for concurrent use.
type Registry struct {
	reg    *prometheus.Registry
	logger *slog.Logger
	errs   *prometheus.CounterVec

	mu     sync.Mutex
	warned map[string]bool // metric + "\x00" + reason already logged

	handlers    *HandlerMetrics
	projections *ProjectionMetrics
	embedded    *EmbeddedLogMetrics
	kafka       *KafkaLogMetrics
	watermill   *WatermillMetrics
	analytics   *AnalyticsMetrics
	signers     *signerFamilies
}

// Option configures [New].
type Option func(*Registry)

// WithLogger sets the logger for dropped-metric warnings and the server;
// the default is slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(r *Registry) {
		if l != nil {
			r.logger = l
		}
	}
}

// New returns a Registry with every fixed bridgelog metric registered.
func New(opts ...Option) *Registry {
	r := &Registry{
		reg:    prometheus.NewRegistry(),
		logger: slog.Default(),
		warned: map[string]bool{},
	}
	for _, o := range opts {
		o(r)
	}
	r.errs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: Prefix + "metrics_errors_total",
		Help: "Metric updates dropped because Prometheus would refuse them, by reason.",
	}, []string{"reason"})
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
		r.errs,
	)
	for _, reason := range []string{ReasonNegativeCount, ReasonInvalidName, ReasonLabelMismatch,
		ReasonKindMismatch, ReasonLabelValue, ReasonRegister, ReasonUnknownMetric, ReasonInvalidValue} {
		r.errs.WithLabelValues(reason) // present at 0, so increase() sees the first error
	}
	r.handlers = newHandlerMetrics(r)
	r.projections = newProjectionMetrics(r)
	r.embedded = newEmbeddedLogMetrics(r)
	r.kafka = newKafkaLogMetrics(r)
	r.watermill = newWatermillMetrics(r)
	r.analytics = newAnalyticsMetrics(r)
	r.signers = newSignerFamilies(r)
	return r
}

// Handlers returns the handlers.Metrics implementation.
func (r *Registry) Handlers() *HandlerMetrics { return r.handlers }

// Projections returns the projections.Metrics implementation.
func (r *Registry) Projections() *ProjectionMetrics { return r.projections }

// EmbeddedLog returns the embeddedlog.Metrics implementation.
func (r *Registry) EmbeddedLog() *EmbeddedLogMetrics { return r.embedded }

// KafkaLog returns the kafkalog.Metrics implementation.
func (r *Registry) KafkaLog() *KafkaLogMetrics { return r.kafka }

// Analytics returns the analytics.Metrics implementation.
func (r *Registry) Analytics() *AnalyticsMetrics { return r.analytics }

// Watermill returns the watermilllog.Metrics implementation.
func (r *Registry) Watermill() *WatermillMetrics { return r.watermill }

// Register adds another collector (a database's DBStats, say) to the
// registry served on /metrics.
func (r *Registry) Register(c prometheus.Collector) error { return r.reg.Register(c) }

// Gatherer is the registry for callers that gather without HTTP.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves the registry in the Prometheus exposition formats, with
// promhttp's own scrape counters.
func (r *Registry) Handler() http.Handler {
	return promhttp.InstrumentMetricHandler(r.reg, promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:      promLogger{r.logger},
		ErrorHandling: promhttp.ContinueOnError, // serve what gathers; a bad collector is logged
		Registry:      r.reg,
		Timeout:       scrapeTimeout,
	}))
}

// dropped counts one refused update and logs the first one per metric and
// reason (a handler may call the same bad metric thousands of times).
func (r *Registry) dropped(metric, reason string, err error) {
	r.errs.WithLabelValues(reason).Inc()
	key := metric + "\x00" + reason
	r.mu.Lock()
	first := !r.warned[key]
	r.warned[key] = true
	r.mu.Unlock()
	if first {
		r.logger.Warn("metric update dropped", "metric", metric, "reason", reason, "error", err)
	}
}

// promLogger adapts slog to promhttp's Println logger.
type promLogger struct{ l *slog.Logger }

func (p promLogger) Println(v ...any) {
	p.l.Error("metrics scrape error", "detail", strings.TrimSpace(fmt.Sprintln(v...)))
}
