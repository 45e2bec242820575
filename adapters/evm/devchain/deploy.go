package devchain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
)

// Bridge is a deployed set of bridge contracts.
type Bridge struct {
	Distributor common.Address `json:"distributor"`
	Token       common.Address `json:"token"`
}

// Deploy deploys the BatchDistributor and BridgeToken with admin as
// deployer and admin, and relayers holding the relayer role, and waits
// until both are mined.
func (c *Chain) Deploy(ctx context.Context, admin *ecdsa.PrivateKey, relayers ...common.Address) (Bridge, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cl := c.Client()
	auth := bind.NewKeyedTransactor(admin, new(big.Int).SetUint64(c.cfg.ChainID))
	auth.Context = ctx
	adminAddr := crypto.PubkeyToAddress(admin.PublicKey)
	// Number the deployer's transactions ourselves: the pool's pending
	// nonce can lag behind transactions sent a moment ago.
	nonce, err := cl.PendingNonceAt(ctx, adminAddr)
	if err != nil {
		return Bridge{}, fmt.Errorf("deployer nonce: %w", err)
	}
	next := func() *big.Int { n := new(big.Int).SetUint64(nonce); nonce++; return n }
	auth.Nonce = next()
	if len(relayers) == 0 {
		relayers = []common.Address{adminAddr}
	}
	dAddr, dTx, err := contracts.DeployDistributor(auth, cl, adminAddr, relayers[0], c.cfg.ClaimLimit)
	if err != nil {
		return Bridge{}, fmt.Errorf("deploy distributor: %w", err)
	}
	auth.Nonce = next()
	tAddr, tTx, err := contracts.DeployToken(auth, cl, "Bridged Ether", "bETH", adminAddr, relayers[0], c.cfg.Kaspa, c.cfg.MintLimit)
	if err != nil {
		return Bridge{}, fmt.Errorf("deploy token: %w", err)
	}
	// Roles are granted once the contracts exist: a call estimated
	// against a contract still in the pool runs out of gas when mined.
	for _, tx := range []*types.Transaction{dTx, tTx} {
		if _, err := c.WaitMined(ctx, tx.Hash()); err != nil {
			return Bridge{}, err
		}
	}
	var txs []*types.Transaction
	// Further relayers (a claim swarm has one wallet each) get the role too.
	for _, r := range relayers[1:] {
		d, t := contracts.NewBatchDistributor(), contracts.NewBridgeToken()
		for _, target := range []struct {
			c    *bind.BoundContract
			data []byte
		}{
			{d.Instance(cl, dAddr), d.PackGrantRole(contracts.RelayerRole, r)},
			{t.Instance(cl, tAddr), t.PackGrantRole(contracts.RelayerRole, r)},
		} {
			auth.Nonce = next()
			tx, err := bind.Transact(target.c, auth, target.data)
			if err != nil {
				return Bridge{}, fmt.Errorf("grant relayer role to %s: %w", r, err)
			}
			txs = append(txs, tx)
		}
	}
	for _, tx := range txs {
		if _, err := c.WaitMined(ctx, tx.Hash()); err != nil {
			return Bridge{}, err
		}
	}
	return Bridge{Distributor: dAddr, Token: tAddr}, nil
}

// WaitMined waits for a receipt, sealing blocks itself when the chain has
// no ticker, and fails on a reverted transaction.
func (c *Chain) WaitMined(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	for {
		if c.cfg.BlockInterval < 0 {
			c.Commit()
		}
		r, err := c.Client().TransactionReceipt(ctx, hash)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return r, fmt.Errorf("devchain: tx %s reverted", hash)
			}
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("devchain: wait for %s: %w", hash, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
