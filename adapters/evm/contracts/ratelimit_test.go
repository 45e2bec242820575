package contracts_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts/contractstest"
)

func readLimit(t *testing.T, c *contractstest.Chain, addr common.Address) contracts.RateLimitState {
	t.Helper()
	st, err := contracts.ReadRateLimit(context.Background(), c.Client, addr)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// advance seals a block exactly d after the latest, so the bucket's refill is known to the wei.
func advance(t *testing.T, c *contractstest.Chain, d time.Duration) {
	t.Helper()
	if err := c.Sim.AdjustTime(d); err != nil {
		t.Fatal(err)
	}
}

func wantAvailable(t *testing.T, c *contractstest.Chain, addr common.Address, want *big.Int) {
	t.Helper()
	if got := readLimit(t, c, addr).Available; got.Cmp(want) != 0 {
		t.Fatalf("available %s, want %s", got, want)
	}
}

// TestMintRateLimitBucket: the token's bucket starts full, a mint takes from it, it refills at
// its rate up to its capacity and no further; a mint of exactly what it holds passes, one wei
// more reverts RateLimited naming what it holds and the seconds to wait, and one over the
// capacity reverts RateLimitOverCapacity. Refunds take from the same bucket.
func TestMintRateLimitBucket(t *testing.T) {
	limit := contracts.RateLimit{Capacity: eth(10), PerSecond: eth(1)}
	c := contractstest.New(t, contractstest.Config{MintLimit: limit})
	tok, user := c.TokenContract(), c.Users[0].Address
	st := readLimit(t, c, c.TokenAddr)
	if st.Capacity.Cmp(eth(10)) != 0 || st.PerSecond.Cmp(eth(1)) != 0 || st.Available.Cmp(eth(10)) != 0 {
		t.Fatalf("fresh bucket %+v, want capacity 10 ether, 1 ether/s, full", st)
	}
	send(t, c, c.Relayer, tok, c.Token.PackMint(user, eth(10), [32]byte{1}), nil)
	wantAvailable(t, c, c.TokenAddr, big.NewInt(0))

	advance(t, c, 3*time.Second)
	wantAvailable(t, c, c.TokenAddr, eth(3))
	over := new(big.Int).Add(eth(3), big.NewInt(1))
	re := mustRevert(t, c, c.Relayer, tok, c.Token.PackMint(user, over, [32]byte{2}), nil, contracts.ErrRateLimited)
	if re.Args["requested"].(*big.Int).Cmp(over) != 0 || re.Args["available"].(*big.Int).Cmp(eth(3)) != 0 ||
		re.Args["waitSeconds"].(*big.Int).Int64() != 1 {
		t.Fatalf("revert %v, want requested 3 ether + 1 wei, available 3 ether, wait 1 s", re)
	}
	// The estimate ran at the block holding exactly 3 ether; the mint lands a second or more later.
	send(t, c, c.Relayer, tok, c.Token.PackMint(user, eth(3), [32]byte{2}), nil)

	advance(t, c, time.Hour)
	wantAvailable(t, c, c.TokenAddr, eth(10)) // capped at the capacity
	mustRevert(t, c, c.Relayer, tok, c.Token.PackMint(user, eth(11), [32]byte{3}), nil, contracts.ErrOverRateLimitCapacity)
	send(t, c, c.Relayer, tok, c.Token.PackRefund(user, eth(4), [32]byte{4}), nil)
	wantAvailable(t, c, c.TokenAddr, eth(6))
	// The deposit keys of the refused mints were not used up.
	if minted := call(t, tok, c.Token.PackMinted([32]byte{3}), c.Token.UnpackMinted); minted {
		t.Fatal("a refused mint marked its deposit key minted")
	}
}

// TestClaimRateLimitBucket: claims take from the distributor's bucket; a claim that does not
// fit reverts RateLimited and pays nothing, and the same claim pays once the bucket refilled.
func TestClaimRateLimitBucket(t *testing.T) {
	c := contractstest.New(t, contractstest.Config{ClaimLimit: contracts.RateLimit{Capacity: eth(5), PerSecond: eth(1)}})
	d := c.DistributorContract()
	send(t, c, c.Users[0], d, c.Distributor.PackLock(c.Users[0].Address), eth(100))
	ws := []withdrawal{
		{big.NewInt(1), c.Users[0].Address, c.Users[1].Address, eth(4)},
		{big.NewInt(2), c.Users[0].Address, c.Users[2].Address, eth(4)},
	}
	tr, _ := batch(t, c, 1, ws)
	send(t, c, c.Relayer, d, c.Distributor.PackAnchor(big.NewInt(1), tr.Root()), nil)
	claim := func(i int) []byte {
		w := ws[i]
		return c.Distributor.PackClaim(big.NewInt(1), w.txID, w.funder, w.recipient, w.amount, proofOf(t, tr, i))
	}
	send(t, c, c.Users[3], d, claim(0), nil)
	before := balance(t, c, ws[1].recipient)
	mustRevert(t, c, c.Users[3], d, claim(1), nil, contracts.ErrRateLimited)
	if balance(t, c, ws[1].recipient).Cmp(before) != 0 {
		t.Fatal("a rate-limited claim paid")
	}
	advance(t, c, 3*time.Second)
	send(t, c, c.Users[3], d, claim(1), nil)
	if got := new(big.Int).Sub(balance(t, c, ws[1].recipient), before); got.Cmp(eth(4)) != 0 {
		t.Fatalf("claim paid %s, want 4 ether", got)
	}
	mustRevert(t, c, c.Users[3], d, claim(1), nil, contracts.ErrAlreadyProcessed)
}

// TestSetRateLimitIsAdminOnly: only the admin sets a limit; a zero capacity or rate is refused
// (BadRateLimit) on chain and by the Go check before sending; a change emits RateLimitSet and
// cuts what the bucket holds to the new capacity.
func TestSetRateLimitIsAdminOnly(t *testing.T) {
	c := contractstest.New(t, contractstest.Config{})
	for _, addr := range []common.Address{c.TokenAddr, c.DistributorAddr} {
		bc := c.Token.Instance(c.Client, addr)
		mustRevert(t, c, c.Relayer, bc, c.Token.PackSetRateLimit(eth(1), eth(1)), nil, contracts.ErrUnauthorized)
		for _, bad := range [][2]*big.Int{{big.NewInt(0), eth(1)}, {eth(1), big.NewInt(0)},
			{new(big.Int).Lsh(big.NewInt(1), 128), eth(1)}} {
			mustRevert(t, c, c.Admin, bc, c.Token.PackSetRateLimit(bad[0], bad[1]), nil, contracts.ErrBadRateLimit)
			_, err := contracts.SetRateLimit(c.Opts(context.Background(), c.Admin), c.Client, addr,
				contracts.RateLimit{Capacity: bad[0], PerSecond: bad[1]})
			if !errors.Is(err, contracts.ErrBadRateLimit) {
				t.Fatalf("Go check of %v: %v, want ErrBadRateLimit", bad, err)
			}
		}
		r := send(t, c, c.Admin, bc, c.Token.PackSetRateLimit(eth(2), big.NewInt(7)), nil)
		ev, err := c.Token.UnpackRateLimitSetEvent(r.Logs[0])
		if err != nil || ev.Capacity.Cmp(eth(2)) != 0 || ev.RatePerSecond.Int64() != 7 {
			t.Fatalf("RateLimitSet %+v (%v), want capacity 2 ether, rate 7", ev, err)
		}
		st := readLimit(t, c, addr)
		if st.Capacity.Cmp(eth(2)) != 0 || st.PerSecond.Int64() != 7 || st.Available.Cmp(eth(2)) != 0 {
			t.Fatalf("after the change %+v, want capacity and available 2 ether, rate 7", st)
		}
	}
}

// TestPerWindow: "amount per window" is a bucket of amount refilled in the window, its rate
// rounded up; a zero or negative amount, or a window under a second, is refused.
func TestPerWindow(t *testing.T) {
	r, err := contracts.PerWindow(eth(100), 24*time.Hour)
	if err != nil || r.Capacity.Cmp(eth(100)) != 0 || r.Window() != 24*time.Hour {
		t.Fatalf("%v (%v), want capacity 100 ether refilled in 24h", r, err)
	}
	if want := new(big.Int).Div(new(big.Int).Add(eth(100), big.NewInt(86399)), big.NewInt(86400)); r.PerSecond.Cmp(want) != 0 {
		t.Fatalf("rate %s, want %s", r.PerSecond, want)
	}
	for _, bad := range []struct {
		amount *big.Int
		window time.Duration
	}{{big.NewInt(0), time.Hour}, {big.NewInt(-1), time.Hour}, {nil, time.Hour}, {eth(1), 999 * time.Millisecond}, {eth(1), -time.Hour}} {
		if _, err := contracts.PerWindow(bad.amount, bad.window); !errors.Is(err, contracts.ErrBadRateLimit) {
			t.Errorf("PerWindow(%v, %s): %v, want ErrBadRateLimit", bad.amount, bad.window, err)
		}
	}
}
