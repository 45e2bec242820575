package signermesh

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// frameStream is the side of a Link stream this member holds: a client
// stream when it dialled, a server stream when it accepted.
type frameStream interface {
	SendMsg(m any) error
	RecvMsg(m any) error
}

// link is one Link stream between this member and a peer, from its
// handshake to its end. Two goroutines serve it: run (the handshake, then
// the only writer) and read (every frame in, envelopes to the receiver).
// On an accepted stream run is the gRPC handler, so nothing writes to
// the stream once the handler has returned.
type link struct {
	m       *Mesh
	stream  frameStream
	addr    string
	dialled *peer // the member this side dialled; nil when it accepted
	dir     string
	// auth is what TLS proved: the peer's member id, by its key, and the
	// session's exporter value the handshake's proofs sign
	auth linkAuth

	ctx      context.Context
	cancel   context.CancelFunc
	frames   chan frame    // the peer's handshake frames, from read to run
	up       chan struct{} // closed once the handshake succeeded
	failed   chan struct{} // closed once it failed
	readDone chan struct{} // closed when read has stopped: no frame follows
	peer     *peer         // the authenticated peer; set before up is closed
	refused  bool          // this side sent a refusal (run's goroutine only)

	mu    sync.Mutex
	cause error // why the link ended, first reason wins
}

func newLink(m *Mesh, ctx context.Context, s frameStream, addr string, dialled *peer, auth linkAuth) *link {
	l := &link{m: m, stream: s, addr: addr, dialled: dialled, dir: "accepted", auth: auth,
		frames: make(chan frame), up: make(chan struct{}), failed: make(chan struct{}), readDone: make(chan struct{})}
	if dialled != nil {
		l.dir = "dialled"
	}
	l.ctx, l.cancel = context.WithCancel(ctx)
	return l
}

// end records why the link ends and stops it.
func (l *link) end(err error) {
	l.mu.Lock()
	if l.cause == nil {
		l.cause = err
	}
	l.mu.Unlock()
	l.cancel()
}

func (l *link) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause != nil {
		return l.cause
	}
	return l.ctx.Err()
}

// run serves the link until it ends; it reports whether the handshake
// succeeded.
func (l *link) run() bool {
	defer l.cancel()
	l.m.wg.Add(1)
	go l.read()
	p, err := l.handshake()
	if err != nil {
		close(l.failed)
		l.m.handshakeFailed(l, err)
		if l.refused {
			l.linger()
		}
		return false
	}
	l.peer = p
	close(l.up)
	l.m.linkUp(p, l)
	l.write(p)
	l.m.linkDown(p, l, l.err())
	return true
}

// send writes one handshake frame.
func (l *link) send(kind frameKind, body []byte, peer twophase.PeerID, timer *time.Timer) error {
	if err := l.stream.SendMsg(&frame{kind: kind, body: body}); err != nil {
		return l.broken(peer, err, timer)
	}
	return nil
}

// broken is the error of a handshake whose stream failed under it. A
// peer that refused has ended the stream, so a write fails before its
// refusal is read: the refusal, if one comes, is the reason to report.
func (l *link) broken(peer twophase.PeerID, err error, timer *time.Timer) error {
	for {
		select {
		case f := <-l.frames:
			if f.kind == frameRefuse {
				return refusedBy(peer, l.addr, f.body)
			}
			continue
		case <-l.readDone: // every frame read was handed over
		case <-timer.C:
		}
		return &HandshakeError{Peer: peer, Outcome: OutcomeFailed,
			Detail: fmt.Sprintf("link to peer %s broke during the handshake: %v", peerName(peer, l.addr), err)}
	}
}

// next waits for the peer's next handshake frame, which must be of kind
// want (or a refusal).
func (l *link) next(want frameKind, peer twophase.PeerID, timer *time.Timer) (frame, error) {
	select {
	case f := <-l.frames:
		switch f.kind {
		case want:
			return f, nil
		case frameRefuse:
			return f, refusedBy(peer, l.addr, f.body)
		}
		return f, l.refuse(&HandshakeError{Peer: peer, Outcome: OutcomeMalformed,
			Detail: fmt.Sprintf("peer %s sent %s where its %s was due", peerName(peer, l.addr), f.kind, want)})
	case <-timer.C:
		return frame{}, l.refuse(handshakeTimeout(peer, l.addr, l.m.cfg.HandshakeTimeout, want))
	case <-l.ctx.Done():
		return frame{}, l.broken(peer, l.err(), timer)
	}
}

