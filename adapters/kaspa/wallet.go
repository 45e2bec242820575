package kaspa

import (
	"errors"
	"fmt"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/constants"
	"github.com/kaspanet/kaspad/domain/consensus/utils/utxo"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"
	"github.com/kaspanet/kaspad/util/txmass"
)

// ErrFunds: a wallet's inputs do not cover its payments and fee.
var ErrFunds = errors.New("inputs do not cover the payments and the fee")

// Payment is an output of a wallet's spend.
type Payment struct {
	To     util.Address
	Amount uint64
}

// p2pkSigOps is what the node counts for an input spending a
// pay-to-public-key output: its one OP_CHECKSIG.
const p2pkSigOps = 1

// Wallet is one Schnorr key and its pay-to-public-key address on one
// network: it spends that address's outputs (a devnet's mined coins, a
// test's payer). Its signatures are the Signer's; its signature script
// is the one push of signature and sighash type that txscript's
// SignatureScript writes.
type Wallet struct {
	params  *dagconfig.Params
	signer  *Signer
	address util.Address
	script  twophase.Script
	mass    *txmass.Calculator
}

// NewWallet holds a 32-byte secret on network (named like
// "kaspa-simnet").
func NewWallet(network string, secret []byte) (*Wallet, error) {
	p, err := Params(network)
	if err != nil {
		return nil, err
	}
	s, err := NewSigner(secret)
	if err != nil {
		return nil, err
	}
	addr, err := util.NewAddressPublicKey(s.PublicKey(), p.Prefix)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	spk, err := payToAddrScript(addr)
	if err != nil {
		return nil, err
	}
	return &Wallet{params: p, signer: s, address: addr, script: templateScript(spk), mass: massCalculator(p)}, nil
}

// NewRandomWallet makes a wallet of a fresh key from the system's
// randomness.
func NewRandomWallet(network string) (*Wallet, error) {
	secret, _, err := NewKeyPair()
	if err != nil {
		return nil, err
	}
	return NewWallet(network, secret)
}

// Address is the wallet's pay-to-public-key address.
func (w *Wallet) Address() util.Address { return w.address }

// Script is the locking script of the wallet's address: its outputs in a
// node's UTXO index carry it.
func (w *Wallet) Script() twophase.Script { return w.script }

// Secret is the wallet's 32-byte secret, for NewWallet to hold it again.
func (w *Wallet) Secret() []byte { return w.signer.key.Serialize() }

// Spend pays pays from inputs (outputs of the wallet's address, as a
// ledger view or kaspadproc lists them), leaving fee to the miner: what
// the inputs hold beyond both goes back to the wallet's address, or to
// the fee when it would be dust. Every input is signed SIGHASH_ALL and
// carries its UTXO entry. An error wraps ErrFunds, ErrTemplate (an input
// of another address), ErrNetwork (a payee of another network) or
// ErrNonStandard (what the node would refuse: dust, a mass over the
// standard maximum, a fee below its mass at MinimumFeeRate).
func (w *Wallet) Spend(inputs []twophase.UTXO, pays []Payment, fee uint64) (*externalapi.DomainTransaction, error) {
	t, err := w.template(inputs, pays, fee)
	if err != nil {
		return nil, err
	}
	mass, err := w.signedMass(t)
	if err != nil {
		return nil, err
	}
	if paid, _ := t.Fee(); paid < mass*MinimumFeeRate {
		return nil, fmt.Errorf("%w: fee %d below the node's minimum %d for mass %d", ErrNonStandard, paid, mass*MinimumFeeRate, mass)
	}
	return w.sign(t, inputs)
}

// SpendAtFeeRate is Spend with the fee the signed spend's mass costs at
// feeRate (sompi per gram, at least MinimumFeeRate). The storage mass
// grows as the change shrinks, so the fee is found as the payout builder
// finds it: the fee of the spend with the change that fee leaves, until
// it no longer grows.
func (w *Wallet) SpendAtFeeRate(inputs []twophase.UTXO, pays []Payment, feeRate uint64) (*externalapi.DomainTransaction, error) {
	if feeRate < MinimumFeeRate || feeRate > constants.MaxSompi/MaxStandardMass {
		return nil, fmt.Errorf("%w: fee rate %d sompi per gram (the node takes %d to %d)",
			ErrNonStandard, feeRate, MinimumFeeRate, constants.MaxSompi/MaxStandardMass)
	}
	var fee uint64
	for range 16 {
		t, err := w.template(inputs, pays, fee)
		if err != nil {
			return nil, err
		}
		mass, err := w.signedMass(t)
		if err != nil {
			return nil, err
		}
		if paid, _ := t.Fee(); paid >= mass*feeRate {
			return w.sign(t, inputs)
		}
		fee = mass * feeRate
	}
	return nil, fmt.Errorf("%w: no fee covers the mass of its own change", ErrNonStandard)
}

