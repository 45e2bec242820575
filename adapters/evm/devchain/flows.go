package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// Flows sends a dev bridge's user traffic: deposits (locks for the
// depositor itself), then withdrawals (burns, paid back to the burner)
// of what was minted to the same users, in bursts. It reads only the
// chain, so the relay that serves the bridge may run anywhere, or be
// killed and started again meanwhile.
type Flows struct {
	Users Users
	// Keys are the users' wallets: deposit i and withdrawal i are sent by
	// Keys[i%len(Keys)].
	Keys        []*ecdsa.PrivateKey
	Deposits    int
	Withdrawals int
	BurstSize   int           // transactions sent together; 0: all at once
	BurstEvery  time.Duration // pause between bursts
	// Sent, if set, is told after each burst how many have been sent.
	Sent func(deposits, withdrawals int)
	// Poll is how often a withdrawal waiting for its tokens reads the
	// balance; default 200ms.
	Poll time.Duration
}

// WithdrawalAmount is what each withdrawal burns: a tenth of the smallest
// deposit, so a user's every deposit pays for ten withdrawals.
var WithdrawalAmount = big.NewInt(1e15)

// DepositAmount is deposit i's amount: 0.01 to 0.07 ether, varied so that
// batches carry distinct amounts.
func DepositAmount(i int) *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(1+i%7)), big.NewInt(1e16))
}

// ErrNotEnoughDeposits: the withdrawals asked for would burn more than
// their users hold or are sent.
var ErrNotEnoughDeposits = errors.New("withdrawals need more deposits")

// Run sends every deposit, then every withdrawal, each burst mined
// before the next; a withdrawal waits until its user holds the tokens to
// burn (the relay has minted them).
func (f Flows) Run(ctx context.Context) error {
	if len(f.Keys) == 0 {
		return errors.New("flows: no user wallets")
	}
	if err := f.canPay(ctx); err != nil {
		return err
	}
	burst := f.BurstSize
	if burst <= 0 {
		burst = f.Deposits + f.Withdrawals
	}
	deposits, withdrawals := 0, 0
	for deposits < f.Deposits || withdrawals < f.Withdrawals {
		if deposits+withdrawals > 0 && f.BurstEvery > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(f.BurstEvery):
			}
		}
		var txs []*types.Transaction
		for len(txs) < burst && deposits < f.Deposits {
			k := f.Keys[deposits%len(f.Keys)]
			tx, err := f.Users.Lock(ctx, k, DepositAmount(deposits), crypto.PubkeyToAddress(k.PublicKey))
			if err != nil {
				return err
			}
			txs, deposits = append(txs, tx), deposits+1
		}
		// Withdrawals start once every deposit is sent: they burn what
		// the deposits minted.
		need := map[int]*big.Int{} // tokens each user burns in this burst
		for len(txs) < burst && deposits == f.Deposits && withdrawals < f.Withdrawals {
			u := withdrawals % len(f.Keys)
			if need[u] == nil {
				need[u] = new(big.Int)
			}
			need[u].Add(need[u], WithdrawalAmount)
			if err := f.waitHolds(ctx, f.Keys[u], need[u]); err != nil {
				return err
			}
			k := f.Keys[u]
			tx, err := f.Users.Burn(ctx, k, WithdrawalAmount, crypto.PubkeyToAddress(k.PublicKey))
			if err != nil {
				return err
			}
			txs, withdrawals = append(txs, tx), withdrawals+1
		}
		if err := f.mined(ctx, txs); err != nil {
			return err
		}
		if f.Sent != nil {
			f.Sent(deposits, withdrawals)
		}
	}
	return nil
}

// canPay refuses, before anything is sent, withdrawals that their users'
// balances and the deposits to them cannot pay for.
func (f Flows) canPay(ctx context.Context) error {
	for u, k := range f.Keys {
		addr := crypto.PubkeyToAddress(k.PublicKey)
		have, err := f.Users.TokenBalance(ctx, addr)
		if err != nil {
			return fmt.Errorf("token balance of %s: %w", addr, err)
		}
		for i := u; i < f.Deposits; i += len(f.Keys) {
			have.Add(have, DepositAmount(i))
		}
		burns := 0
		if u < f.Withdrawals {
			burns = (f.Withdrawals-1-u)/len(f.Keys) + 1
		}
		need := new(big.Int).Mul(WithdrawalAmount, big.NewInt(int64(burns)))
		if need.Cmp(have) > 0 {
			return fmt.Errorf("%w: user %s would burn %s in %d withdrawals, but holds and is sent %s", ErrNotEnoughDeposits,
				addr, need, burns, have)
		}
	}
	return nil
}

// waitHolds waits until the user's token balance reaches amount.
func (f Flows) waitHolds(ctx context.Context, k *ecdsa.PrivateKey, amount *big.Int) error {
	addr := crypto.PubkeyToAddress(k.PublicKey)
	for {
		have, err := f.Users.TokenBalance(ctx, addr)
		if err != nil {
			return fmt.Errorf("token balance of %s: %w", addr, err)
		}
		if have.Cmp(amount) >= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to hold %s tokens to burn (holds %s; is a relay minting?): %w", addr, amount, have, ctx.Err())
		case <-time.After(f.poll()):
		}
	}
}

// mined waits for txs' receipts and refuses a reverted one.
func (f Flows) mined(ctx context.Context, txs []*types.Transaction) error {
	for _, tx := range txs {
		for {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			r, err := f.Users.Backend.TransactionReceipt(rctx, tx.Hash())
			cancel()
			if err == nil {
				if r.Status != types.ReceiptStatusSuccessful {
					return fmt.Errorf("user transaction %s reverted", tx.Hash())
				}
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("user transaction %s not mined: %w", tx.Hash(), ctx.Err())
			case <-time.After(f.poll()):
			}
		}
	}
	return nil
}

func (f Flows) poll() time.Duration {
	if f.Poll > 0 {
		return f.Poll
	}
	return 200 * time.Millisecond
}

// FundedUsers are the dev accounts from index first on that hold ether,
// at most n: the users a devnet funded after its relay wallets.
func FundedUsers(ctx context.Context, b Backend, first, n int) ([]*ecdsa.PrivateKey, error) {
	var keys []*ecdsa.PrivateKey
	for i := first; i < first+n; i++ {
		k := DevKey(i)
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		bal, err := b.BalanceAt(ctx, crypto.PubkeyToAddress(k.PublicKey), nil)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("balance of dev account %d: %w", i, err)
		}
		if bal.Sign() == 0 {
			break
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no funded dev account from index %d on: is this a devnet chain?", first)
	}
	return keys, nil
}

// Dial connects users to a bridge on the chain at rpc; close ends the
// connection.
func Dial(ctx context.Context, rpc string, b Bridge) (u Users, close func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, rpc)
	if err != nil {
		return Users{}, nil, fmt.Errorf("dial %s: %w", rpc, err)
	}
	return Users{Backend: cl, Bridge: b}, cl.Close, nil
}
