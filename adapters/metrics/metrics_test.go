package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/watermilllog"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
)

// The accessors must satisfy the consumers' interfaces.
var (
	_ handlers.Metrics     = (*HandlerMetrics)(nil)
	_ projections.Metrics  = (*ProjectionMetrics)(nil)
	_ embeddedlog.Metrics  = (*EmbeddedLogMetrics)(nil)
	_ kafkalog.Metrics     = (*KafkaLogMetrics)(nil)
	_ watermilllog.Metrics = (*WatermillMetrics)(nil)
	_ analytics.Metrics    = (*AnalyticsMetrics)(nil)
)

// scrape GETs /metrics from h over real HTTP and parses the text format.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("scrape: content type %q, want the text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return fams
}

// value finds name{labels} (exactly those labels) and returns its counter,
// gauge or untyped value; ok is false when there is no such series.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

type want struct {
	name   string
	labels map[string]string
	value  float64
}

func check(t *testing.T, fams map[string]*dto.MetricFamily, wants []want) {
	t.Helper()
	for _, w := range wants {
		got, ok := value(fams, w.name, w.labels)
		if !ok {
			t.Errorf("%s%v: missing from exposition", w.name, w.labels)
			continue
		}
		if got != w.value {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.value)
		}
	}
}

func TestHandlerMetricsExposition(t *testing.T) {
	r := New()
	h := r.Handlers()
	h.Count("deposits_minted_total", nil, 1)
	h.Count("deposits_minted_total", nil, 1)
	h.Count("gas_used_total", map[string]string{"purpose": "mint"}, 21000)
	h.Count("gas_used_total", map[string]string{"purpose": "mint"}, 21000)
	h.Count("gas_used_total", map[string]string{"purpose": "anchor"}, 50000)
	h.Count("logs_rejected_total", map[string]string{"chain_id": "1337"}, 1)
	h.Gauge("indexer_lag_blocks", map[string]string{"chain_id": "1337"}, 7)
	h.Gauge("indexer_lag_blocks", map[string]string{"chain_id": "1337"}, 3)
	h.Gauge("indexer_lag_blocks", map[string]string{"chain_id": "338"}, 12)
	// Label order in the map must not matter.
	h.Count("relay_step_failures_total", map[string]string{"step": "mint", "chain_id": "1"}, 2)
	h.Count("relay_step_failures_total", map[string]string{"chain_id": "1", "step": "mint"}, 3)
	// A name already carrying the prefix is not prefixed twice.
	h.Gauge("bridgelog_oldest_unbatched_withdrawal_seconds", nil, 42.5)

	fams := scrape(t, r.Handler())
	check(t, fams, []want{
		{"bridgelog_deposits_minted_total", nil, 2},
		{"bridgelog_gas_used_total", map[string]string{"purpose": "mint"}, 42000},
		{"bridgelog_gas_used_total", map[string]string{"purpose": "anchor"}, 50000},
		{"bridgelog_logs_rejected_total", map[string]string{"chain_id": "1337"}, 1},
		{"bridgelog_indexer_lag_blocks", map[string]string{"chain_id": "1337"}, 3},
		{"bridgelog_indexer_lag_blocks", map[string]string{"chain_id": "338"}, 12},
		{"bridgelog_relay_step_failures_total", map[string]string{"chain_id": "1", "step": "mint"}, 5},
		{"bridgelog_oldest_unbatched_withdrawal_seconds", nil, 42.5},
		// Alerted-on counters exist before their first increment.
		{"bridgelog_withdrawals_failed_total", nil, 0},
		{"bridgelog_anchor_failures_total", nil, 0},
		{"bridgelog_metrics_errors_total", map[string]string{"reason": ReasonLabelMismatch}, 0},
	})
	if got := fams["bridgelog_gas_used_total"].GetType(); got != dto.MetricType_COUNTER {
		t.Errorf("gas_used_total type %v, want counter", got)
	}
	if got := fams["bridgelog_indexer_lag_blocks"].GetType(); got != dto.MetricType_GAUGE {
		t.Errorf("indexer_lag_blocks type %v, want gauge", got)
	}
	if got := fams["bridgelog_indexer_lag_blocks"].GetHelp(); got != handlerHelp["indexer_lag_blocks"] {
		t.Errorf("indexer_lag_blocks help %q", got)
	}
	if _, ok := fams["bridgelog_bridgelog_oldest_unbatched_withdrawal_seconds"]; ok {
		t.Error("prefixed name was prefixed again")
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "go_build_info", "promhttp_metric_handler_requests_total"} {
		if fams[name] == nil {
			t.Errorf("%s missing: runtime/process/scrape collectors not registered", name)
		}
	}
	if got, _ := value(fams, "bridgelog_metrics_errors_total", map[string]string{"reason": ReasonLabelMismatch}); got != 0 {
		t.Errorf("valid calls counted %v metric errors", got)
	}
}

