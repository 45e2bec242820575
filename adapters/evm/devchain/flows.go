package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/domain"
)

// Flows sends a dev bridge's user traffic: deposits (locks for the
// depositor itself), then withdrawals (burns, paid back to the burner)
// of what was minted to the same users, in bursts. A Kaspa payout is a
// round trip of its own: a deposit of its amount among the deposits, then
// a burn of exactly that toward Kaspa among the withdrawals. Flows reads
// only the chain, so the relay that serves the bridge may run anywhere,
// or be killed and started again meanwhile.
type Flows struct {
	Users Users
	// Keys are the users' wallets: deposit i and withdrawal i are sent by
	// Keys[i%len(Keys)], and so are Kaspa payout i's deposit and burn.
	Keys         []*ecdsa.PrivateKey
	Deposits     int
	Withdrawals  int
	KaspaPayouts []KaspaPayout
	BurstSize    int           // transactions sent together; 0: all at once
	BurstEvery   time.Duration // pause between bursts
	// Sent, if set, is told after each burst how many have been sent.
	Sent func(Counts)
	// Poll is how often a withdrawal waiting for its tokens reads the
	// balance; default 200ms.
	Poll time.Duration
	// AllowUnpayable sends Kaspa payouts the token refuses at burn time
	// (under its minimum, not an address of its network) instead of
	// refusing them before anything is sent: their burns revert and their
	// deposits stay minted. Only a test of the refusal wants that.
	AllowUnpayable bool
}

// KaspaPayout is a payment on Kaspa that a user buys: it locks Amount for
// itself, and once that is minted burns Amount toward Recipient, which
// the signing group pays. Devnet deposits are too small to pay for one.
type KaspaPayout struct {
	Recipient string   // a Kaspa address
	Amount    *big.Int // wei: a whole number of sompi
}

// WithdrawalAmount is what each withdrawal burns: a tenth of the smallest
// deposit, so a user's every deposit pays for ten withdrawals.
var WithdrawalAmount = big.NewInt(1e15)

// DepositAmount is deposit i's amount: 0.01 to 0.07 ether, varied so that
// batches carry distinct amounts.
func DepositAmount(i int) *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(1+i%7)), big.NewInt(1e16))
}

// KaspaPayoutAmount is Kaspa payout i's default amount: 0.2 to 1.0 tokens
// in steps of 0.1, whole sompi. Below about 0.2 KAS a payout's output
// makes its transaction's KIP-9 storage mass non-standard.
func KaspaPayoutAmount(i int) *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(2+i%9)), big.NewInt(1e17))
}

// ErrNotEnoughDeposits: the withdrawals asked for would burn more than
// their users hold or are sent.
var ErrNotEnoughDeposits = errors.New("withdrawals need more deposits")

// Total is how many transactions of each kind Run sends.
func (f Flows) Total() Counts {
	return Counts{Locks: f.Deposits + len(f.KaspaPayouts), Burns: f.Withdrawals, KaspaBurns: len(f.KaspaPayouts)}
}

// Run sends every deposit, then every withdrawal, each burst mined
// before the next; a withdrawal waits until its user holds the tokens to
// burn (the relay has minted them). Kaspa payouts' deposits and burns are
// spread evenly among the others.
func (f Flows) Run(ctx context.Context) error {
	if len(f.Keys) == 0 {
		return errors.New("flows: no user wallets")
	}
	if err := f.checkKaspaPayouts(ctx); err != nil {
		return err
	}
	if err := f.canPay(ctx); err != nil {
		return err
	}
	total := f.Total()
	burst := f.BurstSize
	if burst <= 0 {
		burst = total.Locks + total.Burns + total.KaspaBurns
	}
	r := flowRun{Flows: f, locks: Spread(f.Deposits, len(f.KaspaPayouts)), burns: Spread(f.Withdrawals, len(f.KaspaPayouts))}
	for r.sent != total {
		if r.sent != (Counts{}) && f.BurstEvery > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(f.BurstEvery):
			}
		}
		txs, err := r.sendLocks(ctx, burst)
		if err != nil {
			return err
		}
		// Withdrawals start once every deposit is sent: they burn what
		// the deposits minted.
		if r.sent.Locks == total.Locks {
			burns, err := r.sendBurns(ctx, burst-len(txs))
			if err != nil {
				return err
			}
			txs = append(txs, burns...)
		}
		if err := f.mined(ctx, txs); err != nil {
			return err
		}
		if f.Sent != nil {
			f.Sent(r.sent)
		}
	}
	return nil
}

// flowRun is one Run's progress through its planned transactions.
type flowRun struct {
	Flows
	// locks and burns are the order of each phase: true where a Kaspa
	// payout's transaction goes.
	locks, burns []bool
	sent         Counts
	// kaspaLocks counts the Kaspa payouts' deposits among sent.Locks.
	kaspaLocks int
}

// sendLocks sends up to n of the deposits left.
func (r *flowRun) sendLocks(ctx context.Context, n int) ([]*types.Transaction, error) {
	var txs []*types.Transaction
	for len(txs) < n && r.sent.Locks < len(r.locks) {
		kaspa := r.locks[r.sent.Locks]
		i, amount := r.sent.Locks-r.kaspaLocks, DepositAmount(r.sent.Locks-r.kaspaLocks)
		if kaspa {
			i, amount = r.kaspaLocks, r.KaspaPayouts[r.kaspaLocks].Amount
		}
		k := r.Keys[i%len(r.Keys)]
		tx, err := r.Users.Lock(ctx, k, amount, crypto.PubkeyToAddress(k.PublicKey))
		if err != nil {
			return nil, err
		}
		if kaspa {
			r.kaspaLocks++
		}
		txs, r.sent.Locks = append(txs, tx), r.sent.Locks+1
	}
	return txs, nil
}

