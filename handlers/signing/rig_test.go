package signing_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

// rig runs N signers on the wall clock: each its own in-memory log, the
// in-process bus between them, one simulated ledger (serialised by mu)
// advanced by a goroutine. Every fact any signer records is kept, in
// order per signer, for the invariants.
type rig struct {
	t      testing.TB
	mu     sync.Mutex // the ledger's
	ledger *simledger.Ledger
	sim    simledger.Group
	keys   *simledger.Keys
	group  twophase.Group
	params twophase.Params
	bus    *simnet.Bus
	ids    []twophase.PeerID
	idKeys map[twophase.PeerID]ed25519.PrivateKey
	logs   map[twophase.PeerID]*memlog.Log
	nodes  map[twophase.PeerID]*signing.Signer
	start  time.Time

	fmu    sync.Mutex
	facts  map[twophase.PeerID][]twophase.Fact
	crash  func(id twophase.PeerID) bool
	prover map[twophase.PeerID]signing.SourceProver
	// wrap, when set for a signer, stands between it and its log.
	wrap map[twophase.PeerID]topics.Log
	done chan struct{}
	wg   sync.WaitGroup
	// tickMax is the longest hold of its lock by a Tick of each signer
	// since tickMaxes last read it.
	tickMax map[twophase.PeerID]time.Duration
}

func newRig(t testing.TB, n int, delay time.Duration, mutate ...func(*twophase.Params)) *rig {
	r := &rig{t: t, logs: map[twophase.PeerID]*memlog.Log{}, nodes: map[twophase.PeerID]*signing.Signer{},
		facts: map[twophase.PeerID][]twophase.Fact{}, done: make(chan struct{}), start: time.Now(),
		tickMax: map[twophase.PeerID]time.Duration{}}
	r.sim = simledger.NewGroup("rig", "rig", simledger.MemberIDs(n), n/2+1)
	r.group, r.ids, r.keys, r.idKeys = r.sim.Group, r.sim.IDs, r.sim.Payout, r.sim.Identity
	for _, id := range r.ids {
		r.logs[id] = memlog.New()
	}
	r.params = twophase.Params{ProposalTimeout: time.Second, Tick: 50 * time.Millisecond, MinInputDepth: 5, CoinbaseMaturity: 10,
		PayoutDepth: 2, CompletionTimeout: 10 * time.Second, StateSyncCooldown: 50 * time.Millisecond,
		Retry: twophase.RetryConfig{MaxRetries: 3, BaseDelay: 100 * time.Millisecond, MaxDelay: 400 * time.Millisecond, Multiplier: 2, Jitter: 20 * time.Millisecond}}
	for _, m := range mutate {
		m(&r.params)
	}
	r.ledger = simledger.New(simledger.Config{DAAPerSecond: 100, StartDAA: 10_000, Group: r.group, Keys: r.keys}, r.start)
	for i := 0; i < 200; i++ {
		r.ledger.Fund(twophase.Outpoint{TxID: sha256.Sum256([]byte(fmt.Sprint("rig", i)))}, 5_000_000+uint64(i), 100, false)
	}
	r.bus = simnet.NewBus(simnet.RealTime{}, simnet.Faults{Delay: delay}, rand.New(rand.NewPCG(1, 1)), r.ids)
	for _, id := range r.ids {
		r.open(id)
	}
	r.wg.Go(r.run)
	t.Cleanup(r.stop)
	return r
}

func (r *rig) config(id twophase.PeerID) signing.Config {
	return signing.Config{
		Protocol: r.sim.Config(id, r.params, twophase.Policy{MinChange: 1000}),
		Log:      r.logOf(id), Transport: r.bus.Endpoint(id), Ledger: simledger.Node{Ledger: r.ledger, Mu: &r.mu},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: func(self twophase.PeerID, fs []twophase.Fact) {
			r.fmu.Lock()
			r.facts[self] = append(r.facts[self], fs...)
			r.fmu.Unlock()
		},
		Crash: func() bool { return r.crash != nil && r.crash(id) },
		TickHeld: func(d time.Duration) {
			r.fmu.Lock()
			r.tickMax[id] = max(r.tickMax[id], d)
			r.fmu.Unlock()
		},
		Prover: r.prover[id],
	}
}

func (r *rig) logOf(id twophase.PeerID) topics.Log {
	if l, ok := r.wrap[id]; ok {
		return l
	}
	return r.logs[id]
}

