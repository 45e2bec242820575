package metrics

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signingsource"
)

var _ signingsource.Metrics = (*HandlerMetrics)(nil)

// TestComponentSeries: each component's typed metrics export the series
// that deploy/alerts and the dashboards query, with their names, kinds,
// labels and help as listed in testdata/component_series.txt.
func TestComponentSeries(t *testing.T) {
	r := New()
	h := r.Handlers()
	var m handlers.Metrics = h
	m.IndexerRPCError(1)
	m.IndexerLag(1, 3)
	m.ChainEventsAppended(1, 2)
	m.LogRejected(1)
	m.ReorgDetected(1)
	m.ReorgBeyondWindow(1)
	m.StoppedBeyondWindow(1, true)
	m.ObservationsConfirmed(1, 4)
	m.ObservationReorged(1)
	m.OldestUnbatched(12.5)
	m.BatchCreated()
	m.BatchLost()
	m.BatchRecovered()
	m.BatchAnchored(50_000)
	m.AnchorFailed()
	m.DepositMinted(21_000)
	m.DepositFailed()
	m.ClaimRecordUndecodable()
	m.ClaimAttemptFailed()
	m.ClaimProofInvalid()
	m.WithdrawalExecuted()
	m.WithdrawalFailed()
	m.StepFailed("mint")
	var rm handlers.RefundMetrics = h
	rm.RefundCompleted(30_000)
	rm.RefundFailed()
	rm.CertificateRefused("quorum")
	var s signingsource.Metrics = h
	s.SourceHanded("s")
	s.SourceInvalid("s")
	s.RequestRefused("rpc", "x")
	h.LogBackupFailed()
	h.LogBackupWritten(time.Unix(1_700_000_000, 0))

	fams, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fams {
		if _, dynamic := h.m[strings.TrimPrefix(f.GetName(), Prefix)]; !dynamic {
			continue // a fixed metric of another component
		}
		for _, s := range f.GetMetric() {
			var ls []string
			for _, l := range s.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			got = append(got, fmt.Sprintf("%s %s {%s} %q", f.GetName(), f.GetType(), strings.Join(ls, ","), f.GetHelp()))
		}
	}
	slices.Sort(got)
	raw, err := os.ReadFile("testdata/component_series.txt")
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if !slices.Equal(got, listed) {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(listed, "\n"))
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
	}
	check(t, byName, []want{
		{"bridgelog_gas_used_total", map[string]string{"purpose": "anchor"}, 50_000},
		{"bridgelog_gas_used_total", map[string]string{"purpose": "mint"}, 21_000},
		{"bridgelog_indexer_lag_blocks", map[string]string{"chain_id": "1"}, 3},
		{"bridgelog_chain_events_total", map[string]string{"chain_id": "1"}, 2},
		{"bridgelog_confirmations_total", map[string]string{"chain_id": "1"}, 4},
		{"bridgelog_indexer_reorg_beyond_window", map[string]string{"chain_id": "1"}, 1},
		{"bridgelog_oldest_unbatched_withdrawal_seconds", nil, 12.5},
		{"bridgelog_log_backup_last_success_seconds", nil, 1_700_000_000},
	})
}
