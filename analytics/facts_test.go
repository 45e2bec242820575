package analytics

import (
	"context"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// checkFacts fails unless factsOf gives what msgpack's reflection into
// facts gives.
func checkFacts(t *testing.T, payload []byte) {
	t.Helper()
	got, gotOK := factsOf(payload)
	var want facts
	wantOK := topics.DecodePayload(payload, &want) == nil
	if gotOK != wantOK || gotOK && got != want {
		t.Fatalf("payload %x: factsOf gives %+v (%v), msgpack %+v (%v)", payload, got, gotOK, want, wantOK)
	}
}

// TestFactsAgreeWithMsgpack: on every payload of a relay's synthetic log
// (where factsOf reads the bytes itself) and on payloads of other shapes
// (foreign events, a nil or array ref, fields of other types, keys that
// are no strings, duplicate keys, cut short), factsOf gives what msgpack
// gives.
func TestFactsAgreeWithMsgpack(t *testing.T) {
	ctx := context.Background()
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 3000, Seed: 5, RelayEvents: true}, nil); err != nil {
		t.Fatal(err)
	}
	read, withFacts := 0, 0
	for _, spec := range topics.Topics() {
		ends, err := lg.EndOffsets(ctx, spec.Name)
		if err != nil {
			t.Fatal(err)
		}
		for p, end := range ends {
			for from := int64(0); from < end; {
				recs, err := lg.Read(ctx, spec.Name, int32(p), from, 1000)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					env, err := topics.DecodeEnvelope(r.Value)
					if err != nil {
						t.Fatal(err)
					}
					checkFacts(t, env.Payload)
					rd := msgReader{b: env.Payload}
					f, ok := rd.facts()
					if ok {
						read++
					}
					if f.ChainID != 0 || f.Ref.ChainID != 0 {
						withFacts++
					}
				}
				from = recs[len(recs)-1].Offset + 1
			}
		}
	}
	if read < 3000 || withFacts == 0 {
		t.Fatalf("factsOf read %d payloads of the log itself, %d with a chain id", read, withFacts)
	}
	for _, p := range otherPayloads(t) {
		checkFacts(t, p)
	}
}

func otherPayloads(t testing.TB) [][]byte {
	hash := "0x" + strings.Repeat("ab", 32)
	var out [][]byte
	for _, v := range []any{
		map[string]any{"chain_id": 5, "tx_hash": hash, "gas_used": uint64(1) << 40, "status": "succeeded",
			"extra": []any{1, -3, "x", 1.5, float32(2), []byte{1}, map[string]any{"a": nil, "b": true}}},
		map[string]any{"ref": map[string]any{"chain_id": 7, "tx_hash": hash, "log_index": 3}, "reason": strings.Repeat("r", 300)},
		map[string]any{"ref": nil, "chain_id": 1},
		map[string]any{"ref": []any{7, hash}},
		map[string]any{"ref": map[string]any{"chain_id": "seven"}},
		map[string]any{"chain_id": -1},
		map[string]any{"chain_id": 1.5},
		map[string]any{"gas_used": "lots"},
		map[string]any{"tx_hash": "0x12"},
		map[string]any{"tx_hash": "0X" + strings.Repeat("CD", 32), "mint_tx_hash": strings.Repeat("ef", 32)},
		map[string]any{"tx_hash": "0x0X" + strings.Repeat("cd", 32)},
		map[string]any{"tx_hash": "0x" + strings.Repeat("zz", 32)},
		map[string]any{"tx_hash": nil},
		map[string]any{"tx_hash": []byte(hash)},
		map[string]any{"status": 3},
		map[string]any{"status": nil, "reason": []byte("bytes")},
		map[any]any{1: 2, "chain_id": 3},
		[]any{1, 2, 3},
		"text",
		nil,
		map[string]any{},
	} {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b, b[:len(b)/2], append(b, 0xc1))
	}
	// Duplicate keys: the later value wins, and a second ref keeps what
	// it does not name.
	dup := []byte{0x83}
	for _, kv := range [][2]any{{"ref", map[string]any{"chain_id": 1, "tx_hash": hash}}, {"ref", map[string]any{"chain_id": 2}}, {"chain_id", 9}} {
		k, _ := msgpack.Marshal(kv[0])
		v, _ := msgpack.Marshal(kv[1])
		dup = append(append(dup, k...), v...)
	}
	// Maps that claim more fields than the bytes hold.
	huge := []byte{0x81, 0xa3, 'r', 'e', 'f', 0xdf, 0xff, 0xff, 0xff, 0xff}
	return append(out, dup, []byte{0x81}, []byte{0x81, 0xa3, 'r', 'e', 'f'}, []byte{0xd7, 0x30, 0x80},
		huge, []byte{0xdf, 0xff, 0xff, 0xff, 0xff}, []byte{0x81, 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff})
}

// FuzzFactsAgreeWithMsgpack: on any bytes, factsOf gives what msgpack
// gives, and never panics.
func FuzzFactsAgreeWithMsgpack(f *testing.F) {
	for _, p := range otherPayloads(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, payload []byte) { checkFacts(t, payload) })
}
