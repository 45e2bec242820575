package synth_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	types := map[string]int{}
	steps := map[string][]string{} // aggregate → first-seen types in log order
	total := 0
	eachEnvelope(t, lg, topics.TopicBridge, func(_ int32, _ topics.Record, env topics.Envelope) {
		total++
		types[env.Type]++
		seen := steps[env.AggregateID]
		if len(seen) == 0 || seen[len(seen)-1] != env.Type {
			steps[env.AggregateID] = append(seen, env.Type)
		}
	})
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

// eachEnvelope calls each with every record of topic, partition by
// partition, and its decoded envelope.
func eachEnvelope(t *testing.T, lg topics.Log, topic string, each func(p int32, r topics.Record, env topics.Envelope)) {
	t.Helper()
	ctx := context.Background()
	ends, err := lg.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
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
			each(int32(p), r, env)
		}
	}
}

// logDigest hashes every record of every topic of lg, topic by topic and
// partition by partition, and counts the event types of each topic.
func logDigest(t *testing.T, lg topics.Log) (string, map[string]map[string]int) {
	t.Helper()
	h := sha256.New()
	types := map[string]map[string]int{}
	for _, spec := range topics.Topics() {
		eachEnvelope(t, lg, spec.Name, func(p int32, r topics.Record, env topics.Envelope) {
			if types[spec.Name] == nil {
				types[spec.Name] = map[string]int{}
			}
			types[spec.Name][env.Type]++
			fmt.Fprintf(h, "%s/%d@%d %x\n", spec.Name, p, r.Offset, r.Value)
		})
	}
	return hex.EncodeToString(h.Sum(nil)), types
}

// TestLogsUnchanged: each configuration the rebuild benchmarks use still
// writes the log it wrote when its cached copy was named (the benchmarks
// cache their generated log by name, bridgelog-bench-log-N-v2 and
// bridgelog-bench-log-relay-N-v2, and only figures measured on the same
// log compare): a change to what the generator writes must rename the
// cache too.
func TestLogsUnchanged(t *testing.T) {
	for _, c := range []struct {
		cfg  synth.Config
		want string
	}{
		// the lifecycle log (bridgelog-bench-log-N-v2)
		{synth.Config{Events: 3000, Seed: 1, AppendBatch: 500}, "b56a98d6d0304755888939573498af065339e0930542e5ddc29665d2018a61be"},
		// the relay log, with batches (bridgelog-bench-log-relay-N-v2)
		{synth.Config{Events: 3000, Seed: 1, AppendBatch: 500, RelayEvents: true, BatchLeaves: 16}, "e80a113d6fb4b9806f342b41228aecb62c73cba572bb4f29da0ecf96990f0a89"},
	} {
		lg, err := embeddedlog.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := synth.Generate(context.Background(), lg, c.cfg, nil); err != nil {
			t.Fatal(err)
		}
		got, _ := logDigest(t, lg)
		lg.Close()
		if got != c.want {
			t.Errorf("relay events %v: log digest %s, want %s", c.cfg.RelayEvents, got, c.want)
		}
	}
}

// TestRelayEvents: with RelayEvents every mint and claim comes with its
// transaction's intent and outcome, on the topics the relayer writes them
// to, and the chain topic has scans; without it there are none of these.
func TestRelayEvents(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	st, err := synth.Generate(context.Background(), lg, synth.Config{Events: 8000, Seed: 5, InFlight: 100, RelayEvents: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, types := logDigest(t, lg)
	total := 0
	for _, byType := range types {
		for _, n := range byType {
			total += n
		}
	}
	if total != st.Events || total != 8000 {
		t.Fatalf("log has %d events, stats say %d", total, st.Events)
	}
	bridge, claims, chain := types[topics.TopicBridge], types[topics.TopicClaims], types[topics.TopicChain]
	// Each terminal event follows its intent and outcome; up to InFlight
	// flows may have sent and not finished, and re-sends add a few.
	near := func(what string, a, b int) {
		if a == 0 || b == 0 || a-b > 130 || b-a > 130 {
			t.Errorf("%s: %d against %d", what, a, b)
		}
	}
	near("mint intents / minted", bridge[domain.TypeMintIntent], bridge[domain.TypeDepositMinted])
	near("mint outcomes / minted", bridge[domain.TypeMintOutcome], bridge[domain.TypeDepositMinted])
	near("claim intents / executed", claims[domain.TypeClaimIntent], bridge[domain.TypeWithdrawalExecuted])
	near("claim outcomes / executed", claims[domain.TypeClaimOutcome], bridge[domain.TypeWithdrawalExecuted])
	if chain[domain.TypeChainScanned] < 8000/40 {
		t.Errorf("%d chain scans in 8,000 events", chain[domain.TypeChainScanned])
	}
	// Batches of 128 confirmed withdrawals, each anchored, its leaves
	// marked batched and their claims requested (re-sends add a few).
	batches := types[topics.TopicBatches]
	created := batches[domain.TypeBatchCreated]
	if created < 3 || batches[domain.TypeBatchAnchored] < created || batches[domain.TypeAnchorIntent] < created ||
		bridge[domain.TypeWithdrawalBatched] < 128*created || claims[domain.TypeClaimRequested] < 128*created ||
		bridge[domain.TypeWithdrawalBatched] > 128*created+20 {
		t.Errorf("batch events: %v, %d batched, %d claims requested", batches, bridge[domain.TypeWithdrawalBatched], claims[domain.TypeClaimRequested])
	}

	plain, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := synth.Generate(context.Background(), plain, synth.Config{Events: 2000, Seed: 5}, nil); err != nil {
		t.Fatal(err)
	}
	if _, types := logDigest(t, plain); len(types) != 1 || types[topics.TopicBridge][domain.TypeMintIntent] != 0 {
		t.Errorf("without relay events: %v", types)
	}
}