func TestProjectionMetricsExposition(t *testing.T) {
	r := New()
	p := r.Projections()
	p.Applied("deposits", 3)
	p.Applied("deposits", 2)
	p.Applied("withdrawals", 1)
	p.Duplicate(4)
	p.Conflict(1)
	p.Skipped("malformed", 2)
	p.Error("withdrawals")
	p.Error("withdrawals")

	check(t, scrape(t, r.Handler()), []want{
		{"bridgelog_projection_events_applied_total", map[string]string{"projection": "deposits"}, 5},
		{"bridgelog_projection_events_applied_total", map[string]string{"projection": "withdrawals"}, 1},
		{"bridgelog_events_duplicate_total", nil, 4},
		{"bridgelog_events_conflict_total", nil, 1},
		{"bridgelog_events_skipped_total", map[string]string{"reason": "malformed"}, 2},
		{"bridgelog_events_skipped_total", map[string]string{"reason": "unknown_type"}, 0},
		{"bridgelog_events_skipped_total", map[string]string{"reason": "schema_too_new"}, 0},
		{"bridgelog_projection_errors_total", map[string]string{"projection": "withdrawals"}, 2},
	})
}

func TestLogEngineMetricsExposition(t *testing.T) {
	r := New()
	e := r.EmbeddedLog()
	e.TailTruncated("bridge.events", 3, 117)
	e.TailTruncated("bridge.events", 3, 20)
	e.CorruptionFound("bridge.events", 5)
	e.AppendRejected("bridge.events", "value_too_large")
	e.GroupCommitted("bridge.events", 1)
	e.GroupCommitted("bridge.events", 30)
	r.KafkaLog().Rejected("bridge.events", "too_large")
	r.Watermill().Malformed("bridge.claims", "subscribe")
	r.Analytics().Sunk("bridge.events", 500)
	r.Analytics().Undecodable("bridge.events", 1)
	r.Analytics().InsertFailed("bridgelog_events")

	fams := scrape(t, r.Handler())
	check(t, fams, []want{
		{"bridgelog_embeddedlog_tail_truncations_total", map[string]string{"topic": "bridge.events", "partition": "3"}, 2},
		{"bridgelog_embeddedlog_tail_truncated_bytes_total", map[string]string{"topic": "bridge.events", "partition": "3"}, 137},
		{"bridgelog_embeddedlog_corruptions_total", map[string]string{"topic": "bridge.events", "partition": "5"}, 1},
		{"bridgelog_embeddedlog_appends_rejected_total", map[string]string{"topic": "bridge.events", "reason": "value_too_large"}, 1},
		{"bridgelog_kafkalog_rejected_total", map[string]string{"topic": "bridge.events", "reason": "too_large"}, 1},
		{"bridgelog_watermill_malformed_total", map[string]string{"topic": "bridge.claims", "dir": "subscribe"}, 1},
		{"bridgelog_analytics_records_total", map[string]string{"topic": "bridge.events"}, 500},
		{"bridgelog_analytics_undecodable_total", map[string]string{"topic": "bridge.events"}, 1},
		{"bridgelog_analytics_insert_errors_total", map[string]string{"table": "bridgelog_events"}, 1},
	})
	hist := fams["bridgelog_embeddedlog_group_commit_records"]
	if hist == nil || len(hist.GetMetric()) != 1 {
		t.Fatalf("group commit histogram missing: %v", hist)
	}
	hm := hist.GetMetric()[0].GetHistogram()
	if hm.GetSampleCount() != 2 || hm.GetSampleSum() != 31 {
		t.Errorf("group commits count %d sum %v, want 2 rounds of 31 records", hm.GetSampleCount(), hm.GetSampleSum())
	}
}

