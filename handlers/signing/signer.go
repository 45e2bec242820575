// Package signing runs one member of the M-of-N signing group: the
// protocol of domain/twophase wired to the signer's own log, its
// transport to the other members and its view of the ledger.
//
// Every decision is recorded before it is acted on: a step's facts are
// appended to the log durably, then its messages are sent and its payouts
// submitted. A signer that crashes anywhere in between is rebuilt by
// replaying its log ([Open]) and sends again what it had recorded, never
// anything different: an honest signer never votes twice in a round nor
// signs two templates of an event. Methods are safe for concurrent use;
// one decision runs at a time.
package signing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/topics"
)

// Transport carries sealed envelopes to the other members. Delivery is
// best effort: anti-entropy recovers what is lost.
type Transport interface {
	// Send delivers raw to member to, or to every other member when to is
	// empty.
	Send(ctx context.Context, to twophase.PeerID, raw []byte) error
}

// Ledger is the signer's own view of the payout ledger (its node).
type Ledger interface {
	// View returns the group's spendable outputs, the virtual DAA score
	// and the outpoints pending transactions spend.
	View(ctx context.Context) (twophase.LedgerView, error)
	// PayoutStatus says whether a payout was accepted, and how deep.
	PayoutStatus(ctx context.Context, txID twophase.Hash) (twophase.PayoutStatus, error)
	// Submit hands a signed payout to the node; nil when it took it or
	// already knew it.
	Submit(ctx context.Context, tx []byte) error
}

// InputLedger is a Ledger that also says what became of an outpoint
// (spent by which transaction, at which DAA score, or gone): with it a
// signer can prove a signed payout void and sign another (see
// twophase.VoidProof); without it a signed payout is only sent again.
type InputLedger interface {
	InputStatus(ctx context.Context, op twophase.Outpoint) (twophase.InputStatus, error)
}

// SourceProver checks, against the signer's own chain node, that an event
// a peer proposed really happened and is deep enough (the source proof
// of an event the signer's own source has not confirmed yet).
type SourceProver interface {
	Prove(ctx context.Context, ev twophase.SigningEvent) error
}

// Metrics receives the protocol's observations (twophase.Metric*).
type Metrics interface {
	Observe(name, label string, value float64)
}

type nopMetrics struct{}

func (nopMetrics) Observe(string, string, float64) {}

// Config wires a signer.
type Config struct {
	Protocol  twophase.Config
	Log       topics.Log // the signer's own log, never shared
	Transport Transport
	Ledger    Ledger
	Clock     func() time.Time // nil: time.Now
	Metrics   Metrics
	Logger    *slog.Logger
	Limits    topics.Limits
	// NewID makes envelope ids (nil: random); a simulation makes them
	// deterministic.
	NewID func() string
	// Observe, when set, sees every fact once it is on the log, in order
	// (the simulator checks its invariants there).
	Observe func(self twophase.PeerID, facts []twophase.Fact)
	// Crash, when set, is asked after each append whether the process dies
	// there, before it sends anything (tests of "record, then speak").
	Crash func() bool
	// LedgerTimeout bounds each call to the ledger (default 10 s).
	LedgerTimeout time.Duration
	// Prover, when set, proves events that peers propose and this
	// signer's source has not confirmed; a proven event is requested (via
	// "proof"). Each event is tried at most once per ProveEvery (default
	// 5 s).
	Prover     SourceProver
	ProveEvery time.Duration
	// TickHeld, when set, is told how long each Tick held the signer's
	// lock (the hostile-member harness's figure).
	TickHeld func(d time.Duration)
	// Certificate builds a refused event's refusal certificate, without
	// signatures (nil: domain.RefusalFor, burn streams'). It must agree
	// with Protocol.Refusal (nil: set from it), whose bytes are signed.
	Certificate CertificateFunc
}

// ErrProverUnavailable: the prover's node cannot be read now (not
// connected yet); the event is neither proven nor refused, and tried again.
// The node's own health records the outage, once, so it is not logged per
// event.
var ErrProverUnavailable = errors.New("source prover unavailable")

// ErrCrashed: the Crash hook stopped the signer; it must be reopened.
var ErrCrashed = errors.New("signer crashed (test hook)")

