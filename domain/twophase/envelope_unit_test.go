package twophase

import (
	"bytes"
	"crypto/ed25519"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// sealed is an envelope from s1 of the test group.
func sealed(t testing.TB, edit ...func(*Envelope)) (*Opener, map[PeerID]ed25519.PrivateKey, []byte) {
	t.Helper()
	g, keys := testGroup(3, 2)
	o := NewOpener(g, nil)
	e := Envelope{Version: ProtocolVersion, Group: g.ID(), Sender: "s1", Session: 7, Seq: 42, Kind: KindProposal,
		Payload: []byte("a proposal")}
	for _, f := range edit {
		f(&e)
	}
	key := keys[e.Sender]
	if key == nil {
		key = keys["s1"]
	}
	return o, keys, bytes.Clone(Seal(key, &e))
}

func TestSealOpenRoundTrip(t *testing.T) {
	g, keys := testGroup(3, 2)
	openers := map[string]*Opener{"expanded keys": NewOpener(g, nil), "given verify": NewOpener(g, ed25519.Verify)}
	rapid.Check(t, func(rt *rapid.T) {
		sender := rapid.SampledFrom(g.IDs()).Draw(rt, "sender")
		e := Envelope{Version: ProtocolVersion, Group: g.ID(), Sender: sender, Session: rapid.Uint64().Draw(rt, "session"),
			Seq: rapid.Uint64().Draw(rt, "seq"), Kind: Kind(rapid.Uint8().Draw(rt, "kind")), Payload: genBytes(200).Draw(rt, "payload")}
		raw := Seal(keys[sender], &e)
		if !bytes.Equal(raw, e.Raw) {
			rt.Fatal("Seal's result is not e.Raw")
		}
		for name, o := range openers {
			got, err := o.Open(raw)
			if err != nil {
				rt.Fatalf("%s: %v", name, err)
			}
			if !reflect.DeepEqual(normalized(got), normalized(e)) {
				rt.Fatalf("%s: opened %+v, sealed %+v", name, got, e)
			}
		}
	})
}

// Changing any bit of any byte of a sealed envelope makes it refused:
// the signature covers every field, and the framing has one reading.
func TestOpenRefusesEveryTamperedByte(t *testing.T) {
	o, _, raw := sealed(t)
	given := NewOpener(o.Group, ed25519.Verify)
	for i := range raw {
		for _, flip := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(raw)
			bad[i] ^= flip
			for name, op := range map[string]*Opener{"expanded keys": o, "given verify": given} {
				if _, err := op.Open(bad); err == nil || ReasonOf(err) == "" {
					t.Fatalf("%s: byte %d ^ %#x accepted or untyped: %v", name, i, flip, err)
				}
			}
		}
	}
	for n := 0; n < len(raw); n++ {
		if _, err := o.Open(raw[:n]); ReasonOf(err) != ReasonMalformed {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	if _, err := o.Open(append(bytes.Clone(raw), 0)); ReasonOf(err) != ReasonMalformed {
		t.Fatalf("a trailing byte: %v", err)
	}
	if _, err := o.Open(raw); err != nil {
		t.Fatalf("the untouched envelope: %v", err)
	}
}

func TestOpenRefusals(t *testing.T) {
	other, _ := testGroup(4, 3)
	cases := []struct {
		name   string
		raw    func() (*Opener, []byte)
		reason Reason
	}{
		{"wrong group", func() (*Opener, []byte) {
			o, _, raw := sealed(t, func(e *Envelope) { e.Group = other.ID() })
			return o, raw
		}, ReasonWrongGroup},
		{"wrong version", func() (*Opener, []byte) {
			o, _, raw := sealed(t, func(e *Envelope) { e.Version = ProtocolVersion + 1 })
			return o, raw
		}, ReasonWrongVersion},
		{"unknown sender", func() (*Opener, []byte) {
			o, _, raw := sealed(t, func(e *Envelope) { e.Sender = "s9" })
			return o, raw
		}, ReasonUnknownSender},
		{"signed by another member's key", func() (*Opener, []byte) {
			o, keys, _ := sealed(t)
			e := Envelope{Version: ProtocolVersion, Group: o.GroupID(), Sender: "s1", Kind: KindCommit}
			return o, Seal(keys["s2"], &e)
		}, ReasonBadSignature},
		{"a forged sender on a valid signature", func() (*Opener, []byte) {
			o, _, raw := sealed(t)
			e, err := parseEnvelope(raw)
			if err != nil {
				t.Fatal(err)
			}
			e.Sender = "s2"
			return o, reencode(e)
		}, ReasonBadSignature},
		{"oversized", func() (*Opener, []byte) {
			o, _, _ := sealed(t)
			return o, make([]byte, MaxEnvelopeBytes+1)
		}, ReasonOversized},
		{"wrong magic", func() (*Opener, []byte) {
			o, _, raw := sealed(t)
			raw[0] = 'X'
			return o, raw
		}, ReasonMalformed},
		{"empty", func() (*Opener, []byte) { o, _, _ := sealed(t); return o, nil }, ReasonMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, raw := c.raw()
			if _, err := o.Open(raw); ReasonOf(err) != c.reason {
				t.Fatalf("Open: %v, want %s", err, c.reason)
			}
		})
	}
}

// reencode frames a parsed envelope as Seal does, without signing it
// again.
func reencode(e Envelope) []byte {
	var w writer
	w.fixed([]byte(envelopeMagic))
	w.u16(e.Version)
	w.hash(e.Group)
	w.str(string(e.Sender))
	w.u64(e.Session)
	w.u64(e.Seq)
	w.u8(uint8(e.Kind))
	w.bytes(e.Payload)
	w.fixed(e.Sig[:])
	return w.out()
}

func TestReencodeIsSealsFraming(t *testing.T) {
	_, _, raw := sealed(t)
	e, err := parseEnvelope(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(reencode(e), raw) {
		t.Fatal("the test's framing is not Seal's")
	}
}

func TestKindNames(t *testing.T) {
	for k, want := range map[Kind]string{KindProposal: "proposal", KindNoVote: "no_vote", KindCommit: "commit",
		KindSyncRequest: "sync_request", KindSyncResponse: "sync_response", Kind(0): "kind_0", Kind(77): "kind_77"} {
		if k.String() != want {
			t.Errorf("Kind(%d) = %q, want %q", uint8(k), k.String(), want)
		}
	}
}