// TestBadInputIsCountedNotPanics feeds every kind of update Prometheus would
// refuse (most would panic inside client_golang) and checks each is counted
// under its reason while the good series stay intact.
func TestBadInputIsCountedNotPanics(t *testing.T) {
	cases := []struct {
		name   string
		reason string
		call   func(r *Registry)
	}{
		{"same name, other label keys", ReasonLabelMismatch, func(r *Registry) {
			r.Handlers().Count("gas_used_total", map[string]string{"kind": "mint"}, 1)
		}},
		{"same name, extra label", ReasonLabelMismatch, func(r *Registry) {
			r.Handlers().Count("gas_used_total", map[string]string{"purpose": "mint", "chain_id": "1"}, 1)
		}},
		{"same name, no labels", ReasonLabelMismatch, func(r *Registry) {
			r.Handlers().Count("gas_used_total", nil, 1)
		}},
		{"counter reused as gauge", ReasonKindMismatch, func(r *Registry) {
			r.Handlers().Gauge("gas_used_total", map[string]string{"purpose": "mint"}, 1)
		}},
		{"negative handler count", ReasonNegativeCount, func(r *Registry) {
			r.Handlers().Count("gas_used_total", map[string]string{"purpose": "mint"}, -5)
		}},
		{"negative projection count", ReasonNegativeCount, func(r *Registry) { r.Projections().Duplicate(-1) }},
		{"negative truncated bytes", ReasonNegativeCount, func(r *Registry) { r.EmbeddedLog().TailTruncated("t", 0, -1) }},
		{"negative group commit", ReasonNegativeCount, func(r *Registry) { r.EmbeddedLog().GroupCommitted("t", -1) }},
		{"invalid metric name", ReasonInvalidName, func(r *Registry) { r.Handlers().Count("bad-name", nil, 1) }},
		{"invalid label name", ReasonInvalidName, func(r *Registry) {
			r.Handlers().Count("x_total", map[string]string{"chain-id": "1"}, 1)
		}},
		{"reserved label name", ReasonInvalidName, func(r *Registry) {
			r.Handlers().Gauge("y", map[string]string{"__name__": "z"}, 1)
		}},
		{"invalid UTF-8 label value", ReasonLabelValue, func(r *Registry) {
			r.Handlers().Count("gas_used_total", map[string]string{"purpose": "\xff"}, 1)
		}},
		{"invalid UTF-8 projection", ReasonLabelValue, func(r *Registry) { r.Projections().Applied("\xfe", 1) }},
		{"clash with a fixed metric", ReasonRegister, func(r *Registry) { r.Handlers().Count("events_conflict_total", nil, 1) }},
		{"clash with a fixed vector", ReasonRegister, func(r *Registry) {
			r.Handlers().Gauge("kafkalog_rejected_total", map[string]string{"topic": "a", "reason": "b"}, 1)
		}},
		{"unknown signer metric", ReasonUnknownMetric, func(r *Registry) { r.Signer("s1").Observe("nope", "", 1) }},
		{"signer label on a metric without one", ReasonLabelMismatch, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricCommits, "quorum", 1)
		}},
		{"signer metric without its label", ReasonLabelMismatch, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricMessagesRejected, "", 1)
		}},
		{"negative signer count", ReasonNegativeCount, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricCommits, "", -1)
		}},
		{"negative signer duration", ReasonNegativeCount, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricProposalPhaseDuration, "", -3)
		}},
		{"NaN signer gauge", ReasonInvalidValue, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricStreamHoleBlockedMs, "a", math.NaN())
		}},
		{"infinite signer count", ReasonInvalidValue, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricCommits, "", math.Inf(1))
		}},
		{"invalid UTF-8 signer label", ReasonLabelValue, func(r *Registry) {
			r.Signer("s1").Observe(twophase.MetricValidationFailures, "\xff", 1)
		}},
		{"empty signer id", ReasonLabelValue, func(r *Registry) { r.Signer("").Observe(twophase.MetricCommits, "", 1) }},
		{"invalid UTF-8 signer id", ReasonLabelValue, func(r *Registry) {
			r.Signer("\xfe").Observe(twophase.MetricCommits, "", 1)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := New(WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			r.Handlers().Count("gas_used_total", map[string]string{"purpose": "mint"}, 10)
			r.Projections().Duplicate(1)
			r.EmbeddedLog().TailTruncated("t", 0, 10)
			r.Signer("s1").Observe(twophase.MetricCommits, "", 1)

			tc.call(r)
			tc.call(r) // twice: counted twice, logged once

			fams := scrape(t, r.Handler())
			check(t, fams, []want{
				{"bridgelog_metrics_errors_total", map[string]string{"reason": tc.reason}, 2},
				{"bridgelog_gas_used_total", map[string]string{"purpose": "mint"}, 10},
				{"bridgelog_events_duplicate_total", nil, 1},
				{"bridgelog_embeddedlog_tail_truncated_bytes_total", map[string]string{"topic": "t", "partition": "0"}, 10},
				{"bridgelog_events_conflict_total", nil, 0},
				{"bridgelog_signer_commits_total", map[string]string{"signer": "s1"}, 1},
			})
			var total float64
			for _, m := range fams["bridgelog_metrics_errors_total"].GetMetric() {
				total += m.GetCounter().GetValue()
			}
			if total != 2 {
				t.Errorf("metrics errors total %v, want 2 (only %s)", total, tc.reason)
			}
			if n := strings.Count(logs.String(), "metric update dropped"); n != 1 {
				t.Errorf("logged %d warnings, want 1:\n%s", n, logs.String())
			}
			if !strings.Contains(logs.String(), "reason="+tc.reason) {
				t.Errorf("warning lacks reason=%s:\n%s", tc.reason, logs.String())
			}
		})
	}
}

