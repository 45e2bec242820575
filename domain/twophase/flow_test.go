package twophase_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

func TestNormalFlow(t *testing.T) {
	c := newCluster(t, 3, 2)
	ev := event(0)
	c.request(ev)
	c.advance(5 * time.Second)
	for _, id := range c.ids {
		if p := c.phase(id, ev); p != twophase.PhaseCompleted {
			t.Errorf("%s: %s, want Completed", id, p)
		}
		if n := len(c.facts(id, twophase.TypeTemplateSigned)); n != 1 {
			t.Errorf("%s signed %d times", id, n)
		}
	}
	if n := c.payouts(ev); n != 1 {
		t.Fatalf("%d payouts, want 1", n)
	}
	c.checkSafety()
}

// Events of a stream are paid in nonce order, one at a time (one active
// event per UTXO pool), and the change of one payout funds later ones.
func TestStreamInOrder(t *testing.T) {
	c := newCluster(t, 3, 2)
	for n := uint64(0); n < 5; n++ {
		c.request(event(n))
	}
	c.advance(60 * time.Second)
	for n := uint64(0); n < 5; n++ {
		if got := c.payouts(event(n)); got != 1 {
			t.Errorf("event %d paid %d times", n, got)
		}
	}
	var order []uint64
	for _, a := range c.ledger.AcceptedPayouts() {
		for n := uint64(0); n < 5; n++ {
			dest, _ := simledgerScript(event(n).Destination)
			for _, o := range a.Template.Outputs {
				if o.Script.Equal(dest) {
					order = append(order, n)
				}
			}
		}
	}
	for i := range order {
		if order[i] != uint64(i) {
			t.Fatalf("payout order %v, want nonce order", order)
		}
	}
	c.checkSafety()
}

// A hole in a stream stalls it: nonce 1 waits for nonce 0.
func TestStreamHoles(t *testing.T) {
	c := newCluster(t, 3, 2)
	c.request(event(1))
	c.advance(3 * time.Second)
	if p := c.phase("s1", event(1)); p != twophase.PhaseUnknown {
		t.Fatalf("nonce 1 is %s before nonce 0 is known, want Unknown", p)
	}
	st := c.nodes["s1"].st.Streams()
	if len(st) != 1 || !st[0].Blocked || st[0].Next != twophase.FirstNonce {
		t.Fatalf("streams %+v, want one blocked at the first nonce", st)
	}
	blocked := c.observed("s1", twophase.MetricStreamHoleBlockedMs)
	if len(blocked) == 0 || blocked[len(blocked)-1].Value <= 0 || blocked[0].Label != st[0].Stream {
		t.Fatalf("blocked duration %+v, want rising for stream %q", blocked, st[0].Stream)
	}
	c.request(event(0))
	c.advance(20 * time.Second)
	for _, n := range []uint64{0, 1} {
		if c.payouts(event(n)) != 1 {
			t.Errorf("event %d not paid once", n)
		}
	}
	if holes := c.observed("s1", twophase.MetricStreamHolesBlocking); len(holes) != 1 || holes[0].Label != st[0].Stream {
		t.Errorf("holes counted %+v, want one for stream %q", holes, st[0].Stream)
	}
	// The gauge returns to 0 once the hole is filled, or its alert would
	// keep firing.
	if blocked = c.observed("s1", twophase.MetricStreamHoleBlockedMs); blocked[len(blocked)-1].Value != 0 {
		t.Errorf("blocked duration ends at %v after the hole was filled, want 0", blocked[len(blocked)-1].Value)
	}
}
