package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// TxChain is what the transaction driver needs of a chain, bound to one
// wallet (evmchain.Signer implements it).
type TxChain interface {
	From() domain.Address
	Fees(ctx context.Context) (feeCap, tipCap *big.Int, err error)
	Estimate(ctx context.Context, from domain.Address, call domain.ContractCall) (uint64, error)
	SignCall(ctx context.Context, call domain.ContractCall, nonce, gas uint64, feeCap, tipCap *big.Int) (domain.Hash32, []byte, error)
	SendRaw(ctx context.Context, raw []byte) error
	WalletNonces(ctx context.Context) (confirmed, pending uint64, err error)
	Observe(ctx context.Context, in domain.TxIntent) (domain.Observation, error)
	ChainID() uint64
}

// TxDriver sends one wallet's transactions through intents: it appends an
// intent (signed raw transaction, nonce, hash) before sending and an
// outcome after, reconciles intents left by a crash before sending
// anything new, replaces stuck transactions with the same nonce and bumped
// fees, and never retries forever. One wallet sends one transaction at a
// time, so nonces never race.
type TxDriver struct {
	Chain        TxChain
	Appender     *Appender
	Policy       domain.SendPolicy
	PollInterval time.Duration // default 100ms
	GasMargin    uint64        // percent over the estimate, default 25
	// MaxGas bounds the gas limit of a transaction sent again because the
	// one before ran out (default 2,000,000: ten times any call of the
	// bridge's contracts, under every chain's block gas limit).
	MaxGas uint64
	Now    func() time.Time
	Logger *slog.Logger
	DryRun bool // estimate and log, never sign or send
	// Health, if set, follows the wallet's signer as the step
	// "sign:<address>": the first failure to sign and the first signature
	// after are one log line and one event each, every failure a metric.
	Health *StepHealth
	// Metrics counts the calls a contract's rate limit defers.
	Metrics TxMetrics
	// RateLimits follows each item's wait on a contract's rate limit as
	// the step RateLimitStep(purpose, subject): one line and one event when
	// the wait starts and when it ends. Give it no Metrics (a step per
	// item); nil: a StepHealth of the driver's own, lines only.
	RateLimits *StepHealth
	// Gate, if set, is asked before anything is signed or sent (the
	// relay's pause): a refusal returns its error and sends nothing; the
	// request's open intents stay open for the next drive.
	Gate SendGate

	mu          sync.Mutex
	dryReported map[string]bool // dry-run says what it would do once per subject
	// gasFloor is, per subject, the largest gas limit that ran out: the
	// next send gets at least twice it, up to MaxGas.
	gasFloor  map[string]uint64
	ownLimits *StepHealth // RateLimits when none is given
}

// SendGate says whether a transaction may be sent now (PauseGate).
type SendGate interface {
	MaySend(ctx context.Context) error
}

func (d *TxDriver) maySend(ctx context.Context) error {
	if d.Gate == nil || d.DryRun {
		return nil
	}
	return d.Gate.MaySend(ctx)
}

// defaultMaxGas is MaxGas's default.
const defaultMaxGas = 2_000_000

func (d *TxDriver) maxGas() uint64 {
	if d.MaxGas > 0 {
		return d.MaxGas
	}
	return defaultMaxGas
}

// dryOnce reports whether a dry-run line about subject is due.
func (d *TxDriver) dryOnce(subject string) bool {
	if d.dryReported == nil {
		d.dryReported = map[string]bool{}
	}
	if d.dryReported[subject] {
		return false
	}
	d.dryReported[subject] = true
	return true
}

// TxRequest is one transaction the driver should see through.
type TxRequest struct {
	Purpose domain.Purpose
	Subject string
	Call    domain.ContractCall
	// Open holds this subject's intents that have no outcome yet, oldest
	// first, as the projections (or a claim executor's fold) know them.
	Open  []domain.TxIntent
	Cause Cause
}

func (d *TxDriver) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *TxDriver) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