// TestConcurrentUse hammers shared and first-use names from many
// goroutines; run with -race. Totals must be exact.
func TestConcurrentUse(t *testing.T) {
	r := New(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	const workers, rounds = 8, 500
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, p, e := r.Handlers(), r.Projections(), r.EmbeddedLog()
			chain := map[string]string{"chain_id": fmt.Sprint(w % 2)}
			for i := range rounds {
				h.Count("fresh_total", map[string]string{"worker": "all"}, 1) // first use races
				h.Count("chain_events_total", chain, 2)
				h.Gauge("indexer_lag_blocks", map[string]string{"chain_id": fmt.Sprint(w)}, float64(i))
				h.Count("fresh_total", map[string]string{"other": "x"}, 1) // always a mismatch
				p.Applied("deposits", 1)
				p.Conflict(1)
				e.GroupCommitted("events", 2)
				sig := r.Signer(fmt.Sprint("s", w%2)) // first use races
				sig.Observe(twophase.MetricCommits, "", 1)
				sig.Observe(twophase.MetricProposalPhaseDuration, "", 100)
				if i%100 == 0 {
					scrape(t, r.Handler()) // gathering concurrently with updates
				}
			}
		}()
	}
	wg.Wait()

	n := float64(workers * rounds)
	fams := scrape(t, r.Handler())
	check(t, fams, []want{
		{"bridgelog_fresh_total", map[string]string{"worker": "all"}, n},
		{"bridgelog_chain_events_total", map[string]string{"chain_id": "0"}, n},
		{"bridgelog_chain_events_total", map[string]string{"chain_id": "1"}, n},
		{"bridgelog_indexer_lag_blocks", map[string]string{"chain_id": "7"}, rounds - 1},
		{"bridgelog_projection_events_applied_total", map[string]string{"projection": "deposits"}, n},
		{"bridgelog_events_conflict_total", nil, n},
		{"bridgelog_metrics_errors_total", map[string]string{"reason": ReasonLabelMismatch}, n},
		{"bridgelog_signer_commits_total", map[string]string{"signer": "s0"}, n / 2},
		{"bridgelog_signer_commits_total", map[string]string{"signer": "s1"}, n / 2},
	})
	if h := histogram(fams, "bridgelog_signer_proposal_phase_duration_ms", map[string]string{"signer": "s1"}); h.GetSampleCount() != uint64(n/2) {
		t.Errorf("s1 phase durations %d, want %v", h.GetSampleCount(), n/2)
	}
	if got := fams["bridgelog_embeddedlog_group_commit_records"].GetMetric()[0].GetHistogram().GetSampleSum(); got != 2*n {
		t.Errorf("group commit records %v, want %v", got, 2*n)
	}
}

