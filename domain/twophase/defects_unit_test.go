package twophase

// Regression tests of defects the unit tests and the fuzz targets found,
// each with the input that once broke it.

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// A length or count written as a non-minimal uvarint (0x80 0x00 for 0)
// is refused by every decoder: one value has one encoding. These are the
// fuzz targets' minimised inputs.
func TestNonMinimalUvarintRefused(t *testing.T) {
	p := DefaultParams()
	g, _ := testGroup(3, 2)
	t.Run("FuzzDecodeSyncResponse", func(t *testing.T) {
		// An empty response whose count 0 is written 0x80 0x00; it
		// re-encodes to 0x00.
		checkSyncResponseCanonical(t, []byte{0x80, 0x00})
	})
	t.Run("FuzzDecodeTemplate", func(t *testing.T) {
		// A template with its input count 0 written 0x80 0x00.
		checkTemplateCanonical(t, nonMinimal(t, Template{}.Encode(), len(templateMagic)+1+2), p)
	})
	t.Run("FuzzDecodeProposal", func(t *testing.T) {
		// A proposal whose event stream length is written 0x80 0x00.
		checkProposalCanonical(t, nonMinimal(t, Proposal{}.Encode(), 0), p, Validator{Group: g, Params: p, Rules: fakeRules{}})
	})
	t.Run("FuzzOpenEnvelope", func(t *testing.T) {
		// An envelope whose payload length is written with one byte more.
		o, _, raw := sealed(t, func(e *Envelope) { e.Payload = nil })
		lenient := NewOpener(o.Group, func(ed25519.PublicKey, []byte, []byte) bool { return true })
		checkEnvelopeCanonical(t, nonMinimal(t, raw, len(raw)-64-1), o, lenient)
	})
}

// For envelopes: the signature covers the fields, not the framing, so a
// re-framed envelope of a member must not open as that member's.
func TestEnvelopeFramingNotMalleable(t *testing.T) {
	o, _, raw := sealed(t, func(e *Envelope) { e.Payload = nil })
	reframed := nonMinimal(t, raw, len(raw)-64-1) // the payload length
	if _, err := o.Open(reframed); err == nil {
		t.Fatalf("Open accepts %x, a re-framing of the signed envelope %x", reframed, raw)
	}
}

// For templates: one transaction has one template hash.
func TestTemplateHasOneHash(t *testing.T) {
	v, tpl, p := validCase(t)
	at := len(templateMagic) + 1 + 2 + 1 + 32 + 4 + 8 + 2 // the first input's script length
	p.Template = nonMinimal(t, tpl.Encode(), at)
	p.TemplateHash = TemplateHash(p.Template)
	got, err := v.Validate(p, "s1")
	if err == nil && p.TemplateHash != tpl.Hash() && got.Hash() == tpl.Hash() {
		t.Fatalf("template %s accepted as a vote; it is the transaction of template %s", p.TemplateHash.Short(), tpl.Hash().Short())
	}
}

// nonMinimal rewrites the one-byte uvarint at b[at] (< 0x80) with a
// redundant continuation byte.
func nonMinimal(t *testing.T, b []byte, at int) []byte {
	t.Helper()
	if b[at] >= 0x80 {
		t.Fatalf("byte %d is %#x, not a one-byte uvarint", at, b[at])
	}
	out := append(bytes.Clone(b[:at]), b[at]|0x80, 0x00)
	return append(out, b[at+1:]...)
}

// When the template with change would pay more than Policy.MaxFee,
// BuildTemplate tries the one without change, whose fee is lower (fake
// rules: 2,820 with change, 2,460 without): pay 1,000,000 from one deep
// output of 1,002,460 with MaxFee 2,500.
func TestMaxFeeFallsBackToNoChange(t *testing.T) {
	const amount = 1_000_000
	noChange := fakeMass(1, 1, 0)
	req := buildReq(amount, func(r *BuildRequest) { r.Policy.MaxFee = noChange + 40 })
	u := groupUTXO("a", amount+noChange, 100)

	// The template that exists: the validator of the same policy accepts it.
	want := Template{Inputs: []TemplateInput{fakeRules{}.Input(u)}, Outputs: []TemplateOutput{{Amount: amount, Script: payTo("alice")}}}
	v := Validator{Group: req.Group, Params: req.Params, Policy: req.Policy, Rules: fakeRules{}}
	if _, err := v.Validate(proposalOf(want, req.Event, "s1"), "s1"); err != nil {
		t.Fatalf("the template without change is refused: %v", err)
	}

	got, _, _, err := BuildTemplate(req, view(u))
	if err != nil {
		t.Fatalf("BuildTemplate: %v; the template %s without change pays fee %d <= MaxFee %d", err, want.Hash().Short(), noChange, req.Policy.MaxFee)
	}
	if got.Hash() != want.Hash() {
		t.Fatalf("built %+v, want %+v", got, want)
	}
}

// No sum of amounts wraps in BuildTemplate: with an amount near 2^64
// (pay 2^64-1000 from one deep output of 2^64-1) it never returns a
// template whose outputs exceed its inputs. (Out of reach on Kaspa, whose
// supply is below 2^63.)
func TestBuildTemplateNoAmountOverflow(t *testing.T) {
	req := buildReq(math.MaxUint64 - 1000)
	tpl, _, _, err := BuildTemplate(req, view(groupUTXO("a", math.MaxUint64, 100)))
	if err != nil {
		return // refusing is right: 1,000 cannot pay a fee of 2,460
	}
	if _, ferr := tpl.Fee(); ferr != nil {
		t.Fatalf("BuildTemplate returned a template whose outputs %+v do not fit its inputs: %v", tpl.Outputs, ferr)
	}
}

// The selection and the pre-sign check agree on a pending spend whose
// spender id is the zero hash (one deep output a, MempoolSpent{a: zero}):
// the output is spent, so it is not selected.
func TestMempoolSpentByZeroHashNotSelected(t *testing.T) {
	v := view(groupUTXO("a", 5_000_000, 100))
	v.MempoolSpent[op("a", 0)] = Hash{}
	tpl, _, _, err := BuildTemplate(buildReq(1_000_000), v)
	if err != nil {
		return // not selecting it agrees with Revalidate
	}
	txID := fakeRules{}.TxID(tpl)
	if err := Revalidate(tpl, txID, v, DefaultParams()); err != nil {
		t.Fatalf("BuildTemplate selected %s, which Revalidate refuses on the same view: %v", op("a", 0), err)
	}
}

// Element counts are checked against the bytes left before anything is
// allocated: with a bound Params.Validate accepts (MaxUTXOsPerProposal =
// 1<<20), the 10-byte template 424c5458010000808040 claiming 1<<20 inputs
// fails without allocating the slice.
func TestCountCheckedAgainstInputFirst(t *testing.T) {
	p := DefaultParams()
	p.MaxUTXOsPerProposal = 1 << 20
	if err := p.Validate(); err != nil {
		t.Fatalf("the bound is refused: %v", err)
	}
	b := binary.AppendUvarint([]byte(templateMagic+"\x01\x00\x00"), 1<<20)
	decode := func() {
		if _, err := DecodeTemplate(b, p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal); !errors.Is(err, ErrMalformed) {
			t.Fatalf("decode: %v", err)
		}
	}
	if n := allocated(3, decode); n > 64<<10 {
		t.Fatalf("%d bytes allocated to refuse the %d-byte input %x", n, len(b), b)
	}
}
