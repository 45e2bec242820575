package metrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// The signing handler's consumer-side interface.
var _ interface {
	Observe(name, label string, value float64)
} = (*SignerMetrics)(nil)

// declared is a metric's kind and label as twophase/metrics.go documents
// them in each constant's comment ("counter: reason (...)", "histogram, ms").
type declared struct{ kind, label string }

// declaredSignerMetrics parses twophase/metrics.go, so the adapter is
// checked against the protocol's declarations rather than a copy of them.
func declaredSignerMetrics(t *testing.T) map[string]declared {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../domain/twophase/metrics.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]declared{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			addDeclared(t, out, spec.(*ast.ValueSpec))
		}
	}
	if len(out) != len(twophase.MetricNames) {
		t.Fatalf("parsed %d metric constants, twophase.MetricNames has %d", len(out), len(twophase.MetricNames))
	}
	return out
}

// addDeclared adds the Metric constants of one const spec to out.
func addDeclared(t *testing.T, out map[string]declared, v *ast.ValueSpec) {
	t.Helper()
	for i, id := range v.Names {
		if !strings.HasPrefix(id.Name, "Metric") {
			continue
		}
		name, err := strconv.Unquote(v.Values[i].(*ast.BasicLit).Value)
		if err != nil {
			t.Fatalf("%s: %v", id.Name, err)
		}
		comment := strings.TrimSpace(v.Comment.Text())
		end := strings.IndexAny(comment, ":, ")
		if end < 0 {
			end = len(comment)
		}
		d := declared{kind: comment[:end]}
		if strings.HasPrefix(comment[end:], ":") {
			d.label, _, _ = strings.Cut(strings.TrimSpace(comment[end+1:]), " ")
		}
		out[name] = d
	}
}

var promKinds = map[string]dto.MetricType{
	"counter": dto.MetricType_COUNTER, "gauge": dto.MetricType_GAUGE, "histogram": dto.MetricType_HISTOGRAM,
}

// Every twophase metric has one series of the declared kind and labels,
// named bridgelog_signer_<seed name> with Prometheus' suffix rules.
func TestSignerSeriesMatchTwophase(t *testing.T) {
	decl := declaredSignerMetrics(t)
	if len(signerSpecs) != len(twophase.MetricNames) {
		t.Errorf("%d signer specs for %d twophase metrics", len(signerSpecs), len(twophase.MetricNames))
	}
	r := New()
	s := r.Signer("s1")
	for _, name := range twophase.MetricNames {
		label := ""
		if decl[name].label != "" {
			label = "x"
		}
		s.Observe(name, label, 1)
	}
	fams := scrape(t, r.Handler())
	for _, name := range twophase.MetricNames {
		spec, ok := signerSpecs[name]
		if !ok {
			t.Errorf("%s: no series", name)
			continue
		}
		full := Prefix + signerPrefix + spec.name
		f := fams[full]
		if f == nil {
			t.Errorf("%s: %s missing from exposition", name, full)
			continue
		}
		d := decl[name]
		if want, ok := promKinds[d.kind]; !ok || f.GetType() != want {
			t.Errorf("%s: %s is %v, twophase declares %q", name, full, f.GetType(), d.kind)
		}
		wantLabels := []string{"signer"}
		if d.label != "" {
			wantLabels = append(wantLabels, d.label)
		}
		for _, m := range f.GetMetric() {
			var got []string
			for _, l := range m.GetLabel() {
				got = append(got, l.GetName())
			}
			slices.Sort(got)
			slices.Sort(wantLabels)
			if !slices.Equal(got, wantLabels) {
				t.Errorf("%s: labels %v, want %v", full, got, wantLabels)
			}
		}
		if strings.HasSuffix(spec.name, "_total") != (d.kind == "counter") {
			t.Errorf("%s: a counter and only a counter ends in _total", full)
		}
		if strings.HasSuffix(spec.name, "_count") {
			t.Errorf("%s: _count is a histogram's own suffix", full)
		}
		stem := strings.TrimSuffix(strings.TrimSuffix(name, "_total"), "_count")
		if !strings.HasPrefix(spec.name, stem) {
			t.Errorf("%s: %s does not keep the seed's name", name, full)
		}
		if f.GetHelp() == "" {
			t.Errorf("%s: no help", full)
		}
	}
	if got, _ := value(fams, "bridgelog_metrics_errors_total", map[string]string{"reason": ReasonUnknownMetric}); got != 0 {
		t.Errorf("every declared name observed, yet %v unknown", got)
	}
}

// histogram returns name{labels}'s histogram, or nil.
func histogram(fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Histogram {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		return m.GetHistogram()
	}
	return nil
}

