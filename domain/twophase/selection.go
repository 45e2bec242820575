package twophase

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// UTXO is an unspent output of the group as a ledger view reports it:
// DAAScore is the DAA score of the block that created it (never a blue
// score: depth is always DAA score against the virtual DAA score).
type UTXO struct {
	Outpoint Outpoint `json:"outpoint"`
	Amount   uint64   `json:"amount"`
	Script   Script   `json:"script"`
	DAAScore uint64   `json:"daaScore"`
	Coinbase bool     `json:"coinbase"`
}

// LedgerView is one signer's snapshot of the ledger: the virtual DAA
// score, the group's unspent outputs and the outpoints that pending
// (mempool) transactions spend, with the spender's id. Fetch the mempool
// before the UTXOs, as kaspawallet does, so that an output a pending
// transaction spends is never taken for unspent.
type LedgerView struct {
	VirtualDAAScore uint64
	UTXOs           []UTXO
	MempoolSpent    map[Outpoint]Hash
}

// Lookup finds an outpoint among the view's UTXOs.
func (v LedgerView) Lookup(o Outpoint) (UTXO, bool) {
	for _, u := range v.UTXOs {
		if u.Outpoint == o {
			return u, true
		}
	}
	return UTXO{}, false
}

// index maps the view's outpoints for repeated lookups.
func (v LedgerView) index() map[Outpoint]UTXO {
	m := make(map[Outpoint]UTXO, len(v.UTXOs))
	for _, u := range v.UTXOs {
		m[u.Outpoint] = u
	}
	return m
}

// LedgerRules are the ledger's pure functions that the protocol needs:
// what an address's script is, what a template's mass is (and whether it
// is standard), its transaction id, and how an input spending a group
// output is filled in. adapters/kaspa implements them for Kaspa; the
// simulator's ledger for itself.
type LedgerRules interface {
	// ScriptFor is the locking script of an address; an error for an
	// address that is malformed or of another network.
	ScriptFor(address string) (Script, error)
	// Mass is the template's mass; an error when the ledger would refuse
	// it (over the maximum mass, non-standard).
	Mass(t Template) (uint64, error)
	// TxID is the id the ledger gives the transaction once signed
	// (independent of signatures).
	TxID(t Template) Hash
	// Input spends u from the group's multisig.
	Input(u UTXO) TemplateInput
	// Base is the template every payout starts from (version, subnetwork,
	// lock time, gas, payload).
	Base() Template
}

// Selection errors.
var (
	ErrInsufficientDeepUTXOs = errors.New("insufficient deep UTXOs")
	ErrRevalidation          = errors.New("input revalidation failed")
)

// SelectionStats counts what the filters left out, for the
// utxo_depth_rejects_total metric and the failure's reason.
type SelectionStats struct {
	Eligible        int
	DepthRejects    int
	MaturityRejects int
	MempoolRejects  int
	ExcludedRejects int
}

// eligible is the selection's deterministic pre-filter: the group's own
// outputs, at least MinInputDepth deep (or any depth with allowShallow),
// coinbase outputs mature, none spent by a pending transaction nor in
// exclude. Sorted by amount, largest first, then outpoint (the fewest
// inputs), or with a salt by H(salt || outpoint): the same order at every
// signer.
func eligible(view LedgerView, group Group, p Params, allowShallow bool, exclude map[Outpoint]bool, salt *Hash) ([]UTXO, SelectionStats) {
	var st SelectionStats
	out := make([]UTXO, 0, len(view.UTXOs))
	for _, u := range view.UTXOs {
		switch {
		case !u.Script.Equal(group.ChangeScript):
			continue
		case exclude[u.Outpoint]:
			st.ExcludedRejects++
			continue
		case spentInMempool(view, u.Outpoint):
			st.MempoolRejects++
			continue
		case u.Coinbase && u.DAAScore+p.CoinbaseMaturity >= view.VirtualDAAScore:
			st.MaturityRejects++
			continue
		case !allowShallow && u.DAAScore+p.MinInputDepth > view.VirtualDAAScore:
			st.DepthRejects++
			continue
		}
		out = append(out, u)
	}
	if salt != nil {
		saltOrder(out, *salt)
	} else {
		slices.SortFunc(out, func(a, b UTXO) int {
			switch {
			case a.Amount != b.Amount:
				if a.Amount > b.Amount {
					return -1
				}
				return 1
			case a.Outpoint.Less(b.Outpoint):
				return -1
			case b.Outpoint.Less(a.Outpoint):
				return 1
			}
			return 0
		})
	}
	st.Eligible = len(out)
	return out, st
}

