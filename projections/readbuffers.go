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
// chunk of the embedded log (4,096 records of some 800 bytes). Reads of
// less than a quarter of it (a live catch-up of a few events) get
// buffers of their own. Tests lower it and set poisonReadSlabs.
var (
	readSlabSize    = 4 << 20
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

func (p *slabPool) put(slabs [][]byte) {
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
}

// readArena hands out one batch's read buffers from the pool's slabs.
type readArena struct {
	pool  *slabPool
	room  []byte   // what is left of the last slab
	slabs [][]byte // every slab taken
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

// release gives the slabs back; nothing may use the batch's records or
// the strings decoded from them afterwards.
func (a *readArena) release() {
	if a == nil || len(a.slabs) == 0 {
		return
	}
	a.pool.put(a.slabs)
	a.slabs, a.room = nil, nil
}
