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
