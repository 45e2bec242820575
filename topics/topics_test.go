package topics

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

func sampleDeposit() domain.DepositDetected {
	return domain.DepositDetected{
		Ref:         domain.LogRef{ChainID: 338, TxHash: domain.Hash32{0xab, 1}, LogIndex: 3},
		BlockNumber: 100,
		Amount:      domain.AmountFromUint64(1_000_000),
		Depositor:   domain.Address{1},
		Recipient:   domain.Address{2},
	}
}

func TestWrapRoundTrip(t *testing.T) {
	c := DefaultCatalog()
	ev := sampleDeposit()
	at := time.Date(2026, 11, 21, 12, 0, 0, 5, time.UTC)
	env, topic, err := c.Wrap(ev, Meta{OccurredAt: at, RecordedAt: at.Add(time.Second), CausationID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	if topic != TopicBridge || env.SourceKey != ev.SourceKey() || !strings.HasPrefix(env.SourceKey, ev.Ref.Key()+"@") || env.PartitionKey != ev.Ref.DepositID() {
		t.Fatalf("routing: topic %s key %s partition key %s", topic, env.SourceKey, env.PartitionKey)
	}
	msg, err := env.Message(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeEnvelope(msg.Value)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != env.ID || got.Type != env.Type || got.SchemaVersion != 1 || got.CausationID != "c1" ||
		got.CorrelationID != ev.AggregateID() || !got.OccurredAt.Equal(at) || !got.RecordedAt.Equal(at.Add(time.Second)) {
		t.Fatalf("round trip mismatch: %+v vs %+v", got, env)
	}
	var back domain.DepositDetected
	if err := DecodePayload(got.Payload, &back); err != nil {
		t.Fatal(err)
	}
	if back.Ref != ev.Ref || back.Amount.Cmp(ev.Amount) != 0 || back.Recipient != ev.Recipient {
		t.Fatalf("payload mismatch: %+v", back)
	}
}

func TestCatalogCheck(t *testing.T) {
	c := DefaultCatalog()
	if err := c.Check(&Envelope{Type: "nope"}); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("unknown type: %v", err)
	}
	if err := c.Check(&Envelope{Type: domain.TypeDepositDetected, SchemaVersion: 2}); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("newer schema: %v", err)
	}
	if err := c.Check(&Envelope{Type: domain.TypeDepositDetected, SchemaVersion: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCatalog(EventType{"a", TopicBridge, 1}, EventType{"a", TopicBridge, 1}); !errors.Is(err, ErrDuplicateType) {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := NewCatalog(EventType{"a", "nowhere", 1}); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("unknown topic: %v", err)
	}
}

func TestOversizedRefused(t *testing.T) {
	env := Envelope{ID: "x", Type: "t", Payload: make([]byte, 2000)}
	if _, err := EncodeEnvelope(&env, Limits{MaxEnvelopeBytes: 1000}); !errors.Is(err, ErrOversized) {
		t.Fatalf("encode: %v", err)
	}
	b, err := EncodeEnvelope(&env, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var e Envelope
	if err := NewDecoder(Limits{MaxEnvelopeBytes: 1000}).Decode(b, &e); !errors.Is(err, ErrOversized) {
		t.Fatalf("decode: %v", err)
	}
}

func TestMalformedRejected(t *testing.T) {
	env := Envelope{ID: "x", Type: "t", SourceKey: "k", Payload: []byte{1, 2, 3}}
	good, err := EncodeEnvelope(&env, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":     {},
		"not array": {0xa1, 'x'},
		"truncated": good[:len(good)-2],
		"trailing":  append(append([]byte{}, good...), 0),
	}
	future := append([]byte{}, good...)
	future[1] = 9 // format field
	for name, b := range cases {
		if _, err := DecodeEnvelope(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: want ErrMalformed, got %v", name, err)
		}
	}
	if _, err := DecodeEnvelope(future); !errors.Is(err, ErrEnvelopeFormat) {
		t.Errorf("future format: %v", err)
	}
	long := Envelope{ID: strings.Repeat("x", maxStringBytes+1)}
	b, _ := EncodeEnvelope(&long, Limits{})
	if _, err := DecodeEnvelope(b); !errors.Is(err, ErrMalformed) {
		t.Errorf("long string: %v", err)
	}
}

func TestPartitionForStable(t *testing.T) {
	// Pinned values (computed independently from the FNV-1a definition):
	// changing the function would re-route every key of an existing log.
	for key, want := range map[string]int32{"deposit:a": 4, "withdrawal:evm:1:0x00:0": 3, "batches:338": 1, "": 3} {
		if got := PartitionFor([]byte(key), 6); got != want {
			t.Errorf("PartitionFor(%q, 6) = %d, want %d", key, got, want)
		}
	}
	if PartitionFor([]byte("x"), 1) != 0 {
		t.Fatal("single partition")
	}
	seen := map[int32]bool{}
	for i := 0; i < 200; i++ {
		seen[PartitionFor([]byte{byte(i), byte(i >> 8)}, 6)] = true
	}
	if len(seen) != 6 {
		t.Fatalf("keys spread over %d of 6 partitions", len(seen))
	}
}

// TestWithdrawalToKaspaEvents: a burn toward Kaspa's events go to the
// bridge topic in the burn's partition, a refused signing request to the
// chain topic in its stream's, and all read back equal (through msgpack:
// they are too few on any log to want the fast path).
func TestWithdrawalToKaspaEvents(t *testing.T) {
	c := DefaultCatalog()
	ref := domain.LogRef{ChainID: 1337, TxHash: domain.Hash32{1, 31: 2}, LogIndex: 3}
	for _, ev := range []domain.Event{
		domain.WithdrawalToKaspaDetected{Ref: ref, Contract: domain.Address{4}, BlockNumber: 9, BlockHash: domain.Hash32{5}, OnChainID: 6,
			Withdrawer: domain.Address{7}, Amount: domain.AmountFromUint64(8e10), Recipient: "kaspa:qz0s9f7vzg5dpm0q4s2fgcse3ghv5uahyd0ldcfl5vy3ar7t6q05lnwr2mtkx"},
		domain.WithdrawalToKaspaConfirmed{Ref: ref, BlockHash: domain.Hash32{5}, AtBlock: 14, Confirmation: 5},
		domain.WithdrawalToKaspaReorged{Ref: ref, Block: 9, BlockHash: domain.Hash32{5}, NewHash: domain.Hash32{6}},
		domain.SigningRequestRefused{Via: "rpc", Reason: "not deep", Event: twophase.SigningEvent{Stream: "evm:1337:0x70", Nonce: 2,
			Destination: "kaspa:q", Amount: 3, Source: twophase.SourceRef{Chain: "evm:1337", TxHash: twophase.Hash{1, 31: 2}, LogIndex: 4, Block: 5}}},
	} {
		env, topic, err := c.Wrap(ev, Meta{})
		if err != nil {
			t.Fatal(err)
		}
		wantTopic, wantKey := TopicBridge, ref.WithdrawalToKaspaID()
		if r, ok := ev.(domain.SigningRequestRefused); ok {
			wantTopic, wantKey = TopicChain, "signing_request:"+r.Event.Stream
		}
		if topic != wantTopic || env.PartitionKey != wantKey {
			t.Fatalf("%s: topic %s partition key %s", ev.EventType(), topic, env.PartitionKey)
		}
		back := reflect.New(reflect.TypeOf(ev)).Interface()
		if err := DecodePayload(env.Payload, back); err != nil {
			t.Fatal(err)
		}
		if got, want := asJSON(t, back), asJSON(t, ev); got != want {
			t.Fatalf("%s: read back %s, wrote %s", ev.EventType(), got, want)
		}
	}
}
