package main

import (
	"bytes"
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspadproc"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
)

// fixedRefundCounts is a relay's refunds projection that says counts.
type fixedRefundCounts map[string]int64

func (f fixedRefundCounts) RefundCounts(context.Context) (map[string]int64, error) { return f, nil }

// TestDevnetRefundOutcome: the summary's refund judgement. Two burns to
// denied addresses refused by the group for that reason (by every member,
// or by a quorum while the third lags), each refunded once on chain and
// completed by the relay, make "refused 2, refunded 2" on the payouts
// line and pass; each way of differing (a burn refunded twice or never, a
// paid burn refunded, a payout refused, another reason, a refusal by one
// member only, a refund the relay failed) is named or counted and fails.
func TestDevnetRefundOutcome(t *testing.T) {
	addr := func() string {
		w, err := kaspa.NewRandomWallet(kaspadproc.Network)
		if err != nil {
			t.Fatal(err)
		}
		return w.Address().String()
	}
	k := &devnetKaspa{}
	for range 2 {
		w, err := kaspa.NewRandomWallet(kaspadproc.Network)
		if err != nil {
			t.Fatal(err)
		}
		k.refused = append(k.refused, kaspaOwed{address: w.Address(), sompi: 20_000_000})
	}
	denied0, denied1, paid := k.refused[0].address.String(), k.refused[1].address.String(), addr()
	alice := common.HexToAddress("0xa1")
	h := func(n int64) common.Hash { return common.BigToHash(big.NewInt(n)) }
	burn := func(n int64, to string) devchain.Transfer {
		return devchain.Transfer{Key: h(n), Tx: h(100 + n), From: alice, KaspaRecipient: to, Amount: big.NewInt(2e17), RefundKey: h(50 + n)}
	}
	refund := func(n int64) devchain.Transfer {
		return devchain.Transfer{Key: h(50 + n), Tx: h(200 + n), To: alice, Amount: big.NewInt(2e17)}
	}
	both := func() payoutRecord {
		return payoutRecord{refused: []refusedEvent{{denied0, twophase.RefusedDeniedDestination}, {denied1, twophase.RefusedDeniedDestination}}}
	}
	good := func() (devchain.Audit, []payoutRecord, fixedRefundCounts) {
		a := devchain.Audit{KaspaBurns: []devchain.Transfer{burn(1, paid), burn(2, denied0), burn(3, denied1)},
			Refunds: []devchain.Transfer{refund(2), refund(3)}}
		return a, []payoutRecord{both(), both(), both()}, fixedRefundCounts{projections.RefundCompleted: 2}
	}
	var w bytes.Buffer
	for _, lagging := range []bool{false, true} {
		a, recs, counts := good()
		if lagging {
			recs[0] = payoutRecord{}
		}
		k.relay = counts
		out := k.refundOutcome(context.Background(), a, recs)
		w.Reset()
		if !printKaspaSummary(&w, kaspaPaid{confirmed: 1}, 1, out, payoutRecord{}, "s1") ||
			!strings.Contains(w.String(), "kaspa payouts confirmed 1 / 1, refused 2, refunded 2   (") {
			t.Fatalf("a good run (a member lagging: %t): %+v\n%s", lagging, out, w.String())
		}
	}
	w.Reset()
	if !printKaspaSummary(&w, kaspaPaid{confirmed: 1}, 1, refundOutcome{}, payoutRecord{}, "s1") ||
		!strings.Contains(w.String(), "kaspa payouts confirmed 1 / 1   (") {
		t.Fatalf("a run without refused burns:\n%s", w.String())
	}
	for _, c := range []struct {
		name              string
		change            func(a *devchain.Audit, recs []payoutRecord, n fixedRefundCounts)
		refused, refunded int
		want              string
	}{
		{"refunded twice", func(a *devchain.Audit, _ []payoutRecord, _ fixedRefundCounts) {
			a.Refunds = append(a.Refunds, refund(2))
		}, 2, 1, "the refused burn toward " + denied0 + " in tx " + h(102).Hex() + " is refunded 2 times on chain, want once"},
		{"never refunded on chain", func(a *devchain.Audit, _ []payoutRecord, _ fixedRefundCounts) {
			a.Refunds = a.Refunds[:1]
		}, 2, 1, "the refused burn toward " + denied1 + " in tx " + h(103).Hex() + " is refunded 0 times on chain, want once"},
		{"a paid burn refunded", func(a *devchain.Audit, _ []payoutRecord, _ fixedRefundCounts) {
			a.Refunds = append(a.Refunds, refund(1))
		}, 2, 2, "the burn toward " + paid + " in tx " + h(101).Hex() + ", which the group pays, is refunded 1 times"},
		{"a payout refused", func(_ *devchain.Audit, recs []payoutRecord, _ fixedRefundCounts) {
			for i := range recs {
				recs[i].refused = append(recs[i].refused, refusedEvent{paid, twophase.RefusedUnpayableAmount})
			}
		}, 2, 2, "the group refused the payout to " + paid + " (unpayable_amount)"},
		{"another reason", func(_ *devchain.Audit, recs []payoutRecord, _ fixedRefundCounts) {
			for i := range recs {
				recs[i].refused[1].reason = twophase.RefusedNotAllowed
			}
		}, 1, 2, "the group refused the burn toward " + denied1 + " for policy_not_allowed, want policy_denied_destination"},
		{"refused by one member only", func(_ *devchain.Audit, recs []payoutRecord, _ fixedRefundCounts) {
			recs[0].refused, recs[1].refused = recs[0].refused[:1], recs[1].refused[:1]
		}, 1, 2, ""},
		{"the relay failed one", func(_ *devchain.Audit, _ []payoutRecord, n fixedRefundCounts) {
			n[projections.RefundCompleted], n[projections.RefundFailed] = 1, 1
		}, 2, 2, "the relay's refunds: 1 completed, 1 failed, 0 pending, 0 certificates refused; want 2 completed"},
	} {
		a, recs, n := good()
		c.change(&a, recs, n)
		k.relay = n
		out := k.refundOutcome(context.Background(), a, recs)
		w.Reset()
		ok := printKaspaSummary(&w, kaspaPaid{confirmed: 1}, 1, out, payoutRecord{}, "s1")
		problems, said := 1, strings.Contains(w.String(), "refunds differ          "+c.want)
		if c.want == "" { // only the count says it
			problems, said = 0, !strings.Contains(w.String(), "refunds differ")
		}
		if ok || out.refused != c.refused || out.refunded != c.refunded || len(out.problems) != problems || !said {
			t.Errorf("%s: ok %t, %+v, want refused %d, refunded %d and one problem %q:\n%s", c.name, ok, out, c.refused, c.refunded,
				c.want, w.String())
		}
	}
}
