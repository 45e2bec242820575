package projections_test

import (
	"context"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// findClaim asks the fold for id in every claims partition and returns
// the one state found.
func findClaim(t *testing.T, ctx context.Context, f *projections.ClaimFold, id string) *projections.ClaimState {
	t.Helper()
	spec, err := topics.Spec(topics.TopicClaims)
	if err != nil {
		t.Fatal(err)
	}
	var found *projections.ClaimState
	for p := range spec.Partitions {
		st, err := f.Claim(ctx, p, id)
		if err != nil {
			t.Fatal(err)
		}
		if st != nil {
			if found != nil {
				t.Fatalf("claim %s in two partitions", id)
			}
			found = st
		}
	}
	return found
}

// TestClaimFoldEveryRecord: the fold keeps the first request, keeps an
// intent appended twice open until an outcome closes each copy, and
// takes the last outcome that is not Replaced.
func TestClaimFoldEveryRecord(t *testing.T) {
	ctx := context.Background()
	lg := memlog.New()
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	req := domain.ClaimRequested{Settlement: domain.Settlement{ChainID: 1}, BatchID: 7,
		LeafInfo: domain.BatchLeaf{Leaf: domain.Hash32{1}}}
	id := req.AggregateID()
	later := req
	later.BatchID = 8
	in := domain.TxIntent{Purpose: domain.PurposeClaim, Subject: id, TxHash: domain.Hash32{2}, Attempt: 1}
	out := func(s domain.TxStatus) domain.TxOutcome {
		return domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: id, TxHash: in.TxHash, Status: s}
	}
	f := &projections.ClaimFold{Log: lg}
	step := func(evs ...domain.Event) *projections.ClaimState {
		t.Helper()
		if _, err := app.Append(ctx, handlers.Cause{CorrelationID: id}, evs...); err != nil {
			t.Fatal(err)
		}
		return findClaim(t, ctx, f, id)
	}

	st := step(req, later, in, in)
	if st == nil || st.Request == nil || st.Request.BatchID != 7 {
		t.Fatalf("request: got %+v, want the first (batch 7)", st)
	}
	if len(st.Open) != 2 || st.Outcome != nil || st.Final() {
		t.Fatalf("after two intents: open %d, outcome %v, final %v; want 2 open, none, not final", len(st.Open), st.Outcome, st.Final())
	}
	st = step(out(domain.TxReplaced))
	if len(st.Open) != 1 || st.Outcome != nil {
		t.Fatalf("after Replaced: open %d, outcome %v; want 1 open, no outcome", len(st.Open), st.Outcome)
	}
	st = step(out(domain.TxSucceeded))
	if len(st.Open) != 0 || st.Outcome == nil || st.Outcome.Status != domain.TxSucceeded || !st.Final() {
		t.Fatalf("after Succeeded: open %d, outcome %v, final %v; want none open, succeeded, final", len(st.Open), st.Outcome, st.Final())
	}
	st = step(out(domain.TxDryRun))
	if st.Final() {
		t.Fatal("a DryRun outcome after a success: final, want not (the last outcome wins)")
	}
	if missing := findClaim(t, ctx, f, "no-such-claim"); missing != nil {
		t.Fatalf("unknown claim: got %+v, want nil", missing)
	}
}
