package signing_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

// scriptedLedger answers views with a score the test sets, or an error.
type scriptedLedger struct {
	score uint64
	err   error
}

func (l *scriptedLedger) View(context.Context) (twophase.LedgerView, error) {
	return twophase.LedgerView{VirtualDAAScore: l.score}, l.err
}
func (l *scriptedLedger) PayoutStatus(context.Context, twophase.Hash) (twophase.PayoutStatus, error) {
	return twophase.PayoutStatus{}, l.err
}
func (l *scriptedLedger) Submit(context.Context, []byte) error { return l.err }

// countingMetrics keeps step failures as series/step.
type countingMetrics map[string]int

func (m countingMetrics) StepFailed(step string) { m["relay_step_failures_total/"+step]++ }

func TestWatchedLedgerRecordsOutagesAndRefusesStaleViews(t *testing.T) {
	ctx := context.Background()
	lg := memlog.New()
	now := time.Unix(1_700_000_000, 0)
	m := countingMetrics{}
	w := &signing.WatchedLedger{Step: "kaspa_node", StallAfter: 30 * time.Second, Now: func() time.Time { return now },
		Health: &handlers.StepHealth{Appender: &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}, Metrics: m,
			Now: func() time.Time { return now }}}

	// No node yet: the dial's error, one outage.
	w.DialFailed(ctx, errors.New("connection refused"))
	if _, err := w.View(ctx); !errors.Is(err, signing.ErrLedgerUnavailable) {
		t.Fatalf("view before a node is attached: %v", err)
	}
	if err := w.Submit(ctx, nil); !errors.Is(err, signing.ErrLedgerUnavailable) {
		t.Fatalf("submit before a node is attached: %v", err)
	}
	node := &scriptedLedger{score: 100}
	w.Attach(node)
	if v, err := w.View(ctx); err != nil || v.VirtualDAAScore != 100 {
		t.Fatalf("view %+v, %v", v, err)
	}
	// The score stays at 100: a view within the bound, then none.
	now = now.Add(20 * time.Second)
	if _, err := w.View(ctx); err != nil {
		t.Fatalf("view 20 s after the score moved: %v", err)
	}
	now = now.Add(20 * time.Second)
	if _, err := w.View(ctx); !errors.Is(err, signing.ErrLedgerStalled) {
		t.Fatalf("view 40 s after the score moved: %v, want ErrLedgerStalled", err)
	}
	node.score = 101
	if _, err := w.View(ctx); err != nil {
		t.Fatalf("view once the score moves again: %v", err)
	}

	var failed []domain.RelayStepFailed
	var recovered []domain.RelayStepRecovered
	for _, r := range readAll(t, lg, topics.TopicChain) {
		switch r.Type {
		case domain.TypeRelayStepFailed:
			var f domain.RelayStepFailed
			decodeInto(t, r, &f)
			failed = append(failed, f)
		case domain.TypeRelayStepRecovered:
			var f domain.RelayStepRecovered
			decodeInto(t, r, &f)
			recovered = append(recovered, f)
		}
	}
	if len(failed) != 2 || len(recovered) != 2 {
		t.Fatalf("%d outages started and %d ended on the log, want 2 and 2 (unreachable, stalled)", len(failed), len(recovered))
	}
	if failed[0].Step != "kaspa_node" || failed[1].Step != "kaspa_node" {
		t.Fatalf("steps %q %q", failed[0].Step, failed[1].Step)
	}
	for i, want := range []string{"connection refused", "has not moved for 40s"} {
		if !strings.Contains(failed[i].Reason, want) {
			t.Fatalf("outage %d reason %q, want it to say %q", i, failed[i].Reason, want)
		}
	}
	if got := m["relay_step_failures_total/kaspa_node"]; got != 3 {
		t.Fatalf("relay_step_failures_total{step=kaspa_node} = %d, want 3 (dial, view before attach, stale view)", got)
	}
}

// readAll returns every envelope of topic, partition after partition.
func readAll(t *testing.T, lg topics.Log, topic string) []topics.Envelope {
	t.Helper()
	ctx := context.Background()
	ends, err := lg.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []topics.Envelope
	for p, end := range ends {
		recs, err := lg.Read(ctx, topic, int32(p), 0, int(end))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			env, err := topics.DecodeEnvelope(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, env)
		}
	}
	return out
}

func decodeInto(t *testing.T, env topics.Envelope, v any) {
	t.Helper()
	if err := topics.DecodePayload(env.Payload, v); err != nil {
		t.Fatal(err)
	}
}

// TestWatchedLedgerForwardsInputStatus: a watched node whose client can
// say what became of an outpoint answers through the watch; one that
// cannot says so with a typed error (and a signed payout is then never
// voided).
func TestWatchedLedgerForwardsInputStatus(t *testing.T) {
	w := &signing.WatchedLedger{Step: "kaspa_node", StallAfter: time.Minute}
	var _ signing.InputLedger = w
	w.Attach(plainLedger{})
	if _, err := w.InputStatus(context.Background(), twophase.Outpoint{}); !errors.Is(err, signing.ErrNoInputStatus) {
		t.Fatalf("plain ledger: %v, want ErrNoInputStatus", err)
	}
	w.Attach(inputLedger{})
	st, err := w.InputStatus(context.Background(), twophase.Outpoint{})
	if err != nil || st.GoneSince != 7 {
		t.Fatalf("input ledger: %+v, %v", st, err)
	}
}

type plainLedger struct{}

func (plainLedger) View(context.Context) (twophase.LedgerView, error) {
	return twophase.LedgerView{}, nil
}
func (plainLedger) PayoutStatus(context.Context, twophase.Hash) (twophase.PayoutStatus, error) {
	return twophase.PayoutStatus{}, nil
}
func (plainLedger) Submit(context.Context, []byte) error { return nil }

type inputLedger struct{ plainLedger }

func (inputLedger) InputStatus(context.Context, twophase.Outpoint) (twophase.InputStatus, error) {
	return twophase.InputStatus{GoneSince: 7, VirtualDAAScore: 9}, nil
}
