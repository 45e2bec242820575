// Package contractstest starts an in-process EVM chain (go-ethereum's simulated backend)
// priced like mainnet, with funded, deterministic accounts and bridgelog's contracts
// deployed: the one place contract, relayer and end-to-end tests get a chain from.
package contractstest

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
)

// ErrReverted is returned by [Chain.Send] for a transaction mined with status 0.
var ErrReverted = errors.New("transaction reverted")

// Ether is 10^18 wei.
var Ether = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// MainnetGas is a simulated.NewBackend option that prices gas like mainnet today; it is
// devchain's, so tests and the dev chain price gas the same way.
var MainnetGas = devchain.MainnetLikeGas

// Account is a key and its address.
type Account struct {
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// NewAccount derives a key from name, so the same name gives the same address in every run.
func NewAccount(name string) Account {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("bridgelog/contractstest/" + name)))
	if err != nil {
		panic(err) // a keccak output is a valid key with overwhelming probability
	}
	return Account{Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)}
}

// Config sets up a [Chain]; the zero value is usable.
type Config struct {
	// Users is the number of funded user accounts besides admin and relayer; 0 means 4.
	Users int
	// Balance is every account's genesis balance; nil means 1000 ether.
	Balance *big.Int
	// TokenName and TokenSymbol name the BridgeToken; empty means "Bridged Ether"/"bETH".
	TokenName, TokenSymbol string
	// Options are extra simulated.NewBackend options applied after [MainnetGas], e.g. to
	// expose HTTP/WS so other processes can reach the chain.
	Options []func(*node.Config, *ethconfig.Config)
	// Timeout bounds each call Start makes; 0 means 10s.
	Timeout time.Duration
	// Kaspa is what the token refuses at burn time; an empty prefix means "kaspa" (mainnet),
	// a zero minimum domain.MinKaspaPayoutSompi.
	Kaspa contracts.KaspaBurnRules
	// MintLimit and ClaimLimit are the token's and the distributor's rate limits; a nil
	// capacity means devchain.DevRateLimit, which no test reaches unless it sets its own.
	MintLimit, ClaimLimit contracts.RateLimit
}

