package devchain

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestAuditProblems: a chain where every deposit was minted once and
// every withdrawal claimed once passes; each way of paying wrongly (twice,
// never, to someone else, for nothing sent) and each balance that does not
// add up is named.
func TestAuditProblems(t *testing.T) {
	alice, bob := common.HexToAddress("0xa1"), common.HexToAddress("0xb0")
	key := func(n int64) common.Hash { return common.BigToHash(big.NewInt(n)) }
	tx := func(n int64) common.Hash { return common.BigToHash(big.NewInt(1000 + n)) }
	// alice locks 10 and 20, is minted both, burns 5 to bob, claimed.
	good := func() Audit {
		return Audit{
			Locks:    []Transfer{{Key: key(1), Tx: tx(1), From: alice, To: alice, Amount: big.NewInt(10)}, {Key: key(2), Tx: tx(2), From: alice, To: alice, Amount: big.NewInt(20)}},
			Mints:    []Transfer{{Key: key(1), Tx: tx(3), To: alice, Amount: big.NewInt(10)}, {Key: key(2), Tx: tx(4), To: alice, Amount: big.NewInt(20)}},
			Burns:    []Transfer{{Key: key(7), Tx: tx(5), From: alice, To: bob, Amount: big.NewInt(5)}},
			Claims:   []Transfer{{Key: key(7), Tx: tx(6), To: bob, Amount: big.NewInt(5)}},
			Supply:   big.NewInt(25),
			Locked:   big.NewInt(25),
			Balances: map[common.Address]*big.Int{alice: big.NewInt(25)},
		}
	}
	if p := good().Problems(Counts{Locks: 2, Burns: 1}); len(p) != 0 {
		t.Fatalf("a good chain: %v", p)
	}
	if p := good().Problems(Counts{Locks: -1, Burns: -1, KaspaBurns: -1}); len(p) != 0 {
		t.Fatalf("a good chain, counts not given: %v", p)
	}
	for _, c := range []struct {
		name   string
		change func(a *Audit)
		counts [2]int
		want   []string
	}{
		{"counts", func(a *Audit) {}, [2]int{3, 2}, []string{"2 deposits locked on chain, 3 sent", "1 withdrawals burned on chain, 2 sent"}},
		{"minted twice", func(a *Audit) {
			a.Mints = append(a.Mints, Transfer{Key: key(1), Tx: tx(9), To: alice, Amount: big.NewInt(10)})
			a.Supply, a.Balances[alice] = big.NewInt(35), big.NewInt(35)
		}, [2]int{2, 1}, []string{"deposit in tx " + tx(1).Hex() + " minted 2 times, want once"}},
		{"never claimed", func(a *Audit) { a.Claims, a.Locked = nil, big.NewInt(30) }, [2]int{2, 1},
			[]string{"withdrawal in tx " + tx(5).Hex() + " claimed 0 times"}},
		{"claimed to someone else", func(a *Audit) { a.Claims[0].To = alice }, [2]int{2, 1},
			[]string{"withdrawal in tx " + tx(5).Hex() + " of 5 to " + bob.Hex() + " claimed as 5 to " + alice.Hex()}},
		{"a claim for nothing burned", func(a *Audit) {
			a.Claims = append(a.Claims, Transfer{Key: key(8), Tx: tx(9), To: bob, Amount: big.NewInt(1)})
			a.Locked = big.NewInt(24)
		}, [2]int{2, 1}, []string{"claimed for no withdrawal sent: in tx " + tx(9).Hex()}},
		{"supply", func(a *Audit) { a.Supply = big.NewInt(26) }, [2]int{2, 1}, []string{"token supply 26, want 25"}},
		{"locked pool", func(a *Audit) { a.Locked = big.NewInt(30) }, [2]int{2, 1}, []string{"locked pool 30, want 25"}},
		{"a balance", func(a *Audit) { a.Balances[alice] = big.NewInt(30) }, [2]int{2, 1},
			[]string{"token balance of " + alice.Hex() + " is 30, want 25"}},
	} {
		a := good()
		c.change(&a)
		got := strings.Join(a.Problems(Counts{Locks: c.counts[0], Burns: c.counts[1]}), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: problems\n%s\nlack %q", c.name, got, w)
			}
		}
		if n := len(a.Problems(Counts{Locks: c.counts[0], Burns: c.counts[1]})); n != len(c.want) {
			t.Errorf("%s: %d problems, want %d:\n%s", c.name, n, len(c.want), got)
		}
	}
}

