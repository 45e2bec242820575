package handlers

import (
	"context"
	"log/slog"

	"github.com/bridgelog/bridgelog/domain"
)

// ObservationReader lists a chain's detected, unconfirmed observations
// (deposits, withdrawals and withdrawals_to_kaspa projections, status
// DETECTED).
type ObservationReader interface {
	Unconfirmed(ctx context.Context, chainID uint64) ([]domain.Observed, error)
}

// Confirmer applies seed 000's confirmation depth: an observation becomes
// CONFIRMED once its block is Depth deep and still canonical, and is
// recorded as reorged (never acted on) when its block was replaced.
type Confirmer struct {
	Chain    ChainSource
	Pending  ObservationReader
	Appender *Appender
	Depth    uint64 // 0: domain.DefaultConfirmationDepth
	Metrics  ConfirmerMetrics
	Logger   *slog.Logger
}

// ConfirmResult counts what one poll decided.
type ConfirmResult struct{ Confirmed, Reorged, Pending int }

// Poll decides every unconfirmed observation once.
func (c *Confirmer) Poll(ctx context.Context) (ConfirmResult, error) {
	var res ConfirmResult
	chainID := c.Chain.ChainID()
	m, log := metricsOr(c.Metrics), loggerOr(c.Logger)
	pending, err := c.Pending.Unconfirmed(ctx, chainID)
	if err != nil || len(pending) == 0 {
		return res, err
	}
	tip, err := c.Chain.Tip(ctx)
	if err != nil {
		return res, err
	}
	depth := domain.ConfirmationDepth(c.Depth)
	hashes := map[uint64]domain.Hash32{}
	var evs []domain.Event
	for _, o := range pending {
		if tip < o.BlockNumber+depth && tip >= o.BlockNumber {
			res.Pending++ // not deep yet: no RPC needed
			continue
		}
		h, ok := hashes[o.BlockNumber]
		if !ok {
			if h, err = c.Chain.HashAt(ctx, o.BlockNumber); err != nil {
				return res, err
			}
			hashes[o.BlockNumber] = h
		}
		switch domain.Confirm(o.BlockNumber, o.BlockHash, domain.CanonicalView{Tip: tip, HashAtLogBlock: h}, depth) {
		case domain.Confirmed:
			evs = append(evs, o.Confirmed(tip))
			res.Confirmed++
			log.Info("observation confirmed", "event_source", o.Ref.Key(), "observation", o.Kind.String(),
				"block_number", o.BlockNumber, "depth", tip-o.BlockNumber)
		case domain.Reorged:
			evs = append(evs, o.Reorged(h))
			res.Reorged++
			m.ObservationReorged(chainID)
			log.Warn("observation reorged, not acting on it", "event_source", o.Ref.Key(), "observation", o.Kind.String(),
				"block_number", o.BlockNumber, "block_hash", o.BlockHash.Hex(), "canonical_hash", h.Hex())
		default:
			res.Pending++
		}
	}
	if len(evs) > 0 {
		if _, err := c.Appender.Append(ctx, Cause{}, evs...); err != nil {
			return res, err
		}
	}
	m.ObservationsConfirmed(chainID, res.Confirmed)
	return res, nil
}
