package simnet

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Receiver takes envelopes from the bus (a signer's Deliver). opened is
// the envelope's check, done ahead on another core, when the bus has an
// Opener; nil otherwise.
type Receiver func(ctx context.Context, raw []byte, opened *Opened)

// Opened is an envelope checked ahead of its delivery.
type Opened struct {
	Env  twophase.Envelope
	Err  error
	done chan struct{}
}

// Faults shape the bus. Probabilities are per delivery.
type Faults struct {
	Delay     time.Duration // one-way delay
	Jitter    time.Duration // uniform extra delay in [0, Jitter)
	Loss      float64       // a delivery is lost
	Duplicate float64       // a delivery arrives twice
	// Reorder: a delivery is held back by up to ReorderBy more, so later
	// messages overtake it.
	Reorder   float64
	ReorderBy time.Duration
	// Partitions split the members on a schedule.
	Partitions []Partition
}

// Partition cuts the members into groups from From for For: messages
// between groups are lost. Groups lists group sizes over the members in
// the bus's order (2/3: the first two, then the next three).
type Partition struct {
	Groups []int
	From   time.Duration // after the bus's start
	For    time.Duration
}

// Stats counts what the bus did.
type Stats struct {
	Sent, Delivered, Lost, Duplicated, Partitioned, ToDown uint64
}

// Bus connects members through a Clock with Faults. With a [Scheduler] it
// is deterministic for a given rand; with [RealTime] it is safe for
// concurrent use.
type Bus struct {
	mu      sync.Mutex
	clock   Clock
	start   time.Time
	faults  Faults
	rng     *rand.Rand
	members []twophase.PeerID
	index   map[twophase.PeerID]int
	recv    map[twophase.PeerID]Receiver
	down    map[twophase.PeerID]bool
	stats   Stats
	opener  *twophase.Opener
	// Tap, when set, sees every envelope sent (simulation invariants).
	Tap  func(from twophase.PeerID, raw []byte)
	jobs chan *job
}

type job struct {
	raw    []byte
	opener *twophase.Opener
	out    *Opened
}

// CheckAhead makes the bus check every delivery's envelope with opener
// on workers goroutines as soon as it is sent, each delivery on its own
// (as its receiver would), so a simulation of N signers uses every core
// while its virtual time stays sequential. Close stops the workers.
func (b *Bus) CheckAhead(opener *twophase.Opener, workers int) {
	b.jobs = make(chan *job, 4096)
	for i := 0; i < workers; i++ {
		go func() {
			for j := range b.jobs {
				j.out.Env, j.out.Err = j.opener.Open(j.raw)
				close(j.out.done)
			}
		}()
	}
	b.opener = opener
}

// Close stops the workers CheckAhead started.
func (b *Bus) Close() {
	if b.jobs != nil {
		close(b.jobs)
		b.jobs = nil
	}
}

// NewBus builds a bus over members (in this order for partitions).
func NewBus(clock Clock, faults Faults, rng *rand.Rand, members []twophase.PeerID) *Bus {
	b := &Bus{clock: clock, start: clock.Now(), faults: faults, rng: rng, members: members,
		index: map[twophase.PeerID]int{}, recv: map[twophase.PeerID]Receiver{}, down: map[twophase.PeerID]bool{}}
	for i, m := range members {
		b.index[m] = i
	}
	return b
}

// Attach sets the receiver of member id (a restarted signer attaches its
// new Deliver).
func (b *Bus) Attach(id twophase.PeerID, r Receiver) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.recv[id] = r
	b.down[id] = false
}

// SetDown marks a member down (crashed): what reaches it is lost.
func (b *Bus) SetDown(id twophase.PeerID, down bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.down[id] = down
}

// Stats returns the counts so far.
func (b *Bus) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Endpoint is member id's side of the bus, a signing.Transport.
func (b *Bus) Endpoint(id twophase.PeerID) *Endpoint { return &Endpoint{bus: b, self: id} }

// Endpoint sends as one member.
type Endpoint struct {
	bus  *Bus
	self twophase.PeerID
}

// ErrUnknownMember: a send to a member the bus does not know.
var ErrUnknownMember = errors.New("simnet: unknown member")

// Send schedules raw's delivery to member to, or to every other member.
func (e *Endpoint) Send(_ context.Context, to twophase.PeerID, raw []byte) error {
	b := e.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Tap != nil {
		b.Tap(e.self, raw)
	}
	if to != "" {
		if _, ok := b.index[to]; !ok {
			return ErrUnknownMember
		}
		b.route(e.self, to, raw)
		return nil
	}
	for _, m := range b.members {
		if m != e.self {
			b.route(e.self, m, raw)
		}
	}
	return nil
}

// route decides one delivery's fate and schedules it. Called with mu held.
func (b *Bus) route(from, to twophase.PeerID, raw []byte) {
	b.stats.Sent++
	if b.partitioned(from, to) {
		b.stats.Partitioned++
		return
	}
	if b.faults.Loss > 0 && b.rng.Float64() < b.faults.Loss {
		b.stats.Lost++
		return
	}
	copies := 1
	if b.faults.Duplicate > 0 && b.rng.Float64() < b.faults.Duplicate {
		copies = 2
		b.stats.Duplicated++
	}
	for i := 0; i < copies; i++ {
		d := b.faults.Delay
		if b.faults.Jitter > 0 {
			d += time.Duration(b.rng.Int64N(int64(b.faults.Jitter)))
		}
		if b.faults.Reorder > 0 && b.rng.Float64() < b.faults.Reorder && b.faults.ReorderBy > 0 {
			d += time.Duration(b.rng.Int64N(int64(b.faults.ReorderBy)))
		}
		var opened *Opened
		if b.jobs != nil {
			opened = &Opened{done: make(chan struct{})}
			b.jobs <- &job{raw: raw, opener: b.opener, out: opened}
		}
		b.clock.After(d, func() { b.deliver(to, raw, opened) })
	}
}

func (b *Bus) deliver(to twophase.PeerID, raw []byte, opened *Opened) {
	b.mu.Lock()
	r, down := b.recv[to], b.down[to]
	if down || r == nil {
		b.stats.ToDown++
		b.mu.Unlock()
		return
	}
	b.stats.Delivered++
	b.mu.Unlock()
	if opened != nil {
		<-opened.done
	}
	r(context.Background(), raw, opened)
}

// partitioned reports whether from and to are cut apart now.
func (b *Bus) partitioned(from, to twophase.PeerID) bool {
	since := b.clock.Now().Sub(b.start)
	for _, p := range b.faults.Partitions {
		if since < p.From || since >= p.From+p.For {
			continue
		}
		if groupOf(p.Groups, b.index[from]) != groupOf(p.Groups, b.index[to]) {
			return true
		}
	}
	return false
}

// groupOf is the group of the member at index i (members past the listed
// sizes form one more group).
func groupOf(sizes []int, i int) int {
	for g, n := range sizes {
		if i < n {
			return g
		}
		i -= n
	}
	return len(sizes)
}

// Members lists the bus's members in order.
func (b *Bus) Members() []twophase.PeerID {
	out := append([]twophase.PeerID(nil), b.members...)
	sort.SliceStable(out, func(i, j int) bool { return b.index[out[i]] < b.index[out[j]] })
	return out
}
