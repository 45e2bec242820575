package domain

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestConfirm(t *testing.T) {
	h := Hash32{1}
	other := Hash32{2}
	cases := []struct {
		name  string
		num   uint64
		view  CanonicalView
		depth uint64
		want  Confirmation
	}{
		{"too shallow", 100, CanonicalView{Tip: 104, HashAtLogBlock: h}, 5, Pending},
		{"exactly deep", 100, CanonicalView{Tip: 105, HashAtLogBlock: h}, 5, Confirmed},
		{"default depth", 100, CanonicalView{Tip: 104, HashAtLogBlock: h}, 0, Pending},
		{"hash changed", 100, CanonicalView{Tip: 110, HashAtLogBlock: other}, 5, Reorged},
		{"hash changed while shallow", 100, CanonicalView{Tip: 101, HashAtLogBlock: other}, 5, Reorged},
		{"chain shrank", 100, CanonicalView{Tip: 98}, 5, Reorged},
		{"deep, hash unknown", 100, CanonicalView{Tip: 110}, 5, Pending},
	}
	for _, c := range cases {
		if got := Confirm(c.num, h, c.view, c.depth); got != c.want {
			t.Errorf("%s: got %v want %v", c.name, got, c.want)
		}
	}
}

func fakeLeaf(s Settlement, batch uint64, w PendingWithdrawal) Hash32 {
	return Hash32{byte(batch), byte(w.TxID), byte(w.TxID >> 8)}
}

func fakeRoot(l []Hash32) (Hash32, error) {
	var r Hash32
	for _, h := range l {
		for i := range r {
			r[i] ^= h[i]
		}
	}
	r[31] = byte(len(l))
	return r, nil
}

func pending(n int, at time.Time) []PendingWithdrawal {
	out := make([]PendingWithdrawal, n)
	for i := range out {
		// Reverse order: planning must sort.
		id := uint64(n - i)
		out[i] = PendingWithdrawal{Ref: LogRef{ChainID: 1, LogIndex: uint32(id)}, TxID: id,
			Amount: AmountFromUint64(id * 10), ConfirmedAt: at.Add(time.Duration(i) * time.Second)}
	}
	return out
}

func TestPlanBatchSequencing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := Settlement{ChainID: 1}
	pol := BatchPolicy{MaxSize: 3, MaxWait: time.Minute}
	// Seed scenario: batch 2 cannot be created while batch 1 is unanchored.
	_, err := PlanBatch(s, SequenceState{LastBatchID: 1}, pending(5, now), pol, now, fakeLeaf, fakeRoot)
	if !errors.Is(err, ErrPreviousNotAnchored) || err.Error() != "previous batch not anchored yet: batch 1 not anchored yet, cannot create batch 2" {
		t.Fatalf("got %v", err)
	}
	b, err := PlanBatch(s, SequenceState{LastBatchID: 1, LastAnchored: true}, pending(5, now), pol, now, fakeLeaf, fakeRoot)
	if err != nil || b == nil {
		t.Fatalf("plan: %v %v", b, err)
	}
	if b.BatchID != 2 || len(b.Leaves) != 3 || b.Leaves[0].TxID != 1 || b.Leaves[2].TxID != 3 {
		t.Fatalf("batch %d leaves %+v", b.BatchID, b.Leaves)
	}
	if b.TotalAmount.String() != "60" {
		t.Fatalf("total %s", b.TotalAmount)
	}
	// Deterministic: any input order gives the same root.
	shuffled := pending(5, now)
	shuffled[0], shuffled[4] = shuffled[4], shuffled[0]
	b2, _ := PlanBatch(s, SequenceState{LastBatchID: 1, LastAnchored: true}, shuffled, pol, now, fakeLeaf, fakeRoot)
	if b2.Root != b.Root {
		t.Fatal("root depends on input order")
	}
}

func TestPlanBatchWaits(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pol := BatchPolicy{MaxSize: 10, MaxWait: time.Minute}
	b, err := PlanBatch(Settlement{}, SequenceState{}, pending(2, now), pol, now.Add(30*time.Second), fakeLeaf, fakeRoot)
	if err != nil || b != nil {
		t.Fatalf("cut too early: %v %v", b, err)
	}
	b, err = PlanBatch(Settlement{}, SequenceState{}, pending(2, now), pol, now.Add(time.Minute), fakeLeaf, fakeRoot)
	if err != nil || b == nil || b.BatchID != 1 || len(b.Leaves) != 2 {
		t.Fatalf("not cut after max wait: %v %v", b, err)
	}
	if b, err := PlanBatch(Settlement{}, SequenceState{}, nil, pol, now, fakeLeaf, fakeRoot); b != nil || err != nil {
		t.Fatal("empty batch planned")
	}
	if _, err := PlanBatch(Settlement{}, SequenceState{}, nil, BatchPolicy{MaxSize: MaxBatchLeaves + 1}, now, fakeLeaf, fakeRoot); !errors.Is(err, ErrBatchTooLarge) {
		t.Fatalf("oversized policy: %v", err)
	}
}

