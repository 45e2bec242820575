package twophase

import (
	"slices"
)

// Validator checks proposals as section 9.1 asks, every step, before a
// proposal is stored: structure, hash, proposer, payout, fee, policy,
// inputs. Whether the event itself is real (its source proof) is the
// caller's to know: [State] accepts proposals only for events its own
// source confirmed.
type Validator struct {
	Group  Group
	Params Params
	Policy Policy
	Rules  LedgerRules
}

// Validate checks p as sent by sender and returns its decoded template.
func (v Validator) Validate(p Proposal, sender PeerID) (Template, error) {
	// 1. Structure.
	if len(p.Inputs) == 0 {
		return Template{}, reject(ReasonStructure, "proposal has no inputs")
	}
	t, err := DecodeTemplate(p.Template, v.Params.MaxUTXOsPerProposal, v.Params.MaxOutputsPerProposal)
	if err != nil {
		return Template{}, reject(ReasonStructure, "template: %v", err)
	}
	if len(t.Inputs) != len(p.Inputs) {
		return Template{}, reject(ReasonStructure, "%d inputs in the template, %d described", len(t.Inputs), len(p.Inputs))
	}
	// 2. Hash consistency.
	if got := TemplateHash(p.Template); got != p.TemplateHash {
		return Template{}, reject(ReasonHashMismatch, "template hashes to %s, proposal says %s", got.Short(), p.TemplateHash.Short())
	}
	// 3. A known proposer, bound to the envelope's sender.
	if _, ok := v.Group.Member(p.Proposer); !ok {
		return Template{}, reject(ReasonUnknownProposer, "proposer %q is not a member", p.Proposer)
	}
	if p.Proposer != sender {
		return Template{}, reject(ReasonProposerMismatch, "proposer %q sent by %q", p.Proposer, sender)
	}
	if p.Event.IsReserve() {
		// A reserve split pays the group only: no policy, no destination.
		if err := v.checkSplit(t, p.Event); err != nil {
			return Template{}, err
		}
	} else {
		// 6 before 4: the policy says whether the destination may be paid at all.
		if err := v.checkPolicy(p.Event); err != nil {
			return Template{}, err
		}
		// An event every honest member Refused is never voted for.
		if pr, ok := v.Rules.(PayableRules); ok {
			if err := pr.CheckPayable(p.Event.Destination, p.Event.Amount); err != nil {
				return Template{}, reject(ReasonPolicy, "%v", err)
			}
		}
		// 4. The outputs pay exactly the event; the rest is change to the group.
		if err := v.checkOutputs(t, p.Event); err != nil {
			return Template{}, err
		}
	}
	// 7. Inputs: the group's own, each once, covering outputs and fee.
	if err := v.checkInputs(t); err != nil {
		return Template{}, err
	}
	// 5. Fee within bounds, mass and standardness as the ledger judges.
	if err := v.checkFee(t); err != nil {
		return Template{}, err
	}
	return t, nil
}

func (v Validator) checkPolicy(e SigningEvent) error {
	pol := v.Policy
	switch {
	case e.Amount == 0:
		return reject(ReasonPolicy, "amount 0")
	case pol.MaxAmount > 0 && e.Amount > pol.MaxAmount:
		return reject(ReasonPolicy, "amount %d over the per-event limit %d", e.Amount, pol.MaxAmount)
	case e.Amount < pol.MinAmount:
		return reject(ReasonPolicy, "amount %d under the minimum %d", e.Amount, pol.MinAmount)
	case slices.Contains(pol.DeniedDestinations, e.Destination):
		return reject(ReasonPolicy, "destination %s is denied", e.Destination)
	case len(pol.AllowedDestinations) > 0 && !slices.Contains(pol.AllowedDestinations, e.Destination):
		return reject(ReasonPolicy, "destination %s is not allowed", e.Destination)
	}
	return nil
}

// checkOutputs: exactly one output pays the destination exactly the
// amount; every other output pays the group's change script. Without
// this, one compromised signer could make the others sign a theft.
func (v Validator) checkOutputs(t Template, e SigningEvent) error {
	pay, err := v.Rules.ScriptFor(e.Destination)
	if err != nil {
		return reject(ReasonPolicy, "destination %q: %v", e.Destination, err)
	}
	if pay.Equal(v.Group.ChangeScript) {
		return reject(ReasonPolicy, "destination is the group's own address")
	}
	payouts := 0
	for i, o := range t.Outputs {
		switch {
		case o.Script.Equal(pay):
			if o.Amount != e.Amount {
				return reject(ReasonWrongPayout, "output %d pays %d to the destination, the event asks %d", i, o.Amount, e.Amount)
			}
			payouts++
		case o.Script.Equal(v.Group.ChangeScript):
			if o.Amount == 0 {
				return reject(ReasonStructure, "output %d is an empty change output", i)
			}
		default:
			return reject(ReasonForeignOutput, "output %d pays %d to a script that is neither the destination nor the group", i, o.Amount)
		}
	}
	if payouts != 1 {
		return reject(ReasonWrongPayout, "%d outputs pay the destination, want exactly 1", payouts)
	}
	return nil
}

func (v Validator) checkInputs(t Template) error {
	seen := make(map[Outpoint]bool, len(t.Inputs))
	for i, in := range t.Inputs {
		if !in.Script.Equal(v.Group.ChangeScript) {
			return reject(ReasonForeignInput, "input %d spends a script that is not the group's", i)
		}
		if seen[in.Outpoint] {
			return reject(ReasonDuplicateInput, "input %d spends %s twice", i, in.Outpoint)
		}
		seen[in.Outpoint] = true
	}
	if _, err := t.Fee(); err != nil {
		return reject(ReasonFeeOutOfBounds, "%v", err)
	}
	return nil
}

// checkFee: the fee pays at least the configured rate for the template's
// mass and at most Policy.MaxFee, or, without one, twice the rate plus the
// remainder a builder may leave to the fee instead of a tiny change (a
// template without change pays for the output it left out).
func (v Validator) checkFee(t Template) error {
	mass, err := v.Rules.Mass(t)
	if err != nil {
		return reject(ReasonNonStandard, "%v", err)
	}
	fee, _ := t.Fee()
	least := mass * v.Params.FeeRate
	most := v.Policy.MaxFee
	if most == 0 {
		most = 2*least + max(v.Policy.MinChange, 1)
	}
	if fee < least || fee > most {
		return reject(ReasonFeeOutOfBounds, "fee %d for mass %d, want %d..%d", fee, mass, least, most)
	}
	return nil
}
