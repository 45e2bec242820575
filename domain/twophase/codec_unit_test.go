package twophase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// Generators of every value that travels, within the wire bounds.

func genBytes(max int) *rapid.Generator[[]byte] { return rapid.SliceOfN(rapid.Byte(), 0, max) }

var genHash = rapid.Custom(func(t *rapid.T) (h Hash) {
	copy(h[:], rapid.SliceOfN(rapid.Byte(), len(h), len(h)).Draw(t, "hash"))
	return h
})

var genPeer = rapid.Custom(func(t *rapid.T) PeerID {
	return PeerID(rapid.StringN(1, 12, MaxPeerIDBytes).Draw(t, "peer"))
})

var genScript = rapid.Custom(func(t *rapid.T) Script {
	return Script{Version: rapid.Uint16().Draw(t, "version"), Bytes: genBytes(40).Draw(t, "script")}
})

var genTemplate = rapid.Custom(func(t *rapid.T) Template {
	tpl := Template{Version: rapid.Uint16().Draw(t, "version"), LockTime: rapid.Uint64().Draw(t, "lock time"),
		Gas: rapid.Uint64().Draw(t, "gas"), Payload: genBytes(maxTemplatePayload).Draw(t, "payload")}
	copy(tpl.SubnetworkID[:], rapid.SliceOfN(rapid.Byte(), 20, 20).Draw(t, "subnetwork"))
	for range rapid.IntRange(0, 5).Draw(t, "inputs") {
		tpl.Inputs = append(tpl.Inputs, TemplateInput{Outpoint: Outpoint{TxID: genHash.Draw(t, "txid"), Index: rapid.Uint32().Draw(t, "index")},
			Amount: rapid.Uint64().Draw(t, "amount"), Script: genScript.Draw(t, "script"), Sequence: rapid.Uint64().Draw(t, "sequence"),
			SigOpCount: rapid.Uint8().Draw(t, "sig ops")})
	}
	for range rapid.IntRange(0, 5).Draw(t, "outputs") {
		tpl.Outputs = append(tpl.Outputs, TemplateOutput{Amount: rapid.Uint64().Draw(t, "amount"), Script: genScript.Draw(t, "script")})
	}
	return tpl
})

var genEvent = rapid.Custom(func(t *rapid.T) SigningEvent {
	return SigningEvent{Stream: rapid.StringN(0, 20, MaxStreamBytes).Draw(t, "stream"), Nonce: rapid.Uint64().Draw(t, "nonce"),
		Destination: rapid.StringN(0, 20, MaxDestinationBytes).Draw(t, "destination"), Amount: rapid.Uint64().Draw(t, "amount"),
		Source: SourceRef{Chain: rapid.StringN(0, 10, MaxChainBytes).Draw(t, "chain"), TxHash: genHash.Draw(t, "tx"),
			LogIndex: rapid.Uint32().Draw(t, "log"), Block: rapid.Uint64().Draw(t, "block")}}
})

var genProposal = rapid.Custom(func(t *rapid.T) Proposal {
	p := Proposal{Event: genEvent.Draw(t, "event"), Epoch: rapid.Uint32().Draw(t, "epoch"), Round: rapid.Uint32().Draw(t, "round"),
		TemplateHash: genHash.Draw(t, "template hash"), Template: genBytes(300).Draw(t, "template"),
		Proposer: genPeer.Draw(t, "proposer"), TimestampNs: rapid.Int64().Draw(t, "timestamp")}
	for range rapid.IntRange(0, 5).Draw(t, "inputs") {
		p.Inputs = append(p.Inputs, InputMeta{DAAScore: rapid.Uint64().Draw(t, "daa"), Coinbase: rapid.Bool().Draw(t, "coinbase")})
	}
	if rapid.Bool().Draw(t, "anchor") {
		p.Anchor = &Anchor{TipScore: rapid.Uint64().Draw(t, "tip score")}
		if rapid.Bool().Draw(t, "tip hash") {
			h := genHash.Draw(t, "tip")
			p.Anchor.TipHash = &h
		}
	}
	return p
})

