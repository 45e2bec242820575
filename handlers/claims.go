package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/merkle"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// ClaimCalls packs the distributor's claim call (evmchain.Calls).
type ClaimCalls interface {
	Claim(r domain.ClaimRequested) domain.ContractCall
}

// ClaimExecutor is one member of the claim swarm: a consumer-group member
// of the claims topic, partitioned by leaf, so one worker owns a leaf at a
// time (seed 002's swarm, without SKIP LOCKED). Each worker has its own
// wallet (its own TxDriver). It reads the claims of its partitions from a
// view folded from the log up to the record at hand, so after a restart
// or a rebalance it knows every intent it or a previous owner left open
// and reconciles it before sending.
type ClaimExecutor struct {
	Log      topics.Log    // the claims the default View folds
	View     ClaimView     // default: a projections.ClaimFold of Log
	Consumer ClaimConsumer // delivers the records of this member's partitions
	Group    string        // consumer group, default "bridgelog-claims"
	Calls    ClaimCalls
	Driver   *TxDriver
	// Retiring wallets' drivers see through the claims they have open
	// intents for; they take no new claim (see WalletRetirer).
	Retiring []*TxDriver
	Metrics  ClaimMetrics
	Logger   *slog.Logger

	dec *topics.Decoder
}

// ClaimView gives a claim as folded from its claims partition up to the
// partition's end (nil when the partition has no record of it). The
// executor records what it drove on the state it is given.
// projections.ClaimFold is one.
type ClaimView interface {
	Claim(ctx context.Context, partition int32, id string) (*projections.ClaimState, error)
}

// ErrProofInvalid: a claim's proof does not verify against its root
// locally; nothing is sent.
var ErrProofInvalid = errors.New("merkle proof does not verify locally")

// ClaimConsumer hands this member of group the claims records of its
// partitions, one at a time, until ctx ends (nil) or its subscription
// ends by itself (an error wrapping topics.ErrClosed). A record whose
// handling keeps failing is dead-lettered with the error; malformed says
// why a record is not an envelope ("" when it is).
// adapters/watermilllog.Consumer is one, on a Watermill router.
type ClaimConsumer interface {
	Consume(ctx context.Context, group string, handle func(ctx context.Context, rec topics.Record, malformed string) error) error
}

// ErrNoClaimConsumer: a ClaimExecutor run without a Consumer.
var ErrNoClaimConsumer = errors.New("claim executor has no consumer")

// Run processes claims until ctx ends, as this member of the group.
// A claim that fails (an RPC outage, a log write) is retried inside the
// handler until it succeeds, never poisoned: the cause may go away, and
// Handle reconciles whatever the failed attempt left open. A record that
// is not a claims envelope is refused, so the consumer retries it and
// then dead-letters it with the reason. Stopped mid-claim, the record is
// left uncommitted and its next owner reconciles the intents left open.
func (x *ClaimExecutor) Run(ctx context.Context) error {
	group := x.Group
	if group == "" {
		group = "bridgelog-claims"
	}
	if x.Consumer == nil {
		return fmt.Errorf("%w (group %s)", ErrNoClaimConsumer, group)
	}
	return x.Consumer.Consume(ctx, group, x.handleRecord)
}

// ErrNotAClaim: a claims-topic record that is not an envelope.
var ErrNotAClaim = errors.New("claims record is not an envelope")

// handleRecord is the consumer's handler: one claims record, driven until
// it is done or the executor stops.
func (x *ClaimExecutor) handleRecord(ctx context.Context, rec topics.Record, malformed string) error {
	if malformed != "" {
		metricsOr(x.Metrics).ClaimRecordUndecodable()
		return fmt.Errorf("%w: %s", ErrNotAClaim, malformed)
	}
	return x.handleWithRetry(ctx, rec)
}

// maxRetryBackoff caps the pause between attempts at a failing claim.
const maxRetryBackoff = 30 * time.Second

func (x *ClaimExecutor) handleWithRetry(ctx context.Context, rec topics.Record) error {
	backoff := 200 * time.Millisecond
	for {
		err := x.Handle(ctx, rec)
		if err == nil || ctx.Err() != nil {
			return ctx.Err()
		}
		level := slog.LevelWarn
		paused := errors.Is(err, domain.ErrSendsPaused)
		if (errors.Is(err, ErrSigning) && x.Driver.Health != nil) || isRateLimitDeferral(err) || paused {
			// The wallet's signer health, the driver's rate-limit step, or
			// the pause gate logged it once.
			level = slog.LevelDebug
		}
		loggerOr(x.Logger).Log(ctx, level, "claim attempt failed, retrying", "partition", rec.Partition, "offset", rec.Offset,
			"error", err, "retry_in", backoff)
		if paused {
			// Not a failure: wait for the resume at the first backoff, so
			// the claim goes out soon after it.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(backoff):
			}
			continue
		}
		if !isRateLimitDeferral(err) {
			metricsOr(x.Metrics).ClaimAttemptFailed() // a rate-limited one is relay_rate_limited_total
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxRetryBackoff)
	}
}

