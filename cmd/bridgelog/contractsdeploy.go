package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/domain"
)

// deployChain is one chain deployed to.
type deployChain struct {
	url string
	id  *big.Int
	cl  *ethclient.Client
	// sent is the nonce after the deployer's last transaction sent here.
	sent uint64
}

// deployed is one contract sent and confirmed.
type deployed struct {
	creation contracts.Creation
	limit    contracts.RateLimit // the rate limit it was created with
	chain    *deployChain
	addr     common.Address
	tx       *types.Transaction
	receipt  *types.Receipt
}

// deployment is one run of contracts deploy: the distributor on the lock
// chain, the token on the execution chain (maybe the same).
type deployment struct {
	o           deployOptions
	signer      evmwallet.TxSigner
	log         *slog.Logger
	dist, token *deployed
}

// dialDeployChain connects to url and reads its chain id, failing within
// timeout on a node that does not answer.
func dialDeployChain(ctx context.Context, url string, timeout time.Duration) (*deployChain, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%w: RPC %s: %v", ErrDeploy, url, err)
	}
	id, err := cl.ChainID(ctx)
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("%w: RPC %s does not answer (chain id): %w", ErrDeploy, url, err)
	}
	return &deployChain{url: url, id: id, cl: cl}, nil
}

// run sends both creations once the deployer is known to afford them,
// waits until they are confirmed, checks their code, grants the minters
// their role, and checks every wallet's role.
func (d *deployment) run(ctx context.Context, w deployWallets) error {
	all := []*deployed{d.dist, d.token}
	if err := d.checkFunds(ctx, w.from); err != nil {
		return err
	}
	for _, c := range all {
		tx, err := d.send(ctx, c.chain, func(auth *bind.TransactOpts) (tx *types.Transaction, err error) {
			c.addr, tx, err = contracts.Send(auth, c.chain.cl, c.creation)
			return tx, err
		})
		if err != nil {
			if c != d.dist {
				return fmt.Errorf("%w (the %s creation %s was sent already, to %s)", err, d.dist.creation.Name, d.dist.tx.Hash(), d.dist.addr)
			}
			return err
		}
		c.tx = tx
		d.log.Info("contract creation sent", "contract", c.creation.Name, "chain_id", c.chain.id, "address", c.addr, "tx", tx.Hash())
	}
	for _, c := range all {
		var err error
		if c.receipt, err = d.confirmed(ctx, c.chain, c.tx); err != nil {
			return fmt.Errorf("%w: %s at %s: %w", ErrDeploy, c.creation.Name, c.addr, err)
		}
		vctx, cancel := context.WithTimeout(ctx, d.o.callTimeout)
		err = contracts.VerifyCode(vctx, c.chain.cl, w.from, c.addr, c.creation)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDeploy, err)
		}
		d.log.Info("contract deployed", "contract", c.creation.Name, "chain_id", c.chain.id, "address", c.addr,
			"block", c.receipt.BlockNumber, "confirmations", d.o.confirmations)
	}
	if err := d.grantMinters(ctx, w.minters); err != nil {
		return err
	}
	if err := d.checkRateLimits(ctx); err != nil {
		return err
	}
	return d.checkRoles(ctx, w)
}

// checkRateLimits reads back each contract's rate limit.
func (d *deployment) checkRateLimits(ctx context.Context) error {
	for _, c := range []*deployed{d.dist, d.token} {
		rctx, cancel := context.WithTimeout(ctx, d.o.callTimeout)
		st, err := contracts.ReadRateLimit(rctx, c.chain.cl, c.addr)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDeploy, err)
		}
		if st.Capacity.Cmp(c.limit.Capacity) != 0 || st.PerSecond.Cmp(c.limit.PerSecond) != 0 {
			return fmt.Errorf("%w: %w: %s at %s has rate limit %s, want %s", ErrDeploy, contracts.ErrDeployFailed,
				c.creation.Name, c.addr, st.RateLimit, c.limit)
		}
		d.log.Info("rate limit set", "contract", c.creation.Name, "address", c.addr, "capacity_wei", st.Capacity,
			"wei_per_second", st.PerSecond, "window", c.limit.Window())
	}
	return nil
}

// checkFunds refuses a deployer that cannot pay for its creations on
// each chain, before anything is sent. (The minters' grants, sent once
// the token exists, cost about 50k gas each on top.)
func (d *deployment) checkFunds(ctx context.Context, from common.Address) error {
	byChain := map[*deployChain][]contracts.Creation{}
	for _, c := range []*deployed{d.dist, d.token} {
		byChain[c.chain] = append(byChain[c.chain], c.creation)
	}
	for ch, cs := range byChain {
		fctx, cancel := context.WithTimeout(ctx, d.o.callTimeout)
		err := contracts.CheckFunds(fctx, ch.cl, from, cs...)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: deployer on chain %s (%s): %w", ErrDeploy, ch.id, ch.url, err)
		}
	}
	return nil
}

