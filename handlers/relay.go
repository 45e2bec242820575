package handlers

import (
	"context"
	"errors"
	"log/slog"
	"time"
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
	Interval  time.Duration // pause between idle rounds, default 100ms
	Logger    *slog.Logger
	// OnRound, if set, is called after every round (progress displays).
	OnRound func(ctx context.Context) error
}

// Round runs every step once. A step's error is returned after the other
// steps had their turn: one chain's RPC trouble does not stop the others.
func (r *Relay) Round(ctx context.Context) error {
	var errs []error
	step := func(name string, f func() error) {
		if ctx.Err() != nil {
			return
		}
		if err := r.Projector.CatchUp(ctx); err != nil {
			errs = append(errs, err)
			return
		}
		if err := f(); err != nil && ctx.Err() == nil {
			loggerOr(r.Logger).Warn("relay step failed", "step", name, "error", err)
			errs = append(errs, err)
		}
	}
	for _, ix := range r.Indexers {
		step("index", func() error {
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
	for _, c := range r.Confirmer {
		step("confirm", func() error { _, err := c.Poll(ctx); return err })
	}
	if r.Minter != nil {
		step("mint", func() error { _, err := r.Minter.Poll(ctx); return err })
	}
	if r.Batcher != nil {
		step("batch", func() error { _, err := r.Batcher.Poll(ctx); return err })
	}
	if r.Anchorer != nil {
		step("anchor", func() error { _, err := r.Anchorer.Poll(ctx); return err })
	}
	if r.OnRound != nil && ctx.Err() == nil {
		errs = append(errs, r.OnRound(ctx))
	}
	return errors.Join(errs...)
}

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
		if err := r.Round(ctx); err != nil && ctx.Err() == nil {
			loggerOr(r.Logger).Warn("relay round had errors", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