func get(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, url, err)
	}
	return resp.StatusCode, string(b)
}

// waitReturn fails instead of hanging if a server does not stop.
func waitReturn(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("server did not return after its context ended")
		return nil
	}
}

func TestServeListenerServesAndStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	r := New(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	r.Handlers().Count("deposits_minted_total", nil, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, ln, r) }()
	base := "http://" + ln.Addr().String()

	if code, body := get(t, http.MethodGet, base+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("GET /healthz = %d %q, want 200 \"ok\"", code, body)
	}
	if code, _ := get(t, http.MethodPost, base+"/healthz"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /healthz = %d, want 405", code)
	}
	code, body := get(t, http.MethodGet, base+"/metrics")
	if code != http.StatusOK || !strings.Contains(body, "\nbridgelog_deposits_minted_total 3\n") {
		t.Errorf("GET /metrics = %d, lacks bridgelog_deposits_minted_total 3:\n%.500s", code, body)
	}
	if code, _ := get(t, http.MethodGet, base+"/nope"); code != http.StatusNotFound {
		t.Errorf("GET /nope = %d, want 404", code)
	}

	cancel()
	if err := waitReturn(t, done); err != nil {
		t.Fatalf("ServeListener after cancel: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// A process that runs but cannot work says so on /healthz (503 and why),
// and still serves /metrics.
func TestMuxReadyAnswersNotReady(t *testing.T) {
	r := New(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	var down atomic.Bool
	down.Store(true)
	srv := httptest.NewServer(r.MuxReady(func() error {
		if down.Load() {
			return errors.New("evm node http://127.0.0.1:1 down: connection refused")
		}
		return nil
	}))
	defer srv.Close()
	code, body := get(t, http.MethodGet, srv.URL+"/healthz")
	if code != http.StatusServiceUnavailable || body != "not ready\nevm node http://127.0.0.1:1 down: connection refused\n" {
		t.Errorf("GET /healthz while not ready = %d %q", code, body)
	}
	if code, _ := get(t, http.MethodGet, srv.URL+"/metrics"); code != http.StatusOK {
		t.Errorf("GET /metrics while not ready = %d, want 200", code)
	}
	down.Store(false)
	if code, body := get(t, http.MethodGet, srv.URL+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("GET /healthz once ready = %d %q, want 200 \"ok\"", code, body)
	}
}

func TestServeStartsAndStops(t *testing.T) {
	// Find a free port, then let Serve listen on it by address.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := probe.Addr().String()
	probe.Close()

	r := New(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, addr, r) }()

	up := false
	for range 200 { // until it listens; Serve failing early ends the wait
		select {
		case err := <-done:
			t.Fatalf("Serve returned before cancel: %v", err)
		default:
		}
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			up = resp.StatusCode == http.StatusOK
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !up {
		t.Fatalf("Serve never answered /healthz on %s", addr)
	}
	cancel()
	if err := waitReturn(t, done); err != nil {
		t.Fatalf("Serve after cancel: %v", err)
	}
}

func TestServeReportsListenError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer ln.Close()
	err = Serve(context.Background(), ln.Addr().String(), New())
	var opErr *net.OpError
	if err == nil || !errors.As(err, &opErr) {
		t.Fatalf("Serve on a taken port = %v, want a wrapped *net.OpError", err)
	}
	if !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("error %q does not name the address", err)
	}
}

// BenchmarkHandlerCount is the hot path of every handler metric: a map
// lookup under a read lock, one small slice of label values, client_golang's
// child lookup and an atomic add.
func BenchmarkHandlerCount(b *testing.B) {
	h := New().Handlers()
	labels := map[string]string{"chain_id": "1337"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			h.Count("chain_events_total", labels, 1)
		}
	})
}
