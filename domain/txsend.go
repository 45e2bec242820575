package domain

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Purpose says what a chain transaction is for; it picks the topic its
// intent and outcome events live on (the topic of the aggregate it serves).
type Purpose string

const (
	PurposeMint   Purpose = "mint"
	PurposeAnchor Purpose = "anchor"
	PurposeClaim  Purpose = "claim"
)

// Event type names of transaction intents and outcomes, per purpose.
const (
	TypeMintIntent    = "mint.tx_intent"
	TypeMintOutcome   = "mint.tx_outcome"
	TypeAnchorIntent  = "anchor.tx_intent"
	TypeAnchorOutcome = "anchor.tx_outcome"
	TypeClaimIntent   = "claim.tx_intent"
	TypeClaimOutcome  = "claim.tx_outcome"
)

// TxIntent is appended before a transaction is sent: the signed raw bytes,
// nonce and hash. On restart an intent without an outcome is reconciled
// with the chain before anything new is sent, so a crash between send and
// record can never lead to a second, different payment.
type TxIntent struct {
	Purpose   Purpose `msgpack:"purpose" json:"purpose"`
	Subject   string  `msgpack:"subject" json:"subject"` // the aggregate it serves
	ChainID   uint64  `msgpack:"chain_id" json:"chainId"`
	From      Address `msgpack:"from" json:"from"`
	Nonce     uint64  `msgpack:"nonce" json:"nonce"`
	Gas       uint64  `msgpack:"gas" json:"gas"`
	TxHash    Hash32  `msgpack:"tx_hash" json:"txHash"`
	RawTx     []byte  `msgpack:"raw_tx" json:"rawTx"`
	GasFeeCap Amount  `msgpack:"gas_fee_cap" json:"gasFeeCap"`
	GasTipCap Amount  `msgpack:"gas_tip_cap" json:"gasTipCap"`
	Attempt   int     `msgpack:"attempt" json:"attempt"` // 1 for the first send, +1 per replacement
	// Cancel marks a zero-value transfer to the sender at the same nonce,
	// sent when the attempts are exhausted: once it is mined the nonce is
	// used, the abandoned call can never be mined later, and the wallet's
	// next nonce is not blocked behind it (no gap).
	Cancel bool `msgpack:"cancel,omitempty" json:"cancel,omitempty"`
}

func (e TxIntent) EventType() string {
	switch e.Purpose {
	case PurposeMint:
		return TypeMintIntent
	case PurposeAnchor:
		return TypeAnchorIntent
	case PurposeRefund:
		return TypeRefundIntent
	}
	return TypeClaimIntent
}
func (e TxIntent) SourceKey() string   { return e.Subject + "/tx/" + e.TxHash.Hex() }
func (e TxIntent) AggregateID() string { return e.Subject }

// TxStatus is how a sent transaction ended.
type TxStatus string

const (
	TxSucceeded        TxStatus = "succeeded"
	TxReverted         TxStatus = "reverted"
	TxAlreadyProcessed TxStatus = "already_processed" // reverted by the contract's replay guard: the work was done
	TxReplaced         TxStatus = "replaced"          // its nonce was used by another transaction of ours
	TxAbandoned        TxStatus = "abandoned"         // gave up after the bounded attempts
	// TxOutOfGas: mined, and ran out of the gas limit the relayer gave it.
	// The limit is ours (an estimate the state moved under), so it says
	// nothing about the call: the item is sent again with more gas, never
	// failed for it.
	TxOutOfGas TxStatus = "out_of_gas"
	// TxDeferred: mined and reverted for a reason that is not the item's
	// (IsDeferral): the item is sent again later.
	TxDeferred TxStatus = "deferred"
	TxDryRun   TxStatus = "dry_run" // dry-run: computed and checked, nothing sent
)

// TxOutcome is appended once a transaction's fate is known.
type TxOutcome struct {
	Purpose     Purpose  `msgpack:"purpose" json:"purpose"`
	Subject     string   `msgpack:"subject" json:"subject"`
	TxHash      Hash32   `msgpack:"tx_hash" json:"txHash"`
	Nonce       uint64   `msgpack:"nonce" json:"nonce"`
	Status      TxStatus `msgpack:"status" json:"status"`
	GasUsed     uint64   `msgpack:"gas_used" json:"gasUsed"`
	BlockNumber uint64   `msgpack:"block_number" json:"blockNumber"`
	Reason      string   `msgpack:"reason" json:"reason,omitempty"`
}

