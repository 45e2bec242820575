package twophase

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

const virtualScore = 10_000 // deep: DAA score <= 9,700 with the default depth 300

func buildReq(amount uint64, edit ...func(*BuildRequest)) BuildRequest {
	g, _ := testGroup(3, 2)
	req := BuildRequest{Event: testEvent(amount), Group: g, Params: DefaultParams(), Rules: fakeRules{}}
	for _, e := range edit {
		e(&req)
	}
	return req
}

func view(utxos ...UTXO) LedgerView {
	return LedgerView{VirtualDAAScore: virtualScore, UTXOs: utxos, MempoolSpent: map[Outpoint]Hash{}}
}

func coinbase(u UTXO) UTXO { u.Coinbase = true; return u }

func otherScript(u UTXO) UTXO { u.Script = payTo("other"); return u }

func inputNames(names ...string) []Outpoint {
	out := make([]Outpoint, len(names))
	for i, n := range names {
		out[i] = op(n, 0)
	}
	return out
}

func TestBuildTemplate(t *testing.T) {
	const m = 1_000_000
	withChange1, noChange1 := fakeMass(1, 2, 0), fakeMass(1, 1, 0) // 2,820 and 2,460
	withChange2 := fakeMass(2, 2, 0)
	cases := []struct {
		name   string
		req    BuildRequest
		view   LedgerView
		inputs []string
		change uint64 // 0: no change output
		stats  SelectionStats
	}{
		{"largest first, smallest sufficient prefix", buildReq(9 * m),
			view(groupUTXO("a", 5*m, 100), groupUTXO("b", 3*m, 100), groupUTXO("c", 8*m, 100), groupUTXO("d", 1*m, 100)),
			[]string{"c", "a"}, 13*m - 9*m - withChange2, SelectionStats{Eligible: 4}},
		{"one input when the largest suffices", buildReq(7 * m),
			view(groupUTXO("a", 5*m, 100), groupUTXO("c", 8*m, 100)),
			[]string{"c"}, 8*m - 7*m - withChange1, SelectionStats{Eligible: 2}},
		{"exactly deep is deep enough; one score less is too shallow", buildReq(1 * m),
			view(groupUTXO("shallow", 100*m, virtualScore-299), groupUTXO("deep", 5*m, virtualScore-300)),
			[]string{"deep"}, 4*m - withChange1, SelectionStats{Eligible: 1, DepthRejects: 1}},
		{"depth is judged against the view's virtual score",
			buildReq(1 * m), LedgerView{VirtualDAAScore: virtualScore + 1, UTXOs: []UTXO{groupUTXO("shallow", 100*m, virtualScore-299), groupUTXO("deep", 5*m, virtualScore-300)}},
			[]string{"shallow"}, 99*m - withChange1, SelectionStats{Eligible: 2}},
		{"an immature coinbase is left out, a mature one taken", buildReq(1 * m),
			view(coinbase(groupUTXO("young", 50*m, virtualScore-1000)), coinbase(groupUTXO("old", 40*m, virtualScore-1001)), groupUTXO("plain", 30*m, virtualScore-1000)),
			[]string{"old"}, 39*m - withChange1, SelectionStats{Eligible: 2, MaturityRejects: 1}},
		{"other scripts are not the group's and not counted", buildReq(1 * m),
			view(otherScript(groupUTXO("foreign", 100*m, 100)), groupUTXO("own", 2*m, 100)),
			[]string{"own"}, 1*m - withChange1, SelectionStats{Eligible: 1}},
		{"equal amounts in outpoint order", buildReq(1 * m),
			view(groupUTXO("x", 5*m, 100), groupUTXO("y", 5*m, 100), groupUTXO("z", 5*m, 100)),
			[]string{lowestOutpoint("x", "y", "z")}, 4*m - withChange1, SelectionStats{Eligible: 3}},
		{"a remainder below MinChange goes to the fee", buildReq(1*m, func(r *BuildRequest) { r.Policy.MinChange = 1000 }),
			view(groupUTXO("a", 1*m+withChange1+999, 100)), []string{"a"}, 0, SelectionStats{Eligible: 1}},
		{"a remainder of exactly MinChange is change", buildReq(1*m, func(r *BuildRequest) { r.Policy.MinChange = 1000 }),
			view(groupUTXO("a", 1*m+withChange1+1000, 100)), []string{"a"}, 1000, SelectionStats{Eligible: 1}},
		{"without MinChange a remainder of 1 is change", buildReq(1 * m),
			view(groupUTXO("a", 1*m+withChange1+1, 100)), []string{"a"}, 1, SelectionStats{Eligible: 1}},
		{"a remainder of 0 is no change output", buildReq(1 * m),
			view(groupUTXO("a", 1*m+withChange1, 100)), []string{"a"}, 0, SelectionStats{Eligible: 1}},
		{"exact cover of the fee without change", buildReq(1 * m),
			view(groupUTXO("a", 1*m+noChange1, 100)), []string{"a"}, 0, SelectionStats{Eligible: 1}},
		{"one more input when the first misses the fee", buildReq(1 * m),
			view(groupUTXO("a", 1*m+noChange1-1, 100), groupUTXO("b", 5000, 100)), []string{"a", "b"},
			1*m + noChange1 - 1 + 5000 - 1*m - withChange2, SelectionStats{Eligible: 2}},
		{"MaxUTXOsPerProposal inputs at most", buildReq(3500_000, func(r *BuildRequest) { r.Params.MaxUTXOsPerProposal = 4 }),
			view(groupUTXO("a", m, 1), groupUTXO("b", m-1, 2), groupUTXO("c", m-2, 3), groupUTXO("d", m-3, 4), groupUTXO("e", m-4, 5)),
			[]string{"a", "b", "c", "d"}, 4*m - 6 - 3500_000 - fakeMass(4, 2, 0), SelectionStats{Eligible: 5}},
		{"MaxFee admits the fee", buildReq(1*m, func(r *BuildRequest) { r.Policy.MaxFee = withChange1 }),
			view(groupUTXO("a", 2*m, 100)), []string{"a"}, 1*m - withChange1, SelectionStats{Eligible: 1}},
		{"held by another payout", buildReq(1*m, func(r *BuildRequest) { r.Exclude = map[Outpoint]bool{op("big", 0): true} }),
			view(groupUTXO("big", 9*m, 100), groupUTXO("small", 2*m, 100)), []string{"small"}, 1*m - withChange1,
			SelectionStats{Eligible: 1, ExcludedRejects: 1}},
	}
	mempool := view(groupUTXO("big", 9*m, 100), groupUTXO("small", 2*m, 100))
	mempool.MempoolSpent[op("big", 0)] = hashByte(0xee)
	cases = append(cases, struct {
		name   string
		req    BuildRequest
		view   LedgerView
		inputs []string
		change uint64
		stats  SelectionStats
	}{"an output a pending transaction spends is never selected", buildReq(1 * m), mempool, []string{"small"}, 1*m - withChange1,
		SelectionStats{Eligible: 1, MempoolRejects: 1}})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tpl, used, st, err := BuildTemplate(c.req, c.view)
			if err != nil {
				t.Fatalf("BuildTemplate: %v", err)
			}
			if st != c.stats {
				t.Errorf("stats %+v, want %+v", st, c.stats)
			}
			if got, want := tpl.Outpoints(), inputNames(c.inputs...); !slices.Equal(got, want) {
				t.Fatalf("inputs %v, want %v", got, want)
			}
			for i, u := range used {
				if u.Outpoint != tpl.Inputs[i].Outpoint || tpl.Inputs[i].Amount != u.Amount || !tpl.Inputs[i].Script.Equal(groupScript) || tpl.Inputs[i].SigOpCount != 1 {
					t.Fatalf("input %d %+v is not the rules' input of %+v", i, tpl.Inputs[i], u)
				}
			}
			if len(used) != len(c.inputs) {
				t.Fatalf("%d outputs used, %d inputs", len(used), len(c.inputs))
			}
			pay := TemplateOutput{Amount: c.req.Event.Amount, Script: payTo("alice")}
			if len(tpl.Outputs) == 0 || tpl.Outputs[0].Amount != pay.Amount || !tpl.Outputs[0].Script.Equal(pay.Script) {
				t.Fatalf("first output %+v, want the payout %+v", tpl.Outputs, pay)
			}
			switch {
			case c.change == 0 && len(tpl.Outputs) != 1:
				t.Fatalf("outputs %+v, want no change", tpl.Outputs)
			case c.change > 0 && (len(tpl.Outputs) != 2 || tpl.Outputs[1].Amount != c.change || !tpl.Outputs[1].Script.Equal(groupScript)):
				t.Fatalf("outputs %+v, want change %d to the group", tpl.Outputs, c.change)
			}
			fee, err := tpl.Fee()
			if err != nil {
				t.Fatal(err)
			}
			mass, _ := fakeRules{}.Mass(tpl)
			if fee < mass*c.req.Params.FeeRate {
				t.Fatalf("fee %d below mass %d", fee, mass)
			}
		})
	}
}

