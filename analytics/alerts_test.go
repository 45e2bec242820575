package analytics_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// alertsNow is when the conditions are checked in these tests.
var alertsNow = t0.Add(2 * time.Hour)

// at is a batch of events recorded one second apart from a time.
type at struct {
	from time.Time
	evs  []domain.Event
}

// alertsOf sinks the events (as a signer's log with origin "s1" when
// signer is set) into a fresh warehouse and checks the conditions at
// alertsNow.
func alertsOf(t *testing.T, srv *chtest.Server, signer bool, batches ...at) []analytics.AlertCondition {
	t.Helper()
	ctx := ctxT(t)
	lg := engines[0].open(t)
	origin := ""
	if signer {
		origin = "s1"
		appendFacts(t, lg, t0, twophase.SignerStarted{Signer: "s1", Session: 1})
	}
	for _, b := range batches {
		appendFacts(t, lg, b.from, b.evs...)
	}
	wh, err := clickhouse.Open(ctx, srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := analytics.NewSink(lg, wh, analytics.Config{Origin: origin}).CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	conds, err := analytics.Alerts(ctx, wh, alertsNow)
	if err != nil {
		t.Fatal(err)
	}
	return conds
}

// condition finds a condition by its name's start.
func condition(t *testing.T, conds []analytics.AlertCondition, name string) analytics.AlertCondition {
	t.Helper()
	for _, c := range conds {
		if strings.HasPrefix(c.Condition, name) {
			return c
		}
	}
	t.Fatalf("no condition %q in %+v", name, conds)
	return analytics.AlertCondition{}
}

func pauseAt(i int) domain.RelayPaused {
	return domain.RelayPaused{OperatorAction: domain.OperatorAction{Operator: "alice", Reason: "drill", RequestID: fmt.Sprint(i)}}
}

func ref(i int) domain.LogRef {
	return domain.LogRef{ChainID: 1, TxHash: domain.Hash32{byte(i), byte(i >> 8)}, LogIndex: 1}
}

// batch is n withdrawals batched into batch 7, then executed, the first
// failed ones failed instead.
func batch(n, failed int) []domain.Event {
	var evs []domain.Event
	for i := 0; i < n; i++ {
		evs = append(evs, domain.WithdrawalConfirmed{Ref: ref(i), Confirmation: 5},
			domain.WithdrawalBatched{Ref: ref(i), SequenceID: "evm:1", BatchID: 7, LeafIndex: uint32(i)})
	}
	for i := 0; i < n; i++ {
		if i < failed {
			evs = append(evs, domain.WithdrawalFailed{Ref: ref(i), Reason: "reverted: boom"})
		} else {
			evs = append(evs, domain.WithdrawalExecuted{Ref: ref(i), BatchID: 7})
		}
	}
	return evs
}

// signingEvents are n events started (round 0), each committed, then
// timeouts rounds that timed out and revalidations rounds that failed
// revalidation.
func signingEvents(n, timeouts, revalidations int) []domain.Event {
	var evs []domain.Event
	for i := 0; i < n; i++ {
		id := twophase.Hash{byte(i + 1)}
		evs = append(evs, twophase.RoundStarted{EventID: id, Trigger: twophase.TriggerActivated},
			twophase.Committed{EventID: id, Hash: twophase.Hash{9}, Trigger: twophase.TriggerQuorum})
	}
	for i := 0; i < timeouts; i++ {
		evs = append(evs, twophase.RoundFailed{EventID: twophase.Hash{byte(i + 1)}, Round: 1, Reason: twophase.ReasonTimeoutNoQuorum})
	}
	for i := 0; i < revalidations; i++ {
		evs = append(evs, twophase.RoundFailed{EventID: twophase.Hash{byte(i + 1)}, Round: 2, Reason: twophase.ReasonRevalidationFailed})
	}
	return evs
}

// limitedMint is the start of deposit d<i>'s wait on the token's rate limit.
func limitedMint(i int) domain.Event {
	return domain.RelayStepFailed{Step: fmt.Sprintf("rate_limit:mint:d%d", i), Reason: "execution reverted: RateLimited(...)", Since: 1}
}

// TestAlertConditions checks each condition holding and not holding, at
// and around its threshold and window.
func TestAlertConditions(t *testing.T) {
	srv := chtest.Start(t)
	recent, old := alertsNow.Add(-5*time.Minute), alertsNow.Add(-90*time.Minute)
	anchorFailed := domain.BatchAnchorFailed{BatchID: 3, Reason: "root differs"}
	evID := twophase.Hash{0xab}
	for _, c := range []struct {
		name      string
		condition string
		signer    bool
		holds     bool
		batches   []at
	}{
		{"anchor failed recently", "merkle root anchoring failed", false, true, []at{{recent, []domain.Event{anchorFailed}}}},
		{"anchor failed long ago", "merkle root anchoring failed", false, false, []at{{old, []domain.Event{anchorFailed}}}},
		{"1 of 10 claims failed", "withdrawal claims failed", false, true, []at{{recent, batch(10, 1)}}},
		{"1 of 20 claims failed", "withdrawal claims failed", false, false, []at{{recent, batch(20, 1)}}},
		{"1 of 10 claims failed long ago", "withdrawal claims failed", false, false, []at{{old, batch(10, 1)}}},
		{"confirmed 11 min ago, unbatched", "batch creation delayed", false, true,
			[]at{{alertsNow.Add(-11 * time.Minute), []domain.Event{domain.WithdrawalConfirmed{Ref: ref(1), Confirmation: 5}}}}},
		{"confirmed 9 min ago, unbatched", "batch creation delayed", false, false,
			[]at{{alertsNow.Add(-9 * time.Minute), []domain.Event{domain.WithdrawalConfirmed{Ref: ref(1), Confirmation: 5}}}}},
		{"confirmed long ago, batched", "batch creation delayed", false, false, []at{{old, batch(3, 0)[:6]}}},
		{"confirmed, then reorged", "batch creation delayed", false, false, []at{{old, []domain.Event{
			domain.WithdrawalConfirmed{Ref: ref(1), Confirmation: 5}, domain.ObservationReorged{Ref: ref(1), Withdraw: true}}}}},
		{"confirmed at 3 blocks", "confirmation depth violated", false, true, []at{{recent, []domain.Event{domain.DepositConfirmed{Ref: ref(1), Confirmation: 3}}}}},
		{"minted unconfirmed", "confirmation depth violated", false, true, []at{{recent, []domain.Event{domain.DepositMinted{Ref: ref(1)}}}}},
		{"confirmed at 5 blocks, then minted", "confirmation depth violated", false, false, []at{{recent, []domain.Event{
			domain.DepositConfirmed{Ref: ref(1), Confirmation: 5}, domain.DepositMinted{Ref: ref(1)}}}}},
		{"a key with two contents", "unique-key conflicts", false, true, []at{{recent, []domain.Event{
			domain.DepositFailed{Ref: ref(1), Reason: "a"}, domain.DepositFailed{Ref: ref(1), Reason: "b"}}}}},
		{"a key appended twice alike", "unique-key conflicts", false, false, []at{{recent, []domain.Event{
			domain.DepositFailed{Ref: ref(1), Reason: "a"}, domain.DepositFailed{Ref: ref(1), Reason: "a"}}}}},
		{"rate-limited 31 min ago, waiting", "waiting on a contract's rate limit", false, true,
			[]at{{alertsNow.Add(-31 * time.Minute), []domain.Event{limitedMint(1)}}}},
		{"rate-limited 29 min ago, waiting", "waiting on a contract's rate limit", false, false,
			[]at{{alertsNow.Add(-29 * time.Minute), []domain.Event{limitedMint(1)}}}},
		{"rate-limited long ago, then through", "waiting on a contract's rate limit", false, false,
			[]at{{old, []domain.Event{limitedMint(1)}}, {recent, []domain.Event{domain.RelayStepRecovered{Step: "rate_limit:mint:d1", Since: 1, Failures: 9}}}}},
		{"rate-limited long ago, then minted by another process", "waiting on a contract's rate limit", false, false,
			[]at{{old, []domain.Event{limitedMint(1)}}, {recent, []domain.Event{domain.TxOutcome{Purpose: domain.PurposeMint, Subject: "d1",
				TxHash: domain.Hash32{0x1}, Status: domain.TxSucceeded}}}}},
		{"rate-limited long ago, then mined deferred", "waiting on a contract's rate limit", false, true,
			[]at{{old, []domain.Event{limitedMint(1)}}, {recent, []domain.Event{domain.TxOutcome{Purpose: domain.PurposeMint, Subject: "d1",
				TxHash: domain.Hash32{0x1}, Status: domain.TxDeferred}}}}},
		{"another step failing long ago", "waiting on a contract's rate limit", false, false,
			[]at{{old, []domain.Event{domain.RelayStepFailed{Step: "mint", Reason: "rpc down", Since: 1}}}}},
		{"paused 31 min ago", "relay paused too long", false, true, []at{{alertsNow.Add(-31 * time.Minute), []domain.Event{pauseAt(1)}}}},
		{"paused 29 min ago", "relay paused too long", false, false, []at{{alertsNow.Add(-29 * time.Minute), []domain.Event{pauseAt(1)}}}},
		{"paused, then resumed", "relay paused too long", false, false, []at{{old, []domain.Event{pauseAt(1),
			domain.RelayResumed{OperatorAction: domain.OperatorAction{Operator: "a", Reason: "b", RequestID: "2"}}}}}},
		{"abandoned", "signing events abandoned", true, true, []at{{old, []domain.Event{twophase.Abandoned{EventID: evID, Trigger: twophase.TriggerTimeout}}}}},
		{"abandoned, then reset", "signing events abandoned", true, false, []at{{old, []domain.Event{
			twophase.Abandoned{EventID: evID, Trigger: twophase.TriggerTimeout}, twophase.AdminReset{EventID: evID, Epoch: 1}}}}},
		{"2 timeouts in 20 events", "proposal timeouts without quorum", true, true, []at{{recent.Add(-time.Minute), signingEvents(20, 2, 0)}}},
		{"1 timeout in 20 events", "proposal timeouts without quorum", true, false, []at{{recent.Add(-time.Minute), signingEvents(20, 1, 0)}}},
		{"2 timeouts in 20 events long ago", "proposal timeouts without quorum", true, false, []at{{old, signingEvents(20, 2, 0)}}},
		{"2 revalidation failures in 100 commits", "pre-sign revalidation failures", true, true, []at{{recent.Add(-5 * time.Minute), signingEvents(100, 0, 2)}}},
		{"1 revalidation failure in 100 commits", "pre-sign revalidation failures", true, false, []at{{recent.Add(-5 * time.Minute), signingEvents(100, 0, 1)}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := condition(t, alertsOf(t, srv, c.signer, c.batches...), c.condition)
			if got.Holds != c.holds {
				t.Fatalf("%s: holds %v, want %v: %+v", c.condition, got.Holds, c.holds, got)
			}
			if c.signer && got.Origin != "s1" {
				t.Fatalf("a signer's condition on origin %q, want s1", got.Origin)
			}
		})
	}
}

// Without a signer log the signers' conditions say so rather than show a
// figure; the relay's figures are there.
func TestAlertConditionsWithoutSignerLogs(t *testing.T) {
	srv := chtest.Start(t)
	conds := alertsOf(t, srv, false, at{alertsNow.Add(-time.Minute), batch(10, 1)})
	if c := condition(t, conds, "withdrawal claims failed"); !strings.Contains(c.Figure, "1 of 10 withdrawals failed (10.0%)") {
		t.Fatalf("claims: %+v", c)
	}
	for _, name := range []string{"signing events abandoned", "proposal timeouts", "pre-sign revalidation"} {
		if c := condition(t, conds, name); c.Holds || !strings.Contains(c.Figure, "no signer log") {
			t.Fatalf("%s without signer logs: %+v", name, c)
		}
	}
	if len(conds) != 10 {
		t.Fatalf("%d conditions, want the seeds' 8, the rate limit's and the relay's pause: %s", len(conds), fmt.Sprint(conds))
	}
}