// TestAuditProblemsKaspaBurns: burns toward Kaspa count in the supply and
// their burner's balance, and a chain that lacks one, logs one twice,
// skips an id or keeps their tokens in the supply is named.
func TestAuditProblemsKaspaBurns(t *testing.T) {
	alice, bob := common.HexToAddress("0xa1"), common.HexToAddress("0xb0")
	id := func(n int64) common.Hash { return common.BigToHash(big.NewInt(n)) }
	tx := func(n int64) common.Hash { return common.BigToHash(big.NewInt(1000 + n)) }
	kaspaBurn := func(n int64, from common.Address, amount int64) Transfer {
		return Transfer{Key: id(n), Tx: tx(10 + n), From: from, KaspaRecipient: "kaspasim:q" + string(rune('a'+n)), Amount: big.NewInt(amount)}
	}
	// alice and bob lock and are minted 100 each; alice burns 30 and 20
	// toward Kaspa (ids 1, 3), bob 40 (id 2).
	good := func() Audit {
		return Audit{
			Locks: []Transfer{{Key: id(1), Tx: tx(1), From: alice, To: alice, Amount: big.NewInt(100)},
				{Key: id(2), Tx: tx(2), From: bob, To: bob, Amount: big.NewInt(100)}},
			Mints: []Transfer{{Key: id(1), Tx: tx(3), To: alice, Amount: big.NewInt(100)},
				{Key: id(2), Tx: tx(4), To: bob, Amount: big.NewInt(100)}},
			KaspaBurns: []Transfer{kaspaBurn(1, alice, 30), kaspaBurn(2, bob, 40), kaspaBurn(3, alice, 20)},
			Supply:     big.NewInt(110),
			Locked:     big.NewInt(200),
			Balances:   map[common.Address]*big.Int{alice: big.NewInt(50), bob: big.NewInt(60)},
		}
	}
	sent := Counts{Locks: 2, KaspaBurns: 3}
	if p := good().Problems(sent); len(p) != 0 {
		t.Fatalf("a good chain: %v", p)
	}
	if s := good().Summary(); !strings.Contains(s, "; 3 burns toward Kaspa;") {
		t.Fatalf("summary %q does not count the burns toward Kaspa", s)
	}
	for _, c := range []struct {
		name   string
		change func(a *Audit)
		want   []string
	}{
		{"one never burned", func(a *Audit) {
			a.KaspaBurns = slices.Delete(a.KaspaBurns, 1, 2)
			a.Supply, a.Balances[bob] = big.NewInt(150), big.NewInt(100)
		}, []string{"2 burns toward Kaspa on chain, 3 sent", "burns toward Kaspa lack ids 2 (the highest is 3)"}},
		{"the last never burned", func(a *Audit) {
			a.KaspaBurns = a.KaspaBurns[:2]
			a.Supply, a.Balances[alice] = big.NewInt(130), big.NewInt(70)
		}, []string{"2 burns toward Kaspa on chain, 3 sent"}},
		{"one logged twice", func(a *Audit) {
			a.KaspaBurns = append(a.KaspaBurns, kaspaBurn(2, bob, 40))
			a.Supply, a.Balances[bob] = big.NewInt(70), big.NewInt(20)
		}, []string{"4 burns toward Kaspa on chain, 3 sent", "burn toward Kaspa id 2 logged 2 times, want once"}},
		{"ids from 0", func(a *Audit) {
			for i := range a.KaspaBurns {
				a.KaspaBurns[i].Key = id(int64(i))
			}
		}, []string{"burn toward Kaspa in tx " + tx(11).Hex() + " has id 0; ids count from 1"}},
		{"a far id", func(a *Audit) { a.KaspaBurns[2].Key = id(1000) },
			[]string{"burns toward Kaspa lack ids 3, 4, 5, 6, 7 and 992 more (the highest is 1000)"}},
		{"supply keeps what went to Kaspa", func(a *Audit) { a.Supply = big.NewInt(200) },
			[]string{"token supply 200, want 110 (minted and refunded less burned)"}},
		{"a burner's balance keeps it", func(a *Audit) { a.Balances[alice] = big.NewInt(100) },
			[]string{"token balance of " + alice.Hex() + " is 100, want 50"}},
	} {
		a := good()
		c.change(&a)
		wantProblems(t, c.name, a.Problems(sent), c.want)
	}
}