// Drive sees req through to an outcome, which it appends and returns. An
// error means nothing final is known (an RPC failed, ctx ended): call
// again later with the open intents; the outcome is never guessed.
//
// A transaction that runs out of the gas it was given (the state moved
// between the estimate and the block) is recorded out_of_gas and sent
// again with a fresh estimate and at least twice the limit that ran out,
// up to MaxGas; only past MaxGas does Drive return the out_of_gas
// outcome, which decides nothing about the item (see TxStatus.Final).
func (d *TxDriver) Drive(ctx context.Context, req TxRequest) (domain.TxOutcome, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.PollInterval <= 0 {
		d.PollInterval = 100 * time.Millisecond
	}
	if err := d.maySend(ctx); err != nil {
		return domain.TxOutcome{}, err
	}
	for {
		out, err := d.driveOnce(ctx, req)
		if err == nil && out.Status == domain.TxDeferred {
			d.rateLimited(ctx, req, out.Reason) // mined after the bucket emptied under it
		}
		if err != nil || out.Status != domain.TxOutOfGas || out.TxHash.IsZero() {
			if err == nil && out.Status.Final() {
				delete(d.gasFloor, req.Subject)
			}
			return out, err
		}
		if d.gasFloor == nil {
			d.gasFloor = map[string]uint64{}
		}
		d.gasFloor[req.Subject] = max(d.gasFloor[req.Subject], out.GasUsed)
		if out.GasUsed >= d.maxGas() {
			d.logger().Error("transaction ran out of gas at the gas cap; the item waits", "subject", req.Subject,
				"purpose", req.Purpose, "tx_hash", out.TxHash.Hex(), "gas_used", out.GasUsed, "max_gas", d.maxGas())
			return out, nil
		}
		d.logger().Warn("transaction ran out of gas; sending again with more", "subject", req.Subject, "purpose", req.Purpose,
			"tx_hash", out.TxHash.Hex(), "gas_limit", out.GasUsed)
		req.Open = nil
	}
}

// driveOnce sends req's first transaction (or reconciles its open
// intents) and sees it to an outcome.
func (d *TxDriver) driveOnce(ctx context.Context, req TxRequest) (domain.TxOutcome, error) {
	open := append([]domain.TxIntent(nil), req.Open...)
	sentAt := map[domain.Hash32]time.Time{}
	if len(open) == 0 {
		in, out, err := d.first(ctx, req)
		if err != nil || out != nil {
			if out != nil {
				return *out, nil
			}
			return domain.TxOutcome{}, err
		}
		open = append(open, in)
		sentAt[in.TxHash] = d.now()
	} else {
		// Intents from before a restart: the node may never have seen
		// them. Rebroadcast (a node that has one says "already known").
		for _, in := range open {
			if err := d.Chain.SendRaw(ctx, in.RawTx); err != nil && !errors.Is(err, domain.ErrNonceTooLow) {
				d.logger().Warn("rebroadcast failed", "subject", req.Subject, "tx_hash", in.TxHash.Hex(), "error", err)
			}
			sentAt[in.TxHash] = d.now()
		}
		d.logger().Info("reconciling open intents", "subject", req.Subject, "purpose", req.Purpose, "intents", len(open))
	}
	return d.wait(ctx, req, open, sentAt)
}