func (c *Config) setDefaults() {
	if c.Users <= 0 {
		c.Users = 4
	}
	if c.Balance == nil {
		c.Balance = new(big.Int).Mul(big.NewInt(1000), Ether)
	}
	if c.Kaspa.Prefix == "" {
		c.Kaspa.Prefix = "kaspa"
	}
	if c.MintLimit.Capacity == nil {
		c.MintLimit = devchain.DevRateLimit
	}
	if c.ClaimLimit.Capacity == nil {
		c.ClaimLimit = devchain.DevRateLimit
	}
	if c.TokenName == "" {
		c.TokenName = "Bridged Ether"
	}
	if c.TokenSymbol == "" {
		c.TokenSymbol = "bETH"
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
}

// Chain is a running simulated chain with both bridge contracts deployed on it: the
// BatchDistributor (lock side) and the BridgeToken (execution side) share the chain, which
// is enough to exercise either flow.
type Chain struct {
	Sim     *simulated.Backend
	Client  simulated.Client
	ChainID *big.Int

	Admin   Account // DEFAULT_ADMIN_ROLE on both contracts, and deployer
	Relayer Account // RELAYER_ROLE on both contracts
	Users   []Account

	DistributorAddr common.Address
	TokenAddr       common.Address
	Distributor     *contracts.BatchDistributor // packs calls, unpacks results and events
	Token           *contracts.BridgeToken

	timeout time.Duration
	mu      sync.Mutex // serialises Send so its Commit mines exactly its transaction
}

// Start starts a chain with mainnet-like gas, funds the accounts and deploys the contracts.
func Start(ctx context.Context, cfg Config) (*Chain, error) {
	cfg.setDefaults()
	c := &Chain{
		Admin:       NewAccount("admin"),
		Relayer:     NewAccount("relayer"),
		Distributor: contracts.NewBatchDistributor(),
		Token:       contracts.NewBridgeToken(),
		timeout:     cfg.Timeout,
	}
	for i := range cfg.Users {
		c.Users = append(c.Users, NewAccount(fmt.Sprintf("user%d", i)))
	}
	alloc := types.GenesisAlloc{}
	for _, a := range append([]Account{c.Admin, c.Relayer}, c.Users...) {
		alloc[a.Address] = types.Account{Balance: new(big.Int).Set(cfg.Balance)}
	}
	opts := append([]func(*node.Config, *ethconfig.Config){MainnetGas}, cfg.Options...)
	c.Sim = simulated.NewBackend(alloc, opts...)
	c.Client = c.Sim.Client()

	ok := false
	defer func() {
		if !ok {
			c.Sim.Close()
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	id, err := c.Client.ChainID(cctx)
	if err != nil {
		return nil, fmt.Errorf("contractstest: chain id: %w", err)
	}
	c.ChainID = id

	auth := c.Opts(ctx, c.Admin)
	// Number the two deployments ourselves: the pool's pending nonce can
	// lag behind a transaction sent a moment ago ("replacement transaction
	// underpriced" for the second one).
	nonce, err := c.Client.PendingNonceAt(cctx, c.Admin.Address)
	if err != nil {
		return nil, fmt.Errorf("contractstest: admin nonce: %w", err)
	}
	auth.Nonce = new(big.Int).SetUint64(nonce)
	dAddr, dTx, err := contracts.DeployDistributor(auth, c.Client, c.Admin.Address, c.Relayer.Address, cfg.ClaimLimit)
	if err != nil {
		return nil, fmt.Errorf("contractstest: deploy distributor: %w", err)
	}
	auth.Nonce = new(big.Int).SetUint64(nonce + 1)
	tAddr, tTx, err := contracts.DeployToken(auth, c.Client, cfg.TokenName, cfg.TokenSymbol, c.Admin.Address, c.Relayer.Address, cfg.Kaspa, cfg.MintLimit)
	if err != nil {
		return nil, fmt.Errorf("contractstest: deploy token: %w", err)
	}
	c.Sim.Commit()
	for _, tx := range []*types.Transaction{dTx, tTx} {
		r, err := c.receipt(cctx, tx.Hash())
		if err != nil {
			return nil, fmt.Errorf("contractstest: deploy receipt %s: %w", tx.Hash(), err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Errorf("contractstest: deploy %s: %w", tx.Hash(), ErrReverted)
		}
	}
	c.DistributorAddr, c.TokenAddr = dAddr, tAddr
	ok = true
	return c, nil
}

// New is [Start] for tests: it fails the test if the chain cannot start and closes it at
// cleanup.
func New(tb testing.TB, cfg Config) *Chain {
	tb.Helper()
	c, err := Start(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("contractstest: %v", err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// Close stops the chain.
func (c *Chain) Close() error { return c.Sim.Close() }

// Opts returns transact options signing as a, bound to ctx.
func (c *Chain) Opts(ctx context.Context, a Account) *bind.TransactOpts {
	o := bind.NewKeyedTransactor(a.Key, c.ChainID)
	o.Context = ctx
	return o
}

// DistributorContract is the deployed BatchDistributor for bind.Call/Transact/FilterEvents.
func (c *Chain) DistributorContract() *bind.BoundContract {
	return c.Distributor.Instance(c.Client, c.DistributorAddr)
}

// TokenContract is the deployed BridgeToken for bind.Call/Transact/FilterEvents.
func (c *Chain) TokenContract() *bind.BoundContract {
	return c.Token.Instance(c.Client, c.TokenAddr)
}

// Send transacts calldata to contract as from, paying value (nil for none), mines a block
// and returns the receipt. A transaction that would revert fails at gas estimation: the
// error is decoded with contracts.DecodeRevert, so errors.Is(err, contracts.ErrAlreadyProcessed)
// works. A mined transaction with status 0 returns its receipt and [ErrReverted].
func (c *Chain) Send(ctx context.Context, from Account, contract *bind.BoundContract, data []byte, value *big.Int) (*types.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	opts := c.Opts(ctx, from)
	opts.Value = value
	tx, err := bind.Transact(contract, opts, data)
	if err != nil {
		return nil, contracts.DecodeRevert(err)
	}
	c.Sim.Commit()
	r, err := c.receipt(ctx, tx.Hash())
	if err != nil {
		return nil, fmt.Errorf("contractstest: receipt %s: %w", tx.Hash(), err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return r, fmt.Errorf("contractstest: tx %s: %w", tx.Hash(), ErrReverted)
	}
	return r, nil
}

// Balance is addr's balance at the latest block.
func (c *Chain) Balance(ctx context.Context, addr common.Address) (*big.Int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.Client.BalanceAt(ctx, addr, nil)
}

// AutoCommit mines a block every period until ctx ends, for code under test that sends
// its own transactions and waits for them (bind.WaitMined) instead of calling Send.
func (c *Chain) AutoCommit(ctx context.Context, period time.Duration) {
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c.mu.Lock()
				c.Sim.Commit()
				c.mu.Unlock()
			}
		}
	}()
}

// receipt fetches a transaction's receipt after the caller sealed a block.
// The pool takes transactions in asynchronously, so one may miss that block
// ("not found": seal another), and right after a block the node may still be
// indexing it ("indexing is in progress": ask again), until ctx ends.
func (c *Chain) receipt(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	for {
		r, err := c.Client.TransactionReceipt(ctx, h)
		switch {
		case err == nil:
			return r, nil
		case errors.Is(err, ethereum.NotFound):
			c.Sim.Commit()
		case !strings.Contains(err.Error(), "indexing is in progress"):
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(10 * time.Millisecond):
		}
	}
}