// saltOrder sorts outputs in an order drawn from salt: by a 64-bit key
// mixing the salt with the outpoint's transaction id and index (txids
// are hashes already, so a mix, not a hash, spreads them; the index is
// mixed too, so a split's outputs scatter as well). The same order at
// every signer for one salt; cheap enough for a pool of thousands.
func saltOrder(utxos []UTXO, salt Hash) {
	type keyed struct {
		key uint64
		u   UTXO
	}
	s0, s1 := binary.LittleEndian.Uint64(salt[0:8]), binary.LittleEndian.Uint64(salt[8:16])
	ks := make([]keyed, len(utxos))
	for i, u := range utxos {
		k := binary.LittleEndian.Uint64(u.Outpoint.TxID[0:8]) ^ s0 ^ mix64(uint64(u.Outpoint.Index)^s1)
		ks[i] = keyed{mix64(k), u}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return compareOutpoints(a.u.Outpoint, b.u.Outpoint)
	})
	for i := range ks {
		utxos[i] = ks[i].u
	}
}

// mix64 is splitmix64's finalizer: a bijection that spreads every input
// bit over the output.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func spentInMempool(view LedgerView, o Outpoint) bool {
	_, spent := view.MempoolSpent[o]
	return spent
}

// BuildRequest is what [BuildTemplate] needs besides the view.
type BuildRequest struct {
	Event   SigningEvent
	Group   Group
	Params  Params
	Policy  Policy
	Rules   LedgerRules
	Exclude map[Outpoint]bool // outpoints another payout holds (Profile B)
	// Salt, when set (Profile B: the event id), orders the eligible
	// outputs by a hash of the salt and the outpoint instead of by amount
	// (section 8.5.5), so that concurrent events start from different
	// outputs rather than all from the largest.
	Salt *Hash
}

// BuildTemplate selects inputs deterministically and builds the payout:
// the smallest prefix of the eligible outputs (see eligible) that covers
// the amount and the fee at the configured fee rate, the payout first,
// then change back to the group unless it is below Policy.MinChange (then
// it goes to the fee). Signers with equal views build equal templates.
func BuildTemplate(req BuildRequest, view LedgerView) (Template, []UTXO, SelectionStats, error) {
	if req.Event.IsReserve() {
		return buildSplit(req, view)
	}
	p := req.Params
	pay, err := req.Rules.ScriptFor(req.Event.Destination)
	if err != nil {
		return Template{}, nil, SelectionStats{}, fmt.Errorf("destination %q: %w", req.Event.Destination, err)
	}
	utxos, st := eligible(view, req.Group, p, false, req.Exclude, req.Salt)
	var sum uint64
	var lastErr error
	for k := 1; k <= len(utxos) && k <= p.MaxUTXOsPerProposal; k++ {
		sum += utxos[k-1].Amount
		if sum < req.Event.Amount {
			continue
		}
		t, ok, err := payoutTemplate(req, pay, utxos[:k], sum)
		if err != nil {
			lastErr = err // this many inputs are refused (mass); more may not be
			continue
		}
		if ok {
			return t, slices.Clone(utxos[:k]), st, nil
		}
	}
	if lastErr != nil {
		return Template{}, nil, st, fmt.Errorf("no template the ledger takes pays %d from %d eligible outputs: %w", req.Event.Amount, st.Eligible, lastErr)
	}
	return Template{}, nil, st, fmt.Errorf("%w: %d eligible outputs (%d too shallow, %d immature coinbase, %d spent in the mempool, %d held by other payouts) do not cover %d plus fees",
		ErrInsufficientDeepUTXOs, st.Eligible, st.DepthRejects, st.MaturityRejects, st.MempoolRejects, st.ExcludedRejects, req.Event.Amount)
}