// first sends the first transaction of a request, or finds that none is
// needed: a call that would revert is decided without paying for a send.
func (d *TxDriver) first(ctx context.Context, req TxRequest) (domain.TxIntent, *domain.TxOutcome, error) {
	from := d.Chain.From()
	gas, err := d.Chain.Estimate(ctx, from, req.Call)
	var rev *domain.CallReverted
	switch {
	case err == nil:
		d.rateLimited(ctx, req, "")
	case errors.As(err, &rev):
		d.rateLimited(ctx, req, rev.Reason) // a revert for another reason ends a wait too
	}
	if errors.As(err, &rev) && domain.IsDeferral(rev.Reason) {
		return domain.TxIntent{}, nil, fmt.Errorf("%w: %s for %s reverts at estimate: %s", domain.ErrCallDeferred, req.Purpose, req.Subject, rev.Reason)
	}
	if errors.As(err, &rev) {
		st := domain.TxReverted
		if domain.IsAlreadyProcessed(rev.Reason) {
			st = domain.TxAlreadyProcessed
		}
		out := domain.TxOutcome{Purpose: req.Purpose, Subject: req.Subject, Status: st, Reason: rev.Reason}
		if d.DryRun {
			if d.dryOnce(req.Subject) {
				d.logger().Info("dry-run: would not send, call reverts", "subject", req.Subject, "reason", rev.Reason)
			}
			return domain.TxIntent{}, &out, nil
		}
		if _, err := d.Appender.Append(ctx, req.Cause, out); err != nil {
			return domain.TxIntent{}, nil, err
		}
		d.logger().Info("transaction not sent: call reverts", "subject", req.Subject, "purpose", req.Purpose, "status", st, "reason", rev.Reason)
		return domain.TxIntent{}, &out, nil
	}
	if err != nil {
		return domain.TxIntent{}, nil, fmt.Errorf("estimate %s for %s: %w", req.Purpose, req.Subject, err)
	}
	if d.DryRun {
		if d.dryOnce(req.Subject) {
			d.logger().Info("dry-run: would send", "subject", req.Subject, "purpose", req.Purpose, "to", req.Call.To.Hex(), "gas", gas)
		}
		out := domain.TxOutcome{Purpose: req.Purpose, Subject: req.Subject, Status: domain.TxDryRun}
		return domain.TxIntent{}, &out, nil
	}
	gas, capped := d.gasLimit(req.Subject, gas)
	if capped {
		// A limit at the cap already ran out: sending again would only
		// burn fees. Nothing is recorded; the item waits (a restart
		// clears the floor and tries the cap once more).
		out := domain.TxOutcome{Purpose: req.Purpose, Subject: req.Subject, Status: domain.TxOutOfGas,
			Reason: fmt.Sprintf("ran out of gas at the gas cap %d", d.maxGas())}
		return domain.TxIntent{}, &out, nil
	}
	_, pending, err := d.Chain.WalletNonces(ctx)
	if err != nil {
		return domain.TxIntent{}, nil, err
	}
	feeCap, tipCap, err := d.Chain.Fees(ctx)
	if err != nil {
		return domain.TxIntent{}, nil, err
	}
	in, err := d.send(ctx, req, req.Call, pending, gas, feeCap, tipCap, 1, false)
	return in, nil, err
}

// gasLimit is the limit to send a call estimated at gas with: the
// estimate plus GasMargin percent, and at least twice the subject's
// largest limit that ran out (that floor raised at most to MaxGas). capped says a limit at MaxGas has
// already run out.
func (d *TxDriver) gasLimit(subject string, gas uint64) (limit uint64, capped bool) {
	margin := d.GasMargin
	if margin == 0 {
		margin = 25
	}
	limit = gas + gas*margin/100
	floor := d.gasFloor[subject]
	if floor >= d.maxGas() {
		return 0, true
	}
	return max(limit, min(2*floor, d.maxGas())), false
}

// ErrSigning: the wallet did not sign (its external signer refused or
// did not answer). Nothing was recorded or sent; driving the request again
// later is safe.
var ErrSigning = errors.New("wallet did not sign")

