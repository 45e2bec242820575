// Package devchain runs a local EVM chain for development and tests:
// go-ethereum's simulated backend, served over HTTP so a relayer in
// another process can reach it, with blocks sealed on a ticker and a
// reorg injector. Its state lives in memory: the process that runs it must
// outlive the relayers it serves.
package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
)

// ChainID is the default chain id (go-ethereum's simulated backend's).
const ChainID = 1337

// Config configures a dev chain. The zero value serves on a free loopback
// port, seals a block every 200ms and funds 8 accounts.
type Config struct {
	ChainID       uint64        // default ChainID; give two chains of one test different ids
	Host          string        // default 127.0.0.1
	Port          int           // 0: a free port
	BlockInterval time.Duration // 0: 200ms; negative: no ticker (call Commit)
	Accounts      int           // funded dev accounts, default 8
	Balance       *big.Int      // per account, default 10^24 wei
	Logger        *slog.Logger
	// Kaspa is what the token refuses at burn time; an empty prefix means
	// "kaspasim" (devnet's Kaspa network), a zero minimum
	// domain.MinKaspaPayoutSompi.
	Kaspa contracts.KaspaBurnRules
	// MintLimit and ClaimLimit are the token's and the distributor's rate
	// limits; a nil capacity means [DevRateLimit].
	MintLimit, ClaimLimit contracts.RateLimit
}

// DevRateLimit is a rate limit no dev or test flow reaches (10^30 wei at
// once and a second): a test of the limit sets its own.
var DevRateLimit = contracts.RateLimit{Capacity: new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil),
	PerSecond: new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil)}

func (c *Config) setDefaults() {
	if c.ChainID == 0 {
		c.ChainID = ChainID
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if c.BlockInterval == 0 {
		c.BlockInterval = 200 * time.Millisecond
	}
	if c.Accounts <= 0 {
		c.Accounts = 8
	}
	if c.Balance == nil {
		c.Balance = new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
	}
	if c.Kaspa.Prefix == "" {
		c.Kaspa.Prefix = "kaspasim"
	}
	if c.MintLimit.Capacity == nil {
		c.MintLimit = DevRateLimit
	}
	if c.ClaimLimit.Capacity == nil {
		c.ClaimLimit = DevRateLimit
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Chain is a running dev chain.
type Chain struct {
	cfg  Config
	sim  *simulated.Backend
	url  string
	keys []*ecdsa.PrivateKey

	mu     sync.Mutex // serialises sealing, forking and closing
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// DevKey returns the deterministic private key of dev account i, so a
// relayer process can be handed "account 2" instead of a secret.
func DevKey(i int) *ecdsa.PrivateKey {
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("bridgelog-devnet-account-" + strconv.Itoa(i))))
	if err != nil {
		panic(err) // a keccak output is a valid secp256k1 key with overwhelming probability
	}
	return k
}

// MainnetLikeGas makes the simulated chain price gas like mainnet today:
// its default config enables unscheduled forks that inflate gas costs.
func MainnetLikeGas(_ *node.Config, ec *ethconfig.Config) {
	cfg := *ec.Genesis.Config
	cfg.BogotaTime = nil
	ec.Genesis.Config = &cfg
}

// Start starts a chain and, unless BlockInterval < 0, its block ticker.
func Start(cfg Config) (*Chain, error) {
	cfg.setDefaults()
	port := cfg.Port
	if port == 0 {
		p, err := freePort(cfg.Host)
		if err != nil {
			return nil, err
		}
		port = p
	}
	alloc := types.GenesisAlloc{}
	keys := make([]*ecdsa.PrivateKey, cfg.Accounts)
	for i := range keys {
		keys[i] = DevKey(i)
		alloc[crypto.PubkeyToAddress(keys[i].PublicKey)] = types.Account{Balance: cfg.Balance}
	}
	sim := simulated.NewBackend(alloc, MainnetLikeGas, func(nc *node.Config, ec *ethconfig.Config) {
		cc := *ec.Genesis.Config
		cc.ChainID = new(big.Int).SetUint64(cfg.ChainID)
		ec.Genesis.Config = &cc
		ec.NetworkId = cfg.ChainID
		nc.HTTPHost = cfg.Host
		nc.HTTPPort = port
		nc.HTTPModules = []string{"eth", "net", "web3"}
		nc.HTTPVirtualHosts = []string{"*"}
	})
	c := &Chain{cfg: cfg, sim: sim, keys: keys, url: fmt.Sprintf("http://%s:%d", cfg.Host, port),
		stop: make(chan struct{}), done: make(chan struct{})}
	if cfg.BlockInterval > 0 {
		go c.tick()
	} else {
		close(c.done)
	}
	cfg.Logger.Info("devchain started", "url", c.url, "chain_id", cfg.ChainID, "accounts", cfg.Accounts, "block_interval", cfg.BlockInterval)
	return c, nil
}

func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("devchain: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Chain) tick() {
	defer close(c.done)
	t := time.NewTicker(c.cfg.BlockInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.Commit()
		}
	}
}

// ChainID is the chain's id.
func (c *Chain) ChainID() uint64 { return c.cfg.ChainID }

// URL is the chain's HTTP JSON-RPC endpoint.
func (c *Chain) URL() string { return c.url }

// Keys returns the funded dev accounts' keys.
func (c *Chain) Keys() []*ecdsa.PrivateKey { return c.keys }

// Client returns an in-process client (no HTTP hop).
func (c *Chain) Client() simulated.Client { return c.sim.Client() }

// Commit seals a block with the pending transactions.
func (c *Chain) Commit() common.Hash {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return common.Hash{}
	}
	return c.sim.Commit()
}

