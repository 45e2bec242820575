package topics

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"
)

// FuzzDecodeEnvelope: untrusted bytes never panic the decoder, every
// refusal wraps one of the codec's errors, and whatever it accepts
// survives encode → decode unchanged (the encoding is canonical).
func FuzzDecodeEnvelope(f *testing.F) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 123, time.UTC)
	for _, e := range []Envelope{
		{},
		{ID: "0123456789abcdef0123456789abcdef", Type: "bridge.deposit_detected", SchemaVersion: 1,
			SourceKey: "evm:338:0xabc:3", AggregateID: "dep-1", PartitionKey: "dep-1",
			CausationID: "c", CorrelationID: "r", OccurredAt: at, RecordedAt: at.Add(time.Second),
			Payload: []byte{0x81, 0xa1, 'a', 0x01}},
		{Type: "x", SchemaVersion: 0xffff, OccurredAt: time.Unix(0, -1).UTC(), Payload: bytes.Repeat([]byte{7}, 300)},
	} {
		b, err := EncodeEnvelope(&e, Limits{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{0x9c, 0x02}) // a newer envelope format
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(Limits{MaxEnvelopeBytes: 4096})
		var e Envelope
		if err := d.Decode(b, &e); err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrOversized) && !errors.Is(err, ErrEnvelopeFormat) {
				t.Fatalf("error wraps none of the codec's errors: %v", err)
			}
			return
		}
		enc, err := EncodeEnvelope(&e, Limits{MaxEnvelopeBytes: 1 << 20})
		if err != nil {
			t.Fatalf("re-encode of an accepted envelope: %v", err)
		}
		var again Envelope
		if err := d.Decode(enc, &again); err != nil {
			t.Fatalf("decode of a re-encoded envelope: %v", err)
		}
		if !sameEnvelope(e, again) {
			t.Fatalf("round trip changed the envelope:\n%+v\n%+v", e, again)
		}
		if enc2, _ := EncodeEnvelope(&again, Limits{MaxEnvelopeBytes: 1 << 20}); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable")
		}
		// The zero-copy mode decodes exactly the same envelope.
		alias := NewDecoder(Limits{MaxEnvelopeBytes: 4096})
		alias.AliasInput = true
		var aliased Envelope
		if err := alias.Decode(b, &aliased); err != nil || !sameEnvelope(e, aliased) {
			t.Fatalf("aliasing decode differs: %v\n%+v\n%+v", err, e, aliased)
		}
	})
}

func sameEnvelope(a, b Envelope) bool {
	if !a.OccurredAt.Equal(b.OccurredAt) || !a.RecordedAt.Equal(b.RecordedAt) || !bytes.Equal(a.Payload, b.Payload) {
		return false
	}
	a.OccurredAt, b.OccurredAt, a.RecordedAt, b.RecordedAt, a.Payload, b.Payload = time.Time{}, time.Time{}, time.Time{}, time.Time{}, nil, nil
	return reflect.DeepEqual(a, b)
}