// TestRecoverBatch: a batch the log lost is cut again from the chain's
// root for its id, whichever prefix of the pending withdrawals it was;
// a root no prefix gives is ErrBatchLost, and sequencing still holds.
func TestRecoverBatch(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := Settlement{ChainID: 1}
	pol := BatchPolicy{MaxSize: 4, MaxWait: time.Minute}
	seq := SequenceState{LastBatchID: 2, LastAnchored: true}
	all := pending(6, now) // TxIDs 6..1, in reverse
	for n := 1; n <= 4; n++ {
		// The batch as it was cut when only the n lowest were pending.
		lost, err := PlanBatch(s, seq, pending(n, now), BatchPolicy{MaxSize: n, MaxWait: time.Minute}, now, fakeLeaf, fakeRoot)
		if err != nil || lost == nil {
			t.Fatalf("plan %d: %v %v", n, lost, err)
		}
		got, err := RecoverBatch(s, seq, all, pol, lost.Root, fakeLeaf, fakeRoot)
		if err != nil {
			t.Fatalf("recover a batch of %d: %v", n, err)
		}
		if got.BatchID != 3 || got.Root != lost.Root || len(got.Leaves) != n || got.Leaves[n-1].TxID != uint64(n) ||
			got.TotalAmount.String() != lost.TotalAmount.String() {
			t.Fatalf("recovered batch %d: %+v, want %+v", n, got, lost)
		}
	}
	// Past the policy's size, or a root of something else: lost.
	five, _ := PlanBatch(s, seq, pending(5, now), BatchPolicy{MaxSize: 5, MaxWait: time.Minute}, now, fakeLeaf, fakeRoot)
	for _, root := range []Hash32{five.Root, {0xee}} {
		_, err := RecoverBatch(s, seq, all, pol, root, fakeLeaf, fakeRoot)
		if !errors.Is(err, ErrBatchLost) || !strings.Contains(err.Error(), "batch 3 has root "+root.Hex()) {
			t.Fatalf("root %s: %v", root.Hex(), err)
		}
	}
	if _, err := RecoverBatch(s, seq, nil, pol, Hash32{1}, fakeLeaf, fakeRoot); !errors.Is(err, ErrBatchLost) {
		t.Fatalf("nothing pending: %v", err)
	}
	if _, err := RecoverBatch(s, SequenceState{LastBatchID: 2}, all, pol, Hash32{1}, fakeLeaf, fakeRoot); !errors.Is(err, ErrPreviousNotAnchored) {
		t.Fatalf("previous not anchored: %v", err)
	}
}

func TestNextStep(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := TxIntent{Purpose: PurposeClaim, Subject: "claim:x", Nonce: 7, Attempt: 1,
		GasFeeCap: AmountFromUint64(100), GasTipCap: AmountFromUint64(10)}
	pol := SendPolicy{StuckAfter: time.Minute, MaxAttempts: 3, FeeBumpPercent: 20}
	cases := []struct {
		name   string
		in     TxIntent
		obs    Observation
		now    time.Time
		kind   StepKind
		status TxStatus
	}{
		{"mined ok", in, Observation{Mined: true, Success: true, GasUsed: 50000}, t0, StepDone, TxSucceeded},
		{"already processed", in, Observation{Mined: true, RevertReason: "Already processed"}, t0, StepDone, TxAlreadyProcessed},
		{"reverted", in, Observation{Mined: true, RevertReason: "invalid proof"}, t0, StepDone, TxReverted},
		// A contract's revert returns unused gas; all of it used is our limit.
		{"reverted, gas to spare", withGas(in, 60000), Observation{Mined: true, GasUsed: 40000, RevertReason: "invalid proof"}, t0, StepDone, TxReverted},
		{"out of gas", withGas(in, 60000), Observation{Mined: true, GasUsed: 60000, RevertReason: "reverted: out of gas"}, t0, StepDone, TxOutOfGas},
		{"relayer lacks its role", in, Observation{Mined: true, RevertReason: "AccessControlUnauthorizedAccount"}, t0, StepDone, TxDeferred},
		{"pool short", in, Observation{Mined: true, RevertReason: "insufficient locked balance"}, t0, StepDone, TxDeferred},
		{"rate limited", in, Observation{Mined: true, RevertReason: "RateLimited(available=1, requested=2, waitSeconds=1)"}, t0, StepDone, TxDeferred},
		{"over the rate limit capacity", in, Observation{Mined: true, RevertReason: "RateLimitOverCapacity"}, t0, StepDone, TxDeferred},
		{"nonce used", in, Observation{ConfirmedNonce: 8, SentAt: t0}, t0, StepDone, TxReplaced},
		{"fresh", in, Observation{ConfirmedNonce: 7, SentAt: t0}, t0.Add(30 * time.Second), StepWait, ""},
		{"stuck", in, Observation{ConfirmedNonce: 7, SentAt: t0}, t0.Add(2 * time.Minute), StepReplace, ""},
	}
	last := in
	last.Attempt = 3
	cases = append(cases, struct {
		name   string
		in     TxIntent
		obs    Observation
		now    time.Time
		kind   StepKind
		status TxStatus
	}{"gave up", last, Observation{ConfirmedNonce: 7, SentAt: t0}, t0.Add(2 * time.Minute), StepGiveUp, TxAbandoned})
	for _, c := range cases {
		st := NextStep(c.in, c.obs, c.now, pol)
		if st.Kind != c.kind || st.Outcome.Status != c.status {
			t.Errorf("%s: got kind %v status %q", c.name, st.Kind, st.Outcome.Status)
		}
	}
	st := NextStep(in, Observation{ConfirmedNonce: 7, SentAt: t0}, t0.Add(2*time.Minute), pol)
	if st.GasFeeCap.Int64() != 120 || st.GasTipCap.Int64() != 12 {
		t.Fatalf("bump: fee %v tip %v", st.GasFeeCap, st.GasTipCap)
	}
	capped := pol
	capped.MaxFeeCap = big.NewInt(110)
	if st := NextStep(in, Observation{ConfirmedNonce: 7, SentAt: t0}, t0.Add(2*time.Minute), capped); st.Kind != StepGiveUp {
		t.Fatalf("fee cap: %v", st.Kind)
	}
	if bump(big.NewInt(1), 10).Int64() != 2 {
		t.Fatal("bump must raise by at least 1")
	}
}

