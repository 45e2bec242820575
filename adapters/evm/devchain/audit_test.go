package devchain

import (
	"math/big"
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
	if p := good().Problems(2, 1); len(p) != 0 {
		t.Fatalf("a good chain: %v", p)
	}
	if p := good().Problems(-1, -1); len(p) != 0 {
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
		got := strings.Join(a.Problems(c.counts[0], c.counts[1]), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: problems\n%s\nlack %q", c.name, got, w)
			}
		}
		if n := len(a.Problems(c.counts[0], c.counts[1])); n != len(c.want) {
			t.Errorf("%s: %d problems, want %d:\n%s", c.name, n, len(c.want), got)
		}
	}
}