func lowestOutpoint(names ...string) string {
	best := names[0]
	for _, n := range names[1:] {
		if op(n, 0).Less(op(best, 0)) {
			best = n
		}
	}
	return best
}

func TestBuildTemplateInsufficient(t *testing.T) {
	const m = 1_000_000
	v := view(
		groupUTXO("shallow", 50*m, virtualScore-1),
		coinbase(groupUTXO("young", 50*m, virtualScore-10)),
		groupUTXO("pending", 50*m, 100),
		groupUTXO("held", 50*m, 100),
		groupUTXO("small", 1*m, 100),
		otherScript(groupUTXO("foreign", 50*m, 100)),
	)
	v.MempoolSpent[op("pending", 0)] = hashByte(1)
	req := buildReq(2*m, func(r *BuildRequest) { r.Exclude = map[Outpoint]bool{op("held", 0): true} })
	_, used, st, err := BuildTemplate(req, v)
	if !errors.Is(err, ErrInsufficientDeepUTXOs) {
		t.Fatalf("err = %v, want ErrInsufficientDeepUTXOs", err)
	}
	if used != nil {
		t.Fatalf("outputs used on failure: %v", used)
	}
	if want := (SelectionStats{Eligible: 1, DepthRejects: 1, MaturityRejects: 1, MempoolRejects: 1, ExcludedRejects: 1}); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if want := "1 eligible outputs (1 too shallow, 1 immature coinbase, 1 spent in the mempool, 1 held by other payouts) do not cover 2000000"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}

	more := []struct {
		name string
		req  BuildRequest
		view LedgerView
	}{
		{"an empty view", buildReq(1), view()},
		{"the fee is not covered", buildReq(1 * m), view(groupUTXO("a", 1*m+fakeMass(1, 1, 0)-1, 100))},
		{"MaxUTXOsPerProposal too few", buildReq(3500_000, func(r *BuildRequest) { r.Params.MaxUTXOsPerProposal = 3 }),
			view(groupUTXO("a", m, 1), groupUTXO("b", m, 2), groupUTXO("c", m, 3), groupUTXO("d", m, 4))},
		{"MaxFee below every template's fee", buildReq(1*m, func(r *BuildRequest) { r.Policy.MaxFee = fakeMass(1, 1, 0) - 1 }),
			view(groupUTXO("a", 2*m, 100))},
		{"MaxFee below the remainder that would go to the fee", buildReq(1*m, func(r *BuildRequest) {
			r.Policy.MaxFee, r.Policy.MinChange = fakeMass(1, 2, 0)+10, 1*m
		}), view(groupUTXO("a", 1*m+fakeMass(1, 2, 0)+500, 100))},
	}
	for _, c := range more {
		t.Run(c.name, func(t *testing.T) {
			if _, _, _, err := BuildTemplate(c.req, c.view); !errors.Is(err, ErrInsufficientDeepUTXOs) {
				t.Fatalf("err = %v, want ErrInsufficientDeepUTXOs", err)
			}
		})
	}
}

