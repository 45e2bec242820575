package domain

import (
	"errors"
	"fmt"
	"math/big"
	"time"
)

// The mint governor bounds what the relay mints in a rolling window of the
// source chain's time, as Wormhole's guardian governor does: a mint that
// would pass the window's value limit, or is large, is held (never
// refused) until the window allows it or a delay passes. Every decision
// is measured on the block times of the confirmed deposits and on the
// source chain's time, never on a local clock, so a replay decides the
// same.

// Event type names of the governor's decisions.
const (
	TypeMintHeld     = "deposit.mint_held"
	TypeMintReleased = "deposit.mint_released"
)

// Why a mint is held or released.
const (
	HoldOverLimit = "over_limit" // the window's limit would be passed
	HoldLarge     = "large"      // at least the large-mint size
	HoldOperator  = "operator"   // an operator held it; only an operator releases it

	ReleaseWindow   = "window"   // the window allows it now
	ReleaseDelay    = "delay"    // the delay since its block passed
	ReleaseOperator = "operator" // an operator released it
)

// Defaults of a governor section that names only its limit.
const (
	DefaultGovernorWindow = 24 * time.Hour
	DefaultLargeDelay     = 24 * time.Hour
)

// ErrGovernorConfig: a governor that cannot work (no positive limit, a
// window or delay that is not positive).
var ErrGovernorConfig = errors.New("invalid mint governor")

// GovernorPolicy is the relay's mint governor.
type GovernorPolicy struct {
	Window time.Duration // the rolling window, default 24h
	Limit  Amount        // the most minted from deposits of one window (token units)
	// LargeSize, if not zero: a deposit of at least this much is held
	// LargeDelay from its block whatever the window holds.
	LargeSize  Amount
	LargeDelay time.Duration // default 24h; also the longest an over-limit mint waits
}

// WithDefaults fills the window and the delay.
func (p GovernorPolicy) WithDefaults() GovernorPolicy {
	if p.Window == 0 {
		p.Window = DefaultGovernorWindow
	}
	if p.LargeDelay == 0 {
		p.LargeDelay = DefaultLargeDelay
	}
	return p
}

// Validate refuses a governor that would hold everything or nothing by
// mistake.
func (p GovernorPolicy) Validate() error {
	switch {
	case p.Limit.IsZero():
		return fmt.Errorf("%w: the limit must be positive", ErrGovernorConfig)
	case p.Window <= 0:
		return fmt.Errorf("%w: the window must be positive, not %s", ErrGovernorConfig, p.Window)
	case p.LargeDelay <= 0:
		return fmt.Errorf("%w: the large delay must be positive, not %s", ErrGovernorConfig, p.LargeDelay)
	}
	return nil
}

// MintHeld: the deposit's mint waits. Reason is HoldOverLimit, HoldLarge
// or HoldOperator (then Action says who and why).
type MintHeld struct {
	Ref    LogRef `msgpack:"ref" json:"ref"`
	Amount Amount `msgpack:"amount" json:"amount"`
	Reason string `msgpack:"reason" json:"reason"`
	// ChainTime is the source chain's time the decision was taken at and
	// ReleaseAt when the delay passes (unix seconds of block time; 0 for
	// an operator's hold, which only an operator lifts).
	ChainTime int64          `msgpack:"chain_time" json:"chainTime"`
	ReleaseAt int64          `msgpack:"release_at" json:"releaseAt"`
	Action    OperatorAction `msgpack:"action" json:"action"`
}

func (e MintHeld) EventType() string { return TypeMintHeld }
func (e MintHeld) SourceKey() string {
	if e.Reason == HoldOperator {
		return e.Ref.DepositID() + "/held/" + e.Action.RequestID
	}
	return e.Ref.DepositID() + "/held/governor"
}
func (e MintHeld) AggregateID() string { return e.Ref.DepositID() }

// MintReleased: the held deposit may be minted.
type MintReleased struct {
	Ref       LogRef         `msgpack:"ref" json:"ref"`
	Reason    string         `msgpack:"reason" json:"reason"`
	ChainTime int64          `msgpack:"chain_time" json:"chainTime"`
	Action    OperatorAction `msgpack:"action" json:"action"`
}

func (e MintReleased) EventType() string { return TypeMintReleased }
func (e MintReleased) SourceKey() string {
	if e.Reason == ReleaseOperator {
		return e.Ref.DepositID() + "/released/" + e.Action.RequestID
	}
	return e.Ref.DepositID() + "/released/governor"
}
func (e MintReleased) AggregateID() string { return e.Ref.DepositID() }

// MintHold is a deposit's standing hold, if any.
type MintHold struct {
	Reason    string
	ReleaseAt time.Time // zero for an operator's hold
}

// GovernedMint is one confirmed deposit not yet minted, as the governor
// sees it.
type GovernedMint struct {
	Ref       LogRef
	Amount    Amount
	BlockTime time.Time // its block's time on the source chain
	Hold      *MintHold // nil: not held
	Released  bool      // released after a hold: mint it
}

