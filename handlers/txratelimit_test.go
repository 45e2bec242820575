package handlers

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/evm/gethproc"
	"github.com/bridgelog/bridgelog/adapters/evm/gethproc/gethtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// countingTxMetrics counts RateLimited by purpose and reason.
type countingTxMetrics struct {
	mu sync.Mutex
	n  map[string]int
}

func (m *countingTxMetrics) RateLimited(purpose, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[string]int{}
	}
	m.n[purpose+"/"+reason]++
}

func (m *countingTxMetrics) count(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[key]
}

// driveThroughRateLimit drives req until it is not deferred, waiting for a
// new block between attempts (the bucket refills with block time), and
// returns its outcome and how many attempts were deferred.
func driveThroughRateLimit(t *testing.T, ctx context.Context, d *TxDriver, head func(context.Context) (uint64, error), req TxRequest) (domain.TxOutcome, int) {
	t.Helper()
	deferred := 0
	for {
		n, err := head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.Drive(ctx, req)
		if !errors.Is(err, domain.ErrCallDeferred) {
			if err != nil {
				t.Fatalf("drive %s: %v", req.Subject, err)
			}
			return out, deferred
		}
		if !domain.IsRateLimited(err.Error()) {
			t.Fatalf("drive %s: %v, want a deferral by the rate limit", req.Subject, err)
		}
		deferred++
		for m := n; m == n; {
			select {
			case <-ctx.Done():
				t.Fatalf("no new block after a deferral: %v", ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
			if m, err = head(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// rateLimitedMints is a token whose bucket holds one deposit and a half
// and refills a tenth of one a second: the first deposit mints at once,
// the second waits for the refill and is then minted exactly once.
type rateLimitedMints struct {
	signer  evmchain.Signer
	calls   *evmchain.Calls
	token   common.Address
	head    func(context.Context) (uint64, error)
	chainID uint64
}

// mintAmount is each deposit's amount; the limit is sized from it.
const mintAmount = 100_000

var mintLimit = contracts.RateLimit{Capacity: big.NewInt(mintAmount * 3 / 2), PerSecond: big.NewInt(mintAmount / 10)}

func (r rateLimitedMints) run(t *testing.T, ctx context.Context) {
	t.Helper()
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	lines := &lineSink{}
	m := &countingTxMetrics{}
	app := &Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	d := &TxDriver{Chain: r.signer, Appender: app, PollInterval: 20 * time.Millisecond,
		Metrics: m, Logger: lines.logger("minter"), RateLimits: &StepHealth{Appender: app, Logger: lines.logger("minter")}}
	to := domain.Address{0xee, 0x1}
	dep := func(i byte) domain.DepositDetected {
		return domain.DepositDetected{Ref: domain.LogRef{ChainID: r.chainID, TxHash: domain.Hash32{0x7a, i}, LogIndex: 1},
			Amount: domain.AmountFromUint64(mintAmount), Recipient: to}
	}
	for i, wantDeferred := range []bool{false, true} {
		dp := dep(byte(i))
		out, deferred := driveThroughRateLimit(t, ctx, d, r.head, TxRequest{Purpose: domain.PurposeMint, Subject: dp.AggregateID(), Call: r.calls.Mint(dp)})
		if out.Status != domain.TxSucceeded || (deferred > 0) != wantDeferred {
			t.Fatalf("deposit %d: %+v after %d deferrals, want succeeded (deferred: %v)", i, out, deferred, wantDeferred)
		}
	}
	if got := tokenBalance(t, ctx, r.signer.Client, r.token, to); got.Int64() != 2*mintAmount {
		t.Fatalf("recipient holds %s, want %d: each deposit minted once", got, 2*mintAmount)
	}
	var outcomes, intents int
	for _, e := range events(t, lg, topics.TopicBridge) {
		switch e.Type {
		case domain.TypeMintOutcome:
			outcomes++
		case domain.TypeMintIntent:
			intents++
		}
	}
	if outcomes != 2 || intents != 2 {
		t.Fatalf("%d mint intents and %d outcomes, want 2 each: a deferral records and sends nothing", intents, outcomes)
	}
	if m.count("mint/rate_limited") == 0 {
		t.Fatal("no rate_limited deferral counted")
	}
	if n := len(lines.matching("step failing", "step=rate_limit:mint:", "RateLimited(")); n != 1 {
		t.Fatalf("%d 'step failing' lines of the rate limit, want 1 for the streak:\n%s", n, strings.Join(lines.matching(), ""))
	}
	if n := len(lines.matching("step recovered", "step=rate_limit:mint:")); n != 1 {
		t.Fatalf("%d 'step recovered' lines of the rate limit, want 1", n)
	}
	var failed, recovered int
	for _, e := range events(t, lg, topics.TopicChain) {
		switch e.Type {
		case domain.TypeRelayStepFailed:
			failed++
		case domain.TypeRelayStepRecovered:
			recovered++
		}
	}
	if failed != 1 || recovered != 1 {
		t.Fatalf("%d relay.step_failed and %d relay.step_recovered, want one of each for the wait", failed, recovered)
	}
}

// matching is the lines that contain every one of subs.
func (s *lineSink) matching(subs ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		ok := true
		for _, sub := range subs {
			ok = ok && strings.Contains(l, sub)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// setRateLimit has the dev chain's admin (key 0) set contract's limit.
func setRateLimit(t *testing.T, ctx context.Context, ch *devchain.Chain, contract common.Address, l contracts.RateLimit) {
	t.Helper()
	auth := bind.NewKeyedTransactor(ch.Keys()[0], big.NewInt(devchain.ChainID))
	auth.Context = ctx
	tx, err := contracts.SetRateLimit(auth, ch.Client(), contract, l)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
}

// TestDriveMintWaitsForTheRateLimit: on the simulated chain, a mint the
// token's rate limit refuses is deferred (nothing recorded or sent, one
// log line, a metric) and minted exactly once when the bucket refilled.
func TestDriveMintWaitsForTheRateLimit(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	setRateLimit(t, ctx, f.chain, f.bridge.Token, mintLimit)
	rateLimitedMints{signer: f.signer, calls: f.calls, token: f.bridge.Token, head: f.chain.Client().BlockNumber,
		chainID: devchain.ChainID}.run(t, ctx)
}

// TestDriveMintWaitsForTheRateLimitOnGeth is the same on a real geth --dev
// node (a block a second): the token deployed there with the limit.
func TestDriveMintWaitsForTheRateLimitOnGeth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dev := gethtest.Dev(t, ctx)
	admin, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	relayer, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addrs := []common.Address{crypto.PubkeyToAddress(admin.PublicKey), crypto.PubkeyToAddress(relayer.PublicKey)}
	if err := dev.Fund(ctx, new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)), addrs...); err != nil {
		t.Fatal(err)
	}
	eth, err := ethclient.DialContext(ctx, dev.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eth.Close)
	auth := bind.NewKeyedTransactor(admin, big.NewInt(gethproc.ChainID))
	auth.Context = ctx
	tokenAddr, tx, err := contracts.DeployToken(auth, eth, "Bridged", "BRG", addrs[0], addrs[1], contracts.KaspaBurnRules{Prefix: "kaspasim"}, mintLimit)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitDeployed(ctx, eth, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	cl, err := evmchain.Dial(ctx, evmchain.Config{URL: dev.HTTP, ChainID: gethproc.ChainID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	rateLimitedMints{signer: evmchain.Signer{Client: cl, Wallet: evmwallet.NewKeySigner(relayer)},
		calls: evmchain.NewCalls(evmchain.Contracts{Token: domain.Address(tokenAddr)}), token: tokenAddr, head: eth.BlockNumber,
		chainID: gethproc.ChainID}.run(t, ctx)
}

// TestDriveClaimWaitsForTheRateLimit: on the simulated chain, with the
// distributor's bucket holding one and a half claims, the second claim of
// a batch is deferred, then pays exactly once after the refill.
func TestDriveClaimWaitsForTheRateLimit(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	s := newClaimSwarm(t, lg, 2, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	reqs, err := ClaimRequests(s.batch)
	if err != nil {
		t.Fatal(err)
	}
	most := new(big.Int)
	for _, l := range s.batch.Leaves {
		if a := l.Amount.Big(); a.Cmp(most) > 0 {
			most = a
		}
	}
	setRateLimit(t, ctx, s.chain, common.Address(s.batch.Settlement.Distributor), contracts.RateLimit{
		Capacity: new(big.Int).Div(new(big.Int).Mul(most, big.NewInt(3)), big.NewInt(2)), PerSecond: new(big.Int).Div(most, big.NewInt(10))})
	m := &countingTxMetrics{}
	d := &TxDriver{Chain: s.signer(2), Appender: s.app, PollInterval: 20 * time.Millisecond, Metrics: m, Logger: s.lines.logger("claimer")}
	for i, e := range reqs {
		req := e.(domain.ClaimRequested)
		out, deferred := driveThroughRateLimit(t, ctx, d, s.chain.Client().BlockNumber,
			TxRequest{Purpose: domain.PurposeClaim, Subject: req.AggregateID(), Call: s.calls.Claim(req)})
		if out.Status != domain.TxSucceeded || (deferred > 0) != (i == 1) {
			t.Fatalf("claim %d: %+v after %d deferrals, want succeeded (deferred only the second)", i, out, deferred)
		}
		got, err := s.chain.Client().BalanceAt(ctx, common.Address(req.LeafInfo.Recipient), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Cmp(req.LeafInfo.Amount.Big()) != 0 {
			t.Fatalf("claim %d: recipient holds %s, want %s: paid once", i, got, req.LeafInfo.Amount.Big())
		}
	}
	if m.count("claim/rate_limited") == 0 {
		t.Fatal("no rate_limited deferral counted")
	}
}