// open (re)builds signer id from its log and attaches it to the bus.
func (r *rig) open(id twophase.PeerID) {
	s, err := signing.Open(context.Background(), r.config(id))
	if err != nil {
		r.t.Fatalf("open %s: %v", id, err)
	}
	r.fmu.Lock()
	r.nodes[id] = s
	r.fmu.Unlock()
	r.bus.Attach(id, func(ctx context.Context, raw []byte, _ *simnet.Opened) { _ = s.Deliver(ctx, raw) })
}

func (r *rig) node(id twophase.PeerID) *signing.Signer {
	r.fmu.Lock()
	defer r.fmu.Unlock()
	return r.nodes[id]
}

// run advances the ledger and ticks every signer until stop.
func (r *rig) run() {
	t := time.NewTicker(r.params.Tick / 5)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-r.done:
			return
		case now := <-t.C:
			r.mu.Lock()
			r.ledger.AdvanceTo(now)
			r.mu.Unlock()
			for _, id := range r.ids {
				_ = r.node(id).LedgerChanged(context.Background())
				if n%5 == 0 {
					_ = r.node(id).Tick(context.Background())
				}
			}
		}
	}
}

// tickMaxes returns the longest Tick of each signer since the last call.
func (r *rig) tickMaxes() map[twophase.PeerID]time.Duration {
	r.fmu.Lock()
	defer r.fmu.Unlock()
	out := r.tickMax
	r.tickMax = map[twophase.PeerID]time.Duration{}
	return out
}

func (r *rig) stop() {
	select {
	case <-r.done:
	default:
		close(r.done)
	}
	r.wg.Wait()
}

func (r *rig) request(ev twophase.SigningEvent, ids ...twophase.PeerID) {
	if len(ids) == 0 {
		ids = r.ids
	}
	for _, id := range ids {
		_ = r.node(id).Request(context.Background(), ev, "source")
	}
}

// waitCompleted waits until every signer completed ev.
func (r *rig) waitCompleted(ev twophase.SigningEvent, within time.Duration) {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for {
		done := 0
		for _, id := range r.ids {
			if e, ok := r.node(id).Event(ev.ID()); ok && e.Phase == twophase.PhaseCompleted {
				done++
			}
		}
		if done == len(r.ids) {
			return
		}
		if time.Now().After(deadline) {
			for _, id := range r.ids {
				e, _ := r.node(id).Event(ev.ID())
				r.t.Logf("%s: %s round %d", id, e.Phase, e.Round)
			}
			r.t.Fatalf("event %d not completed everywhere in %v", ev.Nonce, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkSafety: no signer signed two templates of an event, no event has
// two committed hashes, every commit names a quorum; and the ledger paid
// each event at most once.
func (r *rig) checkSafety(events []twophase.SigningEvent) {
	r.t.Helper()
	r.fmu.Lock()
	defer r.fmu.Unlock()
	committed := map[twophase.Hash]twophase.Hash{}
	for id, fs := range r.facts {
		signed := map[twophase.Hash]twophase.Hash{}
		for _, f := range fs {
			switch f := f.(type) {
			case twophase.TemplateSigned:
				if h, ok := signed[f.EventID]; ok && h != f.Hash {
					r.t.Errorf("%s signed two templates of %s", id, f.EventID.Short())
				}
				signed[f.EventID] = f.Hash
			case twophase.Committed:
				if len(f.Voters) < r.group.Quorum {
					r.t.Errorf("%s committed with %d voters", id, len(f.Voters))
				}
				if h, ok := committed[f.EventID]; ok && h != f.Hash {
					r.t.Errorf("event %s committed to two hashes", f.EventID.Short())
				}
				committed[f.EventID] = f.Hash
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ev := range events {
		dest, _ := simledger.Rules{}.ScriptFor(ev.Destination)
		n := 0
		for _, a := range r.ledger.AcceptedSince(0) {
			for _, o := range a.Template.Outputs {
				if o.Script.Equal(dest) {
					n++
				}
			}
		}
		if n > 1 {
			r.t.Errorf("event %d paid %d times", ev.Nonce, n)
		}
	}
}

func event(n uint64) twophase.SigningEvent {
	return twophase.SigningEvent{Stream: "evm:1:bridge", Nonce: n + twophase.FirstNonce, Destination: fmt.Sprintf("sim:user-%d", n),
		Amount: 100_000 + n, Source: twophase.SourceRef{Chain: "evm:1", Block: 10 + n}}
}
