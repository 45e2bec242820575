// Package signingsource is where a signer's signing events come from: the
// token's burns toward Kaspa (WithdrawalToKaspa logs), read by the
// signer's own indexer and confirmer on its own EVM node (the relay's
// handlers, on the signer's own log) and handed to the signer once
// confirmed. An event the signer has not confirmed itself (a peer's
// proposal, an external request) is proven against the same node first
// ([ProveSource]).
//
// A burn's stream is its contract's, "evm:<chain id>:<contract>"
// ([domain.BurnStream]), and its nonce the burn's id, which the contract
// numbers from 1 without gaps, where every signing stream starts
// ([domain.FirstBurnID] = twophase.FirstNonce). An id not confirmed
// yet is a hole that stalls its stream; that is the protocol's business:
// the source hands over what is confirmed, in id order, and nothing
// reorged. With Config.SenderStreams (a Profile B group, which runs one
// event per stream at a time), a burn's stream is its sender's on the
// contract ([domain.BurnSenderStream]) and its nonce the sender's count
// of burns up to its id ([SenderNonces]): each sender's withdrawals stay
// in order, and different senders' are paid at once.
package signingsource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
)

// Requester takes signing events (handlers/signing.Signer). Request is
// idempotent: an event it already has changes nothing.
type Requester interface {
	Request(ctx context.Context, ev twophase.SigningEvent, via string) error
}

// Chain is what the source reads of the signer's own EVM node
// (evmchain.Client): the indexer's and confirmer's reads, and receipts for
// source proofs.
type Chain interface {
	handlers.ChainSource
	ProofChain
}

// Reader is what the source reads of the signer's projections
// ([projections.BurnSourceProjections], read by projections.BridgeReader).
type Reader interface {
	handlers.CursorReader
	handlers.ObservationReader
	BurnReader
}

// Config wires a [Source]. Every field without a default is required.
type Config struct {
	Chain Chain
	// Decoder decodes the watched contracts' logs (evmchain.NewDecoder
	// with the token as Contracts.Token); only burns toward Kaspa are
	// recorded.
	Decoder handlers.LogDecoder
	// Contracts are the token contracts whose burns toward Kaspa the group
	// pays, on Chain: one stream each.
	Contracts []domain.Address
	// SenderStreams hands each burn over in its sender's stream
	// ([domain.BurnSenderStream], numbered by [SenderNonces]) instead of
	// its contract's, and proves peers' events of senders' streams only.
	SenderStreams bool
	StartBlock    uint64 // first block to scan on a fresh log
	// Depth is the confirmation depth, also the indexer's reorg window
	// (0: domain.DefaultConfirmationDepth).
	Depth     uint64
	Appender  *handlers.Appender // the signer's own log
	Reader    Reader
	Projector handlers.Projector // catches the Reader's projections up to the log
	Requester Requester
	Interval  time.Duration // pause between idle rounds, default 200ms
	PageSize  int           // confirmed burns read per query, default 256
	Logger    *slog.Logger
	Metrics   Metrics
}

// ErrConfig: a Config that cannot run.
var ErrConfig = errors.New("invalid signing source config")

// Validate says what is missing.
func (c Config) Validate() error {
	var missing []string
	for _, f := range []struct {
		name  string
		unset bool
	}{
		{"Chain", c.Chain == nil}, {"Decoder", c.Decoder == nil}, {"Contracts", len(c.Contracts) == 0}, {"Appender", c.Appender == nil},
		{"Reader", c.Reader == nil}, {"Projector", c.Projector == nil}, {"Requester", c.Requester == nil},
	} {
		if f.unset {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing %v", ErrConfig, missing)
	}
	return nil
}

func (c *Config) setDefaults() {
	if c.Interval <= 0 {
		c.Interval = 200 * time.Millisecond
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Metrics == nil {
		c.Metrics = NopMetrics{}
	}
}

// Source runs a signer's indexer and confirmer of burns toward Kaspa and
// hands each confirmed burn over.
type Source struct {
	cfg      Config
	relay    *handlers.Relay
	handover *Handover
}

// New builds a source from cfg.
func New(cfg Config) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	chainID := cfg.Chain.ChainID()
	ix := &handlers.Indexer{Chain: cfg.Chain, Decoder: burnsOnly{cfg.Decoder}, Cursors: cfg.Reader, Appender: cfg.Appender,
		Config:  handlers.IndexerConfig{StartBlock: cfg.StartBlock, ReorgWindow: cfg.Depth, Watched: cfg.Contracts},
		Metrics: cfg.Metrics, Logger: cfg.Logger}
	cf := &handlers.Confirmer{Chain: cfg.Chain, Pending: cfg.Reader, Appender: cfg.Appender, Depth: cfg.Depth,
		Metrics: cfg.Metrics, Logger: cfg.Logger}
	var senders *SenderNonces
	if cfg.SenderStreams {
		senders = NewSenderNonces()
	}
	streams := make([]string, len(cfg.Contracts))
	for i, c := range cfg.Contracts {
		streams[i] = domain.BurnStream(chainID, c)
	}
	return &Source{
		cfg: cfg,
		relay: &handlers.Relay{Projector: cfg.Projector, Indexers: []*handlers.Indexer{ix}, Confirmer: []*handlers.Confirmer{cf},
			Logger: cfg.Logger, Metrics: cfg.Metrics, Appender: cfg.Appender},
		handover: &Handover{Streams: streams, Burns: cfg.Reader, Requester: cfg.Requester, Senders: senders, PageSize: cfg.PageSize,
			Logger: cfg.Logger, Metrics: cfg.Metrics},
	}, nil
}

// Round indexes and confirms what the chain has now, then hands over
// every burn confirmed and not yet handed. Errors of each step are
// returned after the others had their turn.
func (s *Source) Round(ctx context.Context) error {
	errIndex := s.relay.Round(ctx)
	err := s.cfg.Projector.CatchUp(ctx)
	if err == nil {
		_, err = s.handover.Poll(ctx)
	}
	return errors.Join(errIndex, err)
}

// Run runs rounds until ctx ends. A failing round is logged (each step's
// failure streak once, by handlers.Relay) and retried: every step is
// idempotent.
func (s *Source) Run(ctx context.Context) error {
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	for {
		if err := s.Round(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Logger.Debug("signing source round failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// ProveSource proves ev against the signer's own node with the source's
// contracts, streams and depth (see the package's [ProveSource] and
// [ProveSenderSource]).
func (s *Source) ProveSource(ctx context.Context, ev twophase.SigningEvent) error {
	if s.handover.Senders != nil {
		return ProveSenderSource(ctx, s.cfg.Chain, s.cfg.Decoder, s.cfg.Contracts, s.handover.Senders, ev, s.cfg.Depth)
	}
	return ProveSource(ctx, s.cfg.Chain, s.cfg.Decoder, s.cfg.Contracts, ev, s.cfg.Depth)
}

// burnsOnly keeps the signer's log to what it acts on: the watched token
// also emits the relay's withdrawals and mints, which a signer records
// nothing of. Malformed logs still come through as errors (rejected logs,
// with their event and metric).
type burnsOnly struct{ handlers.LogDecoder }

func (d burnsOnly) Decode(l *types.Log) (domain.Event, error) {
	ev, err := d.LogDecoder.Decode(l)
	if _, ok := ev.(domain.WithdrawalToKaspaDetected); !ok && err == nil {
		return nil, nil
	}
	return ev, err
}