func TestBuildTemplateRulesErrors(t *testing.T) {
	v := view(groupUTXO("a", 5_000_000, 100))
	req := buildReq(1_000_000)
	req.Event.Destination = "btc:nope"
	if _, _, _, err := BuildTemplate(req, v); !errors.Is(err, errFakeAddress) || errors.Is(err, ErrInsufficientDeepUTXOs) {
		t.Fatalf("bad destination: %v", err)
	}
	req = buildReq(1_000_000, func(r *BuildRequest) { r.Rules = fakeRules{maxMass: 2000} })
	if _, _, _, err := BuildTemplate(req, v); err == nil || errors.Is(err, ErrInsufficientDeepUTXOs) || !strings.Contains(err.Error(), "mass") {
		t.Fatalf("mass refused by the rules: %v", err)
	}
}

// The template starts from the rules' base: version, lock time, subnetwork,
// gas and payload, the payload's mass included in the fee.
func TestBuildTemplateUsesBase(t *testing.T) {
	base := Template{Version: 3, LockTime: 11, SubnetworkID: [20]byte{1}, Gas: 12, Payload: []byte("memo")}
	req := buildReq(1_000_000, func(r *BuildRequest) { r.Rules = fakeRules{base: base} })
	tpl, _, _, err := BuildTemplate(req, view(groupUTXO("a", 5_000_000, 100)))
	if err != nil {
		t.Fatal(err)
	}
	if tpl.Version != 3 || tpl.LockTime != 11 || tpl.SubnetworkID != base.SubnetworkID || tpl.Gas != 12 || string(tpl.Payload) != "memo" {
		t.Fatalf("base not kept: %+v", tpl)
	}
	if fee, _ := tpl.Fee(); fee != fakeMass(1, 2, 4) {
		t.Fatalf("fee %d, want the mass with the payload %d", fee, fakeMass(1, 2, 4))
	}
}

