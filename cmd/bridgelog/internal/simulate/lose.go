package simulate

import (
	"time"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// dropFor is how long a dropped payout stays dropped: every submission
// of it meanwhile is taken and lost, as by a node that evicts it.
const dropFor = 3 * time.Second

// lostPayouts is what --lose-payout did: per event, whether its first
// signed payout was decided on, and the payouts dropped until when.
type lostPayouts struct {
	decided     map[int]bool
	droppedTill map[twophase.Hash]time.Time
	Dropped     int // payouts the node dropped
	Conflicted  int // payouts whose input a conflicting transaction spent
}

// losePayout decides, at the first submission of an event's payout,
// whether it never lands (--lose-payout), and reports whether this
// submission is lost: the node drops it for a while, or a conflicting
// transaction spends its first input (and the ledger refuses it).
func (w *world) losePayout(raw []byte) bool {
	if w.cfg.LosePayout == 0 {
		return false
	}
	id, t, err := w.ledger.Decode(raw)
	if err != nil {
		return false
	}
	now := w.sched.Now()
	if till, ok := w.lost.droppedTill[id]; ok {
		return now.Before(till)
	}
	i, ok := w.eventOf(t)
	if !ok || w.lost.decided[i] {
		return false
	}
	if w.lost.decided == nil {
		w.lost.decided, w.lost.droppedTill = map[int]bool{}, map[twophase.Hash]time.Time{}
	}
	w.lost.decided[i] = true
	if w.rng.Float64() >= w.cfg.LosePayout {
		return false
	}
	if w.rng.IntN(2) == 0 {
		w.ledger.Drop(id)
		w.lost.droppedTill[id] = now.Add(dropFor)
		w.lost.Dropped++
		return true
	}
	if !w.ledger.SpendElsewhere(t.Inputs[0].Outpoint).IsZero() {
		w.lost.Conflicted++
	}
	return false
}

// eventOf is the event a payout pays (by its destination script).
func (w *world) eventOf(t twophase.Template) (int, bool) {
	w.indexScripts()
	for _, o := range t.Outputs {
		if i, ok := w.byScript[string(o.Script.Bytes)]; ok {
			return i, true
		}
	}
	return 0, false
}

// indexScripts maps each event's destination script to the event.
func (w *world) indexScripts() {
	if w.byScript != nil {
		return
	}
	w.byScript = map[string]int{}
	for i, ev := range w.events {
		sc, _ := simledger.Rules{}.ScriptFor(ev.Destination)
		w.byScript[string(sc.Bytes)] = i
	}
}
