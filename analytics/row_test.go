package analytics_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

func record(t *testing.T, ev domain.Event, at time.Time) topics.Record {
	t.Helper()
	env, topic, err := topics.DefaultCatalog().Wrap(ev, topics.Meta{OccurredAt: at, RecordedAt: at.Add(1500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := env.Message(topics.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return topics.Record{Topic: topic, Partition: 3, Offset: 42, Value: msg.Value}
}

func TestRowOf(t *testing.T) {
	cat := topics.DefaultCatalog()
	ref := domain.LogRef{ChainID: 338, TxHash: domain.Hash32{0xab}, LogIndex: 1}
	minted := record(t, domain.DepositMinted{Ref: ref, MintTxHash: domain.Hash32{0xcd}, GasUsed: 61_234}, t0)
	r := analytics.RowOf(cat, &minted)
	if r.Type != domain.TypeDepositMinted || r.Partition != 3 || r.Offset != 42 || r.ChainID != 338 ||
		r.GasUsed != 61_234 || r.TxHash != (domain.Hash32{0xcd}).Hex() || r.IsError != 0 || r.DecodeError != "" {
		t.Fatalf("minted row: %+v", r)
	}
	if r.RecordedMs-r.OccurredMs != 1500 || !r.OccurredAt.Equal(t0) {
		t.Fatalf("times: occurred %v (%d ms), recorded %d ms", r.OccurredAt, r.OccurredMs, r.RecordedMs)
	}
	failed := record(t, domain.DepositFailed{Ref: ref, Reason: "mint reverted"}, t0)
	if r := analytics.RowOf(cat, &failed); r.IsError != 1 || r.Reason != "mint reverted" || r.TxHash != ref.TxHash.Hex() {
		t.Fatalf("failed row: %+v", r)
	}
	abandoned := record(t, domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: "w", Status: domain.TxAbandoned}, t0)
	if r := analytics.RowOf(cat, &abandoned); r.IsError != 1 || r.Status != "abandoned" {
		t.Fatalf("abandoned row: %+v", r)
	}
	done := record(t, domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: "w", Status: domain.TxAlreadyProcessed, GasUsed: 30_000}, t0)
	if r := analytics.RowOf(cat, &done); r.IsError != 0 || r.GasUsed != 30_000 {
		t.Fatalf("already-processed row: %+v", r)
	}
	junk := topics.Record{Topic: topics.TopicBridge, Offset: 7, Value: []byte{0x93, 0xff}}
	if r := analytics.RowOf(cat, &junk); r.IsError != 1 || r.DecodeError == "" || r.Offset != 7 || r.Type != "" {
		t.Fatalf("junk row: %+v", r)
	}
}

// FuzzRowOf: any bytes give a row, never a panic; a row without a decode
// error has a type.
func FuzzRowOf(f *testing.F) {
	ref := domain.LogRef{ChainID: 1, TxHash: domain.Hash32{1}}
	for _, ev := range []domain.Event{
		domain.DepositMinted{Ref: ref, GasUsed: 1},
		domain.TxOutcome{Purpose: domain.PurposeMint, Subject: "s", Status: domain.TxReverted, Reason: "r"},
		domain.RelayStepFailed{Step: "mint", Reason: "down"},
	} {
		env, _, err := topics.DefaultCatalog().Wrap(ev, topics.Meta{OccurredAt: t0, RecordedAt: t0})
		if err != nil {
			f.Fatal(err)
		}
		msg, err := env.Message(topics.Limits{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(msg.Value)
	}
	f.Add([]byte{})
	f.Add([]byte("not an envelope"))
	cat := topics.DefaultCatalog()
	f.Fuzz(func(t *testing.T, b []byte) {
		rec := topics.Record{Topic: topics.TopicBridge, Value: b}
		r := analytics.RowOf(cat, &rec)
		if r.DecodeError == "" && r.Type == "" {
			t.Fatalf("row without a type or a decode error: %+v", r)
		}
		if r.DecodeError != "" && r.IsError != 1 {
			t.Fatalf("undecodable row not counted as an error: %+v", r)
		}
	})
}