// TestAuditProblemsRefunds: a refused burn toward Kaspa minted back to its
// burner once counts in the supply and the burner's balance; a refund
// twice, to someone else, of another amount or of no burn is named, and
// RefundsOf finds a burn's refunds by its guard key.
func TestAuditProblemsRefunds(t *testing.T) {
	alice, bob := common.HexToAddress("0xa1"), common.HexToAddress("0xb0")
	h := func(n int64) common.Hash { return common.BigToHash(big.NewInt(n)) }
	// alice is minted 100 and burns 30 (refund key 51) and 20 (key 52)
	// toward Kaspa; the first is refunded.
	good := func() Audit {
		return Audit{
			Locks: []Transfer{{Key: h(1), Tx: h(1001), From: alice, To: alice, Amount: big.NewInt(100)}},
			Mints: []Transfer{{Key: h(1), Tx: h(1002), To: alice, Amount: big.NewInt(100)}},
			KaspaBurns: []Transfer{{Key: h(1), Tx: h(1003), From: alice, KaspaRecipient: "kaspasim:qa", Amount: big.NewInt(30), RefundKey: h(51)},
				{Key: h(2), Tx: h(1004), From: alice, KaspaRecipient: "kaspasim:qb", Amount: big.NewInt(20), RefundKey: h(52)}},
			Refunds:  []Transfer{{Key: h(51), Tx: h(1005), To: alice, Amount: big.NewInt(30)}},
			Supply:   big.NewInt(80),
			Locked:   big.NewInt(100),
			Balances: map[common.Address]*big.Int{alice: big.NewInt(80), bob: big.NewInt(0)},
		}
	}
	sent := Counts{Locks: 1, KaspaBurns: 2}
	a := good()
	if p := a.Problems(sent); len(p) != 0 {
		t.Fatalf("a good chain: %v", p)
	}
	if got := a.RefundsOf(a.KaspaBurns[0]); len(got) != 1 || got[0].Tx != h(1005) {
		t.Fatalf("refunds of the refunded burn: %v", got)
	}
	if got := a.RefundsOf(a.KaspaBurns[1]); len(got) != 0 {
		t.Fatalf("refunds of a burn not refunded: %v", got)
	}
	if s := a.Summary(); !strings.Contains(s, "; 2 burns toward Kaspa, 1 refunded;") {
		t.Fatalf("summary %q does not count the refund", s)
	}
	for _, c := range []struct {
		name   string
		change func(a *Audit)
		want   []string
	}{
		{"refunded twice", func(a *Audit) {
			a.Refunds = append(a.Refunds, Transfer{Key: h(51), Tx: h(1006), To: alice, Amount: big.NewInt(30)})
			a.Supply, a.Balances[alice] = big.NewInt(110), big.NewInt(110)
		}, []string{"burn toward Kaspa in tx " + h(1003).Hex() + " refunded more than once"}},
		{"refunded to someone else", func(a *Audit) {
			a.Refunds[0].To = bob
			a.Balances[alice], a.Balances[bob] = big.NewInt(50), big.NewInt(30)
		}, []string{"burn toward Kaspa in tx " + h(1003).Hex() + " of 30 by " + alice.Hex() + " refunded as 30 to " + bob.Hex()}},
		{"refunded another amount", func(a *Audit) {
			a.Refunds[0].Amount = big.NewInt(31)
			a.Supply, a.Balances[alice] = big.NewInt(81), big.NewInt(81)
		}, []string{"refunded as 31 to"}},
		{"a refund of no burn", func(a *Audit) {
			a.Refunds[0].Key = h(99)
		}, []string{"refund in tx " + h(1005).Hex() + " (key " + h(99).Hex() + ") returns no burn toward Kaspa"}},
		{"supply without the refund", func(a *Audit) { a.Supply = big.NewInt(50) },
			[]string{"token supply 50, want 80 (minted and refunded less burned)"}},
		{"the burner's balance without it", func(a *Audit) { a.Balances[alice] = big.NewInt(50) },
			[]string{"token balance of " + alice.Hex() + " is 50, want 80"}},
	} {
		a := good()
		c.change(&a)
		wantProblems(t, c.name, a.Problems(sent), c.want)
	}
}

// wantProblems fails the test unless p are exactly the problems want
// (each a part of one).
func wantProblems(t *testing.T, name string, p, want []string) {
	t.Helper()
	got := strings.Join(p, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: problems\n%s\nlack %q", name, got, w)
		}
	}
	if len(p) != len(want) {
		t.Errorf("%s: %d problems, want %d:\n%s", name, len(p), len(want), got)
	}
}