func withGas(in TxIntent, gas uint64) TxIntent { in.Gas = gas; return in }

// TestTxStatusFinal: only the contract's verdict on the call decides an
// item; what the relayer caused sends it again.
func TestTxStatusFinal(t *testing.T) {
	for st, want := range map[TxStatus]bool{TxSucceeded: true, TxAlreadyProcessed: true, TxReverted: true,
		TxReplaced: false, TxAbandoned: false, TxOutOfGas: false, TxDeferred: false, TxDryRun: false} {
		if st.Final() != want {
			t.Errorf("%s: Final() = %v, want %v", st, st.Final(), want)
		}
	}
}

func TestValueParsing(t *testing.T) {
	if _, err := ParseAmount("-1"); !errors.Is(err, ErrInvalidValue) {
		t.Fatal("negative amount accepted")
	}
	if _, err := ParseAmount("1e5"); !errors.Is(err, ErrInvalidValue) {
		t.Fatal("non-decimal amount accepted")
	}
	a, err := ParseAmount("115792089237316195423570985008687907853269984665640564039457584007913129639935")
	if err != nil || a.Big().BitLen() != 256 {
		t.Fatalf("max uint256: %v %v", a, err)
	}
	if _, err := ParseAddress("0x1234"); !errors.Is(err, ErrInvalidValue) {
		t.Fatal("short address accepted")
	}
	h, err := ParseHash32("0x" + "ab" + "00000000000000000000000000000000000000000000000000000000000000")
	if err != nil || h[0] != 0xab {
		t.Fatalf("hash: %v %v", h, err)
	}
	if !Advances(StatusConfirmed, StatusBatched) || Advances(StatusExecuted, StatusFailed) || Advances(StatusBatched, StatusConfirmed) {
		t.Fatal("status ranks")
	}
}

func TestLogRefRoundTrip(t *testing.T) {
	r := LogRef{ChainID: 338, TxHash: Hash32{0xab, 0xcd}, LogIndex: 7}
	got, err := ParseLogRef(r.Key())
	if err != nil || got != r {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for _, bad := range []string{"", "evm:1:0x00:1", "btc:1:" + r.TxHash.Hex() + ":1", "evm:x:" + r.TxHash.Hex() + ":1"} {
		if _, err := ParseLogRef(bad); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestHexForms: hashes and addresses print as 0x and lower-case hex of
// every byte, and parse back.
func TestHexForms(t *testing.T) {
	h := Hash32{0xab, 0x01, 31: 0xff}
	wantH := "0xab01" + strings.Repeat("00", 29) + "ff"
	if got := h.Hex(); got != wantH {
		t.Fatalf("Hash32.Hex = %s, want %s", got, wantH)
	}
	a := Address{0xCD, 19: 0x0e}
	wantA := "0xcd" + strings.Repeat("00", 18) + "0e"
	if got := a.Hex(); got != wantA {
		t.Fatalf("Address.Hex = %s, want %s", got, wantA)
	}
	if got := string(a.AppendHex(h.AppendHex([]byte("x")))); got != "x"+wantH+wantA {
		t.Fatalf("AppendHex = %s", got)
	}
	for _, s := range []string{"0", "18446744073709551615", "18446744073709551616", strings.Repeat("9", 78)} {
		n, err := ParseAmount(s)
		if got := string(n.AppendDecimal([]byte("x"))); err != nil || got != "x"+s || n.String() != s {
			t.Fatalf("amount %s: AppendDecimal %s, String %s (%v)", s, got, n.String(), err)
		}
	}
	if back, err := ParseHash32(wantH); err != nil || back != h {
		t.Fatalf("ParseHash32: %v %v", back, err)
	}
	if back, err := ParseAddress(wantA); err != nil || back != a {
		t.Fatalf("ParseAddress: %v %v", back, err)
	}
}