// send signs, records the intent, then broadcasts. The intent is on the
// log before the transaction can reach the chain, and a transaction that
// could not be signed leaves no intent.
func (d *TxDriver) send(ctx context.Context, req TxRequest, call domain.ContractCall, nonce, gas uint64, feeCap, tipCap *big.Int,
	attempt int, cancel bool) (domain.TxIntent, error) {
	if err := d.maySend(ctx); err != nil {
		return domain.TxIntent{}, err
	}
	hash, raw, err := d.Chain.SignCall(ctx, call, nonce, gas, feeCap, tipCap)
	if ctx.Err() != nil {
		return domain.TxIntent{}, ctx.Err() // stopping: not the signer's failure
	}
	if d.Health != nil {
		d.Health.Track(ctx, d.SignStep(), err)
	}
	if err != nil {
		return domain.TxIntent{}, fmt.Errorf("%w: %s for %s: %w", ErrSigning, req.Purpose, req.Subject, err)
	}
	fc, _ := domain.NewAmount(feeCap)
	tc, _ := domain.NewAmount(tipCap)
	in := domain.TxIntent{Purpose: req.Purpose, Subject: req.Subject, ChainID: d.Chain.ChainID(), From: d.Chain.From(),
		Nonce: nonce, Gas: gas, TxHash: hash, RawTx: raw, GasFeeCap: fc, GasTipCap: tc, Attempt: attempt, Cancel: cancel}
	if _, err := d.Appender.Append(ctx, req.Cause, in); err != nil {
		return domain.TxIntent{}, err
	}
	d.logger().Info("transaction intent recorded", "subject", req.Subject, "purpose", req.Purpose, "tx_hash", hash.Hex(),
		"nonce", nonce, "attempt", attempt, "gas_fee_cap", feeCap.String(), "cancel", cancel)
	if err := d.Chain.SendRaw(ctx, raw); err != nil {
		// Nonce too low: another transaction took the nonce; the wait
		// loop sees it and records this one as replaced. Anything else is
		// retried by the wait loop's rebroadcast-free observation.
		d.logger().Warn("send failed", "subject", req.Subject, "tx_hash", hash.Hex(), "error", err)
	}
	return in, nil
}

// SignStep names the wallet's signer in step health events and metrics.
func (d *TxDriver) SignStep() string { return "sign:" + d.Chain.From().Hex() }

// cancelGas is a plain value transfer's gas.
const cancelGas = 21_000

// wait observes the open intents until one is final.
func (d *TxDriver) wait(ctx context.Context, req TxRequest, open []domain.TxIntent, sentAt map[domain.Hash32]time.Time) (domain.TxOutcome, error) {
	t := time.NewTicker(d.PollInterval)
	defer t.Stop()
	var cancelled *domain.TxOutcome // the abandonment, once a cancellation is out
	var cancelSent time.Time
	for {
		latest := open[len(open)-1]
		if latest.Cancel && cancelled == nil {
			// A cancellation left open by a previous run: keep cancelling.
			cancelled = &domain.TxOutcome{Purpose: req.Purpose, Subject: req.Subject, Status: domain.TxAbandoned,
				Reason: fmt.Sprintf("cancelled after %d attempts", latest.Attempt-1)}
			cancelSent = d.now()
		}
		final, step, err := d.observe(ctx, open, sentAt, cancelled)
		if err != nil {
			return domain.TxOutcome{}, err
		}
		if final != nil {
			return d.finish(ctx, req, open, *final)
		}
		switch {
		case cancelled != nil:
			// Only the cancellation may go out now; if even it is not
			// mined in time, give up and say the nonce may stay pending.
			if d.now().Sub(cancelSent) > d.Policy.StuckAfter && d.Policy.StuckAfter > 0 {
				o := *cancelled
				o.Reason += "; cancellation not mined either: the nonce may still be pending"
				d.logger().Error("cancellation not mined", "subject", req.Subject, "nonce", latest.Nonce)
				return d.finish(ctx, req, open, o)
			}
		case step.Kind == domain.StepGiveUp && step.GasFeeCap == nil:
			return d.finish(ctx, req, open, step.Outcome)
		case step.Kind == domain.StepGiveUp:
			// Cancel: a zero-value transfer to ourselves at the same nonce,
			// priced to replace the stuck call. Whichever is mined decides
			// the outcome, and the nonce is used either way (no gap).
			self := domain.ContractCall{To: d.Chain.From()}
			in, err := d.send(ctx, req, self, latest.Nonce, cancelGas, step.GasFeeCap, step.GasTipCap, latest.Attempt+1, true)
			if err != nil {
				return domain.TxOutcome{}, err
			}
			o := step.Outcome
			cancelled, cancelSent = &o, d.now()
			open = append(open, in)
			sentAt[in.TxHash] = d.now()
			d.logger().Warn("stuck transaction cancelled", "subject", req.Subject, "old_tx_hash", latest.TxHash.Hex(),
				"tx_hash", in.TxHash.Hex(), "nonce", in.Nonce, "attempts", latest.Attempt)
			continue
		case step.Kind == domain.StepReplace:
			in, err := d.send(ctx, req, req.Call, latest.Nonce, latest.Gas, step.GasFeeCap, step.GasTipCap, latest.Attempt+1, false)
			if err != nil {
				return domain.TxOutcome{}, err
			}
			open = append(open, in)
			sentAt[in.TxHash] = d.now()
			d.logger().Warn("stuck transaction replaced", "subject", req.Subject, "old_tx_hash", latest.TxHash.Hex(),
				"tx_hash", in.TxHash.Hex(), "nonce", in.Nonce, "attempt", in.Attempt)
			continue
		}
		select {
		case <-ctx.Done():
			return domain.TxOutcome{}, ctx.Err()
		case <-t.C:
		}
	}
}