var genNoVote = rapid.Custom(func(t *rapid.T) NoVote {
	return NoVote{EventID: genHash.Draw(t, "event"), Epoch: rapid.Uint32().Draw(t, "epoch"), Round: rapid.Uint32().Draw(t, "round"),
		Voter: genPeer.Draw(t, "voter"), Reason: Reason(rapid.StringN(0, 20, maxReasonBytes).Draw(t, "reason")),
		TimestampNs: rapid.Int64().Draw(t, "timestamp")}
})

func genBlobs(max int) *rapid.Generator[[][]byte] { return rapid.SliceOfN(genBytes(60), 0, max) }

var genCommit = rapid.Custom(func(t *rapid.T) Commit {
	return Commit{EventID: genHash.Draw(t, "event"), Epoch: rapid.Uint32().Draw(t, "epoch"), Round: rapid.Uint32().Draw(t, "round"),
		TemplateHash: genHash.Draw(t, "hash"), Evidence: genBlobs(MaxMembers).Draw(t, "evidence"), Signature: genBytes(100).Draw(t, "sig")}
})

var genSyncRequest = rapid.Custom(func(t *rapid.T) SyncRequest {
	var s SyncRequest
	for range rapid.IntRange(0, 4).Draw(t, "wants") {
		w := SyncWant{EventID: genHash.Draw(t, "event"), Epoch: rapid.Uint32().Draw(t, "epoch"), Round: rapid.Uint32().Draw(t, "round")}
		for range rapid.IntRange(0, 3).Draw(t, "have") {
			w.Have = append(w.Have, RoundVoters{Round: rapid.Uint32().Draw(t, "round"), Voters: rapid.SliceOfN(genPeer, 0, 4).Draw(t, "voters")})
		}
		s.Wants = append(s.Wants, w)
	}
	return s
})

var genSyncResponse = rapid.Custom(func(t *rapid.T) SyncResponse {
	var s SyncResponse
	for range rapid.IntRange(0, 3).Draw(t, "states") {
		x := SyncState{EventID: genHash.Draw(t, "event"), Epoch: rapid.Uint32().Draw(t, "epoch"), Phase: Phase(rapid.Uint8Range(0, uint8(PhaseAbandoned)).Draw(t, "phase")),
			Round: rapid.Uint32().Draw(t, "round"), CommitRound: rapid.Uint32().Draw(t, "commit round"), Canonical: genHash.Draw(t, "canonical"),
			Votes: genBlobs(5).Draw(t, "votes"), Evidence: genBlobs(5).Draw(t, "evidence"), PayoutTx: genHash.Draw(t, "payout")}
		for range rapid.IntRange(0, 3).Draw(t, "signatures") {
			x.Signatures = append(x.Signatures, MemberSignature{Signer: genPeer.Draw(t, "signer"), Signature: genBytes(70).Draw(t, "sig")})
		}
		s.States = append(s.States, x)
	}
	return s
})

// normalized sets every empty slice to nil: an empty slice and a nil one
// have one encoding.
func normalized[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	normalize(rv)
	return v
}

