package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/domain"
)

// TestFlowsKaspaPayouts: each Kaspa payout is a deposit of its amount
// among the deposits and a burn of exactly that toward its recipient among
// the withdrawals, by the same user; with a stand-in relay minting and
// claiming, the chain then passes the audit of what Run says it sent.
// Payouts the token would refuse, or that with the withdrawals burn more
// than their users get, are refused before anything is sent.
func TestFlowsKaspaPayouts(t *testing.T) {
	c, err := Start(Config{BlockInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	admin := c.Keys()[0]
	br, err := c.Deploy(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	u := Users{Backend: c.Client(), Bridge: br}
	keys := c.Keys()[1:3]
	payout := func(i int) KaspaPayout {
		return KaspaPayout{Recipient: devAddress(i), Amount: KaspaPayoutAmount(i)}
	}

	for _, r := range []struct {
		name string
		f    Flows
		want error
	}{
		{"not whole sompi", Flows{Deposits: 1, KaspaPayouts: []KaspaPayout{{Recipient: "kaspasim:q", Amount: big.NewInt(domain.WeiPerSompi + 1)}}},
			domain.ErrNotWholeSompi},
		{"no amount", Flows{KaspaPayouts: []KaspaPayout{{Recipient: "kaspasim:q"}}}, domain.ErrNotWholeSompi},
		{"no recipient", Flows{KaspaPayouts: []KaspaPayout{{Amount: KaspaPayoutAmount(0)}}}, domain.ErrBadKaspaRecipient},
		{"recipient too long", Flows{KaspaPayouts: []KaspaPayout{{Recipient: strings.Repeat("q", domain.MaxKaspaRecipientBytes+1),
			Amount: KaspaPayoutAmount(0)}}}, domain.ErrBadKaspaRecipient},
		// What the token would refuse to burn is refused before anything is sent.
		{"under the token's minimum", Flows{Deposits: 1, KaspaPayouts: []KaspaPayout{{Recipient: devAddress(0),
			Amount: big.NewInt((domain.MinKaspaPayoutSompi - 1) * domain.WeiPerSompi)}}}, contracts.ErrKaspaBelowMinimum},
		{"another network's address", Flows{Deposits: 1, KaspaPayouts: []KaspaPayout{{Recipient: "kaspa:" + devAddress(0)[9:],
			Amount: KaspaPayoutAmount(0)}}}, contracts.ErrWrongKaspaPrefix},
		{"not an address", Flows{Deposits: 1, KaspaPayouts: []KaspaPayout{{Recipient: "kaspasim:qdevchain0", Amount: KaspaPayoutAmount(0)}}},
			contracts.ErrBadKaspaRecipient},
		// A payout's deposit pays for its own burn only.
		{"a withdrawal on a payout's deposit", Flows{Withdrawals: 1, KaspaPayouts: []KaspaPayout{payout(0)}}, ErrNotEnoughDeposits},
	} {
		r.f.Users, r.f.Keys = u, keys
		if err := r.f.Run(ctx); !errors.Is(err, r.want) {
			t.Fatalf("%s: Run: %v, want %v", r.name, err, r.want)
		}
	}
	if a, err := ReadAudit(ctx, u); err != nil || len(a.Locks) != 0 {
		t.Fatalf("refused flows sent %d deposits (%v)", len(a.Locks), err)
	}

	relayCtx, stopRelay := context.WithCancel(ctx)
	flowsCtx, stopFlows := context.WithCancel(ctx)
	relayDone := make(chan error, 1)
	go func() {
		err := standInRelay(relayCtx, c, u, admin)
		if err != nil {
			stopFlows()
		}
		relayDone <- err
	}()
	defer func() { stopRelay(); <-relayDone }()

	var sent []Counts
	f := Flows{Users: u, Keys: keys, Deposits: 3, Withdrawals: 4, KaspaPayouts: []KaspaPayout{payout(0), payout(1), payout(2)},
		BurstSize: 3, Poll: 20 * time.Millisecond, Sent: func(c Counts) { sent = append(sent, c) }}
	if err := f.Run(flowsCtx); err != nil {
		select {
		case rerr := <-relayDone:
			relayDone <- rerr
			t.Fatalf("stand-in relay: %v", rerr)
		default:
		}
		t.Fatal(err)
	}
	// Locks in order deposit, payout, ...; burns: 2 withdrawals, a payout,
	// a withdrawal, a payout, a withdrawal, a payout.
	want := []Counts{{3, 0, 0}, {6, 0, 0}, {6, 2, 1}, {6, 4, 2}, {6, 4, 3}}
	if !slices.Equal(sent, want) || sent[len(sent)-1] != f.Total() {
		t.Fatalf("sent after each burst %v, want %v ending at %v", sent, want, f.Total())
	}

	a := auditClean(ctx, t, u, f.Total(), relayDone)
	if !strings.Contains(a.Summary(), "; 3 burns toward Kaspa;") {
		t.Errorf("summary %q", a.Summary())
	}
	var ids []int64
	for _, b := range a.KaspaBurns {
		ids = append(ids, new(big.Int).SetBytes(b.Key[:]).Int64())
		i := slices.IndexFunc([]int{0, 1, 2}, func(i int) bool { return devAddress(i) == b.KaspaRecipient })
		if i < 0 {
			t.Fatalf("burn toward Kaspa to %q: no such payout", b.KaspaRecipient)
		}
		if user := crypto.PubkeyToAddress(keys[i%2].PublicKey); b.From != user || b.Amount.Cmp(KaspaPayoutAmount(i)) != 0 {
			t.Errorf("payout %d burned %s by %s, want %s by %s", i, b.Amount, b.From, KaspaPayoutAmount(i), user)
		}
		if !slices.ContainsFunc(a.Locks, func(l Transfer) bool {
			return l.From == b.From && l.To == b.From && l.Amount.Cmp(b.Amount) == 0
		}) {
			t.Errorf("payout %d: no deposit of %s by %s to itself", i, b.Amount, b.From)
		}
	}
	if slices.Sort(ids); !slices.Equal(ids, []int64{1, 2, 3}) {
		t.Errorf("burn toward Kaspa ids %v, want 1, 2, 3", ids)
	}

	// Everything in one burst, as devnet sends it: a user's later burns
	// wait on its balance after its earlier ones, mined or not (a payout
	// burns all its deposit, so waiting for the sum of the burst's burns
	// would never end once the first were mined).
	all := Flows{Users: u, Keys: keys, Deposits: 2, Withdrawals: 2, KaspaPayouts: []KaspaPayout{payout(3), payout(4), payout(5)},
		Poll: 20 * time.Millisecond}
	if err := all.Run(flowsCtx); err != nil {
		t.Fatalf("one burst: %v", err)
	}
	total := f.Total()
	total.Locks, total.Burns, total.KaspaBurns = total.Locks+all.Total().Locks, total.Burns+all.Total().Burns, total.KaspaBurns+3
	auditClean(ctx, t, u, total, relayDone)
}

// TestSpread: the other kind's k places are spread among n, the last
// one last.
func TestSpread(t *testing.T) {
	for _, c := range []struct {
		n, k int
		want string
	}{
		{0, 0, ""}, {3, 0, "..."}, {0, 2, "kk"}, {4, 3, "..k.k.k"}, {3, 3, ".k.k.k"}, {5, 1, ".....k"}, {1, 3, ".kkk"},
	} {
		var got strings.Builder
		for _, other := range Spread(c.n, c.k) {
			got.WriteString(map[bool]string{false: ".", true: "k"}[other])
		}
		if got.String() != c.want {
			t.Errorf("Spread(%d, %d) = %q, want %q", c.n, c.k, got.String(), c.want)
		}
	}
}

// auditClean reads the chain until it passes the audit of sent, and fails
// the test if it does not within 30s or the stand-in relay fails.
func auditClean(ctx context.Context, t *testing.T, u Users, sent Counts, relayDone chan error) Audit {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, err := ReadAudit(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		p := a.Problems(sent)
		if len(p) == 0 {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("on chain (%s):\n%s", a.Summary(), strings.Join(p, "\n"))
		}
		select {
		case err := <-relayDone:
			relayDone <- err
			t.Fatalf("stand-in relay stopped: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// standInRelay does a relay's work with key, which holds the relayer
// role: it mints every lock, and anchors a batch of one for every burn to
// the lock side and claims it, one transaction at a time, until ctx ends.
func standInRelay(ctx context.Context, c *Chain, u Users, key *ecdsa.PrivateKey) error {
	d, tok := contracts.NewBatchDistributor(), contracts.NewBridgeToken()
	distributor, token := d.Instance(u.Backend, u.Bridge.Distributor), tok.Instance(u.Backend, u.Bridge.Token)
	send := func(to *bind.BoundContract, data []byte) error {
		tx, err := u.send(ctx, key, to, data, nil)
		if err == nil {
			_, err = c.WaitMined(ctx, tx.Hash())
		}
		return err
	}
	batch := int64(0)
	for {
		a, err := ReadAudit(ctx, u)
		for i := 0; err == nil && i < len(a.Locks); i++ {
			if l := a.Locks[i]; !slices.ContainsFunc(a.Mints, func(m Transfer) bool { return m.Key == l.Key }) {
				err = send(token, tok.PackMint(l.To, l.Amount, l.Key))
			}
		}
		for i := 0; err == nil && i < len(a.Burns); i++ {
			b := a.Burns[i]
			if slices.ContainsFunc(a.Claims, func(c Transfer) bool { return c.Key == b.Key }) {
				continue
			}
			batch++
			id := new(big.Int).SetBytes(b.Key[:])
			var leaf [32]byte
			leaf, err = bind.Call(distributor, &bind.CallOpts{Context: ctx}, d.PackLeafOf(big.NewInt(batch), id, b.From, b.To, b.Amount), d.UnpackLeafOf)
			if err == nil {
				err = send(distributor, d.PackAnchor(big.NewInt(batch), leaf))
			}
			if err == nil { // a batch of one: its root is the leaf, its proof empty
				err = send(distributor, d.PackClaim(big.NewInt(batch), id, b.From, b.To, b.Amount, nil))
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// devAddress is a well-formed simnet address (a P2PK payload of bech32
// characters; its checksum is not checked on chain), distinct per i.
func devAddress(i int) string {
	const cs = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	b := []byte("kaspasim:q")
	for j := range 60 {
		b = append(b, cs[(i*7+j*j)%len(cs)])
	}
	return string(b)
}
