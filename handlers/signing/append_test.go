package signing_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// failingLog fails the next Append once armed.
type failingLog struct {
	topics.Log
	armed  atomic.Bool
	failed atomic.Int32
}

var errDiskFull = errors.New("disk full (test)")

func (l *failingLog) Append(ctx context.Context, topic string, msgs ...topics.Message) ([]topics.Position, error) {
	if l.armed.CompareAndSwap(true, false) {
		l.failed.Add(1)
		return nil, errDiskFull
	}
	return l.Log.Append(ctx, topic, msgs...)
}

// A signer whose append failed rebuilds its state from its log, which
// starts its sequence numbers again: it must speak in a new session, or
// its peers drop everything it sends as replays. Here s3's vote is
// needed (s2 never hears of the event), so the event completes only if
// s1 accepts what s3 sends after the failure.
func TestFailedAppendStartsNewSession(t *testing.T) {
	r := newRig(t, 3, 2*time.Millisecond)
	fl := &failingLog{Log: r.logs["s3"]}
	r.wrap = map[twophase.PeerID]topics.Log{"s3": fl}
	r.open("s3")
	warm := event(0)
	r.request(warm)
	r.waitCompleted(warm, 20*time.Second) // s3 has sent many messages in its session
	before := r.node("s3").Status().Session

	fl.armed.Store(true)
	ev := event(1)
	r.request(ev, "s1")
	deadline := time.Now().Add(10 * time.Second)
	for fl.failed.Load() == 0 {
		_ = r.node("s3").Tick(context.Background())
		if time.Now().After(deadline) {
			t.Fatal("s3's append never failed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.request(ev, "s3") // again: a request whose facts were lost is lost

	for _, id := range []twophase.PeerID{"s1", "s3"} {
		r.waitPhase(id, ev, twophase.PhaseCompleted, 20*time.Second)
	}
	after := r.node("s3").Status().Session
	if after <= before {
		t.Fatalf("s3 is in session %d after a failed append, was %d: want a new session", after, before)
	}
	for _, p := range r.node("s1").Status().Peers {
		if p.ID == "s3" && p.Session != after {
			t.Fatalf("s1 holds s3 in session %d, s3 speaks in %d", p.Session, after)
		}
	}
	r.checkSafety([]twophase.SigningEvent{warm, ev})
}

// waitPhase waits until signer id holds ev in phase.
func (r *rig) waitPhase(id twophase.PeerID, ev twophase.SigningEvent, phase twophase.Phase, within time.Duration) {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for {
		e, ok := r.node(id).Event(ev.ID())
		if ok && e.Phase == phase {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: event %d is %s in round %d, want %s", id, ev.Nonce, e.Phase, e.Round, phase)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