// payoutTemplate tries inputs worth sum: false when they cannot cover the
// amount and the fee; an error when the ledger refuses the template even
// without change (its mass).
func payoutTemplate(req BuildRequest, pay Script, inputs []UTXO, sum uint64) (Template, bool, error) {
	t := req.Rules.Base()
	t.Inputs = make([]TemplateInput, len(inputs))
	for i, u := range inputs {
		t.Inputs[i] = req.Rules.Input(u)
	}
	amount := req.Event.Amount
	// sum >= amount here (the caller checks); compare what is left, so no
	// sum of amounts can wrap.
	left := sum - amount
	if c, ok := withChange(req, t, pay, left); ok {
		return c, true, nil
	}
	// Without change: everything above the amount is fee.
	t.Outputs = []TemplateOutput{{Amount: amount, Script: pay}}
	mass, err := req.Rules.Mass(t)
	if err != nil {
		return Template{}, false, err
	}
	if left < mass*req.Params.FeeRate || (req.Policy.MaxFee > 0 && left > req.Policy.MaxFee) {
		return Template{}, false, nil
	}
	return t, true, nil
}

// withChange finds the template with a change output whose fee is exactly
// its mass at the fee rate. A ledger whose mass depends on the amounts
// (Kaspa's storage mass grows as the change shrinks) needs a few steps:
// the change is what is left after the fee of the template with that
// change, until it no longer moves. False when no change output fits
// (below Policy.MinChange, over MaxFee, refused by the ledger, or no fixed
// point within a few steps).
func withChange(req BuildRequest, t Template, pay Script, left uint64) (Template, bool) {
	change := left
	for step := 0; step < 8; step++ {
		t.Outputs = []TemplateOutput{{Amount: req.Event.Amount, Script: pay}, {Amount: change, Script: req.Group.ChangeScript}}
		mass, err := req.Rules.Mass(t)
		if err != nil {
			return Template{}, false
		}
		fee := mass * req.Params.FeeRate
		if (req.Policy.MaxFee > 0 && fee > req.Policy.MaxFee) || left < fee || left-fee < max(req.Policy.MinChange, 1) {
			return Template{}, false
		}
		if left-fee == change {
			return t, true
		}
		change = left - fee
	}
	return Template{}, false
}

// RevalidationFailure says why an input no longer passes.
type RevalidationFailure struct {
	Outpoint Outpoint
	Reason   string // "missing", "changed", "spent_in_mempool", "too_shallow", "immature_coinbase"
}

func (f *RevalidationFailure) Error() string {
	return fmt.Sprintf("%s: input %s %s", ErrRevalidation, f.Outpoint, f.Reason)
}

func (f *RevalidationFailure) Unwrap() error { return ErrRevalidation }

// Revalidate is the mandatory pre-sign check (section 8.5.6) against the
// signer's current view: every input is still unspent with the same amount
// and script, no pending transaction but this one spends it, and it is
// still deep and mature, judged by the view's own DAA score of the output.
func Revalidate(t Template, txID Hash, view LedgerView, p Params) error {
	idx := view.index()
	for _, in := range t.Inputs {
		u, ok := idx[in.Outpoint]
		switch {
		case !ok:
			return &RevalidationFailure{in.Outpoint, "missing"}
		case u.Amount != in.Amount || !u.Script.Equal(in.Script):
			return &RevalidationFailure{in.Outpoint, "changed"}
		}
		if by, spent := view.MempoolSpent[in.Outpoint]; spent && by != txID {
			return &RevalidationFailure{in.Outpoint, "spent_in_mempool"}
		}
		if u.Coinbase && u.DAAScore+p.CoinbaseMaturity >= view.VirtualDAAScore {
			return &RevalidationFailure{in.Outpoint, "immature_coinbase"}
		}
		if u.DAAScore+p.MinInputDepth > view.VirtualDAAScore {
			return &RevalidationFailure{in.Outpoint, "too_shallow"}
		}
	}
	return nil
}

// Dead reports whether a template can never be accepted as seen from
// view: an input is spent by another pending transaction, or is gone
// although the view is past the score at which it was created (spent or
// reorganised away). An input merely not yet visible (a lagging view) or
// too shallow does not make a template dead. The caller checks first that
// the template itself was not accepted.
func Dead(t Template, txID Hash, created []uint64, view LedgerView) bool {
	idx := view.index()
	for i, in := range t.Inputs {
		if by, spent := view.MempoolSpent[in.Outpoint]; spent && by != txID {
			return true
		}
		if _, ok := idx[in.Outpoint]; !ok && i < len(created) && created[i] <= view.VirtualDAAScore {
			return true
		}
	}
	return false
}