// Handle drives the claim a record belongs to, if it is not final.
func (x *ClaimExecutor) Handle(ctx context.Context, rec topics.Record) error {
	if x.dec == nil {
		x.dec = topics.NewDecoder(topics.Limits{})
		if x.View == nil {
			x.View = &projections.ClaimFold{Log: x.Log}
		}
	}
	var env topics.Envelope
	if err := x.dec.Decode(rec.Value, &env); err != nil {
		// The record's bytes are on the log for audit; nothing to drive.
		loggerOr(x.Logger).Error("undecodable claim record skipped", "partition", rec.Partition, "offset", rec.Offset, "error", err)
		metricsOr(x.Metrics).ClaimRecordUndecodable()
		return nil
	}
	st, err := x.View.Claim(ctx, rec.Partition, env.AggregateID)
	if err != nil {
		return err
	}
	if st == nil || st.Request == nil {
		return nil
	}
	if st.Final() {
		// An outcome this fold's member did not settle: a crash (or a
		// rebalance) may have come between the outcome and the verdict,
		// so the verdict is appended again; the projections deduplicate
		// it. The outcomes this member appended and settled itself come
		// back as records too; they append nothing.
		if env.Type == domain.TypeClaimOutcome && !st.Settled {
			return x.settle(ctx, st, false)
		}
		return nil
	}
	return x.drive(ctx, st)
}

func (x *ClaimExecutor) drive(ctx context.Context, st *projections.ClaimState) error {
	req := *st.Request
	l, m := loggerOr(x.Logger), metricsOr(x.Metrics)
	cause := Cause{CorrelationID: req.LeafInfo.Withdrawal.WithdrawalID()}
	if !merkle.VerifyClaim(req) {
		out := domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: req.AggregateID(), Status: domain.TxReverted,
			Reason: fmt.Sprintf("%v: batch %d leaf %s", ErrProofInvalid, req.BatchID, req.LeafInfo.Leaf.Hex())}
		m.ClaimProofInvalid()
		l.Error("claim proof invalid, not sent", "batch_id", req.BatchID, "leaf", req.LeafInfo.Leaf.Hex())
		if x.Driver.DryRun {
			return nil
		}
		if _, err := x.Driver.Appender.Append(ctx, cause, out); err != nil {
			return err
		}
		st.Outcome = &out
		return x.settle(ctx, st, true)
	}
	l.Log(ctx, attemptLevel(x.Driver, domain.PurposeClaim, req.AggregateID()), "claiming withdrawal", "batch_id", req.BatchID, "tx_id", req.LeafInfo.TxID, "withdrawal_id", req.LeafInfo.Withdrawal.WithdrawalID(),
		"recipient", req.LeafInfo.Recipient.Hex(), "amount", req.LeafInfo.Amount.String(), "open_intents", len(st.Open))
	drv := x.Driver
	if d := driverOf(x.Retiring, st.Open); d != nil {
		drv = d
	}
	out, err := drv.Drive(ctx, TxRequest{Purpose: domain.PurposeClaim, Subject: req.AggregateID(), Call: x.Calls.Claim(req),
		Open: st.Open, Cause: cause})
	if err != nil {
		return err
	}
	st.Open = nil
	st.Outcome = &out
	if !st.Final() {
		return nil
	}
	return x.settle(ctx, st, true)
}

// settle records the withdrawal's fate from its claim's final outcome
// and marks the claim settled in this member's fold; first says this
// member just decided it (and counts it), rather than re-appending a
// verdict a crash may have lost.
func (x *ClaimExecutor) settle(ctx context.Context, st *projections.ClaimState, first bool) error {
	req, out := st.Request, *st.Outcome
	ref := req.LeafInfo.Withdrawal
	var ev domain.Event
	switch out.Status {
	case domain.TxSucceeded, domain.TxAlreadyProcessed:
		ev = domain.WithdrawalExecuted{Ref: ref, BatchID: req.BatchID, ClaimTxHash: out.TxHash, GasUsed: out.GasUsed,
			AlreadyDone: out.Status == domain.TxAlreadyProcessed}
		if first {
			metricsOr(x.Metrics).WithdrawalExecuted()
		}
	default:
		ev = domain.WithdrawalFailed{Ref: ref, Reason: string(out.Status) + ": " + out.Reason}
		if first {
			metricsOr(x.Metrics).WithdrawalFailed()
		}
	}
	if _, err := x.Driver.Appender.Append(ctx, Cause{CorrelationID: ref.WithdrawalID()}, ev); err != nil {
		return err
	}
	st.Settled = true
	return nil
}