// Signer is one running member.
type Signer struct {
	mu      sync.Mutex
	cfg     Config
	state   *twophase.State
	app     *handlers.Appender
	log     *slog.Logger
	metrics Metrics
	dead    error // set once the signer must not decide any more
	// restart is set when the state was rebuilt from the log after a
	// failed append: its sequence numbers start again, so it needs a new
	// session before it speaks, or peers drop what it sends as replays.
	restart bool

	pmu     sync.Mutex
	proved  map[twophase.Hash]time.Time // last proof attempt per event, pruned (see prove)
	proving chan struct{}               // a slot per proof in flight

	opener *twophase.Opener // the group's: checks envelopes outside the lock
	links  linkBudgets
}

// Open replays the signer's log into a fresh protocol state and starts a
// new session: what the signer had recorded but maybe not sent is sent
// again.
func Open(ctx context.Context, cfg Config) (*Signer, error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.LedgerTimeout == 0 {
		cfg.LedgerTimeout = 10 * time.Second
	}
	if cfg.ProveEvery == 0 {
		cfg.ProveEvery = 5 * time.Second
	}
	cfg = withRefusals(cfg)
	s := &Signer{cfg: cfg, log: cfg.Logger, metrics: cfg.Metrics, proved: map[twophase.Hash]time.Time{},
		proving: make(chan struct{}, maxProofsInFlight)}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.metrics == nil {
		s.metrics = nopMetrics{}
	}
	s.app = &handlers.Appender{Log: cfg.Log, Catalog: topics.DefaultCatalog(), Limits: cfg.Limits, Now: cfg.Clock, NewID: cfg.NewID}
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	s.opener = s.state.Opener()
	s.links.init(s.state.Config().Params)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.commit(ctx, s.state.Start(s.env(ctx))); err != nil {
		return nil, err
	}
	s.log.Info("signer started", "signer", cfg.Protocol.Self, "session", s.state.Session(), "events", len(s.state.Events()))
	return s, nil
}

// load builds the state from the log.
func (s *Signer) load(ctx context.Context) error {
	st, err := twophase.NewState(s.cfg.Protocol)
	if err != nil {
		return err
	}
	n, err := Replay(ctx, s.cfg.Log, st.Apply)
	if err != nil {
		return fmt.Errorf("replay the signer's log: %w", err)
	}
	s.log.Debug("signer log replayed", "signer", s.cfg.Protocol.Self, "facts", n)
	s.state = st
	return nil
}

// env is what one decision may consult: the clock now, the ledger view
// (fetched at most once), payout statuses.
func (s *Signer) env(ctx context.Context) twophase.Env {
	var view *twophase.LedgerView
	var viewErr error
	return twophase.Env{
		Now: s.cfg.Clock(),
		View: func() (twophase.LedgerView, error) {
			if view == nil && viewErr == nil {
				c, cancel := context.WithTimeout(ctx, s.cfg.LedgerTimeout)
				v, err := s.cfg.Ledger.View(c)
				cancel()
				view, viewErr = &v, err
			}
			return *view, viewErr
		},
		Payout: func(tx twophase.Hash) (twophase.PayoutStatus, error) {
			c, cancel := context.WithTimeout(ctx, s.cfg.LedgerTimeout)
			defer cancel()
			return s.cfg.Ledger.PayoutStatus(c, tx)
		},
		Input: s.inputStatus(ctx),
	}
}

// inputStatus is the Env's Input when the ledger can answer it.
func (s *Signer) inputStatus(ctx context.Context) func(twophase.Outpoint) (twophase.InputStatus, error) {
	il, ok := s.cfg.Ledger.(InputLedger)
	if !ok {
		return nil
	}
	return func(op twophase.Outpoint) (twophase.InputStatus, error) {
		c, cancel := context.WithTimeout(ctx, s.cfg.LedgerTimeout)
		defer cancel()
		return il.InputStatus(c, op)
	}
}

