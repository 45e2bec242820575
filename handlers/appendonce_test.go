package handlers

import (
	"context"
	"errors"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// sourceKeyCounts counts the records of type typ on the bridge topic per
// source key.
func sourceKeyCounts(t *testing.T, lg topics.Log, typ string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, e := range events(t, lg, topics.TopicBridge) {
		if e.Type == typ {
			n[e.SourceKey]++
		}
	}
	return n
}

// TestClaimVerdictAppendedOncePerMember: the member that drives a claim
// appends the withdrawal's verdict once; the claim's records it appended
// itself (intent, outcome) come back to it as its partition's next
// records and append nothing. A member with a new fold (after a restart
// or a rebalance) handed the outcome appends the verdict again: a crash
// may have come between the outcome and the verdict, and the projections
// deduplicate it.
func TestClaimVerdictAppendedOncePerMember(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	s := newClaimSwarm(t, lg, 1, 2)
	s.requestClaims()
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	req := firstClaimRequest(t, s.log)
	x := s.executor("x", 2)
	if err := x.Handle(ctx, req); err != nil {
		t.Fatal(err)
	}
	after, err := s.log.Read(ctx, topics.TopicClaims, req.Partition, req.Offset+1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var outcome *topics.Record
	for i, rec := range after {
		if err := x.Handle(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if env, err := topics.DecodeEnvelope(rec.Value); err == nil && env.Type == domain.TypeClaimOutcome {
			outcome = &after[i]
		}
	}
	if outcome == nil {
		t.Fatalf("no claim outcome among the %d records after the request", len(after))
	}
	key := executedKey(s.batch.Leaves[0])
	if n := sourceKeyCounts(t, s.log, domain.TypeWithdrawalExecuted); len(n) != 1 || n[key] != 1 {
		t.Fatalf("withdrawal.executed records per source key %v, want one for %s", n, key)
	}

	restarted := s.executor("x-restarted", 2)
	if err := restarted.Handle(ctx, *outcome); err != nil {
		t.Fatal(err)
	}
	if n := sourceKeyCounts(t, s.log, domain.TypeWithdrawalExecuted); n[key] != 2 {
		t.Fatalf("withdrawal.executed records for %s after a restart: %d, want 2 (the verdict a crash may have lost)", key, n[key])
	}
}

// taskQueue hands out one anchor task.
type taskQueue struct{ task *domain.AnchorTask }

func (q taskQueue) ToAnchor(context.Context, domain.Settlement) (*domain.AnchorTask, error) {
	return q.task, nil
}

// unreachableChain fails every estimate: the anchor is never sent.
type unreachableChain struct{ TxChain }

var errUnreachable = errors.New("dial tcp: connection refused")

func (unreachableChain) From() domain.Address { return domain.Address{0xa1} }
func (unreachableChain) Estimate(context.Context, domain.Address, domain.ContractCall) (uint64, error) {
	return 0, errUnreachable
}

type noAnchorCalls struct{}

func (noAnchorCalls) Anchor(domain.BatchCreated) domain.ContractCall { return domain.ContractCall{} }
func (noAnchorCalls) AnchoredRoot(context.Context, uint64) (domain.Hash32, error) {
	return domain.Hash32{}, nil
}

// TestAnchorerAppendsOnlyMissingMarks: the batcher marks a batch's
// withdrawals right after the batch; the anchorer appends only the marks
// its task says the withdrawals lack (a crash between the batch and its
// marks), so a run without a crash has one withdrawal.batched per
// withdrawal.
func TestAnchorerAppendsOnlyMissingMarks(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	b := balancedBatch(t, domain.Settlement{ChainID: 1337, Distributor: domain.Address{0xd1}}, 3)
	task := &domain.AnchorTask{Batch: b, Marked: map[uint32]bool{b.Leaves[0].Index: true}}
	a := &Anchorer{Settlement: b.Settlement, Queue: taskQueue{task}, Chain: noAnchorCalls{}, Logger: quietLogger,
		Driver: &TxDriver{Chain: unreachableChain{}, Appender: &Appender{Log: lg, Catalog: topics.DefaultCatalog()}, Logger: quietLogger}}
	ctx := context.Background()
	if _, err := a.Poll(ctx); !errors.Is(err, errUnreachable) {
		t.Fatalf("poll: %v, want the chain's error", err)
	}
	marks := sourceKeyCounts(t, lg, domain.TypeWithdrawalBatched)
	first, err := BatchedMarks(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 2 || marks[first[0].SourceKey()] != 0 || marks[first[1].SourceKey()] != 1 || marks[first[2].SourceKey()] != 1 {
		t.Fatalf("withdrawal.batched per source key %v, want one for each leaf but the marked first", marks)
	}
	// Every mark projected: the next attempt appends none.
	task.Marked = map[uint32]bool{b.Leaves[0].Index: true, b.Leaves[1].Index: true, b.Leaves[2].Index: true}
	if _, err := a.Poll(ctx); !errors.Is(err, errUnreachable) {
		t.Fatalf("poll: %v, want the chain's error", err)
	}
	if again := sourceKeyCounts(t, lg, domain.TypeWithdrawalBatched); len(again) != 2 || again[first[1].SourceKey()] != 1 || again[first[2].SourceKey()] != 1 {
		t.Fatalf("withdrawal.batched per source key %v after every mark was projected, want the same two", again)
	}
}
