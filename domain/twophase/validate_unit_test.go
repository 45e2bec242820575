package twophase

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// proposalOf is the proposal proposer would send for t.
func proposalOf(t Template, ev SigningEvent, proposer PeerID) Proposal {
	enc := t.Encode()
	return Proposal{Event: ev, Round: 0, TemplateHash: TemplateHash(enc), Template: enc,
		Inputs: make([]InputMeta, len(t.Inputs)), Proposer: proposer}
}

// validCase is a proposal by s1 that a validator of the test group
// accepts: 5,000,000 in, 1,000,000 paid to sim:alice, change to the group.
func validCase(t *testing.T) (Validator, Template, Proposal) {
	t.Helper()
	g, _ := testGroup(3, 2)
	v := Validator{Group: g, Params: DefaultParams(), Rules: fakeRules{}}
	req := BuildRequest{Event: testEvent(1_000_000), Group: g, Params: v.Params, Rules: v.Rules}
	tpl, _, _, err := BuildTemplate(req, view(groupUTXO("a", 5_000_000, 100)))
	if err != nil {
		t.Fatal(err)
	}
	return v, tpl, proposalOf(tpl, req.Event, "s1")
}

func TestValidatorAcceptsAValidProposal(t *testing.T) {
	v, tpl, p := validCase(t)
	got, err := v.Validate(p, "s1")
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if got.Hash() != tpl.Hash() {
		t.Fatal("the decoded template is not the proposal's")
	}
}

