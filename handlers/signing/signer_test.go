package signing_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// Three signer processes' worth (each its own log) pay a run of events
// over the bus, on the wall clock.
func TestSignersPayEvents(t *testing.T) {
	r := newRig(t, 3, 2*time.Millisecond)
	var evs []twophase.SigningEvent
	for n := uint64(0); n < 5; n++ {
		ev := event(n)
		evs = append(evs, ev)
		r.request(ev)
	}
	for _, ev := range evs {
		r.waitCompleted(ev, 20*time.Second)
	}
	r.checkSafety(evs)
}

// Record, then speak: s2 dies right after it records its vote, before
// the vote leaves. Rebuilt from its log, it sends that same vote and
// never another, and the event is paid once.
func TestCrashBetweenRecordAndSend(t *testing.T) {
	r := newRig(t, 3, 2*time.Millisecond)
	var crashed atomic.Bool
	r.crash = func(id twophase.PeerID) bool { return id == "s2" && crashed.CompareAndSwap(false, true) }
	ev := event(0)
	r.request(ev, "s2")
	if !crashed.Load() {
		t.Fatal("s2 recorded nothing to crash after")
	}
	if err := r.node("s2").Tick(context.Background()); err == nil {
		t.Fatal("a crashed signer went on deciding")
	}
	r.open("s2")
	r.request(ev)
	r.waitCompleted(ev, 20*time.Second)
	votes := map[twophase.Hash]int{}
	n, err := signing.Replay(context.Background(), r.logs["s2"], func(f twophase.Fact) {
		if v, ok := f.(*twophase.VoteAccepted); ok && v.Own && v.Round == 0 {
			votes[v.Hash]++
		}
	})
	if err != nil || n == 0 {
		t.Fatalf("replay: %d facts, %v", n, err)
	}
	if len(votes) != 1 {
		t.Fatalf("s2's own round-0 votes on its log: %v, want one", votes)
	}
	r.checkSafety([]twophase.SigningEvent{ev})
}