// sendBurns sends up to n of the withdrawals and Kaspa burns left, each
// once its user holds what it burns beside the user's earlier burns of
// the burst that are not mined yet.
func (r *flowRun) sendBurns(ctx context.Context, n int) ([]*types.Transaction, error) {
	var txs []*types.Transaction
	unmined := map[*ecdsa.PrivateKey][]sentBurn{}
	for len(txs) < n && r.sent.Burns+r.sent.KaspaBurns < len(r.burns) {
		kaspa := r.burns[r.sent.Burns+r.sent.KaspaBurns]
		i, amount, count := r.sent.Burns, WithdrawalAmount, &r.sent.Burns
		if kaspa {
			i, amount, count = r.sent.KaspaBurns, r.KaspaPayouts[r.sent.KaspaBurns].Amount, &r.sent.KaspaBurns
		}
		k := r.Keys[i%len(r.Keys)]
		var err error
		if unmined[k], err = r.waitHolds(ctx, k, amount, unmined[k]); err != nil {
			return nil, err
		}
		var tx *types.Transaction
		if kaspa {
			tx, err = r.Users.BurnToKaspa(ctx, k, amount, r.KaspaPayouts[i].Recipient)
		} else {
			tx, err = r.Users.Burn(ctx, k, amount, crypto.PubkeyToAddress(k.PublicKey))
		}
		if err != nil {
			return nil, err
		}
		txs, *count = append(txs, tx), *count+1
		unmined[k] = append(unmined[k], sentBurn{tx.Hash(), amount})
	}
	return txs, nil
}

// sentBurn is a burn sent and maybe not mined yet.
type sentBurn struct {
	tx     common.Hash
	amount *big.Int
}

// Spread orders n transactions of one kind and k of another: true at the
// k places, spread evenly.
func Spread(n, k int) []bool {
	order := make([]bool, n+k)
	placed := 0
	for s := range order {
		// The j-th of the k (from 1) takes place ceil(j*(n+k)/k), from 1.
		if placed < k && (placed+1)*(n+k) <= (s+1)*k {
			order[s], placed = true, placed+1
		}
	}
	return order
}

// checkKaspaPayouts refuses, before anything is sent, a payout the token
// would refuse to burn: the deposit for it would be stranded. The token's
// minimum and network prefix are read from the chain.
func (f Flows) checkKaspaPayouts(ctx context.Context) error {
	for i, p := range f.KaspaPayouts {
		if p.Amount == nil || p.Amount.Sign() <= 0 || new(big.Int).Rem(p.Amount, big.NewInt(domain.WeiPerSompi)).Sign() != 0 {
			return fmt.Errorf("kaspa payout %d: %w: %v wei", i, domain.ErrNotWholeSompi, p.Amount)
		}
		if n := len(p.Recipient); n == 0 || n > domain.MaxKaspaRecipientBytes {
			return fmt.Errorf("kaspa payout %d: %w: %d bytes, want 1 to %d", i, domain.ErrBadKaspaRecipient, n,
				domain.MaxKaspaRecipientBytes)
		}
	}
	if len(f.KaspaPayouts) > 0 && !f.AllowUnpayable {
		rules, err := contracts.ReadKaspaBurnRules(ctx, contracts.NewBridgeToken().Instance(f.Users.Backend, f.Users.Bridge.Token))
		if err != nil {
			return err
		}
		for i, p := range f.KaspaPayouts {
			if err := rules.Check(p.Amount, p.Recipient); err != nil {
				return fmt.Errorf("kaspa payout %d: the token would refuse it: %w", i, err)
			}
		}
	}
	return nil
}

// canPay refuses, before anything is sent, withdrawals and Kaspa burns
// that their users' balances and the deposits to them cannot pay for.
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
		payouts := 0
		for i := u; i < len(f.KaspaPayouts); i += len(f.Keys) {
			have.Add(have, f.KaspaPayouts[i].Amount)
			need.Add(need, f.KaspaPayouts[i].Amount)
			payouts++
		}
		if need.Cmp(have) > 0 {
			return fmt.Errorf("%w: user %s would burn %s in %d withdrawals and %d Kaspa payouts, but holds and is sent %s",
				ErrNotEnoughDeposits, addr, need, burns, payouts, have)
		}
	}
	return nil
}

// waitHolds waits until the user's token balance covers amount and the
// burns it sent that are not mined yet (unmined), and returns those still
// not mined. The balance is the latest block's, as the gas estimate of
// the next burn reads it.
func (f Flows) waitHolds(ctx context.Context, k *ecdsa.PrivateKey, amount *big.Int, unmined []sentBurn) ([]sentBurn, error) {
	addr := crypto.PubkeyToAddress(k.PublicKey)
	for {
		// Receipts first: a burn mined after its check is then still
		// counted, and the balance read next may already lack it (waiting
		// longer), never the other way round.
		need := new(big.Int).Set(amount)
		unmined = slices.DeleteFunc(unmined, func(b sentBurn) bool {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if _, err := f.Users.Backend.TransactionReceipt(rctx, b.tx); err == nil {
				return true // mined: the balance read next counts it
			}
			need.Add(need, b.amount)
			return false
		})
		have, err := f.Users.TokenBalance(ctx, addr)
		if err != nil {
			return unmined, fmt.Errorf("token balance of %s: %w", addr, err)
		}
		if have.Cmp(need) >= 0 {
			return unmined, nil
		}
		select {
		case <-ctx.Done():
			return unmined, fmt.Errorf("waiting for %s to hold %s tokens to burn (holds %s; is a relay minting?): %w", addr, need, have, ctx.Err())
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