func normalize(v reflect.Value) {
	switch v.Kind() {
	case reflect.Slice:
		if v.Len() == 0 {
			if v.CanSet() {
				v.Set(reflect.Zero(v.Type()))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			normalize(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				normalize(v.Field(i))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			normalize(v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() && v.CanSet() {
			c := reflect.New(v.Elem().Type()).Elem()
			c.Set(v.Elem())
			normalize(c)
			v.Set(c)
		}
	}
}

// codec is one message kind's encoder and decoder, for the tests common
// to every kind.
type codec struct {
	name   string
	gen    func(*rapid.T) ([]byte, any) // an encoding and its value
	decode func([]byte) (any, []byte, error)
}

func drawEncoded[T interface{ Encode() []byte }](g *rapid.Generator[T]) func(*rapid.T) ([]byte, any) {
	return func(t *rapid.T) ([]byte, any) { v := g.Draw(t, "value"); return v.Encode(), v }
}

func codecs() []codec {
	p := DefaultParams()
	return []codec{
		{"template", drawEncoded(genTemplate), func(b []byte) (any, []byte, error) {
			v, err := DecodeTemplate(b, p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal)
			return v, v.Encode(), err
		}},
		{"proposal", drawEncoded(genProposal), func(b []byte) (any, []byte, error) {
			v, err := DecodeProposal(b, p)
			return v, v.Encode(), err
		}},
		{"no-vote", drawEncoded(genNoVote), func(b []byte) (any, []byte, error) {
			v, err := DecodeNoVote(b)
			return v, v.Encode(), err
		}},
		{"commit", drawEncoded(genCommit), func(b []byte) (any, []byte, error) {
			v, err := DecodeCommit(b)
			return v, v.Encode(), err
		}},
		{"sync request", drawEncoded(genSyncRequest), func(b []byte) (any, []byte, error) {
			v, err := DecodeSyncRequest(b)
			return v, v.Encode(), err
		}},
		{"sync response", drawEncoded(genSyncResponse), func(b []byte) (any, []byte, error) {
			v, err := DecodeSyncResponse(b)
			return v, v.Encode(), err
		}},
	}
}

func TestCodecRoundTrip(t *testing.T) {
	for _, c := range codecs() {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				enc, want := c.gen(rt)
				got, again, err := c.decode(enc)
				if err != nil {
					rt.Fatalf("decode of an encoding: %v", err)
				}
				if !reflect.DeepEqual(normalized(got), normalized(want)) {
					rt.Fatalf("decoded %+v\nencoded %+v", got, want)
				}
				if !bytes.Equal(again, enc) {
					rt.Fatal("re-encoding differs")
				}
			})
		})
	}
}

// Every decoder refuses what is not exactly one encoding: a byte more, or
// any prefix.
func TestCodecRefusesTrailingAndTruncatedBytes(t *testing.T) {
	for _, c := range codecs() {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				enc, _ := c.gen(rt)
				if _, _, err := c.decode(append(bytes.Clone(enc), rapid.Byte().Draw(rt, "extra"))); !isMalformed(err) {
					rt.Fatalf("a trailing byte: %v", err)
				}
				cut := rapid.IntRange(0, len(enc)-1).Draw(rt, "cut")
				if _, _, err := c.decode(enc[:cut]); !isMalformed(err) {
					rt.Fatalf("cut at %d of %d: %v", cut, len(enc), err)
				}
			})
		})
	}
}

// isMalformed: a decoding failure; a ValidationError of reason malformed
// from the decoders of messages, an error wrapping ErrMalformed from
// DecodeTemplate (which the validator reports as a structure rejection).
func isMalformed(err error) bool {
	if r := ReasonOf(err); r != "" {
		return r == ReasonMalformed
	}
	return errors.Is(err, ErrMalformed)
}

