package twophase

import (
	"errors"
	"fmt"
)

// ErrSweep: no amount moves the group's outputs to the destination in one
// payout.
var ErrSweep = errors.New("cannot sweep the group's outputs")

// Sweep is what moving every spendable output of the group in one payout
// asks for.
type Sweep struct {
	// Amount is what the destination receives: the inputs' total less the
	// fee at the configured rate.
	Amount uint64
	// Inputs are the outputs it spends; Left are eligible outputs one
	// payout cannot spend as well (past MaxUTXOsPerProposal or the ledger's
	// mass limit), for a later sweep.
	Inputs, Left int
	// Total is what the inputs hold; Fee is Total - Amount.
	Total, Fee uint64
}

// SweepAmount is the amount an event paying req.Event.Destination must ask
// for so that its payout spends the group's eligible outputs (as many as
// one payout may, the largest first) and leaves no change: their total
// less the fee. A group whose address changes (a replaced payout key)
// asks for it to move its funds to the new address; the payout is then
// built, validated and signed as any other, so [BuildTemplate] on the
// same view must choose exactly these inputs, which SweepAmount checks.
// req.Event's amount is ignored.
func SweepAmount(req BuildRequest, view LedgerView) (Sweep, error) {
	if req.Event.IsReserve() {
		return Sweep{}, fmt.Errorf("%w: a reserve event pays the group itself", ErrSweep)
	}
	pay, err := req.Rules.ScriptFor(req.Event.Destination)
	if err != nil {
		return Sweep{}, fmt.Errorf("%w: destination %q: %w", ErrSweep, req.Event.Destination, err)
	}
	if pay.Equal(req.Group.ChangeScript) {
		return Sweep{}, fmt.Errorf("%w: the destination is the group's own address", ErrSweep)
	}
	utxos, st := eligible(view, req.Group, req.Params, false, req.Exclude, nil)
	if len(utxos) == 0 {
		return Sweep{}, fmt.Errorf("%w: no eligible outputs (%d too shallow, %d immature coinbase, %d spent in the mempool, %d held by other payouts)",
			ErrSweep, st.DepthRejects, st.MaturityRejects, st.MempoolRejects, st.ExcludedRejects)
	}
	// A salted selection (Profile B) orders by the event id, which the
	// amount decides: only spending every eligible output is the same
	// choice in any order.
	most := min(len(utxos), req.Params.MaxUTXOsPerProposal)
	if req.Salt != nil {
		most = len(utxos)
	}
	var lastErr error
	for k := most; k >= 1 && (req.Salt == nil || k == len(utxos)); k-- {
		s, err := sweepInputs(req, pay, utxos[:k], view)
		if err == nil {
			s.Left = len(utxos) - k
			return s, nil
		}
		lastErr = err
	}
	return Sweep{}, fmt.Errorf("%w: %d eligible outputs: %w", ErrSweep, len(utxos), lastErr)
}

// sweepInputs finds the amount whose payout spends exactly inputs with no
// change: the amount is the total less the fee of the template paying
// it, which on a ledger whose mass depends on the amounts (Kaspa's
// storage mass) takes a few steps to settle.
func sweepInputs(req BuildRequest, pay Script, inputs []UTXO, view LedgerView) (Sweep, error) {
	t := req.Rules.Base()
	var total uint64
	for _, u := range inputs {
		t.Inputs = append(t.Inputs, req.Rules.Input(u))
		total += u.Amount
	}
	amount := total
	for step := 0; step < 8; step++ {
		t.Outputs = []TemplateOutput{{Amount: amount, Script: pay}}
		mass, err := req.Rules.Mass(t)
		if err != nil {
			return Sweep{}, err
		}
		fee := mass * req.Params.FeeRate
		if fee >= total {
			return Sweep{}, fmt.Errorf("the fee %d takes all of %d", fee, total)
		}
		if total-fee == amount {
			break
		}
		amount = total - fee
	}
	// The payout the group will build for this amount must be this one.
	check := req
	check.Event.Amount = amount
	built, _, _, err := BuildTemplate(check, view)
	if err != nil {
		return Sweep{}, err
	}
	if len(built.Inputs) != len(inputs) || len(built.Outputs) != 1 {
		return Sweep{}, fmt.Errorf("paying %d, the group would spend %d outputs into %d outputs, not %d into 1",
			amount, len(built.Inputs), len(built.Outputs), len(inputs))
	}
	return Sweep{Amount: amount, Inputs: len(inputs), Total: total, Fee: total - amount}, nil
}