// commit records a step, then acts on it: facts to the log (durably),
// then messages, then payout submissions, whose answers are recorded the
// same way. If the append fails, the state (which already holds the
// facts) is rebuilt from the log, nothing is sent, and the next decision
// first starts a new session (see restart).
func (s *Signer) commit(ctx context.Context, st twophase.Step) error {
	if len(st.Facts) > 0 {
		evs := make([]domain.Event, len(st.Facts))
		for i, f := range st.Facts {
			evs[i] = f
		}
		if _, err := s.app.Append(ctx, handlers.Cause{OccurredAt: s.cfg.Clock()}, evs...); err != nil {
			s.log.Error("signer could not record its decision; rebuilding its state from the log", "signer", s.cfg.Protocol.Self, "err", err)
			if lerr := s.load(ctx); lerr != nil {
				s.dead = fmt.Errorf("append failed (%v) and the log cannot be replayed: %w", err, lerr)
			} else {
				s.restart = true
			}
			return fmt.Errorf("record %d facts: %w", len(evs), err)
		}
		if s.cfg.Observe != nil {
			s.cfg.Observe(s.cfg.Protocol.Self, st.Facts)
		}
		s.logFacts(st.Facts)
		if s.cfg.Crash != nil && s.cfg.Crash() {
			s.dead = ErrCrashed
			return ErrCrashed
		}
	}
	for _, o := range st.Metrics {
		s.metrics.Observe(o.Name, o.Label, o.Value)
	}
	for _, o := range st.Out {
		if err := s.cfg.Transport.Send(ctx, o.To, o.Raw); err != nil {
			s.log.Debug("send failed", "signer", s.cfg.Protocol.Self, "to", o.To, "kind", o.Kind, "err", err)
		}
	}
	for _, ev := range st.Unconfirmed {
		s.prove(ev)
	}
	for _, sub := range st.Submit {
		c, cancel := context.WithTimeout(ctx, s.cfg.LedgerTimeout)
		err := s.cfg.Ledger.Submit(c, sub.Tx)
		cancel()
		if err := s.commit(ctx, s.state.SubmitResult(sub, err, s.env(ctx))); err != nil {
			return err
		}
	}
	return nil
}

// do runs one decision under the lock.
func (s *Signer) do(ctx context.Context, decide func(twophase.Env) twophase.Step) error {
	return s.doTimed(ctx, decide, nil)
}

// doTimed is do, telling held (when set) how long it held the lock.
func (s *Signer) doTimed(ctx context.Context, decide func(twophase.Env) twophase.Step, held func(time.Duration)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if held != nil {
		began := time.Now()
		defer func() { held(time.Since(began)) }()
	}
	if s.dead != nil {
		return s.dead
	}
	if err := s.resume(ctx); err != nil {
		return err
	}
	return s.commit(ctx, decide(s.env(ctx)))
}

// resume starts a new session, as Open does, in a state rebuilt after a
// failed append; if that append fails too, the next decision tries again.
func (s *Signer) resume(ctx context.Context) error {
	if !s.restart {
		return nil
	}
	s.restart = false
	if err := s.commit(ctx, s.state.Start(s.env(ctx))); err != nil {
		return fmt.Errorf("start a new session after a failed append: %w", err)
	}
	s.log.Info("signer resumed in a new session", "signer", s.cfg.Protocol.Self, "session", s.state.Session())
	return nil
}

// Deliver handles an envelope from another member.
func (s *Signer) Deliver(ctx context.Context, raw []byte) error {
	return s.do(ctx, func(en twophase.Env) twophase.Step { return s.state.Deliver(raw, en) })
}

// DeliverOpened handles an envelope that the transport already checked
// with this group's twophase.Opener (env and err are what Open returned).
func (s *Signer) DeliverOpened(ctx context.Context, raw []byte, env twophase.Envelope, err error) error {
	return s.do(ctx, func(en twophase.Env) twophase.Step { return s.state.DeliverOpened(raw, env, err, en) })
}

// Request hands the signer an event its own source confirmed; via names
// the source ("source", "rpc").
func (s *Signer) Request(ctx context.Context, ev twophase.SigningEvent, via string) error {
	return s.do(ctx, func(en twophase.Env) twophase.Step { return s.state.Request(ev, via, en) })
}

// Tick runs the protocol's timers; call it every Params.Tick. The
// envelopes links sent over their budget since the last tick are
// recorded with it.
func (s *Signer) Tick(ctx context.Context) error {
	return s.doTimed(ctx, func(en twophase.Env) twophase.Step {
		for _, r := range s.links.takeRefused() {
			s.state.NoteRefused(r.link, twophase.ReasonRateLimited, r.detail, r.n, en.Now)
		}
		return s.state.Tick(en)
	}, s.cfg.TickHeld)
}

// LedgerChanged tells the signer its ledger moved, so committed payouts
// are checked now rather than at the next tick.
func (s *Signer) LedgerChanged(ctx context.Context) error {
	return s.do(ctx, func(en twophase.Env) twophase.Step { return s.state.LedgerChanged(en) })
}

