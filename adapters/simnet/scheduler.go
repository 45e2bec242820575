// Package simnet is the simulated world of the signing coordinator's
// simulator: a virtual clock that runs scheduled actions in time order
// (no sleeping), and an in-process bus between signers with delay,
// jitter, loss, duplication, reordering, partitions on a schedule and
// signers that are down. The same bus runs on the wall clock for tests
// of real concurrency (see [RealTime]).
package simnet

import (
	"container/heap"
	"time"
)

// Clock schedules actions: on virtual time ([Scheduler]) or the wall clock
// ([RealTime]).
type Clock interface {
	Now() time.Time
	After(d time.Duration, fn func())
}

// Scheduler is a discrete-event clock: After queues an action, Run
// executes them in time order (ties in the order they were queued),
// moving Now to each one's time. Deterministic; not safe for concurrent
// use.
type Scheduler struct {
	now  time.Time
	seq  uint64
	q    actions
	runs uint64
}

// NewScheduler starts virtual time at start.
func NewScheduler(start time.Time) *Scheduler { return &Scheduler{now: start} }

// Now is the virtual time.
func (s *Scheduler) Now() time.Time { return s.now }

// After runs fn d from now (at once, after what is already queued for now,
// when d <= 0).
func (s *Scheduler) After(d time.Duration, fn func()) { s.At(s.now.Add(max(d, 0)), fn) }

// At runs fn at t (now, if t is in the past).
func (s *Scheduler) At(t time.Time, fn func()) {
	if t.Before(s.now) {
		t = s.now
	}
	s.seq++
	heap.Push(&s.q, action{at: t, seq: s.seq, fn: fn})
}

// Run executes queued actions until none is left before until (then Now
// is until), or done reports true (checked after each action). It
// returns how many actions ran.
func (s *Scheduler) Run(until time.Time, done func() bool) uint64 {
	var n uint64
	defer func() { s.runs += n }()
	for len(s.q) > 0 && !s.q[0].at.After(until) {
		a := heap.Pop(&s.q).(action)
		s.now = a.at
		a.fn()
		n++
		if done != nil && done() {
			return n
		}
	}
	if until.After(s.now) {
		s.now = until
	}
	return n
}

// Pending counts queued actions.
func (s *Scheduler) Pending() int { return len(s.q) }

type action struct {
	at  time.Time
	seq uint64
	fn  func()
}

type actions []action

func (a actions) Len() int { return len(a) }
func (a actions) Less(i, j int) bool {
	if !a[i].at.Equal(a[j].at) {
		return a[i].at.Before(a[j].at)
	}
	return a[i].seq < a[j].seq
}
func (a actions) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *actions) Push(x any)   { *a = append(*a, x.(action)) }
func (a *actions) Pop() any {
	old := *a
	x := old[len(old)-1]
	*a = old[:len(old)-1]
	return x
}

// RealTime is the wall clock: After is time.AfterFunc.
type RealTime struct{}

func (RealTime) Now() time.Time                   { return time.Now() }
func (RealTime) After(d time.Duration, fn func()) { time.AfterFunc(d, fn) }
