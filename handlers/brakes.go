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
	"github.com/bridgelog/bridgelog/topics"
)

// BrakeMetrics receives the relay's pause and governor metrics.
type BrakeMetrics interface {
	// RelayPaused says whether the relay is paused, and since when.
	RelayPaused(paused bool, since time.Time)
	// MintsHeld is how many deposits the governor or an operator holds,
	// and their value in token units.
	MintsHeld(count int, value float64)
}

type nopBrakeMetrics struct{}

func (nopBrakeMetrics) RelayPaused(bool, time.Time) {}
func (nopBrakeMetrics) MintsHeld(int, float64)      {}

func brakeMetricsOr(m BrakeMetrics) BrakeMetrics {
	if m == nil {
		return nopBrakeMetrics{}
	}
	return m
}

// PauseReader reads the relay's pause state (projections.BridgeReader).
type PauseReader interface {
	PauseState(ctx context.Context) (domain.PauseState, error)
}

// PauseGate is the one place every send of the relay asks (see
// TxDriver.Gate): while the relay is paused it refuses with
// [domain.ErrSendsPaused] before anything is signed. It reads the pause
// from the projections at most once per Every, so a pause appended to
// the log stops sends within one poll interval. A state it cannot read
// stops sends too: a paused relay must not send because its store hiccups.
type PauseGate struct {
	Reader  PauseReader
	Every   time.Duration // default 100ms
	Metrics BrakeMetrics
	Logger  *slog.Logger
	Now     func() time.Time

	mu     sync.Mutex
	state  domain.PauseState
	readAt time.Time
	known  bool
}

// MaySend returns nil when the relay may send.
func (g *PauseGate) MaySend(ctx context.Context) error {
	s, err := g.State(ctx)
	if err != nil {
		return fmt.Errorf("%w: the pause state cannot be read: %w", domain.ErrSendsPaused, err)
	}
	if s.Paused {
		return fmt.Errorf("%w (by %s since %s: %s)", domain.ErrSendsPaused, s.Operator, s.Since.Format(time.RFC3339), s.Reason)
	}
	return nil
}

// State is the pause state, read again when the last read is older than
// Every. A change is logged once and set on the metric.
func (g *PauseGate) State(ctx context.Context) (domain.PauseState, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	every := g.Every
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	if g.known && now().Sub(g.readAt) < every {
		return g.state, nil
	}
	s, err := g.Reader.PauseState(ctx)
	if err != nil {
		return s, err
	}
	if !g.known || s.Paused != g.state.Paused {
		log := loggerOr(g.Logger)
		switch {
		case s.Paused:
			log.Warn("relay paused: nothing is sent until resumed", "operator", s.Operator, "reason", s.Reason,
				"since", s.Since.Format(time.RFC3339))
		case g.known:
			log.Info("relay resumed: sending again", "operator", s.Operator, "reason", s.Reason)
		}
		brakeMetricsOr(g.Metrics).RelayPaused(s.Paused, s.Since)
	}
	g.state, g.readAt, g.known = s, now(), true
	return s, nil
}

// GovernorQueue reads what the governor decides on (projections.BridgeReader).
type GovernorQueue interface {
	GovernorQueue(ctx context.Context, since time.Time, limit int) ([]domain.GovernedMint, []domain.WindowEntry, error)
}

// MintGovernor holds mints over the window's limit or of a large size
// (domain.Govern) and releases them when the window allows or the delay
// passes, each hold and release an event. Its clock is the source chain's
// time (Clock), never the local one.
type MintGovernor struct {
	Policy domain.GovernorPolicy
	Queue  GovernorQueue
	// Clock is the source chain's time: the block time of the newest
	// block the indexer scanned.
	Clock    func(ctx context.Context) (time.Time, error)
	Appender *Appender
	Limit    int // deposits decided per poll, default 10,000
	Metrics  BrakeMetrics
	Logger   *slog.Logger
}

// Admit decides every queued deposit, records new holds and releases, and
// returns the deposits that may be minted now, by deposit id.
func (g *MintGovernor) Admit(ctx context.Context) (map[string]bool, error) {
	now, err := g.Clock(ctx)
	if err != nil {
		return nil, fmt.Errorf("governor: the source chain's time: %w", err)
	}
	limit := g.Limit
	if limit <= 0 {
		limit = 10_000
	}
	queue, minted, err := g.Queue.GovernorQueue(ctx, now.Add(-g.Policy.Window), limit)
	if err != nil {
		return nil, err
	}
	log := loggerOr(g.Logger)
	ok := map[string]bool{}
	var events []domain.Event
	held, value := 0, new(big.Float)
	for i, d := range domain.Govern(g.Policy, now, minted, queue) {
		id := d.Ref.DepositID()
		switch {
		case d.Hold != nil:
			events = append(events, *d.Hold)
			log.Warn("mint held by the governor", "deposit_id", id, "reason", d.Hold.Reason, "amount", d.Hold.Amount.String(),
				"release_at", time.Unix(d.Hold.ReleaseAt, 0).UTC().Format(time.RFC3339))
		case d.Release != nil:
			events = append(events, *d.Release)
			log.Info("held mint released", "deposit_id", id, "reason", d.Release.Reason)
		}
		if d.Mint {
			ok[id] = true
		} else {
			held++
			value.Add(value, new(big.Float).SetInt(queue[i].Amount.Big()))
		}
	}
	if len(events) > 0 {
		if _, err := g.Appender.Append(ctx, Cause{OccurredAt: now}, events...); err != nil {
			return nil, err
		}
	}
	v, _ := value.Float64()
	brakeMetricsOr(g.Metrics).MintsHeld(held, v)
	return ok, nil
}

// ErrOperatorRequest: a pause, resume, hold or release request that is
// malformed or refused on the relay's state.
var ErrOperatorRequest = errors.New("operator request refused")

// LogPause reads the relay's pause from the log itself: the one partition
// of the chain topic that holds every pause and resume, tailed from where
// it last read. A claim worker, which keeps no projections, asks it.
type LogPause struct {
	Log topics.Log

	partition int32
	next      int64
	state     domain.PauseState
	started   bool
}

// PauseState folds the pauses and resumes appended since the last call.
func (p *LogPause) PauseState(ctx context.Context) (domain.PauseState, error) {
	if !p.started {
		spec, err := topics.Spec(topics.TopicChain)
		if err != nil {
			return p.state, err
		}
		p.partition, p.started = topics.PartitionFor([]byte(domain.PauseAggregate), spec.Partitions), true
	}
	dec := topics.NewDecoder(topics.Limits{})
	for {
		recs, err := p.Log.Read(ctx, topics.TopicChain, p.partition, p.next, 1000)
		if err != nil {
			return p.state, err
		}
		for _, r := range recs {
			p.next = r.Offset + 1
			var env topics.Envelope
			if err := dec.Decode(r.Value, &env); err != nil || env.AggregateID != domain.PauseAggregate {
				continue // not a pause: another aggregate of the partition
			}
			switch env.Type {
			case domain.TypeRelayPaused:
				var e domain.RelayPaused
				if err := topics.DecodePayload(env.Payload, &e); err == nil {
					p.state = p.state.Apply(e)
				}
			case domain.TypeRelayResumed:
				var e domain.RelayResumed
				if err := topics.DecodePayload(env.Payload, &e); err == nil {
					p.state = p.state.Apply(e)
				}
			}
		}
		if len(recs) == 0 {
			return p.state, nil
		}
	}
}
