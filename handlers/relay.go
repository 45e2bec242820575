package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// Projector brings the projections up to the log's end: the relay calls
// it before every decision so it reads its own writes.
type Projector interface {
	CatchUp(ctx context.Context) error
}

// Relay runs the bridge's process managers in one loop: index, confirm,
// mint, batch, anchor. Claims run beside it as consumer-group members
// ([ClaimExecutor]). Each step reads projections caught up to the log, so
// no decision is taken on a state older than the relay's own last write.
type Relay struct {
	Projector Projector
	Indexers  []*Indexer
	Confirmer []*Confirmer
	Minter    *Minter
	Batcher   *Batcher
	Anchorer  *Anchorer
	Retirer   *WalletRetirer
	// Refunds, if set, takes in the signing group's refusal certificates
	// and Refunder mints each refused burn back once.
	Refunds  *RefundIntake
	Refunder *Refunder
	// Kaspa, if set, indexes deposits on Kaspa (KAS coming in).
	Kaspa *KaspaIndexer
	// Operator, if set, takes the operator's pause, resume, hold and
	// release requests left for the running relay, first in each round.
	Operator *OperatorInbox
	// Gate, if set, is the relay's pause (the one every TxDriver asks):
	// while it refuses, the sending steps (mint, anchor, refund) are
	// skipped; indexing, confirming and batching go on.
	Gate     SendGate
	Interval time.Duration // pause between idle rounds, default 100ms
	Logger   *slog.Logger
	Metrics  StepMetrics
	// Appender, if set, records each step's failure streaks as events
	// (relay.step_failed, relay.step_recovered) for the audit trail.
	Appender *Appender
	Now      func() time.Time

	health *StepHealth
}

// track records a step's result (see StepHealth).
func (r *Relay) track(ctx context.Context, step string, err error) {
	if r.health == nil {
		r.health = &StepHealth{Appender: r.Appender, Logger: r.Logger, Metrics: r.Metrics, Now: r.Now}
	}
	r.health.Track(ctx, step, err)
}

// Round runs every step once. A step's error is returned after the other
// steps had their turn: one chain's RPC trouble does not stop the others.
func (r *Relay) Round(ctx context.Context) error {
	var errs []error
	step := func(name string, f func() error) {
		if ctx.Err() != nil {
			return
		}
		err := r.Projector.CatchUp(ctx)
		if err == nil {
			err = f()
		}
		if ctx.Err() != nil {
			return // shutting down: not a failure of the step
		}
		if errors.Is(err, domain.ErrSendsPaused) {
			err = nil // paused while sending: the open intents wait for the resume
		}
		r.track(ctx, name, err)
		if err != nil {
			// The streak's start was logged once by track; retries are
			// debug detail.
			loggerOr(r.Logger).Debug("relay step failed", "step", name, "error", err)
			errs = append(errs, err)
		}
	}
	if r.Operator != nil {
		step("operator", func() error { _, err := r.Operator.Poll(ctx); return err })
	}
	// Each chain's steps have their own name: one chain's failure streak
	// is not ended by another chain's success.
	for _, ix := range r.Indexers {
		step(chainStep("index", ix.Chain), func() error {
			for {
				res, err := ix.Poll(ctx)
				if err != nil || res.To >= res.Tip || ctx.Err() != nil {
					return err
				}
				if err := r.Projector.CatchUp(ctx); err != nil {
					return err
				}
			}
		})
	}
	if r.Kaspa != nil {
		step("index:"+r.Kaspa.Chain.Network(), func() error {
			for {
				res, err := r.Kaspa.Poll(ctx)
				if err != nil || !res.More || ctx.Err() != nil {
					return err
				}
				if err := r.Projector.CatchUp(ctx); err != nil {
					return err
				}
			}
		})
	}
	for _, c := range r.Confirmer {
		step(chainStep("confirm", c.Chain), func() error { _, err := c.Poll(ctx); return err })
	}
	sending := r.Gate == nil || r.Gate.MaySend(ctx) == nil
	if r.Minter != nil && sending {
		step("mint", func() error { _, err := r.Minter.Poll(ctx); return err })
	}
	if r.Batcher != nil {
		step("batch", func() error { _, err := r.Batcher.Poll(ctx); return err })
	}
	if r.Anchorer != nil && sending {
		step("anchor", func() error { _, err := r.Anchorer.Poll(ctx); return err })
	}
	if r.Refunds != nil {
		step("refund_intake", func() error { _, _, err := r.Refunds.Poll(ctx); return err })
	}
	if r.Refunder != nil && sending {
		step("refund", func() error { _, err := r.Refunder.Poll(ctx); return err })
	}
	if r.Retirer != nil {
		step("retire", func() error { _, err := r.Retirer.Poll(ctx); return err })
	}
	return errors.Join(errs...)
}

// chainStep names a step of one chain, e.g. "index:1337".
func chainStep(step string, c ChainSource) string { return fmt.Sprintf("%s:%d", step, c.ChainID()) }

// Run runs rounds until ctx ends. Step errors are logged and retried on
// the next round: the cause (an RPC outage, say) may go away, and every
// step is idempotent against what it already did.
func (r *Relay) Run(ctx context.Context) error {
	iv := r.Interval
	if iv <= 0 {
		iv = 100 * time.Millisecond
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		_ = r.Round(ctx) // failures are tracked per step and retried next round
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
