package simulate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// epoch is where virtual time starts; any fixed instant does.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// daaPerSecond is the simulated ledger's default rate (Kaspa's 10
// blocks/s), and startDAA its DAA score at the epoch.
const (
	daaPerSecond = 10
	startDAA     = 100_000
)

// world is one simulation's state.
type world struct {
	cfg   Config
	sched *simnet.Scheduler
	rng   *rand.Rand
	// advRNG draws the Byzantine signers' choices, apart from rng so that
	// the faults of a seed stay the same with or without them.
	advRNG *rand.Rand
	bus    *simnet.Bus
	ledger *simledger.Ledger
	sim    simledger.Group
	keys   *simledger.Keys
	group  twophase.Group
	ids    []twophase.PeerID
	nodes  map[twophase.PeerID]*node
	events []twophase.SigningEvent
	check  *checker
	stats  *metricsSink
	quiet  *slog.Logger

	byzantine Byzantine      // what the Byzantine signers did
	byScript  map[string]int // destination script -> event
	settledTo int            // events before it are settled
	lost      lostPayouts    // --lose-payout
}

var simledgerRules = simledger.Rules{}

// node is one signer process: its log survives a crash, the rest does not.
type node struct {
	id        twophase.PeerID
	index     int
	log       *memlog.Log
	signer    *signing.Signer
	up        bool
	crashNext bool
	lag       time.Duration
	ids       uint64 // envelope id counter
	crashes   int
	ledger    nodeLedger
	// late holds outputs its node saw late (--diverge): outpoint -> the
	// DAA score at which it saw them.
	late map[twophase.Outpoint]uint64
	adv  *adversary // nil: an honest signer
}

func newWorld(cfg Config) (*world, error) {
	w := &world{cfg: cfg, sched: simnet.NewScheduler(epoch), rng: rand.New(rand.NewPCG(cfg.Seed, 0x7369_6d75_6c61_7465)),
		advRNG: rand.New(rand.NewPCG(cfg.Seed, 0x6279_7a61_6e74_696e)),
		nodes:  map[twophase.PeerID]*node{}, quiet: slog.New(slog.NewTextHandler(io.Discard, nil)), stats: newMetricsSink()}
	w.sim = simledger.NewGroup("sim", fmt.Sprint("simulate-", cfg.Seed), simledger.MemberIDs(cfg.Signers), cfg.Quorum)
	w.sim.Group.Profile = cfg.Profile
	if cfg.Profile == twophase.ProfileB {
		w.sim.Group.Faults = faultsTolerated(cfg.Signers)
	}
	if err := w.sim.Group.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	w.keys, w.group, w.ids = w.sim.Payout, w.sim.Group, w.sim.IDs
	w.ledger = simledger.New(simledger.Config{DAAPerSecond: cfg.DAAPerSecond, StartDAA: startDAA, Group: w.group, Keys: w.keys,
		CoinbaseMaturity: cfg.Params.CoinbaseMaturity}, epoch)
	w.fund()
	w.bus = simnet.NewBus(w.sched, cfg.Faults, w.rng, w.ids)
	w.bus.CheckAhead(twophase.NewOpener(w.group, nil), runtime.GOMAXPROCS(0))
	w.check = newChecker(w)
	w.bus.Tap = w.tap
	w.byzantine = Byzantine{Count: cfg.Byzantine, Behaviour: cfg.Behaviour}
	for i, id := range w.ids {
		n := &node{id: id, index: i, lag: cfg.Lags[i+1]}
		n.log = memlog.New(memlog.WithClock(w.sched.Now))
		lagDAA := uint64(n.lag.Seconds() * float64(cfg.DAAPerSecond))
		n.ledger = nodeLedger{Node: simledger.Node{Ledger: w.ledger, Lag: func() uint64 { return lagDAA }}, n: n, depth: cfg.Params.MinInputDepth, w: w}
		if i >= cfg.Signers-cfg.Byzantine {
			n.adv = newAdversary(w, n)
		}
		w.nodes[id] = n
	}
	for i := 0; i < cfg.Events; i++ {
		w.events = append(w.events, twophase.SigningEvent{
			Stream: fmt.Sprintf("evm:31337:0xbridge/%d", i%cfg.Streams), Nonce: twophase.FirstNonce + uint64(i/cfg.Streams),
			Destination: fmt.Sprintf("sim:user-%d", i), Amount: 100_000 + uint64(w.rng.IntN(900_000)),
			Source: twophase.SourceRef{Chain: "evm:31337", TxHash: sha256.Sum256([]byte(fmt.Sprint("burn", i))), Block: uint64(1000 + i)},
		})
		// Drawn only with --unpayable, so that runs without it stay
		// those of their seed.
		if cfg.Unpayable > 0 && w.rng.Float64() < cfg.Unpayable {
			w.unpayable(&w.events[i], i)
		}
	}
	return w, nil
}

// fund gives the group deep outputs: more than the events need, so that
// the depth filter always finds some while change outputs mature; a few
// are coinbase outputs.
func (w *world) fund() {
	n := w.cfg.Events + 64
	for i := 0; i < n; i++ {
		op := twophase.Outpoint{TxID: sha256.Sum256([]byte(fmt.Sprint("genesis", i)))}
		w.ledger.Fund(op, 5_000_000+uint64(w.rng.IntN(5_000_000)), 1_000+uint64(i), i%10 == 0)
	}
}

// config is signer n's protocol configuration.
func (w *world) config(n *node) twophase.Config {
	return w.sim.Config(n.id, w.cfg.Params, simPolicy)
}

// honest counts the signers that are not Byzantine.
func (w *world) honest() int { return w.cfg.Signers - w.cfg.Byzantine }