// observe looks at every open attempt: the final outcome if one is
// decided (an attempt mined, or the nonce taken by a foreign
// transaction), else the next step for the latest attempt. cancelled is
// the abandonment a mined cancellation records.
func (d *TxDriver) observe(ctx context.Context, open []domain.TxIntent, sentAt map[domain.Hash32]time.Time,
	cancelled *domain.TxOutcome) (*domain.TxOutcome, domain.Step, error) {
	latest := open[len(open)-1]
	var step domain.Step
	for _, in := range open {
		obs, err := d.Chain.Observe(ctx, in)
		if err != nil {
			return nil, step, err
		}
		obs.SentAt = sentAt[in.TxHash]
		s := domain.NextStep(in, obs, d.now(), d.Policy)
		if s.Kind == domain.StepDone && s.Outcome.Status != domain.TxReplaced {
			o := s.Outcome
			if in.Cancel && obs.Mined {
				// The cancellation took the nonce: the call was
				// never mined and never will be.
				o = *cancelled
				o.TxHash, o.Nonce, o.GasUsed, o.BlockNumber = in.TxHash, in.Nonce, obs.GasUsed, obs.BlockNumber
			}
			return &o, step, nil
		}
		if in.TxHash == latest.TxHash {
			step = s
		}
	}
	if step.Kind == domain.StepDone {
		// The latest attempt's nonce was consumed and none of our
		// attempts was mined: a foreign transaction took the nonce.
		// Record it; the caller sends afresh with a new nonce.
		o := step.Outcome
		return &o, step, nil
	}
	return nil, step, nil
}

// finish appends the final outcome and a replaced outcome for every other
// open attempt, so no intent stays open.
func (d *TxDriver) finish(ctx context.Context, req TxRequest, open []domain.TxIntent, final domain.TxOutcome) (domain.TxOutcome, error) {
	evs := []domain.Event{}
	for _, in := range open {
		if in.TxHash == final.TxHash {
			continue
		}
		evs = append(evs, domain.TxOutcome{Purpose: in.Purpose, Subject: in.Subject, TxHash: in.TxHash, Nonce: in.Nonce,
			Status: domain.TxReplaced, Reason: "superseded by " + final.TxHash.Hex()})
	}
	evs = append(evs, final)
	if _, err := d.Appender.Append(ctx, req.Cause, evs...); err != nil {
		return domain.TxOutcome{}, err
	}
	d.logger().Info("transaction outcome recorded", "subject", req.Subject, "purpose", req.Purpose, "tx_hash", final.TxHash.Hex(),
		"status", final.Status, "gas_used", final.GasUsed, "block_number", final.BlockNumber, "reason", final.Reason)
	return final, nil
}