// refuse tells the peer why this side refuses the link (best effort: the
// link ends either way) and returns the reason. The peer proved its key
// in TLS: it may be told.
func (l *link) refuse(herr *HandshakeError) error {
	reason := herr.Detail
	if len(reason) > maxRefusalBytes {
		reason = reason[:maxRefusalBytes]
	}
	_ = l.stream.SendMsg(&frame{kind: frameRefuse, body: []byte(reason)})
	l.refused = true
	return herr
}

// linger lets a refusal reach the peer. An accepting side ends the
// stream by returning, which gRPC sends after the refusal; a dialling
// side that cancelled its stream at once would reset it, and a reset
// discards what is still queued. So the dialling side half-closes and
// waits, within the handshake timeout, for the peer to end the stream.
func (l *link) linger() {
	cs, ok := l.stream.(grpc.ClientStream)
	if !ok {
		return
	}
	_ = cs.CloseSend()
	timer := time.NewTimer(l.m.cfg.HandshakeTimeout)
	defer timer.Stop()
	for {
		select {
		case <-l.frames: // the peer's last words; ours are what count
		case <-l.readDone:
			return
		case <-timer.C:
			return
		}
	}
}

// read takes every frame off the stream: the handshake's to run, then
// envelopes to the receiver. A frame the protocol does not expect ends
// the link.
func (l *link) read() {
	defer l.m.wg.Done()
	defer close(l.readDone)
	var partial []byte // the fragments of an envelope still coming
	for {
		var f frame
		if err := l.stream.RecvMsg(&f); err != nil {
			l.end(fmt.Errorf("receive: %w", err))
			return
		}
		select {
		case <-l.up:
		default:
			if !l.handOver(f) {
				return
			}
			continue
		}
		if !l.take(f, &partial) {
			return
		}
	}
}

// take takes a frame read on an authenticated link: fragments
// are gathered in partial up to MaxMessageBytes, an envelope (its last
// part) is delivered. It reports whether the link goes on.
func (l *link) take(f frame, partial *[]byte) bool {
	switch f.kind {
	case frameFragment, frameEnvelope:
		if len(*partial)+len(f.body)+FrameOverhead > l.m.cfg.MaxMessageBytes {
			l.end(fmt.Errorf("%w: peer %s sent an envelope of more than %d bytes", ErrTooLarge, l.peer.id, l.m.cfg.MaxMessageBytes-FrameOverhead))
			return false
		}
		if f.kind == frameFragment {
			*partial = append(*partial, f.body...)
			return true
		}
		raw := f.body
		if len(*partial) > 0 {
			raw, *partial = append(*partial, f.body...), nil
		}
		l.m.cfg.Metrics.Received(l.peer.id)
		l.m.deliver(l.peer.id, raw)
		return true
	case frameRefuse:
		l.end(refusedBy(l.peer.id, l.addr, f.body))
		return false
	}
	l.end(fmt.Errorf("peer %s sent a %s frame after the handshake", l.peer.id, f.kind))
	return false
}

// handOver passes a handshake frame to run. After the peer's last
// handshake frame it waits for the handshake's outcome, so that the
// envelopes that follow are read only on an authenticated link. After a
// failure it goes on reading (linger drains) until the stream ends.
func (l *link) handOver(f frame) bool {
	select {
	case l.frames <- f:
	case <-l.ctx.Done():
		return false
	}
	if f.kind != frameAccept && f.kind != frameRefuse {
		return true
	}
	select {
	case <-l.up:
	case <-l.failed:
	case <-l.ctx.Done():
		return false
	}
	return true
}

// sendEnvelope writes raw as one envelope frame, or, when it is longer
// than a wire frame, as fragments followed by an envelope frame with its
// tail.
func (l *link) sendEnvelope(raw []byte) error {
	chunk := l.m.cfg.WireFrameBytes - FrameOverhead
	for len(raw) > chunk {
		if err := l.stream.SendMsg(&frame{kind: frameFragment, body: raw[:chunk]}); err != nil {
			return err
		}
		raw = raw[chunk:]
	}
	return l.stream.SendMsg(&frame{kind: frameEnvelope, body: raw})
}

// write sends the peer's queued messages until the link ends.
func (l *link) write(p *peer) {
	for {
		raw, ok := p.queue.pop(l.ctx)
		if !ok {
			return
		}
		if err := l.sendEnvelope(raw); err != nil {
			l.m.cfg.Metrics.Dropped(p.id, DropLinkLost)
			l.end(fmt.Errorf("send: %w", err))
			return
		}
		l.m.cfg.Metrics.Sent(p.id)
	}
}
