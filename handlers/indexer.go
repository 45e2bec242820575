package handlers

import (
	"context"
	"errors"
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

// CursorReader reads an indexer's cursor and the hashes it kept of the
// blocks it scanned (the chain_cursors projection).
type CursorReader interface {
	Cursor(ctx context.Context, chainID uint64) (domain.Cursor, error)
	ScannedBlocks(ctx context.Context, chainID uint64) ([]domain.ScannedBlock, error)
}

// IndexerConfig configures an [Indexer].
type IndexerConfig struct {
	StartBlock uint64 // first block to scan when there is no cursor
	MaxRange   uint64 // blocks per scan, default 500
	// ReorgWindow is how many blocks below the cursor keep their hash, so
	// that a reorg up to that deep is traced back to its fork point: the
	// chain's confirmation depth (0: domain.DefaultConfirmationDepth). A
	// deeper reorg stops the indexer ([ErrReorgBeyondWindow]).
	ReorgWindow uint64
	Watched     []domain.Address
}

func (c IndexerConfig) withDefaults() IndexerConfig {
	if c.MaxRange == 0 {
		c.MaxRange = 500
	}
	c.ReorgWindow = domain.ReorgWindow(c.ReorgWindow)
	return c
}

// ErrReorgBeyondWindow: the chain replaced the block under the cursor and
// every block the indexer kept below it. The indexer does not advance
// that chain: whatever the new chain holds below the kept blocks would be
// skipped, and observations confirmed there may have been acted on.
var ErrReorgBeyondWindow = errors.New("reorg deeper than the reorg window")

// ErrChainMoved: a block of the range being scanned vanished (the chain
// got shorter) while it was read; the next poll scans again.
var ErrChainMoved = errors.New("chain moved during the scan")

// Indexer turns every bridge log of one chain into an event keyed
// chain_id:tx_hash:log_index (plus the block hash) and moves a persistent
// cursor, itself an event. It keeps the hashes of the blocks it scanned
// within its reorg window, and when the block under its cursor is
// replaced it scans again from the highest kept block still canonical.
type Indexer struct {
	Chain    ChainSource
	Decoder  LogDecoder
	Cursors  CursorReader
	Appender *Appender
	Config   IndexerConfig
	Metrics  IndexerMetrics
	Logger   *slog.Logger

	// beyondWindow is the reorg beyond the window last appended: while the
	// chain stays so, polls neither append it again nor trace it again.
	beyondWindow *domain.ChainReorgBeyondWindow
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
	cfg := ix.Config.withDefaults()
	m, chainID := metricsOr(ix.Metrics), ix.Chain.ChainID()
	cur, err := ix.Cursors.Cursor(ctx, chainID)
	if err != nil {
		return ScanResult{}, fmt.Errorf("indexer cursor of chain %d: %w", chainID, err)
	}
	tip, err := ix.Chain.Tip(ctx)
	if err != nil {
		m.IndexerRPCError(chainID)
		return ScanResult{}, err
	}
	from := cfg.StartBlock
	if cur.Found {
		from = cur.ScannedTo + 1
	}
	rng := scanRange{from: from, to: min(tip, from+cfg.MaxRange-1), tip: tip}
	// The new blocks' hashes are read before the cursor's block is checked
	// and before the logs: a hash read earlier than what it vouches for can
	// only make a later poll see a reorg again, never hide one.
	if !rng.empty() {
		if rng.hashes, err = ix.blockHashes(ctx, domain.ScanHashesFrom(rng.from, rng.to, tip, cfg.ReorgWindow), rng.to); err != nil {
			m.IndexerRPCError(chainID)
			return ScanResult{}, err
		}
	}
	if cur.Found && !cur.ToHash.IsZero() {
		// Is the block under the cursor still canonical? (A cursor
		// rewound before any scanned block has no hash to check.)
		now, err := ix.Chain.HashAt(ctx, cur.ScannedTo)
		if err != nil {
			m.IndexerRPCError(chainID)
			return ScanResult{}, err
		}
		if now != cur.ToHash {
			return ix.traceReorg(ctx, cfg, cur, now, tip)
		}
	}
	ix.beyondWindow = nil
	m.StoppedBeyondWindow(chainID, false)
	if rng.empty() {
		m.IndexerLag(chainID, 0)
		return ScanResult{From: from, To: tip, Tip: tip}, nil
	}
	return ix.scan(ctx, cfg, rng)
}

// scanRange is the range of blocks one poll scans, and the hashes it read
// of the range's last blocks (the last is to's).
type scanRange struct {
	from, to, tip uint64
	hashes        []domain.Hash32
}

func (r scanRange) empty() bool { return r.from > r.tip }

// blockHashes reads the hashes of blocks [first, last].
func (ix *Indexer) blockHashes(ctx context.Context, first, last uint64) ([]domain.Hash32, error) {
	out := make([]domain.Hash32, 0, last-first+1)
	for n := first; n <= last; n++ {
		h, err := ix.Chain.HashAt(ctx, n)
		if err != nil {
			return nil, err
		}
		if h.IsZero() {
			return nil, fmt.Errorf("%w: chain %d no longer reaches block %d", ErrChainMoved, ix.Chain.ChainID(), n)
		}
		out = append(out, h)
	}
	return out, nil
}

// traceReorg handles a cursor whose block was replaced: it walks back
// through the kept blocks, newest first, to the first one still canonical
// (one hash read per block, and only until then), and lets
// domain.FindForkPoint decide where to scan again from.
func (ix *Indexer) traceReorg(ctx context.Context, cfg IndexerConfig, cur domain.Cursor, now domain.Hash32, tip uint64) (ScanResult, error) {
	chainID := ix.Chain.ChainID()
	if b := ix.beyondWindow; b != nil && b.Block == cur.ScannedTo && b.OldHash == cur.ToHash && b.NewHash == now {
		// The same chain as when it was found: the same verdict, already
		// on the log.
		return ScanResult{To: cur.ScannedTo, Tip: tip}, errBeyondWindow(b)
	}
	kept, err := ix.Cursors.ScannedBlocks(ctx, chainID)
	if err != nil {
		return ScanResult{}, fmt.Errorf("indexer kept blocks of chain %d: %w", chainID, err)
	}
	canonical := map[uint64]domain.Hash32{cur.ScannedTo: now}
	for _, b := range kept { // newest first
		h, ok := canonical[b.Number]
		if !ok {
			if h, err = ix.Chain.HashAt(ctx, b.Number); err != nil {
				return ScanResult{}, err
			}
			canonical[b.Number] = h
		}
		if !h.IsZero() && h == b.Hash {
			break // every kept block below is canonical too
		}
	}
	fork := domain.FindForkPoint(kept, canonical, cfg.StartBlock)
	if fork.Verdict == domain.ForkBeyondWindow {
		return ix.stopBeyondWindow(ctx, cfg, cur, now, fork, tip)
	}
	m, log, chainID := metricsOr(ix.Metrics), loggerOr(ix.Logger), ix.Chain.ChainID()
	ev := domain.ChainReorged{ChainID: chainID, Block: cur.ScannedTo, OldHash: cur.ToHash, NewHash: now,
		RewindTo: fork.RewindTo, RewindHash: fork.RewindHash}
	if _, err := ix.Appender.Append(ctx, Cause{}, ev); err != nil {
		return ScanResult{}, err
	}
	ix.beyondWindow = nil
	m.ReorgDetected(chainID)
	m.StoppedBeyondWindow(chainID, false)
	log.Warn("reorg detected, rescanning from the fork point", "chain_id", chainID, "block_number", cur.ScannedTo,
		"old_hash", cur.ToHash.Hex(), "new_hash", now.Hex(), "rewind_to", fork.RewindTo, "fork", fork.Verdict.String())
	return ScanResult{Reorged: true, To: fork.RewindTo, Tip: tip}, nil
}

// stopBeyondWindow records a reorg deeper than the window, once, and
// keeps the cursor where it is. Moving on would skip what the new chain
// holds below the kept blocks; rewinding further would guess. Polls go on
// failing with ErrReorgBeyondWindow (the relay records the failing step)
// until the chain returns to the scanned blocks or an operator asks for a
// rescan from below the fork (chain.rescan_requested).
func (ix *Indexer) stopBeyondWindow(ctx context.Context, cfg IndexerConfig, cur domain.Cursor, now domain.Hash32,
	fork domain.ForkPoint, tip uint64) (ScanResult, error) {
	m, log, chainID := metricsOr(ix.Metrics), loggerOr(ix.Logger), ix.Chain.ChainID()
	ev := domain.ChainReorgBeyondWindow{ChainID: chainID, Block: cur.ScannedTo, OldHash: cur.ToHash, NewHash: now,
		OldestKept: fork.OldestKept, Window: cfg.ReorgWindow}
	if _, err := ix.Appender.Append(ctx, Cause{}, ev); err != nil {
		return ScanResult{}, err
	}
	ix.beyondWindow = &ev
	m.ReorgBeyondWindow(chainID)
	m.StoppedBeyondWindow(chainID, true)
	log.Error("reorg deeper than the reorg window, indexing of the chain stopped", "chain_id", chainID,
		"block_number", cur.ScannedTo, "old_hash", cur.ToHash.Hex(), "new_hash", now.Hex(),
		"oldest_kept", fork.OldestKept, "reorg_window", cfg.ReorgWindow)
	return ScanResult{To: cur.ScannedTo, Tip: tip}, errBeyondWindow(&ev)
}

func errBeyondWindow(e *domain.ChainReorgBeyondWindow) error {
	return fmt.Errorf("%w: chain %d replaced block %d and every kept block down to %d (window %d)",
		ErrReorgBeyondWindow, e.ChainID, e.Block, e.OldestKept, e.Window)
}

// scan reads the range's logs, appends their events, then the scan
// itself, which moves the cursor.
func (ix *Indexer) scan(ctx context.Context, cfg IndexerConfig, rng scanRange) (ScanResult, error) {
	m, log, chainID := metricsOr(ix.Metrics), loggerOr(ix.Logger), ix.Chain.ChainID()
	logs, err := ix.Chain.Logs(ctx, rng.from, rng.to, cfg.Watched)
	if err != nil {
		m.IndexerRPCError(chainID)
		return ScanResult{}, err
	}
	res := ScanResult{From: rng.from, To: rng.to, Tip: rng.tip}
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
			m.LogRejected(chainID)
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
	last := len(rng.hashes) - 1
	scanned := domain.ChainScanned{ChainID: chainID, From: rng.from, To: rng.to, ToHash: rng.hashes[last], Tip: rng.tip,
		Logs: res.Events, Window: cfg.ReorgWindow}
	if last > 0 {
		scanned.PriorHashes = rng.hashes[:last]
	}
	if _, err := ix.Appender.Append(ctx, Cause{}, scanned); err != nil {
		return res, err
	}
	m.IndexerLag(chainID, rng.tip-rng.to)
	m.ChainEventsAppended(chainID, res.Events)
	return res, nil
}
