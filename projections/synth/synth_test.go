package synth_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

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
// bridgelog-bench-log-relay-N-v3, and only figures measured on the same
// log compare): a change to what the generator writes must rename the
// cache too.
func TestLogsUnchanged(t *testing.T) {
	for _, c := range []struct {
		cfg  synth.Config
		want string
	}{
		// the lifecycle log (bridgelog-bench-log-N-v2)
		{synth.Config{Events: 3000, Seed: 1, AppendBatch: 500}, "b56a98d6d0304755888939573498af065339e0930542e5ddc29665d2018a61be"},
		// the relay log, with batches, each withdrawal claimed after its
		// batch (bridgelog-bench-log-relay-N-v3)
		{synth.Config{Events: 3000, Seed: 1, AppendBatch: 500, RelayEvents: true, BatchLeaves: 16}, "d98cbdafbff2ead0ed8c378dd4941f0f6dad778778f54c82832d2cf40c732598"},
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

// TestWithdrawalsInRelayOrder: with relay events every withdrawal goes
// detected, confirmed, batched, its batch anchored, its claim requested,
// the claim's transaction sent and settled, then executed (or failed
// after its batch): by time, and by offset where two steps share a
// partition, as a relay writes them.
func TestWithdrawalsInRelayOrder(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if _, err := synth.Generate(context.Background(), lg, synth.Config{Events: 8000, Seed: 5, InFlight: 100, RelayEvents: true}, nil); err != nil {
		t.Fatal(err)
	}
	type step struct {
		topic  string
		part   int32
		offset int64
		at     time.Time
	}
	steps := map[string]map[string]step{} // withdrawal or claim id → event type → first record
	batchOf := map[string]uint64{}        // withdrawal → its batch
	claimOf := map[string]string{}        // withdrawal → its claim
	anchored := map[uint64]step{}         // batch → its first batch.anchored
	first := func(id, typ string, s step) {
		if steps[id] == nil {
			steps[id] = map[string]step{}
		}
		if _, ok := steps[id][typ]; !ok {
			steps[id][typ] = s
		}
	}
	for _, topic := range []string{topics.TopicBridge, topics.TopicBatches, topics.TopicClaims} {
		eachEnvelope(t, lg, topic, func(p int32, r topics.Record, env topics.Envelope) {
			s := step{topic, p, r.Offset, env.OccurredAt}
			switch env.Type {
			case domain.TypeWithdrawalDetected, domain.TypeWithdrawalConfirmed, domain.TypeWithdrawalExecuted,
				domain.TypeWithdrawalFailed, domain.TypeClaimIntent, domain.TypeClaimOutcome:
				first(env.AggregateID, env.Type, s)
			case domain.TypeWithdrawalBatched:
				var b domain.WithdrawalBatched
				decode(t, env, &b)
				if _, ok := batchOf[env.AggregateID]; !ok {
					batchOf[env.AggregateID] = b.BatchID
				}
				first(env.AggregateID, env.Type, s)
			case domain.TypeBatchAnchored:
				var a domain.BatchAnchored
				decode(t, env, &a)
				if _, ok := anchored[a.BatchID]; !ok {
					anchored[a.BatchID] = s
				}
			case domain.TypeClaimRequested:
				var c domain.ClaimRequested
				decode(t, env, &c)
				claimOf[c.LeafInfo.Withdrawal.WithdrawalID()] = env.AggregateID
				first(env.AggregateID, env.Type, s)
			}
		})
	}
	executed, failed := 0, 0
	for id, own := range steps {
		if _, ok := own[domain.TypeWithdrawalDetected]; !ok {
			continue // a claim's steps, walked with its withdrawal's
		}
		names := []string{domain.TypeWithdrawalDetected, domain.TypeWithdrawalConfirmed, domain.TypeWithdrawalBatched,
			domain.TypeBatchAnchored, domain.TypeClaimRequested, domain.TypeClaimIntent, domain.TypeClaimOutcome, domain.TypeWithdrawalExecuted}
		claim := steps[claimOf[id]]
		found := map[string]step{}
		for _, n := range names {
			if s, ok := own[n]; ok {
				found[n] = s
			} else if s, ok := claim[n]; ok {
				found[n] = s
			}
		}
		if b, ok := batchOf[id]; ok {
			if s, ok := anchored[b]; ok {
				found[domain.TypeBatchAnchored] = s
			}
		}
		if s, ok := own[domain.TypeWithdrawalFailed]; ok {
			// A failed claim: no transaction was settled, the failure
			// follows the claim's request.
			names = append(names[:5], domain.TypeWithdrawalFailed)
			found[domain.TypeWithdrawalFailed] = s
			failed++
		} else if _, ok := found[domain.TypeWithdrawalExecuted]; ok {
			executed++
		}
		// The steps present are the first ones, in order.
		var prev string
		for i, n := range names {
			s, ok := found[n]
			if !ok {
				for _, later := range names[i+1:] {
					if _, ok := found[later]; ok {
						t.Fatalf("%s: %s without %s before it", id, later, n)
					}
				}
				break
			}
			if prev != "" {
				p := found[prev]
				if s.at.Before(p.at) || (s.topic == p.topic && s.part == p.part && s.offset <= p.offset) {
					t.Fatalf("%s: %s (%s/%d@%d at %v) before %s (%s/%d@%d at %v)", id, n, s.topic, s.part, s.offset, s.at,
						prev, p.topic, p.part, p.offset, p.at)
				}
			}
			prev = n
		}
	}
	if executed < 128 || failed == 0 {
		t.Fatalf("%d withdrawals executed and %d failed after their batch: too few to say", executed, failed)
	}
}

// decode decodes env's payload into v.
func decode(t *testing.T, env topics.Envelope, v any) {
	t.Helper()
	if err := topics.DecodePayload(env.Payload, v); err != nil {
		t.Fatalf("%s %s: %v", env.Type, env.ID, err)
	}
}
