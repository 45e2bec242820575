package handlers

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A failing step's outage carries its start, its count and the latest
// error (what /healthz and status show); a working round ends it.
func TestStepHealthOutage(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	h := &StepHealth{Now: func() time.Time { return now }}
	if _, failing := h.Outage("evm_node"); failing {
		t.Fatal("a step never tracked is failing")
	}
	h.Track(ctx, "evm_node", errors.New("connection refused"))
	now = now.Add(time.Second)
	h.Track(ctx, "evm_node", errors.New("timeout"))
	o, failing := h.Outage("evm_node")
	if !failing || !o.Since.Equal(time.Unix(1_700_000_000, 0)) || o.Failures != 2 || o.LastErr == nil || o.LastErr.Error() != "timeout" {
		t.Fatalf("outage %+v failing %v, want since the first failure, 2 failures, last error timeout", o, failing)
	}
	h.Track(ctx, "evm_node", nil)
	if _, failing := h.Outage("evm_node"); failing || h.Failing("evm_node") {
		t.Fatal("a step that worked is still failing")
	}
}
