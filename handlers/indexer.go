package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/domain"
)

// ChainSource is what the indexer needs of a chain (evmchain.Client).
type ChainSource interface {
	ChainID() uint64
	Tip(ctx context.Context) (uint64, error)
	HashAt(ctx context.Context, n uint64) (domain.Hash32, error)
	BlockTime(ctx context.Context, n uint64) (time.Time, error)
	Logs(ctx context.Context, from, to uint64, addrs []domain.Address) ([]types.Log, error)
}

// LogDecoder turns a contract log into a bridge event; (nil, nil) for a
// log that starts no flow (evmchain.Decoder).
type LogDecoder interface {
	Decode(l *types.Log) (domain.Event, error)
}

// CursorReader reads an indexer's cursor (the chain_cursors projection).
type CursorReader interface {
	Cursor(ctx context.Context, chainID uint64) (domain.Cursor, error)
}

// IndexerConfig configures an [Indexer].
type IndexerConfig struct {
	StartBlock  uint64 // first block to scan when there is no cursor
	MaxRange    uint64 // blocks per scan, default 500
	RewindDepth uint64 // blocks to rescan after a reorg, default 2x confirmation depth (10)
	Watched     []domain.Address
}

// Indexer turns every bridge log of one chain into an event keyed
// chain_id:tx_hash:log_index (plus the block hash) and moves a persistent
// cursor, itself an event. It notices when the block under its cursor is
// replaced and rescans.
type Indexer struct {
	Chain    ChainSource
	Decoder  LogDecoder
	Cursors  CursorReader
	Appender *Appender
	Config   IndexerConfig
	Metrics  Metrics
	Logger   *slog.Logger
}

// Metrics receives the handlers' counters and gauges. Use [NopMetrics]
// when none are wanted.
type Metrics interface {
	Count(name string, labels map[string]string, n int)
	Gauge(name string, labels map[string]string, v float64)
}

// NopMetrics discards every metric.
type NopMetrics struct{}

func (NopMetrics) Count(string, map[string]string, int)     {}
func (NopMetrics) Gauge(string, map[string]string, float64) {}

func metricsOr(m Metrics) Metrics {
	if m == nil {
		return NopMetrics{}
	}
	return m
}

func loggerOr(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// ScanResult says what one [Indexer.Poll] did.
type ScanResult struct {
	From, To, Tip uint64
	Events        int
	Rejected      int
	Reorged       bool
}

// Poll scans the next range of blocks. It returns with To == Tip when the
// indexer has caught up.
func (ix *Indexer) Poll(ctx context.Context) (ScanResult, error) {
	cfg := ix.Config
	if cfg.MaxRange == 0 {
		cfg.MaxRange = 500
	}
	if cfg.RewindDepth == 0 {
		cfg.RewindDepth = 2 * domain.DefaultConfirmationDepth
	}
	m, log := metricsOr(ix.Metrics), loggerOr(ix.Logger)
	chainID := ix.Chain.ChainID()
	labels := map[string]string{"chain_id": fmt.Sprint(chainID)}
	cur, err := ix.Cursors.Cursor(ctx, chainID)
	if err != nil {
		return ScanResult{}, fmt.Errorf("indexer cursor of chain %d: %w", chainID, err)
	}
	tip, err := ix.Chain.Tip(ctx)
	if err != nil {
		m.Count("indexer_rpc_errors_total", labels, 1)
		return ScanResult{}, err
	}
	if cur.Found && !cur.ToHash.IsZero() {
		// Is the block under the cursor still canonical? (A cursor just
		// rewound by a reorg has no hash to check.)
		now, err := ix.Chain.HashAt(ctx, cur.ScannedTo)
		if err != nil {
			return ScanResult{}, err
		}
		if now != cur.ToHash {
			// Rescan the last RewindDepth blocks, never before the start.
			rewind := cfg.StartBlock
			if rewind > 0 {
				rewind--
			}
			if cur.ScannedTo > cfg.RewindDepth {
				rewind = max(rewind, cur.ScannedTo-cfg.RewindDepth)
			}
			ev := domain.ChainReorged{ChainID: chainID, Block: cur.ScannedTo, OldHash: cur.ToHash, NewHash: now, RewindTo: rewind}
			if _, err := ix.Appender.Append(ctx, Cause{}, ev); err != nil {
				return ScanResult{}, err
			}
			m.Count("reorgs_detected_total", labels, 1)
			log.Warn("reorg detected, rescanning", "chain_id", chainID, "block_number", cur.ScannedTo,
				"old_hash", cur.ToHash.Hex(), "new_hash", now.Hex(), "rewind_to", rewind)
			return ScanResult{Reorged: true, To: rewind, Tip: tip}, nil
		}
	}
	from := cfg.StartBlock
	if cur.Found {
		from = cur.ScannedTo + 1
	}
	if from > tip {
		m.Gauge("indexer_lag_blocks", labels, 0)
		return ScanResult{From: from, To: tip, Tip: tip}, nil
	}
	to := min(tip, from+cfg.MaxRange-1)
	logs, err := ix.Chain.Logs(ctx, from, to, cfg.Watched)
	if err != nil {
		m.Count("indexer_rpc_errors_total", labels, 1)
		return ScanResult{}, err
	}
	toHash, err := ix.Chain.HashAt(ctx, to)
	if err != nil {
		return ScanResult{}, err
	}
	res := ScanResult{From: from, To: to, Tip: tip}
	blockTimes := map[uint64]time.Time{}
	for i := range logs {
		l := &logs[i]
		if l.Removed {
			continue
		}
		ev, err := ix.Decoder.Decode(l)
		if err != nil {
			ref := domain.LogRef{ChainID: chainID, TxHash: domain.Hash32(l.TxHash), LogIndex: uint32(l.Index)}
			rej := domain.ChainLogRejected{Ref: ref, Contract: domain.Address(l.Address), Block: l.BlockNumber, Reason: err.Error()}
			if _, err := ix.Appender.Append(ctx, Cause{}, rej); err != nil {
				return res, err
			}
			res.Rejected++
			m.Count("logs_rejected_total", labels, 1)
			log.Warn("log rejected", "chain_id", chainID, "event_source", ref.Key(), "block_number", l.BlockNumber, "reason", err.Error())
			continue
		}
		if ev == nil {
			continue
		}
		bt, ok := blockTimes[l.BlockNumber]
		if !ok {
			if bt, err = ix.Chain.BlockTime(ctx, l.BlockNumber); err != nil {
				return res, err
			}
			blockTimes[l.BlockNumber] = bt
		}
		if _, err := ix.Appender.Append(ctx, Cause{OccurredAt: bt}, ev); err != nil {
			return res, err
		}
		res.Events++
		log.Info("bridge log detected", "event_type", ev.EventType(), "event_source", ev.SourceKey(),
			"block_number", l.BlockNumber, "tx_hash", l.TxHash.Hex())
	}
	// The cursor moves only after every event of the range is on the log:
	// a crash in between rescans the range, and the rescan's events are
	// duplicates, which change nothing.
	scanned := domain.ChainScanned{ChainID: chainID, From: from, To: to, ToHash: toHash, Tip: tip, Logs: res.Events}
	if _, err := ix.Appender.Append(ctx, Cause{}, scanned); err != nil {
		return res, err
	}
	m.Gauge("indexer_lag_blocks", labels, float64(tip-to))
	m.Count("chain_events_total", labels, res.Events)
	return res, nil
}