// Signers with equal views build equal templates, whatever order their
// node listed the outputs in.
func TestBuildTemplateIgnoresViewOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(rt, "outputs")
		var utxos []UTXO
		for i := 0; i < n; i++ {
			u := groupUTXO(string(rune('a'+i)), rapid.Uint64Range(1, 5).Draw(rt, "amount")*1_000_000,
				rapid.Uint64Range(9_000, virtualScore).Draw(rt, "daa"))
			u.Coinbase = rapid.Bool().Draw(rt, "coinbase")
			utxos = append(utxos, u)
		}
		req := buildReq(rapid.Uint64Range(1, 20).Draw(rt, "amount")*500_000,
			func(r *BuildRequest) { r.Policy.MinChange = rapid.Uint64Range(0, 10_000).Draw(rt, "min change") })
		t1, _, st1, err1 := BuildTemplate(req, view(utxos...))
		t2, _, st2, err2 := BuildTemplate(req, view(rapid.Permutation(utxos).Draw(rt, "order")...))
		if (err1 == nil) != (err2 == nil) || st1 != st2 || t1.Hash() != t2.Hash() {
			rt.Fatalf("order changed the result: %v/%v, %+v/%+v", err1, err2, st1, st2)
		}
	})
}

func TestRevalidate(t *testing.T) {
	const m = 1_000_000
	a, b := groupUTXO("a", 5*m, 100), groupUTXO("b", 3*m, 200)
	req := buildReq(7 * m)
	tpl, _, _, err := BuildTemplate(req, view(a, b))
	if err != nil {
		t.Fatal(err)
	}
	own := fakeRules{}.TxID(tpl)
	p := req.Params
	changed := func(u UTXO, edit func(*UTXO)) UTXO { edit(&u); return u }
	spentBy := func(v LedgerView, o Outpoint, by Hash) LedgerView { v.MempoolSpent[o] = by; return v }
	cases := []struct {
		name   string
		view   LedgerView
		reason string // "": passes
		at     Outpoint
	}{
		{"unchanged", view(a, b), "", Outpoint{}},
		{"spent by its own transaction", spentBy(view(a, b), a.Outpoint, own), "", Outpoint{}},
		{"missing", view(a), "missing", b.Outpoint},
		{"amount changed", view(a, changed(b, func(u *UTXO) { u.Amount++ })), "changed", b.Outpoint},
		{"script changed", view(changed(a, func(u *UTXO) { u.Script = payTo("other") }), b), "changed", a.Outpoint},
		{"script version changed", view(changed(a, func(u *UTXO) { u.Script.Version = 1 }), b), "changed", a.Outpoint},
		{"spent by another pending transaction", spentBy(view(a, b), b.Outpoint, hashByte(0xee)), "spent_in_mempool", b.Outpoint},
		{"reorganised to a shallow block", view(a, changed(b, func(u *UTXO) { u.DAAScore = virtualScore - 299 })), "too_shallow", b.Outpoint},
		{"a view behind the depth", LedgerView{VirtualDAAScore: 499, UTXOs: []UTXO{a, b}}, "too_shallow", b.Outpoint},
		{"now an immature coinbase", view(a, changed(b, func(u *UTXO) { u.Coinbase, u.DAAScore = true, virtualScore-1000 })), "immature_coinbase", b.Outpoint},
		{"a mature coinbase passes", view(a, changed(b, func(u *UTXO) { u.Coinbase, u.DAAScore = true, virtualScore-1001 })), "", Outpoint{}},
		{"the first failing input is named", view(), "missing", a.Outpoint},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Revalidate(tpl, own, c.view, p)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var f *RevalidationFailure
			if !errors.As(err, &f) || !errors.Is(err, ErrRevalidation) {
				t.Fatalf("err = %v, want a RevalidationFailure", err)
			}
			if f.Reason != c.reason || f.Outpoint != c.at {
				t.Fatalf("failure %s at %s, want %s at %s", f.Reason, f.Outpoint, c.reason, c.at)
			}
		})
	}
}

