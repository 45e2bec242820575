package projections_test

import (
	"bytes"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// intentJSONMatches fails unless the hand-written encoder gives exactly
// what encoding/json gives for in (tx_intents' digests cover the column,
// so a byte of difference would make stores of older binaries mismatch).
func intentJSONMatches(t *testing.T, in domain.TxIntent) {
	t.Helper()
	want, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := projections.AppendIntentJSONForTest([]byte("prefix"), &in); !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("intent %+v:\n got %s\nwant %s", in, got[len("prefix"):], want)
	}
}

func randomIntent(r *rand.Rand, subject string, raw []byte) domain.TxIntent {
	var in domain.TxIntent
	in.Purpose = []domain.Purpose{domain.PurposeMint, domain.PurposeAnchor, domain.PurposeClaim, "odd<&>\"purpose"}[r.IntN(4)]
	in.Subject, in.RawTx = subject, raw
	in.ChainID, in.Nonce, in.Gas = r.Uint64(), r.Uint64(), r.Uint64()
	for i := range in.From {
		in.From[i] = byte(r.Uint32())
	}
	for i := range in.TxHash {
		in.TxHash[i] = byte(r.Uint32())
	}
	big1 := new(big.Int).Lsh(big.NewInt(int64(r.Uint32())), uint(r.IntN(200)))
	a, err := domain.ParseAmount(big1.String())
	if err != nil {
		panic(err)
	}
	in.GasFeeCap, in.GasTipCap = a, domain.AmountFromUint64(r.Uint64())
	in.Attempt = r.IntN(1<<20) - 1<<19
	in.Cancel = r.IntN(2) == 0
	return in
}

// TestIntentJSONIsEncodingJSONs compares the encoder with encoding/json on
// intents as the relay writes them and on strings that need escapes.
func TestIntentJSONIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// Each character encoding/json escapes, alone in a plain subject.
	subjects := []string{"", "deposit:1337:0x7a3f:2", `a"b`, `a\b`, "a<b", "a>b", "a&b", "a\x00b", "a\tb", "a\nb", "a\x1fb",
		"a\x7fb", "a\u2028b", "a\u2029b", "ünïcode ✓", "bad utf8 \xff\xfe", " ~!#$%'()*+,-./09:;=?@AZ[]^_`az{|}"}
	raws := [][]byte{nil, {}, {0x02, 0xf8, 0x71, 0x00, 0xff}, bytes.Repeat([]byte{0xab}, 257)}
	for i := 0; i < 2000; i++ {
		intentJSONMatches(t, randomIntent(r, subjects[i%len(subjects)], raws[i%len(raws)]))
	}
	intentJSONMatches(t, domain.TxIntent{}) // every zero value
}

// FuzzIntentJSON: the same comparison over any subject and raw bytes.
func FuzzIntentJSON(f *testing.F) {
	f.Add("deposit:1337:0x7a3f:2", []byte{1, 2, 3}, uint64(7), true)
	f.Add("\u2028<\xff", []byte(nil), uint64(0), false)
	f.Fuzz(func(t *testing.T, subject string, raw []byte, seed uint64, cancel bool) {
		in := randomIntent(rand.New(rand.NewPCG(seed, 3)), subject, raw)
		in.Cancel = cancel
		intentJSONMatches(t, in)
	})
}

// BenchmarkIntentJSON: the hand encoder against encoding/json, on an
// intent as the relay writes one.
func BenchmarkIntentJSON(b *testing.B) {
	in := randomIntent(rand.New(rand.NewPCG(1, 2)), "deposit:1337:0x7a3fd2a8f9487c67b6dab7213b18549ca08aae24ef7aff3a3894da8a50e9ffed:2",
		bytes.Repeat([]byte{0xab}, 180))
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hand", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = projections.AppendIntentJSONForTest(buf[:0], &in)
		}
	})
}