// honestNodes lists the signers that are not Byzantine, in order.
func (w *world) honestNodes() []*node {
	out := make([]*node, 0, w.honest())
	for _, id := range w.ids[:w.honest()] {
		out = append(out, w.nodes[id])
	}
	return out
}

// start opens node n's signer from its log, attaches it to the bus and
// hands it every event its source has confirmed by now.
func (w *world) start(n *node) {
	var transport signing.Transport = w.bus.Endpoint(n.id)
	if n.adv != nil {
		transport = n.adv
	}
	s, err := signing.Open(context.Background(), signing.Config{
		Protocol:  w.config(n),
		Log:       n.log,
		Transport: transport,
		Ledger:    n.ledger,
		Clock:     w.sched.Now,
		Metrics:   w.stats.signer(n.adv == nil),
		Logger:    w.quiet,
		NewID:     func() string { n.ids++; return fmt.Sprintf("%s-%d", n.id, n.ids) },
		Observe:   w.check.observe,
		Crash:     func() bool { return w.crashHook(n) },
		Certificate: func(group string, ev twophase.SigningEvent, origin string, r twophase.Reason) (domain.RefusalCertificate, error) {
			return simledger.RefusalFor(group, ev, origin, r), nil
		},
	})
	if err != nil {
		panic(fmt.Sprintf("simulate: open %s: %v", n.id, err)) // a signer that cannot replay its own log is a bug
	}
	n.signer, n.up = s, true
	w.bus.Attach(n.id, func(ctx context.Context, raw []byte, opened *simnet.Opened) {
		switch {
		case !n.up:
		case opened != nil:
			if n.adv != nil && opened.Err == nil {
				n.adv.received(opened.Env)
			}
			_ = n.signer.DeliverOpened(ctx, raw, opened.Env, opened.Err)
		default:
			_ = n.signer.Deliver(ctx, raw)
		}
	})
	for i, ev := range w.events {
		if w.arrival(i, n).After(w.sched.Now()) {
			break
		}
		_ = s.Request(context.Background(), ev, "source")
	}
}

// arrival is when event i is confirmed by node n's source.
func (w *world) arrival(i int, n *node) time.Time {
	return epoch.Add(time.Duration(i+1)*w.cfg.EventEvery + n.lag)
}

// crashHook kills n right after it recorded a decision, before it sends
// it, when a crash is due; it restarts from its log a moment later.
func (w *world) crashHook(n *node) bool {
	if !n.crashNext {
		return false
	}
	n.crashNext, n.up = false, false
	n.crashes++
	w.bus.SetDown(n.id, true)
	w.sched.After(time.Duration(500+w.rng.IntN(2500))*time.Millisecond, func() { w.start(n) })
	return true
}

// schedule queues everything the run does: sources, ticks, the ledger,
// crashes.
func (w *world) schedule() {
	for _, id := range w.ids {
		n := w.nodes[id]
		w.start(n)
		offset := time.Duration(w.rng.Int64N(int64(w.cfg.Params.Tick)))
		var tick func()
		tick = func() {
			if n.up {
				_ = n.signer.Tick(context.Background())
			}
			w.sched.After(w.cfg.Params.Tick, tick)
		}
		w.sched.After(offset, tick)
	}
	for i, ev := range w.events {
		for _, id := range w.ids {
			n := w.nodes[id]
			w.sched.At(w.arrival(i, n), func() {
				if n.up {
					_ = n.signer.Request(context.Background(), ev, "source")
				}
			})
		}
		if w.cfg.Crash > 0 && w.rng.Float64() < w.cfg.Crash {
			n := w.nodes[w.ids[w.rng.IntN(len(w.ids))]]
			w.sched.At(w.arrival(i, n).Add(time.Duration(w.rng.IntN(3000))*time.Millisecond), func() {
				if n.up {
					n.crashNext = true
				}
			})
		}
	}
	// Each block, a node whose view just saw a payout accepted or reach
	// the payout depth is told at once (as a node's DAA-score and UTXO
	// notifications tell a signer), so the next event starts then.
	var block func()
	block = func() {
		w.ledger.AdvanceTo(w.sched.Now())
		for _, id := range w.ids {
			n := w.nodes[id]
			if n.up && w.payoutMoved(n) {
				_ = n.signer.LedgerChanged(context.Background())
			}
		}
		w.sched.After(w.blockInterval(), block)
	}
	w.sched.After(w.blockInterval(), block)
}

// blockInterval is the time between two of the ledger's blocks.
func (w *world) blockInterval() time.Duration { return time.Second / time.Duration(w.cfg.DAAPerSecond) }

// tap sees every envelope sent: the first proposal of an event may have
// an input reorganised away before the round can commit (--invalidate),
// or seen late by some nodes (--diverge).
func (w *world) tap(from twophase.PeerID, raw []byte) {
	if w.cfg.Invalidate == 0 && w.cfg.Diverge == 0 {
		return
	}
	w.check.firstProposal(from, raw)
}

// payoutMoved: in n's view (lagging by its lag) a payout was accepted at
// this DAA score or reached the payout depth at it.
func (w *world) payoutMoved(n *node) bool {
	lag := uint64(n.lag.Seconds() * float64(w.cfg.DAAPerSecond))
	if w.ledger.DAA() < lag {
		return false
	}
	view := w.ledger.DAA() - lag
	for _, a := range w.ledger.AcceptedSince(view - min(view, w.cfg.Params.PayoutDepth)) {
		if a.DAAScore == view || a.DAAScore+w.cfg.Params.PayoutDepth == view {
			return true
		}
	}
	return false
}
