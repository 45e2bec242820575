package projections

import (
	"context"
	"sync"

	"github.com/bridgelog/bridgelog/topics"
)

// intoReader is a log that reads into buffers its caller provides (the
// embedded log does).
type intoReader interface {
	ReadInto(ctx context.Context, topic string, partition int32, from int64, max int, alloc func(n int) []byte) ([]topics.Record, error)
}

// readSlabSize is the size of the recycled read buffers: about one read
// chunk of the embedded log (4,096 records of some 800 bytes); and
// readEventSlab the number of events in a recycled slab of them, one
// chunk's. Requests under a quarter of either (a live catch-up of a few
// events) get memory of their own. Tests lower both and set
// poisonReadSlabs.
var (
	readSlabSize    = 4 << 20
	readEventSlab   = 4096
	poisonReadSlabs = false
)

// slabPool recycles the buffers a catch-up reads the log into. A rebuild
// reads the whole log (about 800 MB for a million events): in buffers
// of its own each time, that was a quarter of everything it allocated,
// and every new page of them is a fault on this kind of machine, where
// freed memory goes back to the host. A batch's buffers come back once
// its events are judged and folded, when nothing aliases them any more
// (decoded strings share them; whatever a projection keeps is copied).
type slabPool struct {
	mu    sync.Mutex
	bytes slabs[byte]
	// Events are recycled the same way: a rebuild decodes a million of
	// them, a third of a gigabyte, each alive only while its batch is.
	events slabs[Event]
	// poison overwrites a returned slab, so a test sees any use of an
	// event's memory after its batch was done with.
	poison bool
}

// slabs is one kind of slab: its size, and the free ones.
type slabs[T any] struct {
	free [][]T
	size int
}

// take returns a free slab or a new one; the pool's lock is held.
func (s *slabs[T]) take() []T {
	if n := len(s.free); n > 0 {
		slab := s.free[n-1]
		s.free = s.free[:n-1]
		return slab
	}
	return make([]T, s.size)
}

func newSlabPool() *slabPool {
	return &slabPool{poison: poisonReadSlabs,
		bytes: slabs[byte]{size: readSlabSize}, events: slabs[Event]{size: readEventSlab}}
}

func (p *slabPool) put(bufs [][]byte, events [][]Event) {
	for _, s := range events {
		fill := Event{}
		if p.poison {
			// No body, no verdict a projection acts on, a type no
			// catalog has.
			fill = Event{Envelope: topics.Envelope{Type: "poisoned", SourceKey: "poisoned"}, Verdict: 0xee}
		}
		for i := range s {
			s[i] = fill // and no stale pointer keeps garbage alive
		}
	}
	if p.poison {
		for _, s := range bufs {
			for i := range s {
				s[i] = 0xee
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes.free = append(p.bytes.free, bufs...)
	p.events.free = append(p.events.free, events...)
}

// readArena hands out one batch's read buffers and events from the
// pool's slabs.
type readArena struct {
	into   intoReader
	pool   *slabPool
	bytes  carved[byte]
	events carved[Event]
}

// carved is what one batch took of one kind of slab.
type carved[T any] struct {
	room  []T   // what is left of the last slab
	slabs [][]T // every slab taken
}

// carve returns n items of the arena's slabs of kind (taking another from
// the pool when the last is used up); a request larger than a slab, or
// under a quarter of one (a live catch-up of a few events), gets its own,
// left to the garbage collector.
func carve[T any](a *readArena, c *carved[T], kind *slabs[T], n int) []T {
	if n > kind.size || n < kind.size/4 {
		return make([]T, n)
	}
	if len(c.room) < n {
		a.pool.mu.Lock()
		s := kind.take()
		a.pool.mu.Unlock()
		c.slabs = append(c.slabs, s)
		c.room = s
	}
	b := c.room[:n:n]
	c.room = c.room[n:]
	return b
}

// read reads records of k into the arena.
func (a *readArena) read(ctx context.Context, k tp, from int64, max int) ([]topics.Record, error) {
	return a.into.ReadInto(ctx, k.topic, k.part, from, max, a.alloc)
}

// alloc returns n bytes of the arena, for the log to read into.
func (a *readArena) alloc(n int) []byte { return carve(a, &a.bytes, &a.pool.bytes, n) }

// newEvents returns n zero events of the arena.
func (a *readArena) newEvents(n int) []Event {
	e := carve(a, &a.events, &a.pool.events, n)
	if a.pool.poison {
		clear(e) // put zeroes them otherwise
	}
	return e
}

// release gives the slabs back; nothing may use the batch's records or
// events, or the strings decoded from them, afterwards.
func (a *readArena) release() {
	if a == nil {
		return
	}
	a.pool.put(a.bytes.slabs, a.events.slabs)
	a.bytes, a.events = carved[byte]{}, carved[Event]{}
}
