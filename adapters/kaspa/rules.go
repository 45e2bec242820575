package kaspa

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/constants"
	"github.com/kaspanet/kaspad/domain/consensus/utils/subnetworks"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"
	"github.com/kaspanet/kaspad/util/txmass"
)

// Bounds of kaspad v0.12.23's mempool (domain/miningmanager/mempool:
// check_transaction_standard.go and config.go); most are unexported there.
const (
	// MaxStandardMass is MaximumStandardTransactionMass, here applied to
	// the overall mass (compute and KIP-9 storage mass).
	MaxStandardMass = 100_000
	// MinimumFeeRate is the node's default minimum relay fee, 1000 sompi
	// per 1000 grams, in sompi per gram: a Params.FeeRate below it builds
	// payouts the node refuses for their fee.
	MinimumFeeRate = 1

	maxStandardSignatureScript = 1650
	maxStandardP2SHSigOps      = 15
	minimumRelayFeePerKg       = 1000
	// dustSpendSize is the mempool's assumed size of the input that will
	// later spend an output, in its dust rule.
	dustSpendSize = 148
)

// ErrNonStandard: a template a Kaspa node would refuse (non-standard, or
// against a consensus rule that holds in isolation).
var ErrNonStandard = errors.New("non-standard Kaspa transaction")

// Rules are Kaspa's [twophase.LedgerRules] for one network and one
// group: payouts spend the group's P2SH multisig.
type Rules struct {
	network string
	group   multisig
	mass    *txmass.Calculator
}

var _ twophase.LedgerRules = (*Rules)(nil)

// NewRules makes the rules of the M-of-N group over keys on network.
func NewRules(network string, keys [][]byte, m int) (*Rules, error) {
	ms, err := newMultisig(network, keys, m)
	if err != nil {
		return nil, err
	}
	p, _ := Params(network) // known: newMultisig checked it
	return &Rules{network: network, group: ms, mass: massCalculator(p)}, nil
}

// ForGroup makes the rules of a configured group: its network, its
// members' payout keys and its quorum as the threshold. A change script
// that is not the multisig of those keys is refused.
func ForGroup(g twophase.Group) (*Rules, error) {
	keys := payoutKeys(g)
	r, err := NewRules(g.Network, keys, g.Quorum)
	if err != nil {
		return nil, err
	}
	if len(g.ChangeScript.Bytes) > 0 && !g.ChangeScript.Equal(r.ChangeScript()) {
		return nil, fmt.Errorf("%w: the group's change script is not the %d-of-%d multisig of its members' payout keys (%s)",
			ErrKey, g.Quorum, len(keys), r.Address())
	}
	return r, nil
}

func payoutKeys(g twophase.Group) [][]byte {
	keys := make([][]byte, len(g.Members))
	for i, m := range g.Members {
		keys[i] = m.PayoutKey
	}
	return keys
}

// Address is the group's P2SH address.
func (r *Rules) Address() util.Address { return r.group.address }

// ChangeScript is the locking script of the group's address.
func (r *Rules) ChangeScript() twophase.Script { return templateScript(r.group.lock) }

// ScriptFor is the locking script of an address of the rules' network.
func (r *Rules) ScriptFor(address string) (twophase.Script, error) {
	a, err := DecodeAddress(r.network, address)
	if err != nil {
		return twophase.Script{}, err
	}
	spk, err := payToAddrScript(a)
	if err != nil {
		return twophase.Script{}, fmt.Errorf("%q: %w", address, err)
	}
	return templateScript(spk), nil
}

// TxID is the transaction id of the template, fixed before it is signed.
func (r *Rules) TxID(t twophase.Template) twophase.Hash { return transactionID(Transaction(t)) }

// Input spends u from the group's multisig: sequence 0 (no relative lock,
// as kaspawallet), and the sig-op count the node requires (N for N keys,
// see multisigSigOps).
func (r *Rules) Input(u twophase.UTXO) twophase.TemplateInput {
	return twophase.TemplateInput{Outpoint: u.Outpoint, Amount: u.Amount, Script: u.Script, SigOpCount: r.group.sigOps}
}

// Base is a version-0 transaction on the native subnetwork, without lock
// time, gas or payload.
func (r *Rules) Base() twophase.Template { return baseTemplate() }

func baseTemplate() twophase.Template {
	return twophase.Template{Version: constants.MaxTransactionVersion, SubnetworkID: [20]byte(subnetworks.SubnetworkIDNative)}
}

// Mass is the overall mass a node charges for the signed template: the
// larger of its compute mass, with every input's signature script at the
// size it will have, and its KIP-9 storage mass. An error wrapping
// ErrNonStandard when the node would refuse it (see standard). The
// storage mass depends on the amounts: the builder asks again with each
// change it tries until the fee is that of its own change.
func (r *Rules) Mass(t twophase.Template) (uint64, error) {
	if err := r.standard(t); err != nil {
		return 0, err
	}
	tx := Transaction(t)
	for _, in := range tx.Inputs {
		in.SignatureScript = r.group.sigScript
	}
	return standardMass(r.mass, tx)
}

// standardMass is the overall mass of tx, whose inputs carry their UTXO
// entries and signature scripts of their final size: an error wrapping
// ErrNonStandard over the standard maximum. Every amount must be
// positive (the storage mass divides by them).
func standardMass(calc *txmass.Calculator, tx *externalapi.DomainTransaction) (uint64, error) {
	compute := calc.CalculateTransactionMass(tx)
	storage := calc.CalculateTransactionStorageMass(tx)
	mass := max(compute, storage)
	if mass > MaxStandardMass {
		return 0, fmt.Errorf("%w: mass %d (compute %d, storage %d) over the standard maximum %d",
			ErrNonStandard, mass, compute, storage, MaxStandardMass)
	}
	return mass, nil
}