// allocated is the heap bytes one call of f allocates, on average.
func allocated(runs int, f func()) uint64 {
	var before, after runtime.MemStats
	f()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < runs; i++ {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// hostile builds prefix, then a uvarint claiming n, then pad zero bytes.
func hostile(prefix []byte, n uint64, pad int) []byte {
	b := binary.AppendUvarint(bytes.Clone(prefix), n)
	return append(b, make([]byte, pad)...)
}

// A length or count far beyond the input fails fast, before anything is
// allocated for it.
func TestHostileLengthsFailBeforeAllocating(t *testing.T) {
	p := DefaultParams()
	templateHeader := []byte(templateMagic + "\x01\x00\x00")
	envelopeHeader := append([]byte(envelopeMagic+"\x00\x01"), make([]byte, 32)...)
	commitHeader := make([]byte, 32+4+4+32)
	cases := []struct {
		name   string
		input  []byte
		decode func([]byte) error
	}{
		{"sync request wants", hostile(nil, 1<<40, 4), func(b []byte) error { _, err := DecodeSyncRequest(b); return err }},
		{"sync response states", hostile(nil, 1<<40, 4), func(b []byte) error { _, err := DecodeSyncResponse(b); return err }},
		{"proposal stream", hostile(nil, 1<<40, 4), func(b []byte) error { _, err := DecodeProposal(b, p); return err }},
		{"template inputs", hostile(templateHeader, 1<<40, 4), func(b []byte) error {
			_, err := DecodeTemplate(b, p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal)
			return err
		}},
		{"template inputs above MaxInt32", hostile(templateHeader, 1<<40, 4), func(b []byte) error {
			_, err := DecodeTemplate(b, int(^uint(0)>>1), 16)
			return err
		}},
		{"commit evidence", hostile(commitHeader, 1<<40, 4), func(b []byte) error { _, err := DecodeCommit(b); return err }},
		{"no-vote voter", hostile(make([]byte, 40), 1<<40, 4), func(b []byte) error { _, err := DecodeNoVote(b); return err }},
		{"envelope sender", hostile(envelopeHeader, 1<<40, 4), func(b []byte) error { _, err := parseEnvelope(b); return err }},
		{"a length of 2^64-1", hostile(nil, ^uint64(0), 0), func(b []byte) error { _, err := DecodeSyncRequest(b); return err }},
		{"a length of 11 bytes", append(bytes.Repeat([]byte{0xff}, 10), 1), func(b []byte) error { _, err := DecodeSyncRequest(b); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.decode(c.input); !isMalformed(err) {
				t.Fatalf("decode: %v, want malformed", err)
			}
			if n := testing.AllocsPerRun(20, func() { _ = c.decode(c.input) }); n > 10 {
				t.Errorf("%v allocations to refuse %d bytes", n, len(c.input))
			}
			if b := allocated(20, func() { _ = c.decode(c.input) }); b > 2048 {
				t.Errorf("%d bytes allocated to refuse %d bytes", b, len(c.input))
			}
		})
	}
}

func TestProposalBounds(t *testing.T) {
	p := DefaultParams()
	p.MaxTemplateBytes, p.MaxUTXOsPerProposal = 1000, 3
	base := Proposal{Event: testEvent(1), TemplateHash: hashByte(1), Template: make([]byte, 10), Proposer: "s1",
		Inputs: make([]InputMeta, 3)}
	decode := func(q Proposal) error { _, err := DecodeProposal(q.Encode(), p); return err }
	if err := decode(base); err != nil {
		t.Fatalf("a proposal at the bounds: %v", err)
	}
	edits := map[string]func(*Proposal){
		"template over MaxTemplateBytes":  func(q *Proposal) { q.Template = make([]byte, 1001) },
		"inputs over MaxUTXOsPerProposal": func(q *Proposal) { q.Inputs = make([]InputMeta, 4) },
		"proposer over 64 bytes":          func(q *Proposal) { q.Proposer = PeerID(strings.Repeat("p", MaxPeerIDBytes+1)) },
		"stream over its bound":           func(q *Proposal) { q.Event.Stream = strings.Repeat("s", MaxStreamBytes+1) },
		"destination over its bound":      func(q *Proposal) { q.Event.Destination = strings.Repeat("d", MaxDestinationBytes+1) },
		"chain over its bound":            func(q *Proposal) { q.Event.Source.Chain = strings.Repeat("c", MaxChainBytes+1) },
	}
	for name, edit := range edits {
		q := base
		edit(&q)
		if err := decode(q); ReasonOf(err) != ReasonMalformed {
			t.Errorf("%s: %v, want malformed", name, err)
		}
	}
	// The whole proposal's size is checked first.
	if _, err := DecodeProposal(make([]byte, p.MaxProposalBytes+1), p); ReasonOf(err) != ReasonOversized {
		t.Errorf("a proposal over MaxProposalBytes: %v, want oversized", err)
	}
	// A boolean is 0 or 1.
	enc := base.Encode()
	enc[len(enc)-1] = 2 // the anchor flag
	if _, err := DecodeProposal(enc, p); ReasonOf(err) != ReasonMalformed {
		t.Errorf("anchor flag 2: %v, want malformed", err)
	}
}

func TestTemplateBounds(t *testing.T) {
	base := Template{Inputs: make([]TemplateInput, 2), Outputs: make([]TemplateOutput, 3), Payload: make([]byte, maxTemplatePayload)}
	decode := func(t Template) error { _, err := DecodeTemplate(t.Encode(), 2, 3); return err }
	if err := decode(base); err != nil {
		t.Fatalf("a template at the bounds: %v", err)
	}
	edits := map[string]func(*Template){
		"inputs over the bound":  func(t *Template) { t.Inputs = make([]TemplateInput, 3) },
		"outputs over the bound": func(t *Template) { t.Outputs = make([]TemplateOutput, 4) },
		"payload over 1 KiB":     func(t *Template) { t.Payload = make([]byte, maxTemplatePayload+1) },
		"script over its bound":  func(t *Template) { t.Outputs[0].Script.Bytes = make([]byte, MaxScriptBytes+1) },
	}
	for name, edit := range edits {
		tpl := base
		tpl.Outputs = make([]TemplateOutput, 3)
		edit(&tpl)
		if err := decode(tpl); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	enc := base.Encode()
	for name, at := range map[string]int{"magic": 0, "format": len(templateMagic)} {
		bad := bytes.Clone(enc)
		bad[at] ^= 0xff
		if _, err := DecodeTemplate(bad, 2, 3); !errors.Is(err, ErrMalformed) {
			t.Errorf("wrong %s: %v", name, err)
		}
	}
}

func TestMessageBounds(t *testing.T) {
	over := func(n int) [][]byte { return make([][]byte, n) }
	cases := map[string][]byte{
		"commit evidence over MaxMembers":          Commit{Evidence: over(MaxMembers + 1)}.Encode(),
		"commit signature over its bound":          Commit{Signature: make([]byte, MaxSignatureBytes+1)}.Encode(),
		"no-vote reason over its bound":            NoVote{Reason: Reason(strings.Repeat("r", maxReasonBytes+1))}.Encode(),
		"sync request over MaxSyncWants":           SyncRequest{Wants: make([]SyncWant, MaxSyncWants+1)}.Encode(),
		"sync request rounds over the bound":       SyncRequest{Wants: []SyncWant{{Have: make([]RoundVoters, maxRoundsOnWire+1)}}}.Encode(),
		"sync request voters over MaxMembers":      SyncRequest{Wants: []SyncWant{{Have: []RoundVoters{{Voters: make([]PeerID, MaxMembers+1)}}}}}.Encode(),
		"sync response votes over the bound":       SyncResponse{States: []SyncState{{Votes: over(maxVotesPerState + 1)}}}.Encode(),
		"sync response evidence over MaxMembers":   SyncResponse{States: []SyncState{{Evidence: over(MaxMembers + 1)}}}.Encode(),
		"sync response signatures over MaxMembers": SyncResponse{States: []SyncState{{Signatures: make([]MemberSignature, MaxMembers+1)}}}.Encode(),
		"sync response over MaxSyncWants":          SyncResponse{States: make([]SyncState, MaxSyncWants+1)}.Encode(),
	}
	decoders := []func([]byte) error{
		func(b []byte) error { _, err := DecodeCommit(b); return err },
		func(b []byte) error { _, err := DecodeNoVote(b); return err },
		func(b []byte) error { _, err := DecodeSyncRequest(b); return err },
		func(b []byte) error { _, err := DecodeSyncResponse(b); return err },
	}
	kind := func(name string) func([]byte) error {
		switch {
		case strings.HasPrefix(name, "commit"):
			return decoders[0]
		case strings.HasPrefix(name, "no-vote"):
			return decoders[1]
		case strings.HasPrefix(name, "sync request"):
			return decoders[2]
		}
		return decoders[3]
	}
	for name, enc := range cases {
		if err := kind(name)(enc); ReasonOf(err) != ReasonMalformed {
			t.Errorf("%s: %v, want malformed", name, err)
		}
	}
}
