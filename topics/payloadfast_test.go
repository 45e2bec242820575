package topics

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/bridgelog/bridgelog/domain"
)

// lifecycleSamples are one payload of each type the fast path reads, with
// every field set.
func lifecycleSamples(t testing.TB) []any {
	big78, _ := new(big.Int).SetString("123456789012345678901234567890123456789012345678901234567890123456789012345678", 10)
	large, err := domain.NewAmount(big78)
	if err != nil {
		t.Fatal(err)
	}
	ref := domain.LogRef{ChainID: 338, TxHash: domain.Hash32{0xab, 0xcd, 31: 0xef}, LogIndex: 1<<32 - 1}
	addr := domain.Address{0x12, 19: 0x34}
	settlement := domain.Settlement{ChainID: 338, Distributor: domain.Address{0xd1, 19: 0x57}}
	leaf := domain.BatchLeaf{Index: 7, Withdrawal: ref, TxID: 1 << 50, Funder: addr, Recipient: domain.Address{3},
		Amount: domain.AmountFromUint64(5e17), Leaf: domain.Hash32{18}}
	return []any{
		&domain.DepositDetected{Ref: ref, Contract: addr, BlockNumber: 1 << 40, BlockHash: domain.Hash32{1, 31: 2},
			OnChainID: 7, Depositor: domain.Address{9}, Amount: domain.AmountFromUint64(1e18), Recipient: addr},
		&domain.DepositDetected{Ref: ref, Amount: large},
		&domain.DepositConfirmed{Ref: ref, AtBlock: 127, Confirmation: 128},
		&domain.DepositMinted{Ref: ref, MintTxHash: domain.Hash32{3}, GasUsed: 65535, BlockNumber: 65536},
		&domain.DepositFailed{Ref: ref, Reason: "mint reverted: nonce too low"},
		&domain.WithdrawalDetected{Ref: ref, Contract: addr, BlockNumber: 255, BlockHash: domain.Hash32{4},
			OnChainID: 1<<64 - 1, Withdrawer: addr, Amount: domain.AmountFromUint64(0), Recipient: domain.Address{5}},
		&domain.WithdrawalConfirmed{Ref: ref, AtBlock: 256},
		&domain.WithdrawalExecuted{Ref: ref, BatchID: 3, ClaimTxHash: domain.Hash32{6}, GasUsed: 21000, AlreadyDone: true},
		&domain.WithdrawalFailed{Ref: ref},
		&domain.TxIntent{Purpose: domain.PurposeMint, Subject: ref.DepositID(), ChainID: 338, From: addr, Nonce: 1 << 33,
			Gas: 120000, TxHash: domain.Hash32{7}, RawTx: []byte{0x02, 0xf8, 0x71, 0xff}, GasFeeCap: large,
			GasTipCap: domain.AmountFromUint64(1e9), Attempt: 127, Cancel: true},
		&domain.TxIntent{Purpose: domain.PurposeClaim, Subject: strings.Repeat("s", 300), TxHash: domain.Hash32{8}, RawTx: make([]byte, 70000), Attempt: 1},
		&domain.TxOutcome{Purpose: domain.PurposeAnchor, Subject: "batches:338:0x12/4", TxHash: domain.Hash32{9}, Nonce: 12,
			Status: domain.TxSucceeded, GasUsed: 70059, BlockNumber: 1 << 20, Reason: "ok"},
		&domain.TxOutcome{Purpose: domain.PurposeMint, Status: domain.TxReverted},
		&domain.ChainScanned{ChainID: 1, From: 100, To: 1 << 35, ToHash: domain.Hash32{10}, Tip: 1<<35 + 12, Logs: 255},
		&domain.ChainScanned{ChainID: 1, From: 90, To: 100, ToHash: domain.Hash32{10}, Tip: 101, Logs: 2,
			PriorHashes: []domain.Hash32{{8}, {9, 31: 1}}, Window: 12},
		&domain.WithdrawalBatched{Ref: ref, SequenceID: settlement.SequenceID(), BatchID: 9, LeafIndex: 1<<32 - 1,
			Leaf: domain.Hash32{11}, MerkleProof: []domain.Hash32{{12}, {13}, {14}}},
		&domain.BatchCreated{Settlement: settlement, BatchID: 10, Root: domain.Hash32{15}, TotalAmount: large,
			Leaves: []domain.BatchLeaf{leaf, {Index: 1, Withdrawal: ref, Amount: domain.AmountFromUint64(0)}}},
		&domain.BatchAnchored{Settlement: settlement, BatchID: 10, Root: domain.Hash32{15}, TxHash: domain.Hash32{16},
			GasUsed: 70059, BlockNumber: 1 << 22},
		&domain.ClaimRequested{Settlement: settlement, BatchID: 10, Root: domain.Hash32{15}, LeafInfo: leaf,
			Proof: []domain.Hash32{{17}}},
	}
}

// fresh returns a new zero value of v's pointed-to type.
func fresh(v any) any { return reflect.New(reflect.TypeOf(v).Elem()).Interface() }

func asJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLifecyclePayloadFastPath: what EncodePayload writes for each
// lifecycle type is read by the fast path (not handed back to msgpack),
// and equals what msgpack reads.
func TestLifecyclePayloadFastPath(t *testing.T) {
	for _, v := range lifecycleSamples(t) {
		b, err := EncodePayload(v)
		if err != nil {
			t.Fatal(err)
		}
		fast := fresh(v)
		if !decodeLifecycle(b, fast) {
			t.Fatalf("%T: the fast path declined its own encoding", v)
		}
		slow := fresh(v)
		if err := msgpack.Unmarshal(b, slow); err != nil {
			t.Fatal(err)
		}
		if got, want := asJSON(t, fast), asJSON(t, slow); got != want || want != asJSON(t, v) {
			t.Fatalf("%T:\nfast    %s\nmsgpack %s\nwritten %s", v, got, want, asJSON(t, v))
		}
	}
	// Shapes it leaves to msgpack: an unknown key, a signed integer, nil
	// text, trailing bytes, an array-coded struct.
	var d domain.DepositConfirmed
	for _, b := range [][]byte{
		{0x81, 0xa1, 'x', 0x01},
		{0x81, 0xa8, 'a', 't', '_', 'b', 'l', 'o', 'c', 'k', 0xd0, 0x05},
		{0x81, 0xa8, 'a', 't', '_', 'b', 'l', 'o', 'c', 'k', 0x05, 0x00},
		{0x92, 0x80, 0x05},
	} {
		if decodeLifecycle(b, &d) {
			t.Fatalf("% x: fast path accepted a shape it should leave to msgpack", b)
		}
	}
	var m domain.DepositMinted
	if decodeLifecycle([]byte{0x81, 0xac, 'm', 'i', 'n', 't', '_', 't', 'x', '_', 'h', 'a', 's', 'h', 0xc0}, &m) {
		t.Fatal("fast path accepted nil text")
	}
}

// TestLifecyclePayloadKeepsUnnamedFields: like msgpack, decoding into a
// filled struct changes only the fields the payload names.
func TestLifecyclePayloadKeepsUnnamedFields(t *testing.T) {
	b, err := msgpack.Marshal(map[string]uint64{"depth": 9})
	if err != nil {
		t.Fatal(err)
	}
	fast := domain.DepositConfirmed{AtBlock: 5}
	slow := fast
	if !decodeLifecycle(b, &fast) {
		t.Fatal("declined a one-field map")
	}
	if err := msgpack.Unmarshal(b, &slow); err != nil {
		t.Fatal(err)
	}
	if fast != slow || fast.AtBlock != 5 || fast.Confirmation != 9 {
		t.Fatalf("fast %+v, msgpack %+v", fast, slow)
	}
}

// FuzzLifecyclePayload: whenever the fast path accepts bytes, msgpack
// accepts them too and decodes the same event; the fast path never
// panics and never half-writes a struct it declines.
func FuzzLifecyclePayload(f *testing.F) {
	samples := lifecycleSamples(f)
	for i, v := range samples {
		b, err := EncodePayload(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
		f.Add(uint8(i), b[:len(b)-1])
	}
	// Codings the encoder does not write but msgpack reads: signed and
	// negative integers, str-coded and upper-case hex, "0X", nil, leading
	// zeros, long amounts. Mutations of these reach the fast path's edges.
	kv := func(k string, v ...byte) []byte { return append(append([]byte{0x81, 0xa0 | byte(len(k))}, k...), v...) }
	hexOf := func(code byte, s string) []byte { return append([]byte{code, byte(len(s))}, s...) }
	h32 := "0x" + strings.Repeat("ab", 32)
	for _, b := range [][]byte{
		kv("at_block", 0xd0, 0xff), kv("at_block", 0xd3, 0, 0, 0, 0, 0, 0, 0, 5), kv("at_block", 0xc0),
		kv("mint_tx_hash", hexOf(0xd9, h32)...), kv("mint_tx_hash", hexOf(0xc4, strings.ToUpper(h32))...),
		kv("mint_tx_hash", hexOf(0xc4, "0X"+h32[2:])...), kv("amount", hexOf(0xc4, "000123")...),
		kv("amount", hexOf(0xc4, strings.Repeat("9", 20))...), kv("amount", hexOf(0xa0, "")...),
		kv("ref", kv("log_index", 0xcf, 0, 0, 0, 1, 0, 0, 0, 0)...), kv("already_done", 0xc2),
		kv("reason", hexOf(0xd9, "r")...), kv("raw_tx", 0xc4, 0), kv("raw_tx", 0xc0), kv("raw_tx", 0xa3, 'a', 'b', 'c'),
		kv("attempt", 0xd0, 0xfe), kv("attempt", 0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0), kv("logs", 0xcd, 1, 0),
		kv("cancel", 0xc0), kv("status", 0xc4, 1, 'x'), kv("purpose", 0xa0),
		kv("proof", 0x90), kv("proof", 0xc0), kv("proof", 0xdd, 0xff, 0xff, 0xff, 0xff), kv("leaves", 0xdc, 0, 1, 0x80),
		kv("leaves", 0x91, 0x80), kv("leaf_index", 0xce, 0xff, 0xff, 0xff, 0xff), kv("settlement", 0x80),
		kv("leaf", kv("index", 0x05)...), kv("settlement", kv("chain_id", 0xd0, 0x01)...),
	} {
		for i := range samples {
			f.Add(uint8(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		proto := samples[int(which)%len(samples)]
		fast := fresh(proto)
		before := asJSON(t, fast)
		if !decodeLifecycle(b, fast) {
			if asJSON(t, fast) != before {
				t.Fatalf("declined but changed the struct: %s", asJSON(t, fast))
			}
			return
		}
		slow := fresh(proto)
		if err := msgpack.Unmarshal(b, slow); err != nil {
			t.Fatalf("fast path accepted what msgpack refuses (%v): % x", err, b)
		}
		if got, want := asJSON(t, fast), asJSON(t, slow); got != want {
			t.Fatalf("fast %s\nmsgpack %s", got, want)
		}
	})
}
