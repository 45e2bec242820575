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
	mu   sync.Mutex
	free [][]byte
	// Events are recycled the same way: a rebuild decodes a million of
	// them, a third of a gigabyte, each alive only while its batch is.
	freeEvents [][]Event
	// poison overwrites a returned slab, so a test sees any use of an
	// event's memory after its batch was done with.
	poison bool
}

func (p *slabPool) get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s
	}
	return make([]byte, readSlabSize)
}

func (p *slabPool) getEvents() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.freeEvents); n > 0 {
		s := p.freeEvents[n-1]
		p.freeEvents = p.freeEvents[:n-1]
		return s
	}
	return make([]Event, readEventSlab)
}

func (p *slabPool) put(slabs [][]byte, events [][]Event) {
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
		for _, s := range slabs {
			for i := range s {
				s[i] = 0xee
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, slabs...)
	p.freeEvents = append(p.freeEvents, events...)
}

// readArena hands out one batch's read buffers and events from the
// pool's slabs.
type readArena struct {
	pool       *slabPool
	room       []byte   // what is left of the last slab
	slabs      [][]byte // every slab taken
	eventRoom  []Event
	eventSlabs [][]Event
}

// alloc returns n bytes of the arena; a request larger than a slab, or
// small, gets a buffer of its own, left to the garbage collector.
func (a *readArena) alloc(n int) []byte {
	if n > readSlabSize || n < readSlabSize/4 {
		return make([]byte, n)
	}
	if len(a.room) < n {
		s := a.pool.get()
		a.slabs = append(a.slabs, s)
		a.room = s
	}
	b := a.room[:n:n]
	a.room = a.room[n:]
	return b
}

// events returns n zero events of the arena; a chunk larger than a slab,
// or small (a live catch-up's), gets events of its own.
func (a *readArena) events(n int) []Event {
	if n > readEventSlab || n < readEventSlab/4 {
		return make([]Event, n)
	}
	if len(a.eventRoom) < n {
		s := a.pool.getEvents()
		a.eventSlabs = append(a.eventSlabs, s)
		a.eventRoom = s
	}
	e := a.eventRoom[:n:n]
	a.eventRoom = a.eventRoom[n:]
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
	a.pool.put(a.slabs, a.eventSlabs)
	a.slabs, a.room, a.eventSlabs, a.eventRoom = nil, nil, nil, nil
}