// WindowEntry is a deposit the governor let through (minted or minting),
// counted in the window of its block time.
type WindowEntry struct {
	BlockTime time.Time
	Amount    Amount
}

// GovernorDecision is what to do with one queued deposit.
type GovernorDecision struct {
	Ref     LogRef
	Mint    bool      // mint it now
	Hold    *MintHeld // record this hold (a new one)
	Release *MintReleased
}

// Govern decides every queued deposit, in stream order, at the source
// chain's time now. admitted are the deposits already let through whose
// block is within the window. It is pure: the same inputs give the same
// decisions. Over-limit holds keep stream order (a later deposit does not
// pass one held for the limit); a large or operator hold holds its own
// deposit only.
func Govern(p GovernorPolicy, now time.Time, admitted []WindowEntry, queue []GovernedMint) []GovernorDecision {
	// One accumulator, added to in place: a round decides up to 10,000
	// deposits every poll.
	used, sum := new(big.Int), new(big.Int)
	inWindow := func(t time.Time) bool { return t.After(now.Add(-p.Window)) && !t.After(now) }
	for i := range admitted {
		if inWindow(admitted[i].BlockTime) {
			used.Add(used, &admitted[i].Amount.v)
		}
	}
	out := make([]GovernorDecision, 0, len(queue))
	blocked := false // an earlier deposit waits for the window
	for i := range queue {
		q := &queue[i]
		d := GovernorDecision{Ref: q.Ref}
		delayed := !now.Before(q.BlockTime.Add(p.LargeDelay))
		large := !p.LargeSize.IsZero() && q.Amount.v.Cmp(&p.LargeSize.v) >= 0
		fits := !blocked && sum.Add(used, &q.Amount.v).Cmp(&p.Limit.v) <= 0
		switch {
		case q.Released:
			d.Mint = true
		case q.Hold != nil && q.Hold.Reason == HoldOperator:
			// Only an operator lifts an operator's hold.
		case large && !delayed:
			d.Hold = newHold(q, HoldLarge, now, p)
		case large || (!fits && delayed):
			d.Mint, d.Release = true, newRelease(q, ReleaseDelay, now)
		case !fits:
			d.Hold = newHold(q, HoldOverLimit, now, p)
			blocked = true
		default:
			d.Mint, d.Release = true, newRelease(q, ReleaseWindow, now)
		}
		if d.Mint && inWindow(q.BlockTime) {
			used.Add(used, &q.Amount.v)
		}
		out = append(out, d)
	}
	return out
}

// newHold is a new hold of q, nil if q is held already (it waits).
func newHold(q *GovernedMint, reason string, now time.Time, p GovernorPolicy) *MintHeld {
	if q.Hold != nil {
		return nil
	}
	return &MintHeld{Ref: q.Ref, Amount: q.Amount, Reason: reason, ChainTime: now.Unix(),
		ReleaseAt: q.BlockTime.Add(p.LargeDelay).Unix()}
}

// newRelease is the release of q's hold, nil if q was never held.
func newRelease(q *GovernedMint, reason string, now time.Time) *MintReleased {
	if q.Hold == nil {
		return nil
	}
	return &MintReleased{Ref: q.Ref, Reason: reason, ChainTime: now.Unix()}
}

// Errors of an operator's hold or release.
var (
	// ErrUnknownDeposit: no deposit with that id is on the log.
	ErrUnknownDeposit = errors.New("unknown deposit")
	// ErrDepositFinal: the deposit is minted or failed already.
	ErrDepositFinal = errors.New("deposit already minted or failed")
	// ErrNotHeld: a release of a deposit that is not held.
	ErrNotHeld = errors.New("deposit not held")
	// ErrAlreadyHeld: a hold of a deposit an operator holds already.
	ErrAlreadyHeld = errors.New("deposit already held by an operator")
)

// CheckRelease refuses an operator's release of a deposit in status
// (StatusConfirmed, StatusMinted, …; "" unknown) with hold (nil: none).
func CheckRelease(status Status, hold *MintHold) error {
	if err := checkGovernable(status); err != nil {
		return err
	}
	if hold == nil {
		return ErrNotHeld
	}
	return nil
}

// CheckHold refuses an operator's hold of a deposit that is final,
// unknown, or held by an operator already.
func CheckHold(status Status, hold *MintHold) error {
	if err := checkGovernable(status); err != nil {
		return err
	}
	if hold != nil && hold.Reason == HoldOperator {
		return ErrAlreadyHeld
	}
	return nil
}

func checkGovernable(status Status) error {
	switch status {
	case "":
		return ErrUnknownDeposit
	case StatusMinted, StatusFailed:
		return fmt.Errorf("%w (%s)", ErrDepositFinal, status)
	}
	return nil
}