// send signs and sends one transaction of the deployer on ch, numbering
// it after the ones sent there before.
func (d *deployment) send(ctx context.Context, ch *deployChain, send func(*bind.TransactOpts) (*types.Transaction, error)) (*types.Transaction, error) {
	ctx, cancel := context.WithTimeout(ctx, d.o.callTimeout)
	defer cancel()
	auth := evmwallet.TransactOpts(ctx, d.signer, ch.id)
	// The node's pending nonce may not count a transaction sent a moment
	// ago: the higher of it and our own count.
	nonce, err := ch.cl.PendingNonceAt(ctx, auth.From)
	if err != nil {
		return nil, fmt.Errorf("%w: nonce of %s on chain %s: %w", ErrDeploy, auth.From, ch.id, err)
	}
	nonce = max(nonce, ch.sent)
	auth.Nonce = new(big.Int).SetUint64(nonce)
	tx, err := send(auth)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDeploy, err)
	}
	ch.sent = nonce + 1
	return tx, nil
}

// confirmed waits until tx is mined and confirmed on ch.
func (d *deployment) confirmed(ctx context.Context, ch *deployChain, tx *types.Transaction) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, d.o.confirmTimeout)
	defer cancel()
	return contracts.WaitConfirmed(ctx, ch.cl, tx.Hash(),
		contracts.Confirmation{Depth: d.o.confirmations, Poll: d.o.poll, CallTimeout: d.o.callTimeout})
}

// grantMinters grants each minter the token's relayer role, all sent
// before any is waited for.
func (d *deployment) grantMinters(ctx context.Context, minters []common.Address) error {
	var txs []*types.Transaction
	for _, m := range minters {
		tx, err := d.send(ctx, d.token.chain, func(auth *bind.TransactOpts) (*types.Transaction, error) {
			return contracts.GrantMinter(auth, d.token.chain.cl, d.token.addr, m)
		})
		if err != nil {
			return err
		}
		txs = append(txs, tx)
	}
	for i, tx := range txs {
		if _, err := d.confirmed(ctx, d.token.chain, tx); err != nil {
			return fmt.Errorf("%w: granting minter %s the token's relayer role: %w", ErrDeploy, minters[i], err)
		}
		d.log.Info("minter granted", "token", d.token.addr, "minter", minters[i], "tx", tx.Hash())
	}
	return nil
}

// checkRoles reads back that the relayer may anchor and mint and each
// minter may mint.
func (d *deployment) checkRoles(ctx context.Context, w deployWallets) error {
	type holder struct {
		c   *deployed
		who common.Address
	}
	want := []holder{{d.dist, w.relayer}, {d.token, w.relayer}}
	for _, m := range w.minters {
		want = append(want, holder{d.token, m})
	}
	for _, h := range want {
		rctx, cancel := context.WithTimeout(ctx, d.o.callTimeout)
		has, err := contracts.HasRelayerRole(rctx, h.c.chain.cl, h.c.addr, h.who)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDeploy, err)
		}
		if !has {
			return fmt.Errorf("%w: %w: %s at %s does not give %s the relayer role", ErrDeploy, contracts.ErrDeployFailed, h.c.creation.Name, h.c.addr, h.who)
		}
	}
	return nil
}

// relayConfig is the relay config for the deployed contracts: the
// wallets' addresses without a key source, which the operator adds.
func (d *deployment) relayConfig(w deployWallets) relayConfig {
	dist, token := d.dist, d.token
	wallets := &relayWallets{Relayer: evmwallet.Spec{Address: domain.Address(w.relayer)}}
	for _, m := range w.minters {
		wallets.Mint = append(wallets.Mint, evmwallet.Spec{Address: domain.Address(m)})
	}
	for _, c := range w.claimers {
		wallets.Claim = append(wallets.Claim, evmwallet.Spec{Address: domain.Address(c)})
	}
	cfg := relayConfig{RPC: dist.chain.url, ChainID: dist.chain.id.Uint64(), Distributor: domain.Address(dist.addr),
		Token: domain.Address(token.addr), StartBlock: dist.receipt.BlockNumber.Uint64(), Confirmations: d.o.confirmations,
		Wallets: wallets}
	if token.chain == dist.chain {
		cfg.StartBlock = min(cfg.StartBlock, token.receipt.BlockNumber.Uint64())
		return cfg
	}
	cfg.Execution = &executionChain{RPC: token.chain.url, ChainID: token.chain.id.Uint64(),
		StartBlock: token.receipt.BlockNumber.Uint64(), Confirmations: d.o.confirmations}
	return cfg
}