func TestValidatorRejections(t *testing.T) {
	const (
		amount = 1_000_000
		fee    = 2820 // fakeMass(1, 2, 0): one input, payout and change
		change = 5_000_000 - amount - fee
	)
	// retemplate rewrites the template and keeps the proposal consistent
	// with it (hash, input count), so only the edit is wrong.
	retemplate := func(edit func(*Template)) func(*Validator, *Proposal, *PeerID) {
		return func(_ *Validator, p *Proposal, _ *PeerID) {
			tpl, err := DecodeTemplate(p.Template, 100, 100)
			if err != nil {
				panic(err)
			}
			edit(&tpl)
			*p = proposalOf(tpl, p.Event, p.Proposer)
		}
	}
	outputs := func(os ...TemplateOutput) func(*Validator, *Proposal, *PeerID) {
		return retemplate(func(t *Template) { t.Outputs = os })
	}
	pay := func(a uint64) TemplateOutput { return TemplateOutput{Amount: a, Script: payTo("alice")} }
	back := func(a uint64) TemplateOutput { return TemplateOutput{Amount: a, Script: groupScript} }
	policy := func(edit func(*Policy)) func(*Validator, *Proposal, *PeerID) {
		return func(v *Validator, _ *Proposal, _ *PeerID) { edit(&v.Policy) }
	}
	event := func(edit func(*SigningEvent)) func(*Validator, *Proposal, *PeerID) {
		return func(_ *Validator, p *Proposal, _ *PeerID) { edit(&p.Event) }
	}
	cases := []struct {
		name   string
		edit   func(*Validator, *Proposal, *PeerID)
		reason Reason // "": accepted
	}{
		// 1. Structure.
		{"no inputs described", func(_ *Validator, p *Proposal, _ *PeerID) { p.Inputs = nil }, ReasonStructure},
		{"undecodable template", func(_ *Validator, p *Proposal, _ *PeerID) { p.Template = []byte("junk") }, ReasonStructure},
		{"template with a trailing byte", func(_ *Validator, p *Proposal, _ *PeerID) {
			p.Template = append(p.Template, 0)
			p.TemplateHash = TemplateHash(p.Template)
		}, ReasonStructure},
		{"more inputs described than spent", func(_ *Validator, p *Proposal, _ *PeerID) { p.Inputs = append(p.Inputs, InputMeta{}) }, ReasonStructure},
		{"inputs over MaxUTXOsPerProposal", func(v *Validator, p *Proposal, s *PeerID) {
			retemplate(func(t *Template) {
				in := t.Inputs[0]
				in.Outpoint.Index = 1
				t.Inputs = append(t.Inputs, in)
				t.Outputs[1].Amount += in.Amount - 1100
			})(v, p, s)
			v.Params.MaxUTXOsPerProposal = 1
		}, ReasonStructure},
		{"outputs over MaxOutputsPerProposal", func(v *Validator, _ *Proposal, _ *PeerID) { v.Params.MaxOutputsPerProposal = 1 }, ReasonStructure},
		{"an empty change output", outputs(pay(amount), back(change), back(0)), ReasonStructure},
		// 2. Hash.
		{"hash of another template", func(_ *Validator, p *Proposal, _ *PeerID) { p.TemplateHash[0] ^= 1 }, ReasonHashMismatch},
		// 3. Proposer.
		{"proposer not a member", func(_ *Validator, p *Proposal, s *PeerID) { p.Proposer, *s = "s9", "s9" }, ReasonUnknownProposer},
		{"proposer is not the sender", func(_ *Validator, _ *Proposal, s *PeerID) { *s = "s2" }, ReasonProposerMismatch},
		// 6. Policy.
		{"amount 0", event(func(e *SigningEvent) { e.Amount = 0 }), ReasonPolicy},
		{"amount over MaxAmount", policy(func(p *Policy) { p.MaxAmount = amount - 1 }), ReasonPolicy},
		{"amount at MaxAmount", policy(func(p *Policy) { p.MaxAmount = amount }), ""},
		{"amount under MinAmount", policy(func(p *Policy) { p.MinAmount = amount + 1 }), ReasonPolicy},
		{"amount at MinAmount", policy(func(p *Policy) { p.MinAmount = amount }), ""},
		{"denied destination", policy(func(p *Policy) { p.DeniedDestinations = []string{"sim:mallory", "sim:alice"} }), ReasonPolicy},
		{"destination not allowed", policy(func(p *Policy) { p.AllowedDestinations = []string{"sim:bob"} }), ReasonPolicy},
		{"allowed destination", policy(func(p *Policy) { p.AllowedDestinations = []string{"sim:bob", "sim:alice"} }), ""},
		{"destination is the group", event(func(e *SigningEvent) { e.Destination = "sim:group" }), ReasonPolicy},
		{"destination the ledger refuses", event(func(e *SigningEvent) { e.Destination = "btc:alice" }), ReasonPolicy},
		// 4. Outputs.
		{"payout amount differs", outputs(pay(amount-1), back(change+1)), ReasonWrongPayout},
		{"payout amount above the event's", outputs(pay(amount+1), back(change-1)), ReasonWrongPayout},
		{"two payout outputs", outputs(pay(amount), pay(amount), back(change-amount)), ReasonWrongPayout},
		{"no payout output", outputs(back(change + amount)), ReasonWrongPayout},
		{"no outputs at all", outputs(), ReasonWrongPayout},
		{"an output to a stranger", outputs(pay(amount), back(change-1000), TemplateOutput{Amount: 1000, Script: payTo("mallory")}), ReasonForeignOutput},
		{"change to the group's script of another version", outputs(pay(amount), TemplateOutput{Amount: change, Script: Script{Version: 1, Bytes: groupScript.Bytes}}), ReasonForeignOutput},
		{"change split in two", outputs(pay(amount), back(change/2), back(change-change/2-360)), ""},
		// 7. Inputs.
		{"an input of another script", retemplate(func(t *Template) { t.Inputs[0].Script = payTo("other") }), ReasonForeignInput},
		{"an input spent twice", retemplate(func(t *Template) {
			t.Inputs = append(t.Inputs, t.Inputs[0])
			t.Outputs[1].Amount += t.Inputs[0].Amount - 1100
		}), ReasonDuplicateInput},
		{"outputs above inputs", outputs(pay(amount), back(change+fee+1)), ReasonFeeOutOfBounds},
		// 5. Fee.
		{"fee one below mass times rate", outputs(pay(amount), back(change+1)), ReasonFeeOutOfBounds},
		{"fee at a doubled rate", func(v *Validator, _ *Proposal, _ *PeerID) { v.Params.FeeRate = 2 }, ReasonFeeOutOfBounds},
		{"fee above MaxFee", policy(func(p *Policy) { p.MaxFee = fee - 1 }), ReasonFeeOutOfBounds},
		{"fee at MaxFee", policy(func(p *Policy) { p.MaxFee = fee }), ""},
		{"MaxFee admits a fee above the default bound", func(v *Validator, p *Proposal, s *PeerID) {
			v.Policy.MaxFee = 10 * fee
			outputs(pay(amount), back(change-5*fee))(v, p, s)
		}, ""},
		{"fee at the default bound 2*mass*rate+1", outputs(pay(amount), back(change-fee-1)), ""},
		{"fee above the default bound", outputs(pay(amount), back(change-fee-2)), ReasonFeeOutOfBounds},
		{"MinChange widens the default bound", func(v *Validator, p *Proposal, s *PeerID) {
			v.Policy.MinChange = 1000
			outputs(pay(amount), back(change-fee-1000))(v, p, s)
		}, ""},
		{"above the bound widened by MinChange", func(v *Validator, p *Proposal, s *PeerID) {
			v.Policy.MinChange = 1000
			outputs(pay(amount), back(change-fee-1001))(v, p, s)
		}, ReasonFeeOutOfBounds},
		{"mass the ledger refuses", func(v *Validator, _ *Proposal, _ *PeerID) { v.Rules = fakeRules{maxMass: fee - 1} }, ReasonNonStandard},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, _, p := validCase(t)
			sender := p.Proposer
			c.edit(&v, &p, &sender)
			_, err := v.Validate(p, sender)
			if got := ReasonOf(err); got != c.reason {
				t.Fatalf("reason %q (%v), want %q", got, err, c.reason)
			}
		})
	}
}

