package twophase

// Failing tests of defects found by the unit tests and the fuzz targets.
// Each names the input that breaks; they pass once the defect is fixed,
// and then belong with the tests of their file.

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

// A length or count may be written as a non-minimal uvarint (0x80 0x00 is
// 0): every decoder accepts it, so one value has several encodings. The
// fuzz targets find it within seconds; these are their minimised inputs.
func TestBugNonMinimalUvarintAccepted(t *testing.T) {
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

// The consequence for envelopes: the signature covers the fields, not
// the framing, so anyone relaying a member's envelope can make other
// bytes that Open accepts as that member's, signature and all.
func TestBugEnvelopeFramingMalleable(t *testing.T) {
	o, _, raw := sealed(t, func(e *Envelope) { e.Payload = nil })
	reframed := nonMinimal(t, raw, len(raw)-64-1) // the payload length
	if _, err := o.Open(reframed); err == nil {
		t.Fatalf("Open accepts %x, a re-framing of the signed envelope %x", reframed, raw)
	}
}

// The consequence for templates: one transaction has two template hashes,
// and the validator accepts a proposal for either.
func TestBugTemplateHasTwoHashes(t *testing.T) {
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

// BuildTemplate gives up on a set of inputs as soon as the fee of the
// template WITH change exceeds Policy.MaxFee, without trying the template
// without change, whose fee is lower. Breaking input (fake rules: 2,820
// with change, 2,460 without): pay 1,000,000 from one deep output of
// 1,002,460 with MaxFee 2,500. The template without change (fee 2,460)
// is within every bound and the validator accepts it; BuildTemplate
// returns ErrInsufficientDeepUTXOs.
func TestBugMaxFeeSkipsTemplateWithoutChange(t *testing.T) {
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

// amount+fee and sum-amount-fee overflow in payoutTemplate: with an
// amount near 2^64 BuildTemplate returns a template whose outputs exceed
// its inputs instead of an error. Breaking input: pay 2^64-1000 from one
// deep output of 2^64-1. (Out of reach on Kaspa, whose supply is below
// 2^63, but the function's contract does not say so.)
func TestBugBuildTemplateAmountOverflow(t *testing.T) {
	req := buildReq(math.MaxUint64 - 1000)
	tpl, _, _, err := BuildTemplate(req, view(groupUTXO("a", math.MaxUint64, 100)))
	if err != nil {
		return // refusing is right: 1,000 cannot pay a fee of 2,460
	}
	if _, ferr := tpl.Fee(); ferr != nil {
		t.Fatalf("BuildTemplate returned a template whose outputs %+v do not fit its inputs: %v", tpl.Outputs, ferr)
	}
}

// The selection and the pre-sign check disagree on a pending spend whose
// spender id is the zero hash: eligible() tests MempoolSpent[o] != zero
// and selects the output, Revalidate and Dead test presence in the map
// and refuse it. Breaking input: one deep output a, MempoolSpent{a: zero}.
// A template is built that its own signer then refuses to sign.
func TestBugMempoolSpentByZeroHash(t *testing.T) {
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

// The reader's comment says every length is checked against the bytes
// left before anything is allocated; counts of elements are checked only
// against the caller's bound. With a bound Params.Validate accepts
// (MaxUTXOsPerProposal = 1<<20), the 10-byte template 424c5458010000808040
// claiming 1<<20 inputs allocates the whole slice (96 MiB) before it fails, and the
// validator decodes every proposal's template with that bound.
func TestBugCountAllocatesBeforeCheckingInput(t *testing.T) {
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
