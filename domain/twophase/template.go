package twophase

import (
	"errors"
	"fmt"
	"math"
)

// Template is an unsigned payout transaction: the exact bytes every signer
// signs, with each input's previous output (amount and script), so that a
// template can be checked and signed without a ledger lookup. Its fields
// follow Kaspa's transaction.
type Template struct {
	Version      uint16           `json:"version"`
	Inputs       []TemplateInput  `json:"inputs"`
	Outputs      []TemplateOutput `json:"outputs"`
	LockTime     uint64           `json:"lockTime"`
	SubnetworkID [20]byte         `json:"subnetworkId"`
	Gas          uint64           `json:"gas"`
	Payload      []byte           `json:"payload,omitempty"`
}

// TemplateInput spends Outpoint, whose output held Amount under Script.
type TemplateInput struct {
	Outpoint   Outpoint `json:"outpoint"`
	Amount     uint64   `json:"amount"`
	Script     Script   `json:"script"`
	Sequence   uint64   `json:"sequence"`
	SigOpCount uint8    `json:"sigOpCount"`
}

// TemplateOutput pays Amount to Script.
type TemplateOutput struct {
	Amount uint64 `json:"amount"`
	Script Script `json:"script"`
}

// Bounds of a template beyond the per-proposal ones in [Params].
const (
	maxTemplatePayload = 1 << 10
	templateMagic      = "BLTX"
	templateFormat     = 1
)

// Encode is the template's canonical encoding: what is hashed, what
// travels in a proposal, what a ledger adapter turns into a transaction.
func (t Template) Encode() []byte {
	var w writer
	w.fixed([]byte(templateMagic))
	w.u8(templateFormat)
	w.u16(t.Version)
	w.count(len(t.Inputs))
	for _, in := range t.Inputs {
		w.hash(in.Outpoint.TxID)
		w.u32(in.Outpoint.Index)
		w.u64(in.Amount)
		w.script(in.Script)
		w.u64(in.Sequence)
		w.u8(in.SigOpCount)
	}
	w.count(len(t.Outputs))
	for _, o := range t.Outputs {
		w.u64(o.Amount)
		w.script(o.Script)
	}
	w.u64(t.LockTime)
	w.fixed(t.SubnetworkID[:])
	w.u64(t.Gas)
	w.bytes(t.Payload)
	return w.out()
}

// TemplateHash is tx_template_hash: the domain-separated hash of a
// template's canonical encoding.
func TemplateHash(encoded []byte) Hash { return taggedHash(tagTemplate, encoded) }

// Hash is the template's tx_template_hash.
func (t Template) Hash() Hash { return TemplateHash(t.Encode()) }

// DecodeTemplate decodes a canonical encoding, refusing more than
// maxInputs inputs or maxOutputs outputs before allocating them.
func DecodeTemplate(b []byte, maxInputs, maxOutputs int) (Template, error) {
	r := reader{b: b}
	if string(r.take(len(templateMagic), "template magic")) != templateMagic && r.err == nil {
		r.fail("template magic")
	}
	if f := r.u8("template format"); f != templateFormat && r.err == nil {
		r.fail("template format %d", f)
	}
	var t Template
	t.Version = r.u16("template version")
	n := r.count(maxInputs, "template inputs")
	if r.err == nil && n > 0 {
		t.Inputs = make([]TemplateInput, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		in := &t.Inputs[i]
		in.Outpoint.TxID = r.hash("input txid")
		in.Outpoint.Index = r.u32("input index")
		in.Amount = r.u64("input amount")
		in.Script = r.script("input script")
		in.Sequence = r.u64("input sequence")
		in.SigOpCount = r.u8("input sig op count")
	}
	n = r.count(maxOutputs, "template outputs")
	if r.err == nil && n > 0 {
		t.Outputs = make([]TemplateOutput, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		t.Outputs[i].Amount = r.u64("output amount")
		t.Outputs[i].Script = r.script("output script")
	}
	t.LockTime = r.u64("template lock time")
	copy(t.SubnetworkID[:], r.take(len(t.SubnetworkID), "template subnetwork"))
	t.Gas = r.u64("template gas")
	t.Payload = r.bytes(maxTemplatePayload, "template payload")
	if err := r.end("template"); err != nil {
		return Template{}, err
	}
	return t, nil
}

// ErrAmountOverflow: amounts that do not fit 64 bits.
var ErrAmountOverflow = errors.New("amount overflow")

// InputTotal sums the inputs' amounts.
func (t Template) InputTotal() (uint64, error) {
	var s uint64
	for _, in := range t.Inputs {
		if in.Amount > math.MaxUint64-s {
			return 0, ErrAmountOverflow
		}
		s += in.Amount
	}
	return s, nil
}

// OutputTotal sums the outputs' amounts.
func (t Template) OutputTotal() (uint64, error) {
	var s uint64
	for _, o := range t.Outputs {
		if o.Amount > math.MaxUint64-s {
			return 0, ErrAmountOverflow
		}
		s += o.Amount
	}
	return s, nil
}

// Fee is inputs minus outputs; an error when outputs exceed inputs.
func (t Template) Fee() (uint64, error) {
	in, err := t.InputTotal()
	if err != nil {
		return 0, err
	}
	out, err := t.OutputTotal()
	if err != nil {
		return 0, err
	}
	if out > in {
		return 0, fmt.Errorf("%w: outputs %d exceed inputs %d", ErrAmountOverflow, out, in)
	}
	return in - out, nil
}

// Outpoints lists the inputs' outpoints in order.
func (t Template) Outpoints() []Outpoint {
	out := make([]Outpoint, len(t.Inputs))
	for i, in := range t.Inputs {
		out[i] = in.Outpoint
	}
	return out
}
