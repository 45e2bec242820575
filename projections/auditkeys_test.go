package projections_test

import (
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

func TestAuditKeysOfABatchedWithdrawal(t *testing.T) {
	tx := domain.Hash32{1}
	leaf := domain.Hash32{2}
	ev := domain.WithdrawalBatched{Ref: domain.LogRef{ChainID: 5, TxHash: tx}, SequenceID: "batches:5:0xd", BatchID: 7, Leaf: leaf}
	env := topics.Envelope{ID: "e1", AggregateID: ev.AggregateID(), CorrelationID: ev.AggregateID(), SourceKey: ev.SourceKey()}
	got := map[projections.AuditKey]bool{}
	for _, k := range projections.AuditKeysOf(&env, &ev) {
		if got[k] {
			t.Fatalf("key %v listed twice", k)
		}
		got[k] = true
	}
	for _, want := range []projections.AuditKey{
		{Key: ev.AggregateID(), Kind: projections.KeyAggregate},
		{Key: ev.SourceKey(), Kind: projections.KeySource},
		{Key: "e1", Kind: projections.KeyEventID},
		{Key: tx.Hex(), Kind: projections.KeyEVMTx},
		{Key: "batches:5:0xd/7", Kind: projections.KeyBatch},
		{Key: leaf.Hex(), Kind: projections.KeyLeaf},
	} {
		if !got[want] {
			t.Errorf("missing %v in %v", want, got)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d keys, want 6 (no correlation key when it is the aggregate): %v", len(got), got)
	}
}

func TestAuditKeysOfASignerPayout(t *testing.T) {
	id := twophase.Hash{9}
	txid := twophase.Hash{8}
	f := twophase.PayoutSubmitted{EventID: id, TxID: txid}
	env := topics.Envelope{ID: "e2", AggregateID: f.AggregateID(), SourceKey: f.SourceKey()}
	got := map[projections.AuditKey]bool{}
	for _, k := range projections.AuditKeysOf(&env, &f) {
		got[k] = true
	}
	for _, want := range []projections.AuditKey{
		{Key: id.Hex(), Kind: projections.KeySigningEvent},
		{Key: txid.Hex(), Kind: projections.KeyKaspaTx},
		{Key: "signing:" + id.Hex(), Kind: projections.KeyAggregate},
	} {
		if !got[want] {
			t.Errorf("missing %v in %v", want, got)
		}
	}
}

func TestNormalizeAuditKey(t *testing.T) {
	h := "ABcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
	lower := strings.ToLower(h)
	for in, want := range map[string]string{
		"  " + h + " ":         "0x" + "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
		"0X" + h:               "0x" + "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
		"deposit:evm:1:0xAB:0": "deposit:evm:1:0xAB:0",
		"0x1234":               "0x1234",
		"batches:5:0xd/7":      "batches:5:0xd/7",
		// lower case already: with 0x as it is, without or with 0X prefixed
		"0x" + lower:            "0x" + lower,
		lower:                   "0x" + lower,
		"0X" + lower:            "0x" + lower,
		strings.Repeat("g", 64): strings.Repeat("g", 64),
	} {
		if got := projections.NormalizeAuditKey(in); got != want {
			t.Errorf("NormalizeAuditKey(%q) = %q, want %q", in, got, want)
		}
	}
	// AuditKeysOf lists hashes in their Hex form without normalizing it.
	for _, hex := range []string{domain.Hash32{0xAB, 0xCD}.Hex(), twophase.Hash{0xEF, 1}.Hex()} {
		if got := projections.NormalizeAuditKey(hex); got != hex {
			t.Errorf("NormalizeAuditKey(%q) = %q: a hash's Hex is not its normal form", hex, got)
		}
	}
}
