package handlers

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
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

// raceChain runs a state change once, between a call's gas estimate and
// its send: what a user's transaction mined in between does.
type raceChain struct {
	TxChain
	between func()
}

func (r *raceChain) Estimate(ctx context.Context, from domain.Address, call domain.ContractCall) (uint64, error) {
	gas, err := r.TxChain.Estimate(ctx, from, call)
	if r.between != nil && err == nil {
		r.between()
		r.between = nil
	}
	return gas, err
}

// gasRace is a bridge on some chain with a recipient who holds bridged
// tokens: a second mint to the recipient is estimated while its balance
// is not zero, then the recipient burns every token, so the mint that
// runs writes a balance from zero, which costs more gas than estimated.
type gasRace struct {
	signer    evmchain.Signer
	calls     *evmchain.Calls
	users     devchain.Users
	token     common.Address
	recipient *ecdsa.PrivateKey
	chainID   uint64
}

// run mints a first deposit, then the raced second one, and checks the
// second is minted once: its first attempt ran out of gas (recorded
// out_of_gas, not the deposit's failure) and a second attempt with more
// gas succeeded.
func (g gasRace) run(t *testing.T, ctx context.Context) {
	t.Helper()
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	app := &Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	to := domain.Address(crypto.PubkeyToAddress(g.recipient.PublicKey))
	dep := func(i byte) domain.DepositDetected {
		return domain.DepositDetected{Ref: domain.LogRef{ChainID: g.chainID, TxHash: domain.Hash32{0x9a, i}, LogIndex: 1},
			Amount: domain.AmountFromUint64(1_000_000), Recipient: to}
	}
	first, second := dep(1), dep(2)
	d := &TxDriver{Chain: g.signer, Appender: app, PollInterval: 20 * time.Millisecond}
	if out, err := d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: first.AggregateID(), Call: g.calls.Mint(first)}); err != nil || out.Status != domain.TxSucceeded {
		t.Fatalf("first mint: %+v %v", out, err)
	}
	burned := false
	race := &raceChain{TxChain: g.signer, between: func() {
		tx, err := g.users.Burn(ctx, g.recipient, big.NewInt(1_000_000), common.Address{0xb0})
		if err != nil {
			t.Errorf("burn between estimate and send: %v", err)
			return
		}
		rc, err := bind.WaitMined(ctx, g.users.Backend, tx.Hash())
		burned = err == nil && rc.Status == 1
	}}
	d.Chain = race
	out, err := d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: second.AggregateID(), Call: g.calls.Mint(second)})
	if err != nil || out.Status != domain.TxSucceeded {
		t.Fatalf("raced mint: %+v %v", out, err)
	}
	if !burned {
		t.Fatal("the recipient's burn between estimate and send was not mined")
	}
	var statuses []domain.TxStatus
	var intents []domain.TxIntent
	for _, e := range events(t, lg, topics.TopicBridge) {
		var o domain.TxOutcome
		var in domain.TxIntent
		switch e.Type {
		case domain.TypeMintOutcome:
			if topics.DecodePayload(e.Payload, &o) == nil && o.Subject == second.AggregateID() {
				statuses = append(statuses, o.Status)
			}
		case domain.TypeMintIntent:
			if topics.DecodePayload(e.Payload, &in) == nil && in.Subject == second.AggregateID() {
				intents = append(intents, in)
			}
		}
	}
	if len(statuses) != 2 || statuses[0] != domain.TxOutOfGas || statuses[1] != domain.TxSucceeded {
		t.Fatalf("raced mint outcomes %v, want [out_of_gas succeeded]", statuses)
	}
	if len(intents) != 2 || intents[1].Gas < 2*intents[0].Gas {
		t.Fatalf("raced mint intents %+v: want a second with at least twice the first's gas", intents)
	}
	if got := tokenBalance(t, ctx, g.signer.Client, g.token, to); got.Cmp(big.NewInt(1_000_000)) != 0 {
		t.Fatalf("recipient holds %s after the raced mint, want 1000000: minted once", got)
	}
	// Driving the deposit again finds it minted: the token's guard.
	again, err := d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: second.AggregateID(), Call: g.calls.Mint(second)})
	if err != nil || again.Status != domain.TxAlreadyProcessed {
		t.Fatalf("mint again: %+v %v", again, err)
	}
}