// AdminReset restarts an event at round 0 of a new epoch (an operator's
// action, recorded with the operator and the reason).
func (s *Signer) AdminReset(ctx context.Context, id twophase.Hash, operator, reason string) error {
	var aerr error
	err := s.do(ctx, func(en twophase.Env) twophase.Step {
		st, err := s.state.AdminReset(id, operator, reason, en)
		aerr = err
		return st
	})
	return errors.Join(aerr, err)
}

// AdminReinject submits an event by hand (recorded with the operator and
// the reason); idempotent by the event's id.
func (s *Signer) AdminReinject(ctx context.Context, ev twophase.SigningEvent, operator, reason string) error {
	var aerr error
	err := s.do(ctx, func(en twophase.Env) twophase.Step {
		st, err := s.state.AdminReinject(ev, operator, reason, en)
		aerr = err
		return st
	})
	return errors.Join(aerr, err)
}

// Status is a snapshot of what `signer status` shows.
type Status struct {
	Self    twophase.PeerID
	Session uint64
	Group   twophase.Group // its profile, quorum and (Profile B) f
	Events  []twophase.EventState
	Streams []twophase.StreamStatus
	Peers   []twophase.PeerStatus
	// Profile B: the lock certificates open events hold, and the
	// outpoints they reserve.
	Certificates []Certificate
	Reserved     []twophase.Reservation
}

// Certificate is a lock certificate an open event holds (Profile B).
type Certificate struct {
	Epoch   uint32
	Lock    twophase.LockMsg
	Signers []twophase.PeerID
}

// Status returns a snapshot of the signer's events, streams and peers.
func (s *Signer) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return StatusOf(s.cfg.Protocol.Self, s.state)
}

// StatusOf is the status of self's protocol state: a running signer's, or
// one replayed from a stopped signer's log.
func StatusOf(self twophase.PeerID, state *twophase.State) Status {
	cfg := state.Config()
	st := Status{Self: self, Session: state.Session(), Group: cfg.Group, Streams: state.Streams(), Peers: state.Peers(),
		Reserved: state.Reserved()}
	for _, e := range state.Events() {
		st.Events = append(st.Events, *e)
		if c, ok := heldCertificate(cfg, e); ok {
			st.Certificates = append(st.Certificates, c)
		}
	}
	return st
}

// heldCertificate is the lock certificate a Profile B event holds while
// it is committed: its commit's evidence starts with it, as the state
// reads it to reserve outpoints (twophase.State.Reserved).
func heldCertificate(cfg twophase.Config, e *twophase.EventState) (Certificate, bool) {
	if cfg.Group.Profile != twophase.ProfileB || e.Phase != twophase.PhaseCommitted || len(e.Evidence) == 0 {
		return Certificate{}, false
	}
	c, err := twophase.DecodeLockCert(e.Evidence[0], cfg.Params)
	if err != nil {
		return Certificate{}, false
	}
	out := Certificate{Epoch: e.Epoch, Lock: c.Msg}
	for _, sg := range c.Sigs {
		out.Signers = append(out.Signers, sg.Signer)
	}
	return out, true
}

// Event returns one event's state at this signer.
func (s *Signer) Event(id twophase.Hash) (twophase.EventState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Event(id)
}

// prove checks an event a peer proposed against the signer's own chain
// node, off the decision path, and requests it when the proof holds.
func (s *Signer) prove(ev twophase.SigningEvent) {
	if s.cfg.Prover == nil {
		return
	}
	id, now := ev.ID(), s.cfg.Clock()
	if !s.startProof(id, now) {
		return
	}
	go func() {
		defer func() { <-s.proving }()
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.LedgerTimeout)
		defer cancel()
		if err := s.cfg.Prover.Prove(ctx, ev); err != nil {
			level := slog.LevelWarn
			if errors.Is(err, ErrProverUnavailable) {
				level = slog.LevelDebug
			}
			s.log.Log(ctx, level, "a peer's event does not prove on this signer's chain", "signer", s.cfg.Protocol.Self,
				"event_id", id.Hex(), "stream", ev.Stream, "nonce", ev.Nonce, "err", err)
			return
		}
		if err := s.Request(ctx, ev, "proof"); err != nil {
			s.log.Warn("request of a proven event failed", "signer", s.cfg.Protocol.Self, "event_id", id.Hex(), "err", err)
		}
	}()
}
