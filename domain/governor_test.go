package domain

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

var govT0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func govPolicy() GovernorPolicy {
	return GovernorPolicy{Limit: AmountFromUint64(100), LargeSize: AmountFromUint64(60)}.WithDefaults()
}

func queued(i int, amount uint64, at time.Time) GovernedMint {
	return GovernedMint{Ref: LogRef{ChainID: 1, TxHash: Hash32{byte(i)}}, Amount: AmountFromUint64(amount), BlockTime: at}
}

// kinds summarises decisions: M mint, H hold (reason), R mint after a
// release (reason), W wait.
func kinds(ds []GovernorDecision) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		switch {
		case d.Release != nil:
			out[i] = "R:" + d.Release.Reason
		case d.Mint:
			out[i] = "M"
		case d.Hold != nil:
			out[i] = "H:" + d.Hold.Reason
		default:
			out[i] = "W"
		}
	}
	return out
}

func TestGovernorLimitHoldsInStreamOrder(t *testing.T) {
	p := govPolicy()
	q := []GovernedMint{queued(1, 50, govT0), queued(2, 40, govT0), queued(3, 20, govT0), queued(4, 5, govT0)}
	got := kinds(Govern(p, govT0, nil, q))
	// 50+40 fit; 20 would make 110: held, and 5 behind it waits in order.
	want := []string{"M", "M", "H:over_limit", "H:over_limit"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decisions %v, want %v", got, want)
	}
	if d := Govern(p, govT0, nil, q)[2].Hold; d.ReleaseAt != govT0.Add(24*time.Hour).Unix() || d.ChainTime != govT0.Unix() {
		t.Fatalf("hold times %+v", d)
	}
}

func TestGovernorWindowBoundary(t *testing.T) {
	p := govPolicy()
	minted := []WindowEntry{{BlockTime: govT0, Amount: AmountFromUint64(90)}}
	held := queued(1, 20, govT0.Add(time.Hour))
	held.Hold = &MintHold{Reason: HoldOverLimit}
	// One second before the minted deposit leaves the window: still held.
	before := govT0.Add(24*time.Hour - time.Second)
	if got := kinds(Govern(p, before, minted, []GovernedMint{held})); got[0] != "W" {
		t.Fatalf("at the window's last second: %v, want W", got)
	}
	// At exactly 24h the minted deposit's block is out of the window.
	if got := kinds(Govern(p, govT0.Add(24*time.Hour), minted, []GovernedMint{held})); got[0] != "R:window" {
		t.Fatalf("at the window's end: %v, want R:window", got)
	}
	// A deposit exactly at the limit fits.
	if got := kinds(Govern(p, govT0, minted[:0], []GovernedMint{queued(2, 59, govT0), queued(3, 41, govT0)})); !reflect.DeepEqual(got, []string{"M", "M"}) {
		t.Fatalf("exactly the limit: %v", got)
	}
}

func TestGovernorLargeWaitsTheDelay(t *testing.T) {
	p := govPolicy()
	big := queued(1, 60, govT0)
	small := queued(2, 10, govT0)
	// A large deposit is held alone: the small one behind it mints.
	if got := kinds(Govern(p, govT0, nil, []GovernedMint{big, small})); !reflect.DeepEqual(got, []string{"H:large", "M"}) {
		t.Fatalf("large: %v", got)
	}
	big.Hold = &MintHold{Reason: HoldLarge}
	if got := kinds(Govern(p, govT0.Add(23*time.Hour), nil, []GovernedMint{big})); got[0] != "W" {
		t.Fatalf("large before its delay: %v", got)
	}
	if got := kinds(Govern(p, govT0.Add(24*time.Hour), nil, []GovernedMint{big})); got[0] != "R:delay" {
		t.Fatalf("large after its delay: %v", got)
	}
	// An over-limit deposit waits at most the delay, even if the window
	// stays full.
	full := []WindowEntry{{BlockTime: govT0.Add(24 * time.Hour), Amount: AmountFromUint64(100)}}
	small.Hold = &MintHold{Reason: HoldOverLimit}
	if got := kinds(Govern(p, govT0.Add(24*time.Hour), full, []GovernedMint{small})); got[0] != "R:delay" {
		t.Fatalf("over limit after the delay: %v", got)
	}
}

func TestGovernorOperatorHoldAndRelease(t *testing.T) {
	p := govPolicy()
	op := queued(1, 1, govT0)
	op.Hold = &MintHold{Reason: HoldOperator}
	// An operator's hold outlasts any delay; the others go on.
	got := kinds(Govern(p, govT0.Add(100*time.Hour), nil, []GovernedMint{op, queued(2, 1, govT0)}))
	if !reflect.DeepEqual(got, []string{"W", "M"}) {
		t.Fatalf("operator hold: %v", got)
	}
	// Released (by an operator or before): minted even over the limit.
	rel := queued(3, 99, govT0)
	rel.Released = true
	full := []WindowEntry{{BlockTime: govT0, Amount: AmountFromUint64(100)}}
	if got := kinds(Govern(p, govT0, full, []GovernedMint{rel})); got[0] != "M" {
		t.Fatalf("released: %v", got)
	}
}