func tokenBalance(t *testing.T, ctx context.Context, cl *evmchain.Client, token common.Address, who domain.Address) *big.Int {
	t.Helper()
	tok := contracts.NewBridgeToken()
	out, err := cl.CallView(ctx, domain.ContractCall{To: domain.Address(token), Data: tok.PackBalanceOf(common.Address(who))})
	if err != nil {
		t.Fatal(err)
	}
	v, err := tok.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDriveMintOutOfGasRace: on the simulated chain, a mint whose gas
// was estimated before the recipient burned everything runs out of gas,
// and the deposit is minted once by a second attempt.
func TestDriveMintOutOfGasRace(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	users := devchain.Users{Backend: f.chain.Client(), Bridge: f.bridge}
	gasRace{signer: f.signer, calls: f.calls, users: users, token: f.bridge.Token, recipient: f.chain.Keys()[2],
		chainID: devchain.ChainID}.run(t, ctx)
}

// TestDriveMintOutOfGasRaceOnGeth is the same race on a real geth --dev
// node: the bridge deployed there, the relayer and the recipient funded
// by the developer account.
func TestDriveMintOutOfGasRaceOnGeth(t *testing.T) {
	// Building geth from source (once per machine) takes minutes on a
	// busy machine; the chain's part then takes seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dev := gethtest.Dev(t, ctx)
	var keys []*ecdsa.PrivateKey
	var addrs []common.Address
	for range 3 { // admin, relayer, recipient
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		keys, addrs = append(keys, k), append(addrs, crypto.PubkeyToAddress(k.PublicKey))
	}
	if err := dev.Fund(ctx, new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)), addrs...); err != nil {
		t.Fatal(err)
	}
	eth, err := ethclient.DialContext(ctx, dev.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eth.Close)
	auth := bind.NewKeyedTransactor(keys[0], big.NewInt(gethproc.ChainID))
	auth.Context = ctx
	tokenAddr, tx, err := contracts.DeployToken(auth, eth, "Bridged", "BRG", addrs[0], addrs[1], contracts.KaspaBurnRules{Prefix: "kaspasim"}, devchain.DevRateLimit)
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
	bridge := devchain.Bridge{Token: tokenAddr}
	gasRace{signer: evmchain.Signer{Client: cl, Wallet: evmwallet.NewKeySigner(keys[1])},
		calls: evmchain.NewCalls(evmchain.Contracts{Token: domain.Address(tokenAddr)}), users: devchain.Users{Backend: eth, Bridge: bridge},
		token: tokenAddr, recipient: keys[2], chainID: gethproc.ChainID}.run(t, ctx)
}

// oneMint is a mint queue holding one deposit until it is minted.
type oneMint struct{ task domain.MintTask }

func (q *oneMint) MintPending(context.Context, int) ([]domain.MintTask, error) {
	return []domain.MintTask{q.task}, nil
}

// TestAbandonedMintIsNotTheDepositsFailure: a mint abandoned for its fees
// (stuck, then cancelled) records no deposit failure; the next poll mints
// the deposit once.
func TestAbandonedMintIsNotTheDepositsFailure(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond,
		Policy: domain.SendPolicy{StuckAfter: 100 * time.Millisecond, MaxAttempts: 1}}
	dep := f.deposit()
	mn := &Minter{Queue: &oneMint{domain.MintTask{Deposit: dep}}, Calls: f.calls, Driver: d}
	polled := make(chan error, 1)
	go func() {
		n, err := mn.Poll(ctx)
		polled <- errors.Join(err, errIf(n != 0, "a stuck mint was counted final"))
	}()
	// No blocks until the driver has given up and sent the cancellation.
	f.waitForIntents(t, ctx, 1, "a cancellation", func(in domain.TxIntent) bool { return in.Cancel })
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	if err := <-polled; err != nil {
		t.Fatal(err)
	}
	if got := outcomes(t, events(t, f.log, topics.TopicBridge)); len(got) == 0 || got[len(got)-1].Status != domain.TxAbandoned {
		t.Fatalf("outcomes %+v, want the mint abandoned", got)
	}
	if n, err := mn.Poll(ctx); err != nil || n != 1 {
		t.Fatalf("second poll: %d final, %v", n, err)
	}
	var failed, minted int
	for _, e := range events(t, f.log, topics.TopicBridge) {
		switch e.Type {
		case domain.TypeDepositFailed:
			failed++
		case domain.TypeDepositMinted:
			minted++
		}
	}
	if failed != 0 || minted != 1 || f.balance(t, dep.Recipient) != 12345 {
		t.Fatalf("%d failed, %d minted, balance %d: want minted once, never failed", failed, minted, f.balance(t, dep.Recipient))
	}
}

func errIf(cond bool, msg string) error {
	if cond {
		return errors.New(msg)
	}
	return nil
}
