package metrics

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// signerPrefix starts the series of the two-phase signer (seed 001,
// 12.1): bridgelog_signer_<seed name>. Where the seed's name of a counter
// lacks Prometheus' _total, _total is appended; a seed name ending in
// _count loses it, since Prometheus reserves _count for a histogram's
// sample count (proposals_received_count would be exposed as
// ..._count_count).
const signerPrefix = "signer_"

// Buckets of the signer's histograms. msBuckets must hold 10000: the
// BridgelogSignerProposalPhaseSlow alert counts the rounds above it.
var (
	msBuckets    = []float64{50, 100, 250, 500, 1000, 2500, 5000, 10000, 20000, 30000, 60000, 120000, 300000, 600000}
	countBuckets = []float64{0, 1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 100}
)

// signerSpec is the Prometheus shape of one twophase metric. label is its
// one label besides signer ("" when it has none); preset lists the label
// values that exist at 0 for every signer, for the alerts' increase().
type signerSpec struct {
	name    string // after Prefix
	kind    kind
	label   string
	preset  []string
	buckets []float64
	help    string
}

// signerSpecs maps each of twophase.MetricNames to its series.
var signerSpecs = map[string]signerSpec{
	twophase.MetricProposalPhaseDuration: {name: "proposal_phase_duration_ms", kind: histogramKind, buckets: msBuckets,
		help: "Milliseconds a round spent in Proposing, until commit or failure."},
	twophase.MetricProposalsReceived: {name: "proposals_received", kind: histogramKind, buckets: countBuckets,
		help: "Proposals (votes) held when a round ended."},
	twophase.MetricCanonicalSelection: {name: "canonical_selection_method_total", kind: counterKind, label: "method",
		preset: []string{string(twophase.TriggerQuorum), string(twophase.TriggerFastForward), string(twophase.TriggerLockCert)},
		help:   "Commits by how the committed hash was determined (expected: quorum in Profile A, lock_cert in Profile B)."},
	twophase.MetricFastForward: {name: "fast_forward_total", kind: counterKind,
		help: "Commits adopted from a peer's commit evidence, skipping Proposing (late joiner)."},
	twophase.MetricValidationFailures: {name: "proposal_validation_failures_total", kind: counterKind, label: "reason",
		help: "Invalid proposals or commits received, by reason."},
	twophase.MetricPhaseTransitionErrors: {name: "phase_transition_errors_total", kind: counterKind,
		help: "Errors during phase transitions."},
	twophase.MetricSplitBrainWarnings: {name: "split_brain_warnings_total", kind: counterKind,
		help: "Commits received that conflict with the signer's own commit."},
	twophase.MetricUniqueHashesPerEvent: {name: "unique_hashes_per_event", kind: histogramKind, buckets: countBuckets,
		help: "Distinct proposal hashes among the votes when a round ended (divergence)."},
	twophase.MetricTimeoutsWithoutQuorum: {name: "proposal_timeouts_without_quorum_total", kind: counterKind,
		help: "Proposal rounds that timed out without a quorum (a retry follows)."},
	twophase.MetricRoundRetries: {name: "round_retries_total", kind: counterKind,
		help: "Rounds retried, across events."},
	twophase.MetricEventsAbandoned: {name: "events_abandoned_total", kind: counterKind,
		help: "Events moved to Abandoned after their last retry; each needs an operator."},
	twophase.MetricUTXODepthRejects: {name: "utxo_depth_rejects_total", kind: counterKind,
		help: "UTXOs passed over by the depth filter during selection."},
	twophase.MetricRevalidationFailures: {name: "utxo_revalidation_failures_total", kind: counterKind,
		help: "Pre-sign revalidations that failed (inputs missing, spent or too shallow)."},
	twophase.MetricStreamHolesBlocking: {name: "stream_holes_blocking_total", kind: counterKind, label: "stream",
		help: "Times a stream stopped because its next nonce was not actionable, by stream."},
	twophase.MetricStreamHoleBlockedMs: {name: "stream_hole_blocked_duration_ms", kind: gaugeKind, label: "stream",
		help: "Milliseconds the stream has waited for its next actionable nonce (0 when not blocked), by stream."},
	twophase.MetricStateSyncThrottled: {name: "state_sync_throttled_total", kind: counterKind,
		help: "Targeted state sync requests suppressed by cooldown or rate limits."},
	twophase.MetricEventsStarted: {name: "events_total", kind: counterKind,
		help: "Signing events the signer started."},
	twophase.MetricCommits: {name: "commits_total", kind: counterKind,
		help: "Templates committed."},
	twophase.MetricEventsCompleted: {name: "events_completed_total", kind: counterKind,
		help: "Events whose payout was accepted and deep enough."},
	twophase.MetricCommitLatency: {name: "commit_latency_ms", kind: histogramKind, buckets: msBuckets,
		help: "Milliseconds from an event's first round to its commit."},
	twophase.MetricMessagesRejected: {name: "messages_rejected_total", kind: counterKind, label: "reason",
		preset: []string{string(twophase.ReasonBadSignature), string(twophase.ReasonUnknownSender), string(twophase.ReasonReplayed)},
		help:   "Envelopes refused before the protocol read them, by reason."},
	twophase.MetricEquivocations: {name: "equivocations_total", kind: counterKind,
		help: "Members seen sending two different proposals for one event and round."},
	twophase.MetricFutureRoundIgnored: {name: "future_round_proposals_ignored_total", kind: counterKind,
		help: "Proposals for a later round than the signer's, ignored."},
	twophase.MetricDuplicateVotes: {name: "duplicate_votes_total", kind: counterKind,
		help: "Votes received again (idempotent, ignored)."},
	twophase.MetricPayoutSubmissions: {name: "payout_submissions_total", kind: counterKind, label: "outcome",
		preset: []string{"accepted", "rejected"},
		help:   "Payout submissions to the ledger, by outcome (accepted, rejected)."},
	twophase.MetricInsufficientDeepUTXOs: {name: "insufficient_deep_utxos_total", kind: counterKind,
		help: "Rounds that found too few deep UTXOs to build a template."},
	twophase.MetricAmbiguousRounds: {name: "ambiguous_earlier_rounds_total", kind: counterKind,
		help: "Rounds refused because the signer's earlier votes for the event are ambiguous."},
	twophase.MetricLockSigsReceived: {name: "lock_sigs_received_total", kind: counterKind,
		help: "Profile B: members' lock signatures received that verify (one with each plan)."},
	twophase.MetricLockCertsAccepted: {name: "lock_certs_accepted_total", kind: counterKind,
		help: "Profile B: lock certificates formed from a quorum of lock signatures or adopted from a peer's commit."},
	twophase.MetricOutpointLockConflicts: {name: "outpoint_lock_conflicts_total", kind: counterKind,
		help: "Profile B: plans, locks and certificates refused because another event's certificate or lock holds an outpoint."},
	twophase.MetricEventsRefused: {name: "events_refused_total", kind: counterKind, label: "reason",
		help: "Events Refused (never paid: a destination or amount the group refuses), by reason; each burn is refundable."},
	twophase.MetricRefusalsCertified: {name: "refusals_certified_total", kind: counterKind,
		help: "Refusal certificates signed by a quorum (GET /refusals serves them to the relay)."},
}