func (e TxOutcome) EventType() string {
	switch e.Purpose {
	case PurposeMint:
		return TypeMintOutcome
	case PurposeAnchor:
		return TypeAnchorOutcome
	case PurposeRefund:
		return TypeRefundOutcome
	}
	return TypeClaimOutcome
}
func (e TxOutcome) SourceKey() string   { return e.Subject + "/outcome/" + e.TxHash.Hex() }
func (e TxOutcome) AggregateID() string { return e.Subject }

// IsAlreadyProcessed reports whether a revert reason is a contract's replay
// guard saying the work was done before (seed 002's self-healing: complete
// the item, do not fail it).
func IsAlreadyProcessed(reason string) bool {
	r := strings.ToLower(reason)
	for _, m := range [...]string{"already processed", "already minted", "already claimed", "already refunded"} {
		if strings.Contains(r, m) {
			return true
		}
	}
	return false
}

// IsDeferral reports whether a revert reason says the call cannot run
// now for a reason that is not the item's: the relayer's wallet lacks its
// role (our configuration), the pool holds too little to pay (funds
// arrive with deposits), the batch is not anchored on the chain the call
// read (a reorganisation), the contract's rate limit has no room for it
// now (IsRateLimited). The item waits; it is never failed for these.
func IsDeferral(reason string) bool {
	for _, m := range [...]string{"AccessControlUnauthorizedAccount", "insufficient locked balance", "unknown batch"} {
		if strings.Contains(reason, m) {
			return true
		}
	}
	return IsRateLimited(reason)
}

// IsRateLimited reports whether a revert reason is a contract's rate
// limit (RateLimiter.sol): its bucket refills by itself (RateLimited), or
// the amount is over the bucket's capacity and waits for the admin to
// raise it (RateLimitOverCapacity).
func IsRateLimited(reason string) bool {
	return IsRateLimitedRefilling(reason) || strings.Contains(reason, "RateLimitOverCapacity")
}

// IsRateLimitedRefilling reports whether a revert reason is a rate limit
// whose bucket will hold enough by itself (RateLimited).
func IsRateLimitedRefilling(reason string) bool {
	return strings.Contains(reason, "RateLimited")
}

// ErrCallDeferred: a call's estimate reverted for a reason IsDeferral
// accepts. Nothing was sent or recorded; drive the item again later.
var ErrCallDeferred = errors.New("call deferred")

// SendPolicy bounds the send loop.
type SendPolicy struct {
	StuckAfter     time.Duration // 0 means 2 minutes (seed 002)
	FeeBumpPercent int64         // 0 means 20; nodes require at least 10
	MaxAttempts    int           // 0 means 5
	MaxFeeCap      *big.Int      // nil means no cap
}