// massCalculator is the node's mass calculator for network's parameters.
func massCalculator(p *dagconfig.Params) *txmass.Calculator {
	return txmass.NewCalculator(p.MassPerTxByte, p.MassPerScriptPubKeyByte, p.MassPerSigOp)
}

// standard refuses what kaspad refuses in isolation, as a mempool
// (non-standard) or by consensus, and what this group cannot sign.
func (r *Rules) standard(t twophase.Template) error {
	switch {
	case t.Version != constants.MaxTransactionVersion:
		return fmt.Errorf("%w: version %d, the node takes %d", ErrNonStandard, t.Version, constants.MaxTransactionVersion)
	case externalapi.DomainSubnetworkID(t.SubnetworkID) != subnetworks.SubnetworkIDNative:
		return fmt.Errorf("%w: not the native subnetwork", ErrNonStandard)
	case t.Gas != 0 || len(t.Payload) != 0:
		return fmt.Errorf("%w: gas or payload on the native subnetwork", ErrNonStandard)
	case t.LockTime != 0:
		return fmt.Errorf("%w: lock time %d (a payout is final at once)", ErrNonStandard, t.LockTime)
	case len(t.Inputs) == 0 || len(t.Outputs) == 0:
		return fmt.Errorf("%w: %d inputs, %d outputs", ErrNonStandard, len(t.Inputs), len(t.Outputs))
	}
	for i, in := range t.Inputs {
		switch {
		case !r.isGroupScript(in.Script):
			return fmt.Errorf("%w: input %d does not spend the group's multisig", ErrTemplate, i)
		case in.SigOpCount != r.group.sigOps:
			return fmt.Errorf("%w: input %d has sig-op count %d, the node counts %d", ErrNonStandard, i, in.SigOpCount, r.group.sigOps)
		case in.Amount == 0:
			return fmt.Errorf("%w: input %d spends an output of 0 (Kaspa has none)", ErrNonStandard, i)
		}
	}
	if in, err := t.InputTotal(); err != nil || in > constants.MaxSompi {
		return fmt.Errorf("%w: inputs total more than the supply", ErrNonStandard)
	}
	if out, err := t.OutputTotal(); err != nil || out > constants.MaxSompi {
		return fmt.Errorf("%w: outputs total more than the supply", ErrNonStandard)
	}
	for i, o := range t.Outputs {
		if err := standardOutput(o); err != nil {
			return fmt.Errorf("output %d: %w", i, err)
		}
	}
	return nil
}

func (r *Rules) isGroupScript(s twophase.Script) bool {
	return s.Version == r.group.lock.Version && bytes.Equal(s.Bytes, r.group.lock.Script)
}

// standardOutput: a known script version and a standard class (pay to a
// key or to a script hash, none of them unspendable), and not dust.
func standardOutput(o twophase.TemplateOutput) error {
	switch {
	case o.Script.Version > constants.MaxScriptPublicKeyVersion:
		return fmt.Errorf("%w: script version %d", ErrNonStandard, o.Script.Version)
	case classifyScript(o.Script.Bytes) == nonStandardScript:
		return fmt.Errorf("%w: non-standard script", ErrNonStandard)
	case o.Amount == 0:
		return fmt.Errorf("%w: amount 0", ErrNonStandard)
	case isDust(o):
		return fmt.Errorf("%w: %d sompi is dust (below %d for this script)", ErrNonStandard, o.Amount, dustThreshold(o.Script))
	}
	return nil
}

// isDust is the mempool's rule: spending the output would cost more than
// a third of the minimum relay fee it carries. kaspad computes
// amount*1000/(3*size) < fee; amount < 3*size*fee/1000 is the same
// without the product that overflows above 1.8e16 sompi. kaspad also
// counts an unspendable script as dust; standardOutput has refused every
// such script as non-standard before.
func isDust(o twophase.TemplateOutput) bool {
	return o.Amount < dustThreshold(o.Script)
}

// dustThreshold is the least amount that is not dust under script.
func dustThreshold(s twophase.Script) uint64 {
	out := &externalapi.DomainTransactionOutput{ScriptPublicKey: scriptPublicKey(s)}
	size := txmass.TransactionOutputEstimatedSerializedSize(out) + dustSpendSize
	return 3 * size * minimumRelayFeePerKg / 1000
}

// storageMassParameter is KIP-9's C (kaspad's txmass: SompiPerKaspa *
// 10,000): an output of a sompi adds about C/a to the storage mass.
const storageMassParameter = constants.SompiPerKaspa * 10_000

// MinPayout is the least payout the group makes: below it, the payout's
// output alone has a storage mass over MaxStandardMass (1,000,000 sompi:
// about 1,000,000 grams), which no change output can offset. A rule of
// the group, from the amount alone, so every member refuses the same.
const MinPayout = storageMassParameter / MaxStandardMass

var _ twophase.PayableRules = (*Rules)(nil)

// CheckPayable refuses an amount no payout to destination can carry:
// under MinPayout, or dust for the destination's script.
func (r *Rules) CheckPayable(destination string, amount uint64) error {
	script, err := r.ScriptFor(destination)
	if err != nil {
		return err
	}
	o := twophase.TemplateOutput{Amount: amount, Script: script}
	switch {
	case amount < MinPayout:
		return fmt.Errorf("%w: %d sompi is under the least payout %d (storage mass %d over %d)",
			twophase.ErrUnpayable, amount, MinPayout, storageMassParameter/max(amount, 1), MaxStandardMass)
	case isDust(o):
		return fmt.Errorf("%w: %d sompi is dust (below %d for this script)", twophase.ErrUnpayable, amount, dustThreshold(script))
	}
	return nil
}