func TestSignerMetricsExposition(t *testing.T) {
	r := New()
	s1, s2 := r.Signer("s1"), r.Signer("s2")
	if r.Signer("s1") != s1 {
		t.Error("Signer returned a second view of s1")
	}
	s1.Observe(twophase.MetricCommits, "", 1)
	s1.Observe(twophase.MetricCommits, "", 1)
	s2.Observe(twophase.MetricCommits, "", 1)
	s1.Observe(twophase.MetricCanonicalSelection, string(twophase.TriggerQuorum), 1)
	s1.Observe(twophase.MetricUTXODepthRejects, "", 7)
	s1.Observe(twophase.MetricMessagesRejected, string(twophase.ReasonBadSignature), 1)
	s1.Observe(twophase.MetricValidationFailures, string(twophase.ReasonWrongPayout), 1)
	s1.Observe(twophase.MetricStreamHoleBlockedMs, "kaspa:main", 1500)
	s1.Observe(twophase.MetricStreamHoleBlockedMs, "kaspa:main", 2500)
	s1.Observe(twophase.MetricProposalPhaseDuration, "", 800)
	s1.Observe(twophase.MetricProposalPhaseDuration, "", 12000)
	s2.Observe(twophase.MetricProposalsReceived, "", 3)
	s1.Observe(twophase.MetricLockSigsReceived, "", 1)
	s1.Observe(twophase.MetricLockSigsReceived, "", 1)
	s1.Observe(twophase.MetricOutpointLockConflicts, "", 1)

	fams := scrape(t, r.Handler())
	one := map[string]string{"signer": "s1"}
	two := map[string]string{"signer": "s2"}
	check(t, fams, []want{
		{"bridgelog_signer_commits_total", one, 2},
		{"bridgelog_signer_commits_total", two, 1},
		{"bridgelog_signer_canonical_selection_method_total", map[string]string{"signer": "s1", "method": "quorum"}, 1},
		{"bridgelog_signer_utxo_depth_rejects_total", one, 7},
		{"bridgelog_signer_messages_rejected_total", map[string]string{"signer": "s1", "reason": "bad_signature"}, 1},
		{"bridgelog_signer_proposal_validation_failures_total", map[string]string{"signer": "s1", "reason": "wrong_payout"}, 1},
		{"bridgelog_signer_stream_hole_blocked_duration_ms", map[string]string{"signer": "s1", "stream": "kaspa:main"}, 2500},
		{"bridgelog_signer_lock_sigs_received_total", one, 2},
		{"bridgelog_signer_outpoint_lock_conflicts_total", one, 1},
		// Alerted-on series exist at 0 for every signer from the start.
		{"bridgelog_signer_events_abandoned_total", two, 0},
		{"bridgelog_signer_split_brain_warnings_total", two, 0},
		{"bridgelog_signer_lock_sigs_received_total", two, 0},
		{"bridgelog_signer_lock_certs_accepted_total", two, 0},
		{"bridgelog_signer_outpoint_lock_conflicts_total", two, 0},
		{"bridgelog_signer_canonical_selection_method_total", map[string]string{"signer": "s2", "method": "lock_cert"}, 0},
		{"bridgelog_signer_canonical_selection_method_total", map[string]string{"signer": "s2", "method": "fast_forward"}, 0},
		{"bridgelog_signer_messages_rejected_total", map[string]string{"signer": "s2", "reason": "replayed"}, 0},
		{"bridgelog_signer_payout_submissions_total", map[string]string{"signer": "s2", "outcome": "rejected"}, 0},
		{"bridgelog_metrics_errors_total", map[string]string{"reason": ReasonUnknownMetric}, 0},
	})

	h := histogram(fams, "bridgelog_signer_proposal_phase_duration_ms", one)
	if h == nil || h.GetSampleCount() != 2 || h.GetSampleSum() != 12800 {
		t.Fatalf("phase duration of s1 = %v, want 2 rounds of 12800 ms", h)
	}
	// The slow-proposal alert reads the bucket at 10 s: one round below it.
	var at10s *dto.Bucket
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == 10000 {
			at10s = b
		}
	}
	if at10s == nil || at10s.GetCumulativeCount() != 1 {
		t.Errorf("bucket le=10000 = %v, want 1 round", at10s)
	}
	if h := histogram(fams, "bridgelog_signer_proposal_phase_duration_ms", two); h == nil || h.GetSampleCount() != 0 {
		t.Errorf("phase duration of s2 = %v, want present and empty", h)
	}
	if h := histogram(fams, "bridgelog_signer_proposals_received", two); h == nil || h.GetSampleCount() != 1 || h.GetSampleSum() != 3 {
		t.Errorf("proposals received of s2 = %v, want one round of 3", h)
	}
}