func (p SendPolicy) withDefaults() SendPolicy {
	if p.StuckAfter <= 0 {
		p.StuckAfter = 2 * time.Minute
	}
	if p.FeeBumpPercent < 10 {
		p.FeeBumpPercent = 20
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	return p
}

// Observation is what the chain says now about an intent.
type Observation struct {
	Mined        bool   // a receipt exists for the intent's hash
	Success      bool   // the receipt's status
	GasUsed      uint64 // from the receipt
	BlockNumber  uint64
	RevertReason string
	// ConfirmedNonce is the sender's nonce in the latest block: every
	// nonce below it has been used by some mined transaction.
	ConfirmedNonce uint64
	SentAt         time.Time // when the intent was sent
}

// StepKind is what the send loop does next.
type StepKind int

const (
	StepWait    StepKind = iota // nothing known yet; look again later
	StepDone                    // the outcome is final: append it
	StepReplace                 // stuck: send a replacement with the same nonce and bumped fees
	StepGiveUp                  // stuck after MaxAttempts: cancel the nonce (fees given), then record it abandoned
)

// Step is the decision of [NextStep].
type Step struct {
	Kind      StepKind
	Outcome   TxOutcome // for StepDone and StepGiveUp
	GasFeeCap *big.Int  // for StepReplace, and StepGiveUp's cancellation (nil: over the fee cap)
	GasTipCap *big.Int  // for StepReplace and StepGiveUp
}

// ErrNonceTooLow: a send whose nonce a mined transaction already used.
// Chain adapters wrap it; the send loop then learns the outcome from the
// chain instead of retrying.
var ErrNonceTooLow = errors.New("nonce too low")

// ErrFeeCapReached: a replacement would exceed the configured fee cap.
var ErrFeeCapReached = errors.New("fee cap reached")

// NextStep is the send loop's decision for one intent: the receipt wins;
// a nonce consumed without our receipt means another of our transactions
// with that nonce was mined (find it among the intents); a transaction
// pending past StuckAfter is replaced with the same nonce and bumped fees,
// at most MaxAttempts times; never retried forever.
func NextStep(in TxIntent, obs Observation, now time.Time, pol SendPolicy) Step {
	pol = pol.withDefaults()
	out := TxOutcome{Purpose: in.Purpose, Subject: in.Subject, TxHash: in.TxHash, Nonce: in.Nonce,
		GasUsed: obs.GasUsed, BlockNumber: obs.BlockNumber}
	switch {
	case obs.Mined && obs.Success:
		out.Status = TxSucceeded
		return Step{Kind: StepDone, Outcome: out}
	case obs.Mined && IsAlreadyProcessed(obs.RevertReason):
		out.Status, out.Reason = TxAlreadyProcessed, obs.RevertReason
		return Step{Kind: StepDone, Outcome: out}
	case obs.Mined && IsDeferral(obs.RevertReason):
		out.Status, out.Reason = TxDeferred, obs.RevertReason
		return Step{Kind: StepDone, Outcome: out}
	case obs.Mined && RanOutOfGas(in, obs):
		out.Status = TxOutOfGas
		out.Reason = fmt.Sprintf("used all %d gas of its limit (%s)", obs.GasUsed, obs.RevertReason)
		return Step{Kind: StepDone, Outcome: out}
	case obs.Mined:
		out.Status, out.Reason = TxReverted, obs.RevertReason
		return Step{Kind: StepDone, Outcome: out}
	case obs.ConfirmedNonce > in.Nonce:
		out.Status = TxReplaced
		out.Reason = fmt.Sprintf("nonce %d used by another transaction (sender nonce now %d)", in.Nonce, obs.ConfirmedNonce)
		return Step{Kind: StepDone, Outcome: out}
	case now.Sub(obs.SentAt) < pol.StuckAfter:
		return Step{Kind: StepWait}
	}
	feeCap, tipCap := bump(in.GasFeeCap.Big(), pol.FeeBumpPercent), bump(in.GasTipCap.Big(), pol.FeeBumpPercent)
	if pol.MaxFeeCap != nil && feeCap.Cmp(pol.MaxFeeCap) > 0 {
		out.Status = TxAbandoned
		out.Reason = fmt.Sprintf("%v: replacement fee cap %s over %s", ErrFeeCapReached, feeCap, pol.MaxFeeCap)
		return Step{Kind: StepGiveUp, Outcome: out} // no fees left to cancel with
	}
	if in.Attempt >= pol.MaxAttempts {
		out.Status = TxAbandoned
		out.Reason = fmt.Sprintf("pending after %d attempts", in.Attempt)
		return Step{Kind: StepGiveUp, Outcome: out, GasFeeCap: feeCap, GasTipCap: tipCap}
	}
	return Step{Kind: StepReplace, GasFeeCap: feeCap, GasTipCap: tipCap}
}

// RanOutOfGas reports whether a mined, failed attempt used its whole gas
// limit. A contract's own revert (REVERT, a custom error, a panic code)
// returns the gas it did not use; only running out of gas, the relayer's
// limit being too low, uses all of it.
func RanOutOfGas(in TxIntent, obs Observation) bool {
	return obs.Mined && !obs.Success && in.Gas > 0 && obs.GasUsed >= in.Gas
}

// Final reports whether an outcome decides the item it was sent for:
// succeeded, done before, or reverted by the contract's own verdict.
// Replaced, abandoned (our fees or a busy node), out of gas (our limit)
// and dry-run outcomes decide nothing: the item is sent again.
func (s TxStatus) Final() bool {
	switch s {
	case TxSucceeded, TxAlreadyProcessed, TxReverted:
		return true
	}
	return false
}

// bump raises v by pct percent, rounding up and by at least 1, so a node's
// "replacement transaction underpriced" rule is always met.
func bump(v *big.Int, pct int64) *big.Int {
	inc := new(big.Int).Mul(v, big.NewInt(pct))
	inc.Add(inc, big.NewInt(99))
	inc.Div(inc, big.NewInt(100))
	if inc.Sign() == 0 {
		inc.SetInt64(1)
	}
	return inc.Add(inc, v)
}

// ContractCall is a call the relayer wants mined: target and calldata.
type ContractCall struct {
	To   Address
	Data []byte
}

// CallReverted is returned when a call would revert (at gas estimation or
// as an eth_call): deterministic, so it is recorded, never blindly retried.
type CallReverted struct {
	Reason string
}

func (e *CallReverted) Error() string { return "execution reverted: " + e.Reason }
