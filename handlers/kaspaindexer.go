package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// KaspaChain is what the Kaspa indexer needs of a Kaspa node and of the
// group's scripts (kaspanode.DepositSource).
type KaspaChain interface {
	Network() string
	// Start is where to follow the chain from with no cursor.
	Start(ctx context.Context) (domain.Hash32, error)
	VirtualDAAScore(ctx context.Context) (uint64, error)
	// ChangeFrom is the virtual chain's change since chain block cursor;
	// more: added blocks were left out past a bound.
	ChangeFrom(ctx context.Context, cursor domain.Hash32) (change domain.KaspaChainChange, more bool, err error)
	GroupScript() []byte
	DepositScript(recipient domain.Address) ([]byte, error)
}

// KaspaDepositReader reads the kaspa_deposits projection.
type KaspaDepositReader interface {
	KaspaCursor(ctx context.Context, network string) (seq uint64, block domain.Hash32, found bool, err error)
	KaspaOpenDeposits(ctx context.Context) ([]domain.KaspaDepositSighting, error)
	KaspaDepositsInBlocks(ctx context.Context, blocks []domain.Hash32) ([]domain.KaspaDepositSighting, error)
	KaspaDepositRecipients(ctx context.Context, network string) ([]domain.Address, error)
}

// KaspaIndexerMetrics receives the Kaspa indexer's metrics, by network.
type KaspaIndexerMetrics interface {
	KaspaIndexerRPCError(network string)
	// KaspaDeposits counts deposit events by kind: detected, confirmed,
	// refused, reorged, reorged_final (a reorg deeper than the depth).
	KaspaDeposits(network, kind string, n int)
}

type nopKaspaMetrics struct{}

func (nopKaspaMetrics) KaspaIndexerRPCError(string)       {}
func (nopKaspaMetrics) KaspaDeposits(string, string, int) {}

// KaspaIndexerConfig configures a [KaspaIndexer].
type KaspaIndexerConfig struct {
	// Depth is how deep (DAA score) a deposit's accepting block must be
	// under the virtual before the deposit is confirmed.
	Depth uint64
	// MinSompi is the least deposit minted; a smaller one is refused.
	MinSompi uint64
	// Start is the chain block to follow from with no cursor (zero: the
	// node's pruning point).
	Start domain.Hash32
}

// KaspaIndexer follows the virtual selected parent chain of a Kaspa node
// and turns every output paying a deposit address of the group into
// events keyed by its outpoint (domain.DetectKaspaDeposits decides), then
// moves its cursor, itself an event (kaspa_chain.scanned), after them: a
// crash in between reads the same change again, and what it appends
// again has the source keys of what is on the log, so it changes nothing.
type KaspaIndexer struct {
	Chain    KaspaChain
	Reader   KaspaDepositReader
	Appender *Appender
	Config   KaspaIndexerConfig
	Metrics  KaspaIndexerMetrics
	Logger   *slog.Logger
}

// KaspaScanResult says what one [KaspaIndexer.Poll] did.
type KaspaScanResult struct {
	Added, Removed int
	Events         int
	// More: the node has more chain blocks past this change; poll again.
	More bool
}

// Poll applies the chain's change since the cursor.
func (ix *KaspaIndexer) Poll(ctx context.Context) (KaspaScanResult, error) {
	network := ix.Chain.Network()
	m := ix.Metrics
	if m == nil {
		m = nopKaspaMetrics{}
	}
	seq, cursor, found, err := ix.Reader.KaspaCursor(ctx, network)
	if err != nil {
		return KaspaScanResult{}, fmt.Errorf("kaspa indexer cursor of %s: %w", network, err)
	}
	if !found {
		if cursor = ix.Config.Start; cursor.IsZero() {
			if cursor, err = ix.Chain.Start(ctx); err != nil {
				m.KaspaIndexerRPCError(network)
				return KaspaScanResult{}, err
			}
		}
	}
	// The virtual's score is read before the change: a depth judged on it
	// is never more than the chain had when the change was read.
	virtual, err := ix.Chain.VirtualDAAScore(ctx)
	if err != nil {
		m.KaspaIndexerRPCError(network)
		return KaspaScanResult{}, err
	}
	change, more, err := ix.Chain.ChangeFrom(ctx, cursor)
	if err != nil {
		m.KaspaIndexerRPCError(network)
		return KaspaScanResult{}, err
	}
	change.VirtualDAAScore = virtual
	watch, err := ix.watch(ctx, network)
	if err != nil {
		return KaspaScanResult{}, err
	}
	known, err := ix.known(ctx, change.Removed)
	if err != nil {
		return KaspaScanResult{}, err
	}
	evs := domain.DetectKaspaDeposits(change, watch, known)
	if again, err := ix.recorded(ctx, evs); err != nil {
		return KaspaScanResult{}, err
	} else if len(again) > 0 {
		// The change was read before (a crash came before the cursor
		// moved): decide again knowing what was recorded of it.
		evs = domain.DetectKaspaDeposits(change, watch, append(known, again...))
	}
	if err := ix.append(ctx, network, change, evs); err != nil {
		return KaspaScanResult{}, err
	}
	res := KaspaScanResult{Added: len(change.Added), Removed: len(change.Removed), Events: len(evs), More: more}
	if n := len(change.Added); n > 0 {
		scanned := domain.KaspaChainScanned{Network: network, Seq: seq + 1, From: cursor, To: change.Added[n-1].Hash,
			VirtualDAAScore: virtual, Added: n, Removed: len(change.Removed), Deposits: len(evs)}
		if _, err := ix.Appender.Append(ctx, Cause{}, scanned); err != nil {
			return res, err
		}
	}
	return res, nil
}

