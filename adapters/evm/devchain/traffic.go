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

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
)

// Users act on a deployed bridge the way bridge users do: lock native
// funds for a deposit, burn bridged tokens for a withdrawal. Backend is
// the chain's in-process client or an ethclient dialled to it.
type Users struct {
	Backend Backend
	Bridge  Bridge
}

// Backend is a chain client users transact through (the in-process
// simulated client or an ethclient).
type Backend interface {
	bind.ContractBackend
	ChainID(ctx context.Context) (*big.Int, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
}

func (u Users) send(ctx context.Context, key *ecdsa.PrivateKey, c *bind.BoundContract, data []byte, value *big.Int) (*types.Transaction, error) {
	id, err := u.Backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain id: %w", err)
	}
	auth := bind.NewKeyedTransactor(key, id)
	auth.Context = ctx
	auth.Value = value
	tx, err := bind.Transact(c, auth, data)
	if err != nil {
		return nil, contracts.DecodeRevert(err)
	}
	return tx, u.awaitPooled(ctx, auth.From, tx.Nonce())
}

// awaitPooled waits until the chain's pending nonce of from counts the
// transaction of nonce just sent. The node's pool takes a transaction in
// asynchronously: a next send from the same key that asked earlier would
// get the same nonce and be refused as an underpriced replacement.
func (u Users) awaitPooled(ctx context.Context, from common.Address, nonce uint64) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		next, err := u.Backend.PendingNonceAt(ctx, from)
		if err != nil {
			return fmt.Errorf("pending nonce of %s: %w", from, err)
		}
		if next > nonce {
			return nil
		}
		select {
		case <-ctx.Done():
			// A reorg may drop the transaction from the pool: the caller
			// learns of it from its receipt, not from here.
			return nil
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Lock sends a deposit of amount wei for recipient and returns its
// transaction without waiting for it.
func (u Users) Lock(ctx context.Context, key *ecdsa.PrivateKey, amount *big.Int, recipient common.Address) (*types.Transaction, error) {
	d := contracts.NewBatchDistributor()
	tx, err := u.send(ctx, key, d.Instance(u.Backend, u.Bridge.Distributor), d.PackLock(recipient), amount)
	if err != nil {
		return nil, fmt.Errorf("lock %s for %s: %w", amount, recipient, err)
	}
	return tx, nil
}

// Burn sends a withdrawal of amount bridged tokens to recipient on the
// lock side.
func (u Users) Burn(ctx context.Context, key *ecdsa.PrivateKey, amount *big.Int, recipient common.Address) (*types.Transaction, error) {
	t := contracts.NewBridgeToken()
	tx, err := u.send(ctx, key, t.Instance(u.Backend, u.Bridge.Token), t.PackBurn(amount, recipient), nil)
	if err != nil {
		return nil, fmt.Errorf("burn %s to %s: %w", amount, recipient, err)
	}
	return tx, nil
}

// BurnToKaspa sends a withdrawal of amount bridged tokens to be paid to
// kaspaRecipient on Kaspa by the signing group.
func (u Users) BurnToKaspa(ctx context.Context, key *ecdsa.PrivateKey, amount *big.Int, kaspaRecipient string) (*types.Transaction, error) {
	t := contracts.NewBridgeToken()
	tx, err := u.send(ctx, key, t.Instance(u.Backend, u.Bridge.Token), t.PackBurnToKaspa(amount, kaspaRecipient), nil)
	if err != nil {
		return nil, fmt.Errorf("burn %s to %s on Kaspa: %w", amount, kaspaRecipient, err)
	}
	return tx, nil
}

// TokenBalance is addr's bridged-token balance.
func (u Users) TokenBalance(ctx context.Context, addr common.Address) (*big.Int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	t := contracts.NewBridgeToken()
	return bind.Call(t.Instance(u.Backend, u.Bridge.Token), &bind.CallOpts{Context: ctx}, t.PackBalanceOf(addr), t.UnpackBalanceOf)
}

// Processed reports whether the distributor has paid a leaf.
func (u Users) Processed(ctx context.Context, leaf [32]byte) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := contracts.NewBatchDistributor()
	return bind.Call(d.Instance(u.Backend, u.Bridge.Distributor), &bind.CallOpts{Context: ctx}, d.PackProcessedLeaves(leaf), d.UnpackProcessedLeaves)
}

// TotalLocked is the distributor's locked pool.
func (u Users) TotalLocked(ctx context.Context) (*big.Int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := contracts.NewBatchDistributor()
	return bind.Call(d.Instance(u.Backend, u.Bridge.Distributor), &bind.CallOpts{Context: ctx}, d.PackTotalLocked(), d.UnpackTotalLocked)
}