// TestGovernorReplayDecidesTheSame: the decisions depend on the inputs
// only, and decisions applied then asked again add no new hold or release.
func TestGovernorReplayDecidesTheSame(t *testing.T) {
	p := govPolicy()
	q := []GovernedMint{queued(1, 70, govT0), queued(2, 50, govT0.Add(time.Minute)), queued(3, 30, govT0.Add(2*time.Minute)),
		queued(4, 30, govT0.Add(3*time.Minute))}
	now := govT0.Add(time.Hour)
	a, b := Govern(p, now, nil, q), Govern(p, now, nil, q)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
	}
	// Fold the decisions: held ones get their hold, minted ones join the window.
	var admitted []WindowEntry
	var rest []GovernedMint
	for i, d := range a {
		switch {
		case d.Mint:
			admitted = append(admitted, WindowEntry{BlockTime: q[i].BlockTime, Amount: q[i].Amount})
		case d.Hold != nil:
			q[i].Hold = &MintHold{Reason: d.Hold.Reason, ReleaseAt: time.Unix(d.Hold.ReleaseAt, 0)}
			rest = append(rest, q[i])
		}
	}
	for _, d := range Govern(p, now, admitted, rest) {
		if d.Mint || d.Hold != nil || d.Release != nil {
			t.Fatalf("a second decision at the same time changed something: %+v", d)
		}
	}
}

func TestGovernorPolicyValidate(t *testing.T) {
	for _, p := range []GovernorPolicy{{}, {Limit: AmountFromUint64(1), Window: -time.Hour, LargeDelay: time.Hour},
		{Limit: AmountFromUint64(1), Window: time.Hour, LargeDelay: -1}} {
		if err := p.Validate(); !errors.Is(err, ErrGovernorConfig) {
			t.Fatalf("%+v: %v, want ErrGovernorConfig", p, err)
		}
	}
	if err := govPolicy().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestGovernorOperatorChecks(t *testing.T) {
	cases := []struct {
		status  Status
		hold    *MintHold
		release error
		hold2   error
	}{
		{"", nil, ErrUnknownDeposit, ErrUnknownDeposit},
		{StatusMinted, nil, ErrDepositFinal, ErrDepositFinal},
		{StatusFailed, nil, ErrDepositFinal, ErrDepositFinal},
		{StatusConfirmed, nil, ErrNotHeld, nil},
		{StatusConfirmed, &MintHold{Reason: HoldOperator}, nil, ErrAlreadyHeld},
		{StatusDetected, &MintHold{Reason: HoldLarge}, nil, nil},
	}
	for _, c := range cases {
		if err := CheckRelease(c.status, c.hold); !errors.Is(err, c.release) || (c.release == nil) != (err == nil) {
			t.Fatalf("release of %q %+v: %v, want %v", c.status, c.hold, err, c.release)
		}
		if err := CheckHold(c.status, c.hold); !errors.Is(err, c.hold2) || (c.hold2 == nil) != (err == nil) {
			t.Fatalf("hold of %q %+v: %v, want %v", c.status, c.hold, err, c.hold2)
		}
	}
}

func TestPauseStateAndOperatorAction(t *testing.T) {
	a := OperatorAction{Operator: "alice", Reason: "exploit suspected", RequestID: "r1", At: govT0.UnixNano()}
	s := PauseState{}.Apply(RelayPaused{a})
	if !s.Paused || s.Operator != "alice" || !s.Since.Equal(govT0) {
		t.Fatalf("paused: %+v", s)
	}
	if s = s.Apply(&RelayResumed{a}); s.Paused {
		t.Fatalf("resumed: %+v", s)
	}
	for _, bad := range []OperatorAction{{Reason: "x", RequestID: "r"}, {Operator: "x", RequestID: "r"}, {Operator: "x", Reason: "y"},
		{Operator: string(make([]byte, MaxOperatorBytes+1)), Reason: "y", RequestID: "r"}} {
		if err := bad.Check(); !errors.Is(err, ErrBrakeInput) {
			t.Fatalf("%+v: %v, want ErrBrakeInput", bad, err)
		}
	}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkGovern: one decision round over a full queue (10,000 pending
// deposits, the relay's per-poll bound) and a day's 10,000 minted ones.
func BenchmarkGovern(b *testing.B) {
	p := govPolicy()
	p.Limit = AmountFromUint64(1 << 40)
	queue := make([]GovernedMint, 10_000)
	admitted := make([]WindowEntry, 10_000)
	for i := range queue {
		queue[i] = queued(i, uint64(i%70+1)<<20, govT0.Add(time.Duration(i)*time.Second))
		admitted[i] = WindowEntry{BlockTime: govT0.Add(-time.Duration(i) * time.Second), Amount: AmountFromUint64(1 << 20)}
	}
	now := govT0.Add(3 * time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		Govern(p, now, admitted, queue)
	}
}