// template is the unsigned spend: inputs, payments, and the change when
// it is not dust.
func (w *Wallet) template(inputs []twophase.UTXO, pays []Payment, fee uint64) (twophase.Template, error) {
	t := baseTemplate()
	if len(inputs) == 0 {
		return twophase.Template{}, fmt.Errorf("%w: a spend without inputs", ErrTemplate)
	}
	for i, u := range inputs {
		switch {
		case !u.Script.Equal(w.script):
			return twophase.Template{}, fmt.Errorf("%w: input %d (%s) is not an output of %s", ErrTemplate, i, u.Outpoint, w.address)
		case u.Amount == 0:
			return twophase.Template{}, fmt.Errorf("%w: input %d spends an output of 0 (Kaspa has none)", ErrNonStandard, i)
		}
		t.Inputs = append(t.Inputs, twophase.TemplateInput{Outpoint: u.Outpoint, Amount: u.Amount, Script: u.Script, SigOpCount: p2pkSigOps})
	}
	for i, p := range pays {
		if p.To == nil || !p.To.IsForPrefix(w.params.Prefix) {
			return twophase.Template{}, fmt.Errorf("%w: payment %d to %v, not a %s address", ErrNetwork, i, p.To, w.params.Name)
		}
		spk, err := payToAddrScript(p.To)
		if err != nil {
			return twophase.Template{}, err
		}
		o := twophase.TemplateOutput{Amount: p.Amount, Script: templateScript(spk)}
		if err := standardOutput(o); err != nil {
			return twophase.Template{}, fmt.Errorf("payment %d: %w", i, err)
		}
		t.Outputs = append(t.Outputs, o)
	}
	in, err := t.InputTotal()
	if err != nil || in > constants.MaxSompi {
		return twophase.Template{}, fmt.Errorf("%w: inputs total more than the supply", ErrNonStandard)
	}
	out, err := t.OutputTotal()
	if err != nil || out > constants.MaxSompi {
		return twophase.Template{}, fmt.Errorf("%w: payments total more than the supply", ErrNonStandard)
	}
	if fee > in || out > in-fee {
		return twophase.Template{}, fmt.Errorf("%w: inputs hold %d sompi, payments %d and fee %d", ErrFunds, in, out, fee)
	}
	if change := (twophase.TemplateOutput{Amount: in - fee - out, Script: w.script}); change.Amount > 0 && !isDust(change) {
		t.Outputs = append(t.Outputs, change)
	}
	if len(t.Outputs) == 0 {
		return twophase.Template{}, fmt.Errorf("%w: no payment, and the change of %d sompi is dust", ErrTemplate, in-fee)
	}
	return t, nil
}

// signedMass is the overall mass of t once signed: every signature script
// is one push of SignatureSize bytes.
func (w *Wallet) signedMass(t twophase.Template) (uint64, error) {
	tx := Transaction(t)
	placeholder := pushData(nil, make([]byte, SignatureSize))
	for _, in := range tx.Inputs {
		in.SignatureScript = placeholder
	}
	return standardMass(w.mass, tx)
}

// sign signs every input of t and gives each its full UTXO entry
// (coinbase flag and DAA score too, which the signature hash leaves out).
func (w *Wallet) sign(t twophase.Template, inputs []twophase.UTXO) (*externalapi.DomainTransaction, error) {
	sigs, err := w.signer.SignPayout(t)
	if err != nil {
		return nil, err
	}
	tx := Transaction(t)
	for i, in := range tx.Inputs {
		u := inputs[i]
		in.UTXOEntry = utxo.NewUTXOEntry(u.Amount, scriptPublicKey(u.Script), u.Coinbase, u.DAAScore)
		in.SignatureScript = pushData(nil, sigs[i*SignatureSize:(i+1)*SignatureSize])
	}
	return tx, nil
}
