package synth_test

import (
	"context"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// TestLifecyclesComplete: flows go detected → confirmed → minted,
// executed or failed, in that order within their partition, and the
// stats count what was appended.
func TestLifecyclesComplete(t *testing.T) {
	ctx := context.Background()
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	st, err := synth.Generate(ctx, lg, synth.Config{Events: 6000, Seed: 3, InFlight: 100}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := lg.EndOffsets(ctx, topics.TopicBridge)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	steps := map[string][]string{} // aggregate → first-seen types in log order
	total := 0
	for p, end := range ends {
		recs, err := lg.Read(ctx, topics.TopicBridge, int32(p), 0, int(end))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			env, err := topics.DecodeEnvelope(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			total++
			types[env.Type]++
			seen := steps[env.AggregateID]
			if len(seen) == 0 || seen[len(seen)-1] != env.Type {
				steps[env.AggregateID] = append(seen, env.Type)
			}
		}
	}
	if total != st.Events || total != 6000 {
		t.Fatalf("log has %d events, stats say %d", total, st.Events)
	}
	for _, typ := range []string{domain.TypeDepositMinted, domain.TypeWithdrawalExecuted, domain.TypeDepositFailed, domain.TypeWithdrawalFailed} {
		if types[typ] == 0 {
			t.Errorf("no %s in %v", typ, types)
		}
	}
	terminal := map[string]bool{domain.TypeDepositMinted: true, domain.TypeWithdrawalExecuted: true,
		domain.TypeDepositFailed: true, domain.TypeWithdrawalFailed: true}
	completed := 0
	for agg, seq := range steps {
		for i, typ := range seq {
			if terminal[typ] {
				completed++
				if i < 2 {
					t.Fatalf("%s ended before it was detected and confirmed: %v", agg, seq)
				}
			}
		}
	}
	// At most InFlight flows are still open at the end.
	if open := len(steps) - completed; open > 100 || completed == 0 {
		t.Fatalf("%d flows completed, %d still open", completed, open)
	}
}