// Whatever BuildTemplate builds, the validator of the same group, params
// and policy accepts: an honest signer's vote is never refused by another
// with the same view.
func TestBuiltTemplatesValidate(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g, _ := testGroup(3, 2)
		p := DefaultParams()
		p.FeeRate = rapid.Uint64Range(1, 3).Draw(rt, "fee rate")
		p.MaxUTXOsPerProposal = rapid.IntRange(1, 8).Draw(rt, "max utxos")
		pol := Policy{MinChange: rapid.Uint64Range(0, 50_000).Draw(rt, "min change")}
		if rapid.Bool().Draw(rt, "max fee") {
			pol.MaxFee = rapid.Uint64Range(2_000, 40_000).Draw(rt, "max fee value")
		}
		rules := fakeRules{base: Template{Payload: make([]byte, rapid.IntRange(0, 64).Draw(rt, "payload"))}}
		var utxos []UTXO
		for i := range rapid.IntRange(1, 10).Draw(rt, "outputs") {
			u := groupUTXO(string(rune('a'+i)), rapid.Uint64Range(1, 10_000_000).Draw(rt, "amount"), rapid.Uint64Range(0, virtualScore).Draw(rt, "daa"))
			u.Coinbase = rapid.Bool().Draw(rt, "coinbase")
			utxos = append(utxos, u)
		}
		amount := rapid.Uint64Range(1, 30_000_000).Draw(rt, "event amount")
		if rapid.Bool().Draw(rt, "near an output") {
			// Just under an output's amount: the remainder is about the fee,
			// where change gives way to a template without it.
			largest := slices.MaxFunc(utxos, func(a, b UTXO) int { return cmp.Compare(a.Amount, b.Amount) }).Amount
			amount = max(1, largest-min(largest, rapid.Uint64Range(2_000*p.FeeRate, 3_500*p.FeeRate+pol.MinChange).Draw(rt, "below")))
		}
		ev := testEvent(amount)
		req := BuildRequest{Event: ev, Group: g, Params: p, Policy: pol, Rules: rules}
		tpl, used, _, err := BuildTemplate(req, view(utxos...))
		if err != nil {
			return
		}
		v := Validator{Group: g, Params: p, Policy: pol, Rules: rules}
		if _, err := v.Validate(proposalOf(tpl, ev, "s2"), "s2"); err != nil {
			rt.Fatalf("built template refused: %v (inputs %d, outputs %+v)", err, len(used), tpl.Outputs)
		}
		if err := Revalidate(tpl, rules.TxID(tpl), view(utxos...), p); err != nil {
			rt.Fatalf("built template fails revalidation on the view it was built from: %v", err)
		}
	})
}
