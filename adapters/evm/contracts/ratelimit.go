package contracts

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// RateLimit is a contract's token bucket (src/RateLimiter.sol): it holds
// at most Capacity wei and refills PerSecond wei a second. The token's
// limits what mint and refund create, the distributor's what claims pay.
type RateLimit struct {
	Capacity  *big.Int
	PerSecond *big.Int
}

// ErrBadRateLimit: a limit with a zero, negative or over-wide capacity or
// rate; the contracts refuse it too (BadRateLimit).
var ErrBadRateLimit = errors.New("bad rate limit")

// maxLimit is the widest capacity or rate a bucket stores (uint128).
var maxLimit = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// Check is the contract's check, done before anything is sent.
func (r RateLimit) Check() error {
	for _, f := range []struct {
		name string
		v    *big.Int
	}{{"capacity", r.Capacity}, {"rate per second", r.PerSecond}} {
		switch {
		case f.v == nil || f.v.Sign() <= 0:
			return fmt.Errorf("%w: %s %v: want more than 0", ErrBadRateLimit, f.name, f.v)
		case f.v.Cmp(maxLimit) > 0:
			return fmt.Errorf("%w: %s %s: over 2^128-1", ErrBadRateLimit, f.name, f.v)
		}
	}
	return nil
}

// Window returns how long an empty bucket takes to fill.
func (r RateLimit) Window() time.Duration {
	if r.Check() != nil {
		return 0
	}
	s := new(big.Int).Div(new(big.Int).Add(r.Capacity, new(big.Int).Sub(r.PerSecond, big.NewInt(1))), r.PerSecond)
	if !s.IsInt64() || s.Int64() > int64(time.Duration(1<<62)/time.Second) {
		return time.Duration(1 << 62)
	}
	return time.Duration(s.Int64()) * time.Second
}

func (r RateLimit) String() string {
	return fmt.Sprintf("capacity %v wei, %v wei/s", r.Capacity, r.PerSecond)
}

// PerWindow is the limit "at most amount per window": a bucket of amount
// that refills in window (rounded to whole seconds, its rate rounded up so
// it never takes longer). A window under a second or an amount of 0 is
// ErrBadRateLimit.
func PerWindow(amount *big.Int, window time.Duration) (RateLimit, error) {
	secs := int64(window / time.Second)
	if secs <= 0 {
		return RateLimit{}, fmt.Errorf("%w: window %s: want at least 1s", ErrBadRateLimit, window)
	}
	if amount == nil || amount.Sign() <= 0 {
		return RateLimit{}, fmt.Errorf("%w: amount %v: want more than 0", ErrBadRateLimit, amount)
	}
	s := big.NewInt(secs)
	rate := new(big.Int).Div(new(big.Int).Add(amount, new(big.Int).Sub(s, big.NewInt(1))), s)
	r := RateLimit{Capacity: new(big.Int).Set(amount), PerSecond: rate}
	return r, r.Check()
}

// args are the constructor's arguments; a nil field packs as 0, which the
// contract refuses.
func (r RateLimit) args() (*big.Int, *big.Int) {
	c, p := r.Capacity, r.PerSecond
	if c == nil {
		c = new(big.Int)
	}
	if p == nil {
		p = new(big.Int)
	}
	return c, p
}

// RateLimitState is a bucket as the chain holds it now.
type RateLimitState struct {
	RateLimit
	Available *big.Int // what may be moved now
}

// ReadRateLimit reads the bucket of contract, either of the two: both
// inherit AdminRateLimited, whose views the token's binding packs.
func ReadRateLimit(ctx context.Context, c bind.ContractBackend, contract common.Address) (RateLimitState, error) {
	t := NewBridgeToken()
	inst := t.Instance(c, contract)
	opts := &bind.CallOpts{Context: ctx}
	var st RateLimitState
	var err error
	if st.Capacity, err = bind.Call(inst, opts, t.PackRateLimitCapacity(), t.UnpackRateLimitCapacity); err != nil {
		return st, fmt.Errorf("rateLimitCapacity() on %s: %w", contract, DecodeRevert(err))
	}
	if st.PerSecond, err = bind.Call(inst, opts, t.PackRateLimitPerSecond(), t.UnpackRateLimitPerSecond); err != nil {
		return st, fmt.Errorf("rateLimitPerSecond() on %s: %w", contract, DecodeRevert(err))
	}
	if st.Available, err = bind.Call(inst, opts, t.PackRateLimitAvailable(), t.UnpackRateLimitAvailable); err != nil {
		return st, fmt.Errorf("rateLimitAvailable() on %s: %w", contract, DecodeRevert(err))
	}
	return st, nil
}

// SetRateLimit sends the admin's setRateLimit to contract (either of the
// two), after checking r as the contract would.
func SetRateLimit(auth *bind.TransactOpts, c bind.ContractBackend, contract common.Address, r RateLimit) (*types.Transaction, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	t := NewBridgeToken()
	tx, err := bind.Transact(t.Instance(c, contract), auth, t.PackSetRateLimit(r.Capacity, r.PerSecond))
	if err != nil {
		return nil, fmt.Errorf("setRateLimit(%s) on %s: %w", r, contract, DecodeRevert(err))
	}
	return tx, nil
}
