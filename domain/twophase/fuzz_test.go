package twophase

import (
	"bytes"
	"crypto/ed25519"
	"testing"
)

// Fuzz targets of the decoders that read what peers send. Each must never
// panic, and whatever decodes must re-encode to the very bytes it came
// from: one value has one encoding, so hashes and signatures over it are
// stable. Their seeds are in testdata/fuzz/<target>; run one with
//
//	go test ./domain/twophase/ -run '^$' -fuzz '^FuzzDecodeTemplate$' -fuzztime 30s -fuzzminimizetime 5s
//
// (without -fuzzminimizetime the engine may spend a minute minimising a
// new input and report no executions meanwhile).

func FuzzDecodeTemplate(f *testing.F) {
	for _, seed := range templateSeeds() {
		f.Add(seed.Encode())
	}
	p := DefaultParams()
	f.Fuzz(func(t *testing.T, b []byte) {
		checkTemplateCanonical(t, b, p)
	})
}

func checkTemplateCanonical(t *testing.T, b []byte, p Params) {
	tpl, err := DecodeTemplate(b, p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal)
	if err != nil {
		return
	}
	if enc := tpl.Encode(); !bytes.Equal(enc, b) {
		t.Fatalf("decoded template re-encodes to other bytes:\n in %x\nout %x", b, enc)
	}
	if TemplateHash(b) != tpl.Hash() {
		t.Fatal("the template's hash is not its bytes' hash")
	}
	_, _ = tpl.Fee()
}

func FuzzDecodeProposal(f *testing.F) {
	for _, seed := range proposalSeeds() {
		f.Add(seed.Encode())
	}
	p := DefaultParams()
	g, _ := testGroup(3, 2)
	v := Validator{Group: g, Params: p, Rules: fakeRules{}}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkProposalCanonical(t, b, p, v)
	})
}

func checkProposalCanonical(t *testing.T, b []byte, p Params, v Validator) {
	prop, err := DecodeProposal(b, p)
	if err != nil {
		if r := ReasonOf(err); r != ReasonMalformed && r != ReasonOversized {
			t.Fatalf("refused with reason %q: %v", r, err)
		}
		return
	}
	if enc := prop.Encode(); !bytes.Equal(enc, b) {
		t.Fatalf("decoded proposal re-encodes to other bytes:\n in %x\nout %x", b, enc)
	}
	// Whatever decodes may be validated without a panic.
	_, _ = v.Validate(prop, prop.Proposer)
}

func FuzzOpenEnvelope(f *testing.F) {
	g, keys := testGroup(3, 2)
	for _, raw := range envelopeSeeds(g, keys) {
		f.Add(raw)
	}
	strict := NewOpener(g, nil)
	// lenient takes every signature, so the fuzzer reaches the checks
	// after it and the framing of accepted envelopes.
	lenient := NewOpener(g, func(ed25519.PublicKey, []byte, []byte) bool { return true })
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkEnvelopeCanonical(t, raw, strict, lenient)
	})
}

func checkEnvelopeCanonical(t *testing.T, raw []byte, strict, lenient *Opener) {
	e, err := lenient.Open(raw)
	if _, serr := strict.Open(raw); serr == nil && err != nil {
		t.Fatalf("a signed envelope refused without its signature check: %v", err)
	}
	if err != nil {
		if ReasonOf(err) == "" {
			t.Fatalf("untyped refusal: %v", err)
		}
		return
	}
	if enc := reencode(e); !bytes.Equal(enc, raw) {
		t.Fatalf("opened envelope re-encodes to other bytes:\n in %x\nout %x", raw, enc)
	}
}

func FuzzDecodeSyncResponse(f *testing.F) {
	for _, seed := range syncResponseSeeds() {
		f.Add(seed.Encode())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSyncResponseCanonical(t, b)
	})
}

func checkSyncResponseCanonical(t *testing.T, b []byte) {
	s, err := DecodeSyncResponse(b)
	if err != nil {
		if ReasonOf(err) != ReasonMalformed {
			t.Fatalf("refused with reason %q: %v", ReasonOf(err), err)
		}
		return
	}
	if enc := s.Encode(); !bytes.Equal(enc, b) {
		t.Fatalf("decoded sync response re-encodes to other bytes:\n in %x\nout %x", b, enc)
	}
}

// Seeds: valid encodings the fuzzer mutates from.

func templateSeeds() []Template {
	g, _ := testGroup(3, 2)
	req := BuildRequest{Event: testEvent(1_000_000), Group: g, Params: DefaultParams(), Rules: fakeRules{}}
	built, _, _, _ := BuildTemplate(req, view(groupUTXO("a", 700_000, 100), groupUTXO("b", 600_000, 100)))
	return []Template{
		{},
		built,
		{Version: 1, LockTime: 9, Gas: 3, SubnetworkID: [20]byte{1, 2}, Payload: []byte("memo"),
			Inputs:  []TemplateInput{{Outpoint: op("x", 3), Amount: 5, Script: Script{Version: 2}, Sequence: 1, SigOpCount: 2}},
			Outputs: []TemplateOutput{{Amount: 1, Script: payTo("z")}}},
	}
}

func proposalSeeds() []Proposal {
	tpl := templateSeeds()[1]
	tip := hashByte(5)
	full := proposalOf(tpl, testEvent(1_000_000), "s1")
	full.Inputs = []InputMeta{{DAAScore: 100, Coinbase: true}, {DAAScore: 100}}
	full.Anchor = &Anchor{TipScore: 10_000, TipHash: &tip}
	return []Proposal{{}, full, {Event: testEvent(1), Round: 2, Proposer: "s2", Anchor: &Anchor{TipScore: 1}}}
}

func envelopeSeeds(g Group, keys map[PeerID]ed25519.PrivateKey) [][]byte {
	var out [][]byte
	for i, payload := range [][]byte{nil, proposalSeeds()[1].Encode(), syncResponseSeeds()[1].Encode()} {
		sender := g.Members[i%len(g.Members)].ID
		e := Envelope{Version: ProtocolVersion, Group: g.ID(), Sender: sender, Session: uint64(i), Seq: uint64(10 * i),
			Kind: Kind(i + 1), Payload: payload}
		out = append(out, bytes.Clone(Seal(keys[sender], &e)))
	}
	return out
}

func syncResponseSeeds() []SyncResponse {
	return []SyncResponse{{}, {States: []SyncState{{EventID: hashByte(1), Epoch: 1, Phase: PhaseCommitted, Round: 2, CommitRound: 1,
		Canonical: hashByte(2), Votes: [][]byte{[]byte("vote")}, Evidence: [][]byte{[]byte("e1"), []byte("e2")},
		Signatures: []MemberSignature{{Signer: "s1", Signature: []byte("sig")}}, PayoutTx: hashByte(3)}, {}}}}
}
