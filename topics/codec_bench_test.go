package topics

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// BenchmarkDecodeEnvelope decodes a typical deposit envelope (~300 bytes),
// copying its strings and aliasing the input.
func BenchmarkDecodeEnvelope(b *testing.B) {
	b.Run("copy", func(b *testing.B) { benchDecode(b, false) })
	b.Run("alias", func(b *testing.B) { benchDecode(b, true) })
}

func benchDecode(b *testing.B, alias bool) {
	env, _, err := DefaultCatalog().Wrap(sampleDeposit(), Meta{OccurredAt: time.Now(), RecordedAt: time.Now(), CausationID: NewID()})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := EncodeEnvelope(&env, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	d := NewDecoder(Limits{})
	d.AliasInput = alias
	var e Envelope
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Decode(raw, &e); err != nil {
			b.Fatal(err)
		}
	}
	if e.Type != domain.TypeDepositDetected {
		b.Fatalf("decoded type %q", e.Type)
	}
}

// BenchmarkDecodePayload decodes one payload of each lifecycle type the
// fast path reads (see lifecycleSamples), as a rebuild's fold does. The
// samples over 1 KiB (a 70 kB raw transaction) are left out: copying them
// would outweigh the decoding measured here.
func BenchmarkDecodePayload(b *testing.B) {
	var raws [][]byte
	var dsts []any
	size := 0
	for _, v := range lifecycleSamples(b) {
		raw, err := EncodePayload(v)
		if err != nil {
			b.Fatal(err)
		}
		if len(raw) > 1024 {
			continue
		}
		raws, dsts = append(raws, raw), append(dsts, fresh(v))
		size += len(raw)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for i, raw := range raws {
			if err := DecodePayload(raw, dsts[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
