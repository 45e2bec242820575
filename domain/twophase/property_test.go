package twophase_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// TestRandomFaultSchedules draws groups, events and fault schedules
// (loss, duplication, reordering, partitions, crashes and restarts,
// lagging views, reorganised inputs) and checks after every tick that no
// signer signed two templates for an event, no two hashes of an event
// were committed, no commit lacked a quorum and nothing was paid twice or
// wrongly; once the faults stop, every event ends Completed or Abandoned
// at every signer.
func TestRandomFaultSchedules(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(3, 7).Draw(rt, "signers")
		c := newCluster(rt, n, n/2+1)
		events := rapid.IntRange(1, 4).Draw(rt, "events")
		loss := rapid.Float64Range(0, 0.4).Draw(rt, "loss")
		dupP := rapid.Float64Range(0, 0.2).Draw(rt, "duplicate")
		reorder := rapid.Bool().Draw(rt, "reorder")
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		c.drop = func(from, to twophase.PeerID, _ twophase.Kind) bool { return rng.Float64() < loss }
		c.dup = func() bool { return rng.Float64() < dupP }
		if reorder {
			c.pick = func(k int) int { return rng.IntN(k) }
		}
		for i := 0; i < events; i++ {
			ev := event(uint64(i))
			c.request(ev, c.ids[:rapid.IntRange(1, n).Draw(rt, "first-to-see")]...)
		}
		steps := rapid.IntRange(5, 40).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			switch rapid.IntRange(0, 9).Draw(rt, "fault") {
			case 0:
				id := rapid.SampledFrom(c.ids).Draw(rt, "crash")
				c.crash(id)
			case 1:
				for _, id := range c.ids {
					if c.nodes[id].down {
						c.start(id)
					}
				}
			case 2:
				id := rapid.SampledFrom(c.ids).Draw(rt, "lagging")
				c.lag[id] = uint64(rapid.IntRange(0, 40).Draw(rt, "lag"))
			case 3:
				if us := c.ledger.View(0).UTXOs; len(us) > 0 {
					c.ledger.Invalidate(us[rapid.IntRange(0, len(us)-1).Draw(rt, "reorged")].Outpoint)
				}
			case 4:
				side := map[twophase.PeerID]bool{}
				for _, id := range c.ids {
					side[id] = rapid.Bool().Draw(rt, "side")
				}
				c.drop = func(from, to twophase.PeerID, _ twophase.Kind) bool { return side[from] != side[to] }
			}
			for i := 0; i < events; i++ {
				c.request(event(uint64(i)))
			}
			c.advance(time.Duration(rapid.IntRange(1, 8).Draw(rt, "ticks")) * c.params.Tick)
			c.checkSafety()
			c.checkPayouts(events)
		}
		// The faults stop: everyone up, nothing lost, views current.
		c.drop, c.dup, c.pick = nil, nil, nil
		for _, id := range c.ids {
			c.lag[id] = 0
			if c.nodes[id].down {
				c.start(id)
			}
		}
		for i := 0; i < events; i++ {
			c.request(event(uint64(i)))
		}
		c.advance(time.Duration(events+1) * c.params.WithDefaults().MaxTimeToAbandon())
		c.checkSafety()
		c.checkPayouts(events)
		c.checkEnded(events)
	})
}

// checkPayouts: at most one payout per event, each paying it exactly.
func (c *cluster) checkPayouts(events int) {
	c.t.Helper()
	for i := 0; i < events; i++ {
		if n := c.payouts(event(uint64(i))); n > 1 {
			c.t.Fatalf("event %d paid %d times", i, n)
		}
	}
}

// checkEnded: every event is Completed or Abandoned at every signer, or
// waits behind an abandoned event of its stream; a paid event is
// Completed everywhere it is not waiting.
func (c *cluster) checkEnded(events int) {
	c.t.Helper()
	for _, id := range c.ids {
		blocked := false
		for i := 0; i < events; i++ {
			ev := event(uint64(i))
			p := c.phase(id, ev)
			switch {
			case p == twophase.PhaseCompleted:
			case p == twophase.PhaseAbandoned:
				blocked = true
			case blocked && p == twophase.PhaseUnknown:
			default:
				for j := 0; j < events; j++ {
					c.t.Logf("event %d: %s", j, c.describe(event(uint64(j))))
				}
				c.t.Logf("streams at %s: %+v", id, c.nodes[id].st.Streams())
				c.t.Fatalf("%s: event %d is %s after the faults stopped (%s)", id, i, p, c.describe(ev))
			}
			if c.payouts(ev) == 1 && p != twophase.PhaseCompleted && !blocked {
				c.t.Fatalf("%s: event %d is paid but %s here", id, i, p)
			}
		}
	}
}

func (c *cluster) describe(ev twophase.SigningEvent) string {
	s := ""
	for _, id := range c.ids {
		e, _ := c.nodes[id].st.Event(ev.ID())
		s += fmt.Sprintf("%s:%s/r%d ", id, e.Phase, e.Round)
	}
	return s
}