// watch is what the indexer looks for: the scripts of the deposit
// addresses issued on the log, and the group's own.
func (ix *KaspaIndexer) watch(ctx context.Context, network string) (domain.KaspaDepositWatch, error) {
	rs, err := ix.Reader.KaspaDepositRecipients(ctx, network)
	if err != nil {
		return domain.KaspaDepositWatch{}, fmt.Errorf("kaspa deposit addresses of %s: %w", network, err)
	}
	w := domain.KaspaDepositWatch{Recipients: make(map[string]domain.Address, len(rs)), GroupScript: ix.Chain.GroupScript(),
		MinSompi: ix.Config.MinSompi, Depth: ix.Config.Depth}
	for _, r := range rs {
		s, err := ix.Chain.DepositScript(r)
		if err != nil {
			// Only the zero address has none, and the command that issues
			// addresses refuses it: a record of one is skipped, loudly.
			loggerOr(ix.Logger).Warn("kaspa deposit address skipped", "recipient", r.Hex(), "error", err)
			continue
		}
		w.Recipients[string(s)] = r
	}
	return w, nil
}

// known are the recorded sightings the change may decide on: the open
// ones and those in the removed blocks.
func (ix *KaspaIndexer) known(ctx context.Context, removed []domain.Hash32) ([]domain.KaspaDepositSighting, error) {
	open, err := ix.Reader.KaspaOpenDeposits(ctx)
	if err != nil {
		return nil, fmt.Errorf("open kaspa deposits: %w", err)
	}
	if len(removed) == 0 {
		return open, nil
	}
	gone, err := ix.Reader.KaspaDepositsInBlocks(ctx, removed)
	if err != nil {
		return nil, fmt.Errorf("kaspa deposits of removed blocks: %w", err)
	}
	seen := make(map[domain.KaspaDepositSighting]bool, len(open))
	for _, s := range open {
		seen[s] = true
	}
	for _, s := range gone {
		if !seen[s] {
			open = append(open, s)
		}
	}
	return open, nil
}

// recorded are the sightings already on record in the blocks evs
// detects deposits in (none unless the change was read before).
func (ix *KaspaIndexer) recorded(ctx context.Context, evs []domain.Event) ([]domain.KaspaDepositSighting, error) {
	var blocks []domain.Hash32
	seen := map[domain.Hash32]bool{}
	for _, ev := range evs {
		if d, ok := ev.(domain.KaspaDepositDetected); ok && !seen[d.Block] {
			seen[d.Block] = true
			blocks = append(blocks, d.Block)
		}
	}
	if len(blocks) == 0 {
		return nil, nil
	}
	out, err := ix.Reader.KaspaDepositsInBlocks(ctx, blocks)
	if err != nil {
		return nil, fmt.Errorf("kaspa deposits of the added blocks: %w", err)
	}
	return out, nil
}

// append puts the events on the log in order, each detection with its
// accepting block's time, and logs each.
func (ix *KaspaIndexer) append(ctx context.Context, network string, c domain.KaspaChainChange, evs []domain.Event) error {
	m, log := ix.Metrics, loggerOr(ix.Logger)
	if m == nil {
		m = nopKaspaMetrics{}
	}
	times := make(map[domain.Hash32]time.Time, len(c.Added))
	for _, b := range c.Added {
		times[b.Hash] = b.Time
	}
	for _, ev := range evs {
		var cause Cause
		if d, ok := ev.(domain.KaspaDepositDetected); ok {
			cause.OccurredAt = times[d.Block]
		}
		if _, err := ix.Appender.Append(ctx, cause, ev); err != nil {
			return err
		}
		switch e := ev.(type) {
		case domain.KaspaDepositDetected:
			m.KaspaDeposits(network, "detected", 1)
			log.Info("kaspa deposit detected", "event_source", e.SourceKey(), "outpoint", e.Outpoint.Key(), "sompi", e.Amount,
				"recipient", e.Recipient.Hex(), "block", e.Block.Hex(), "daa_score", e.DAAScore, "refusal", e.Refusal)
		case domain.KaspaDepositConfirmed:
			m.KaspaDeposits(network, "confirmed", 1)
			log.Info("kaspa deposit confirmed", "outpoint", e.Outpoint.Key(), "block", e.Block.Hex(), "virtual_daa_score", e.VirtualDAAScore)
		case domain.KaspaDepositRefused:
			m.KaspaDeposits(network, "refused", 1)
			log.Warn("kaspa deposit refused, recorded and never minted", "outpoint", e.Outpoint.Key(), "reason", e.Reason,
				"block", e.Block.Hex())
		case domain.KaspaDepositReorged:
			if e.WasFinal {
				m.KaspaDeposits(network, "reorged_final", 1)
				log.Error("kaspa deposit's block left the virtual chain after its verdict (a reorganisation deeper than the depth)",
					"outpoint", e.Outpoint.Key(), "block", e.Block.Hex())
			} else {
				m.KaspaDeposits(network, "reorged", 1)
				log.Warn("kaspa deposit's block left the virtual chain", "outpoint", e.Outpoint.Key(), "block", e.Block.Hex())
			}
		}
	}
	return nil
}