// signerSeries is a registered signerSpec; one of the vectors is set.
type signerSeries struct {
	signerSpec
	counter *prometheus.CounterVec
	gauge   *prometheus.GaugeVec
	hist    *prometheus.HistogramVec
}

// signerFamilies holds the series shared by every signer of the process
// and one view per signer id.
type signerFamilies struct {
	series map[string]*signerSeries // by twophase metric name

	mu    sync.Mutex
	views map[string]*SignerMetrics
}

func newSignerFamilies(r *Registry) *signerFamilies {
	f := &signerFamilies{series: map[string]*signerSeries{}, views: map[string]*SignerMetrics{}}
	for metric, spec := range signerSpecs {
		labels := []string{"signer"}
		if spec.label != "" {
			labels = append(labels, spec.label)
		}
		s := &signerSeries{signerSpec: spec}
		name := Prefix + signerPrefix + spec.name
		switch spec.kind {
		case counterKind:
			s.counter = prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: spec.help}, labels)
			r.reg.MustRegister(s.counter) // fixed names: a clash is a bug in this package, caught by its tests
		case gaugeKind:
			s.gauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: spec.help}, labels)
			r.reg.MustRegister(s.gauge)
		case histogramKind:
			s.hist = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: spec.help, Buckets: spec.buckets}, labels)
			r.reg.MustRegister(s.hist)
		}
		f.series[metric] = s
	}
	return f
}