func TestDead(t *testing.T) {
	a, b := groupUTXO("a", 5_000_000, 100), groupUTXO("b", 3_000_000, 200)
	tpl := Template{Inputs: []TemplateInput{fakeRules{}.Input(a), fakeRules{}.Input(b)}}
	own := hashByte(0xaa)
	created := []uint64{a.DAAScore, b.DAAScore}
	spentBy := func(v LedgerView, by Hash) LedgerView { v.MempoolSpent[b.Outpoint] = by; return v }
	cases := []struct {
		name    string
		view    LedgerView
		created []uint64
		dead    bool
	}{
		{"every input there", view(a, b), created, false},
		{"an input spent by another pending transaction", spentBy(view(a, b), hashByte(0xbb)), created, true},
		{"an input spent by this template", spentBy(view(a, b), own), created, false},
		{"an input gone after it was created", view(a), created, true},
		{"an input gone, created at the view's score", LedgerView{VirtualDAAScore: 200, UTXOs: []UTXO{a}}, created, true},
		{"an input not yet seen by a lagging view", LedgerView{VirtualDAAScore: 199, UTXOs: []UTXO{a}}, created, false},
		{"an input gone whose creation is unknown", view(a), created[:1], false},
		{"too shallow is not dead", LedgerView{VirtualDAAScore: 250, UTXOs: []UTXO{a, b}}, created, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Dead(tpl, own, c.created, c.view); got != c.dead {
				t.Fatalf("Dead = %v, want %v", got, c.dead)
			}
		})
	}
}
