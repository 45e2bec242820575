package twophase

import (
	"errors"
	"testing"
)

func TestSweepAmountSpendsEveryEligibleOutput(t *testing.T) {
	const m = 1_000_000
	req := buildReq(0)
	v := view(groupUTXO("a", 5*m, 100), groupUTXO("b", 3*m, 100), groupUTXO("c", 8*m, 100),
		groupUTXO("shallow", 50*m, virtualScore-1), otherScript(groupUTXO("foreign", 70*m, 100)))
	s, err := SweepAmount(req, v)
	if err != nil {
		t.Fatal(err)
	}
	fee := fakeMass(3, 1, 0) * req.Params.FeeRate
	if s.Amount != 16*m-fee || s.Fee != fee || s.Total != 16*m || s.Inputs != 3 || s.Left != 0 {
		t.Fatalf("sweep %+v, want amount %d fee %d of 3 inputs", s, 16*m-fee, fee)
	}
	// The group builds and validates exactly that payout for the amount.
	req.Event.Amount = s.Amount
	tmpl, inputs, _, err := BuildTemplate(req, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 3 || len(tmpl.Outputs) != 1 || tmpl.Outputs[0].Amount != s.Amount || !tmpl.Outputs[0].Script.Equal(payTo("alice")) {
		t.Fatalf("built %d inputs, outputs %+v", len(inputs), tmpl.Outputs)
	}
	val := Validator{Group: req.Group, Params: req.Params, Rules: req.Rules}
	if err := errors.Join(val.checkOutputs(tmpl, req.Event), val.checkInputs(tmpl), val.checkFee(tmpl)); err != nil {
		t.Fatalf("the group refuses its own sweep: %v", err)
	}
}

func TestSweepAmountBounds(t *testing.T) {
	const m = 1_000_000
	v := view(groupUTXO("a", 5*m, 100), groupUTXO("b", 3*m, 100), groupUTXO("c", 8*m, 100))
	s, err := SweepAmount(buildReq(0, func(r *BuildRequest) { r.Params.MaxUTXOsPerProposal = 2 }), v)
	if err != nil {
		t.Fatal(err)
	}
	if s.Inputs != 2 || s.Left != 1 || s.Total != 13*m {
		t.Fatalf("at most 2 inputs: %+v, want the two largest and 1 left", s)
	}
	// A mass limit of two inputs' template leaves the third for later.
	s, err = SweepAmount(buildReq(0, func(r *BuildRequest) { r.Rules = fakeRules{maxMass: fakeMass(2, 1, 0)} }), v)
	if err != nil || s.Inputs != 2 || s.Left != 1 {
		t.Fatalf("mass-bound sweep %+v, %v", s, err)
	}
	for name, c := range map[string]struct {
		req  BuildRequest
		view LedgerView
	}{
		"to the group itself": {buildReq(0, func(r *BuildRequest) { r.Event.Destination = "sim:group" }), v},
		"a malformed address": {buildReq(0, func(r *BuildRequest) { r.Event.Destination = "kaspa:x" }), v},
		"nothing eligible":    {buildReq(0), view(groupUTXO("shallow", 5*m, virtualScore-1))},
		"the fee takes all":   {buildReq(0), view(groupUTXO("dust", 100, 100))},
		"a reserve event":     {buildReq(0, func(r *BuildRequest) { r.Event.Stream = ReserveStream }), v},
	} {
		if s, err := SweepAmount(c.req, c.view); !errors.Is(err, ErrSweep) {
			t.Errorf("%s: sweep %+v, err %v; want ErrSweep", name, s, err)
		}
	}
}