// SignerMetrics implements the signing handler's Metrics for one signer:
// each twophase observation goes to its bridgelog_signer_ series,
// labelled signer=<id>. An observation Prometheus would refuse or that
// means nothing (an unknown name, a label the metric lacks or a missing
// one, a negative, NaN or infinite value) is dropped and counted.
type SignerMetrics struct {
	r   *Registry
	id  string
	err error // why id cannot be a label value
}

// Signer returns the metrics of the signer id (its member id in the
// group). A process that runs many signers, as the simulator does, takes
// one view per signer; the same id returns the same view. The first call
// for an id creates its counters at 0, so alerts see their first
// increase. A view of an empty or invalid UTF-8 id drops every
// observation and counts it (label_value).
func (r *Registry) Signer(id string) *SignerMetrics {
	f := r.signers
	f.mu.Lock()
	defer f.mu.Unlock()
	if v := f.views[id]; v != nil {
		return v
	}
	v := &SignerMetrics{r: r, id: id, err: checkSignerID(id)}
	f.views[id] = v
	if v.err != nil {
		return v // each observation counts the bad id
	}
	for _, s := range f.series {
		switch {
		case s.counter != nil && s.label == "":
			s.counter.WithLabelValues(id)
		case s.counter != nil:
			for _, value := range s.preset {
				s.counter.WithLabelValues(id, value)
			}
		case s.hist != nil:
			s.hist.WithLabelValues(id)
		}
	}
	return v
}

func checkSignerID(id string) error {
	switch {
	case id == "":
		return errors.New("empty signer id") // the label would vanish and merge signers
	case !utf8.ValidString(id):
		return fmt.Errorf("signer id %q is not valid UTF-8", id)
	}
	return nil
}

// Observe records one twophase observation.
func (m *SignerMetrics) Observe(name, label string, value float64) {
	s := m.r.signers.series[name]
	if s == nil {
		m.r.dropped(signerPrefix+name, ReasonUnknownMetric, fmt.Errorf("%q is not in twophase.MetricNames", name))
		return
	}
	metric := signerPrefix + s.name
	if (s.label == "") != (label == "") {
		m.r.dropped(metric, ReasonLabelMismatch, fmt.Errorf("label %q for %s, whose label is %q", label, metric, s.label))
		return
	}
	switch {
	case math.IsNaN(value) || math.IsInf(value, 0):
		m.r.dropped(metric, ReasonInvalidValue, fmt.Errorf("value %v", value))
		return
	case value < 0:
		m.r.dropped(metric, ReasonNegativeCount, fmt.Errorf("value %v", value))
		return
	}
	if m.err != nil {
		m.r.dropped(metric, ReasonLabelValue, m.err)
		return
	}
	values := []string{m.id}
	if s.label != "" {
		values = append(values, label)
	}
	var err error
	switch s.kind {
	case counterKind:
		var c prometheus.Counter
		if c, err = s.counter.GetMetricWithLabelValues(values...); err == nil {
			c.Add(value)
		}
	case gaugeKind:
		var g prometheus.Gauge
		if g, err = s.gauge.GetMetricWithLabelValues(values...); err == nil {
			g.Set(value)
		}
	case histogramKind:
		var o prometheus.Observer
		if o, err = s.hist.GetMetricWithLabelValues(values...); err == nil {
			o.Observe(value)
		}
	}
	if err != nil {
		m.r.dropped(metric, ReasonLabelValue, err)
	}
}