// ErrReorgTooDeep: the chain is not that long.
var ErrReorgTooDeep = errors.New("reorg deeper than the chain")

// ReorgOptions shape a reorg.
type ReorgOptions struct {
	// Depth is how many blocks at the tip are replaced (after the pending
	// transactions, if any, were sealed into one more block).
	Depth uint64
	// Delay is how many of the new blocks stay empty before the replaced
	// blocks' transactions are mined again: they move from their blocks
	// to block tip-Depth+1+Delay. 0: they are mined again at once.
	Delay uint64
}

// Reorg replaces the last depth blocks with depth+1 new ones built on the
// block before them. Transactions of the dropped blocks return to the pool
// and are mined again in the first new block, so their logs reappear in a
// block with another hash, and another number unless they were in the
// first replaced block (or vanish, if they no longer apply).
func (c *Chain) Reorg(ctx context.Context, depth uint64) error {
	return c.ReorgWith(ctx, ReorgOptions{Depth: depth})
}

// ReorgWith replaces the last o.Depth blocks with max(o.Depth, o.Delay)+1
// new ones built on the block before them, the dropped blocks'
// transactions mined again in the new block o.Delay+1. Transactions sent
// while it runs may be dropped.
func (c *Chain) ReorgWith(ctx context.Context, o ReorgOptions) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("devchain closed")
	}
	cl := c.sim.Client()
	// Fork refuses a dirty pending block: seal what is pending first.
	pending, err := cl.PendingTransactionCount(ctx)
	if err != nil {
		return err
	}
	if pending > 0 {
		c.sim.Commit()
	}
	tip, err := cl.BlockNumber(ctx)
	if err != nil {
		return err
	}
	if o.Depth >= tip {
		return fmt.Errorf("%w: depth %d, tip %d", ErrReorgTooDeep, o.Depth, tip)
	}
	var moved []*types.Transaction
	for n := tip - o.Depth + 1; o.Delay > 0 && n <= tip; n++ {
		b, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return err
		}
		moved = append(moved, b.Transactions()...)
	}
	ancestor, err := cl.HeaderByNumber(ctx, new(big.Int).SetUint64(tip-o.Depth))
	if err != nil {
		return err
	}
	if err := c.sim.Fork(ancestor.Hash()); err != nil {
		return fmt.Errorf("devchain fork at %d: %w", tip-o.Depth, err)
	}
	if o.Delay > 0 {
		// The pool took the dropped transactions back: hold them out for
		// Delay blocks, then send them again in their order.
		c.sim.Rollback()
		for range o.Delay {
			c.sim.Commit()
		}
		for _, tx := range moved {
			if err := cl.SendTransaction(ctx, tx); err != nil {
				return fmt.Errorf("devchain: send %s again after the reorg: %w", tx.Hash(), err)
			}
		}
	}
	for range max(o.Depth, o.Delay) + 1 - o.Delay {
		c.sim.Commit()
	}
	c.cfg.Logger.Warn("devchain reorg injected", "depth", o.Depth, "fork_block", tip-o.Depth, "delay", o.Delay)
	return nil
}

// Close stops the ticker and the chain.
func (c *Chain) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.stop)
	c.mu.Unlock()
	<-c.done
	return c.sim.Close()
}