// The timeout boundary against quorum arrival: round timeouts about as
// long as the network takes, every signer ticked from several goroutines
// at once while votes arrive. Under the race detector, nothing is
// committed twice or signed twice, and every event ends.
func TestTimeoutRacesQuorum(t *testing.T) {
	r := newRig(t, 5, 20*time.Millisecond, func(p *twophase.Params) {
		p.ProposalTimeout, p.ProposalTimeoutMax, p.Tick = 25*time.Millisecond, 100*time.Millisecond, 5*time.Millisecond
	})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, id := range r.ids {
					_ = r.node(id).Tick(context.Background())
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	var evs []twophase.SigningEvent
	for n := uint64(0); n < 6; n++ {
		evs = append(evs, event(n))
		r.request(event(n))
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, ev := range evs {
		for {
			ended := 0
			for _, id := range r.ids {
				if e, ok := r.node(id).Event(ev.ID()); ok && e.Phase.Terminal() {
					ended++
				}
			}
			if ended == len(r.ids) || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	r.checkSafety(evs)
}

// Fast-forward against a local commit: s3 gets the votes it needs for a
// quorum and a peer's commit carrying that quorum's evidence at the same
// moment, from several goroutines. It commits once, and signs at most
// once: not at all only when the others' payout was already accepted
// (nothing left to sign).
func TestFastForwardRacesLocalCommit(t *testing.T) {
	for i := 0; i < 20; i++ {
		r := newRig(t, 3, time.Millisecond)
		ev := event(0)
		opener := twophase.NewOpener(r.group, nil)
		var held [][]byte
		kinds := map[twophase.Kind]int{}
		var hmu sync.Mutex
		// s3 hears nothing from the bus; the test hands it what it needs.
		r.bus.Attach("s3", func(_ context.Context, raw []byte, _ *simnet.Opened) {
			env, err := opener.Open(raw)
			hmu.Lock()
			defer hmu.Unlock()
			held = append(held, raw)
			if err == nil {
				kinds[env.Kind]++
			}
		})
		r.request(ev, "s1", "s2")
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			hmu.Lock()
			ready := kinds[twophase.KindProposal] >= 2 && kinds[twophase.KindCommit] >= 1
			hmu.Unlock()
			if ready {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d: s1 and s2 sent s3 no proposals and commit", i)
			}
		}
		r.request(ev, "s3")
		hmu.Lock()
		msgs := append([][]byte(nil), held...)
		hmu.Unlock()
		var wg sync.WaitGroup
		for _, raw := range msgs {
			raw := raw
			wg.Go(func() { _ = r.node("s3").Deliver(context.Background(), raw) })
		}
		wg.Wait()
		r.fmu.Lock()
		commits, signs := 0, 0
		var payout twophase.Hash
		for _, f := range r.facts["s3"] {
			switch f.(type) {
			case twophase.Committed:
				commits++
			case twophase.TemplateSigned:
				signs++
			}
		}
		for _, f := range r.facts["s1"] {
			if s, ok := f.(twophase.TemplateSigned); ok {
				payout = s.TxID
			}
		}
		r.fmu.Unlock()
		r.mu.Lock()
		paid := r.ledger.Status(payout, 0).Accepted
		r.mu.Unlock()
		if commits != 1 || signs > 1 || (signs == 0 && !paid) {
			t.Fatalf("run %d: s3 recorded %d commits and %d signatures (payout accepted: %v), want one commit and one signature unless paid", i, commits, signs, paid)
		}
		r.stop()
	}
}

func (r *rig) waitCommitted(id twophase.PeerID, ev twophase.SigningEvent) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if e, ok := r.node(id).Event(ev.ID()); ok && (e.Phase == twophase.PhaseCommitted || e.Phase == twophase.PhaseCompleted) {
			return
		}
	}
	r.t.Fatalf("%s did not commit", id)
}

// The RPC and gossip race: an event reaches a signer from its own source
// (several times, from several goroutines) while a peer's proposal for it
// arrives. The signer takes it once and votes once.
func TestRPCAndGossipRace(t *testing.T) {
	r := newRig(t, 3, 0)
	ev := event(0)
	var wg sync.WaitGroup
	wg.Go(func() { r.request(ev, "s1") })
	for g := 0; g < 4; g++ {
		wg.Go(func() { r.request(ev, "s2", "s3") })
	}
	wg.Wait()
	r.waitCompleted(ev, 20*time.Second)
	r.fmu.Lock()
	defer r.fmu.Unlock()
	for _, id := range r.ids {
		requested, votes := 0, map[uint32]int{}
		for _, f := range r.facts[id] {
			switch f := f.(type) {
			case twophase.EventRequested:
				requested++
			case twophase.VoteAccepted:
				if f.Own {
					votes[f.Round]++
				}
			}
		}
		if requested != 1 {
			t.Errorf("%s took the event %d times", id, requested)
		}
		for round, n := range votes {
			if n != 1 {
				t.Errorf("%s voted %d times in round %d", id, n, round)
			}
		}
	}
}

type fakeProver struct {
	ok    bool
	tries atomic.Int32
}

func (p *fakeProver) Prove(context.Context, twophase.SigningEvent) error {
	p.tries.Add(1)
	if !p.ok {
		return errors.New("no such burn on this node")
	}
	return nil
}

// The source proof: s3's own source never reports the event. A peer's
// proposal makes s3 prove it against its own chain node; proven, s3 takes
// the event up and it completes everywhere; unproven, s3 never does.
func TestPeersEventProvenOnOwnChain(t *testing.T) {
	for _, ok := range []bool{true, false} {
		prover := &fakeProver{ok: ok}
		r := newRig(t, 3, time.Millisecond, func(*twophase.Params) {})
		r.prover = map[twophase.PeerID]signing.SourceProver{"s3": prover}
		r.open("s3")
		ev := event(0)
		r.request(ev, "s1", "s2")
		if ok {
			r.waitCompleted(ev, 20*time.Second)
			continue
		}
		r.waitCommitted("s1", ev)
		time.Sleep(200 * time.Millisecond)
		if prover.tries.Load() == 0 {
			t.Fatal("s3 never tried to prove the event")
		}
		if e, known := r.node("s3").Event(ev.ID()); known {
			t.Fatalf("s3 took up an event that does not prove: %s", e.Phase)
		}
		r.stop()
	}
}
