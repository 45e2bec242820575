package signermesh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/keepalive"
	grpcpeer "google.golang.org/grpc/peer"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Receiver takes the envelopes that reach this member (a signer's
// Deliver). Calls for one peer come in the order it sent them; calls for
// different peers may run at once. The context carries the
// authenticated sender ([PeerFromContext]) and ends when the mesh closes.
type Receiver func(ctx context.Context, raw []byte)

// Errors of Send.
var (
	ErrUnknownMember = errors.New("signermesh: not a member of the group")
	ErrSelf          = errors.New("signermesh: a member does not send to itself")
	ErrTooLarge      = errors.New("signermesh: message too large")
	ErrClosed        = errors.New("signermesh: mesh closed")
)

// Mesh is one member's end of the static full mesh; it implements the
// signer's Transport. Safe for concurrent use.
type Mesh struct {
	cfg   Config
	log   *slog.Logger
	group twophase.Hash
	// variants are the groups one profile, quorum or f away (see
	// groupVariants), by id: what a wrong-group refusal can explain.
	variants map[twophase.Hash]twophase.Group
	keys     map[twophase.PeerID]ed25519.PublicKey
	byKey    map[string]twophase.PeerID // identity key (bytes) to member
	peers    map[twophase.PeerID]*peer  // every other member
	// cert is this member's TLS certificate: its identity key, self-signed
	cert tls.Certificate

	server *grpc.Server
	lis    net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	recv      atomic.Pointer[Receiver]
	attached  chan struct{}
	attach    sync.Once
	closeOnce sync.Once
	closed    atomic.Bool

	limits     *connLimiter
	refusalLog *rateLog
}

// peer is this member's state of another member, across links.
type peer struct {
	id    twophase.PeerID
	addr  string // dialled when this member's id is the smaller
	dials bool
	queue *queue

	mu       sync.Mutex
	current  *link
	links    int
	since    time.Time
	lastErr  string
	dropping bool // the queue is dropping; logged once until it drains
	refusals refusals
}

// refusals remembers the last refusal logged, so a peer refused again for
// the same reason at every redial logs it once.
type refusals struct {
	mu   sync.Mutex
	last string
}

func (r *refusals) changed(detail string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == detail {
		return false
	}
	r.last = detail
	return true
}

// New validates cfg, starts listening and dialling, and returns at once:
// links come up in the background and Send queues until they do.
func New(cfg Config) (*Mesh, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return start(cfg)
}

// start runs a configuration that has its defaults.
func start(cfg Config) (*Mesh, error) {
	m := &Mesh{cfg: cfg, log: cfg.Logger.With("signer", string(cfg.Self)), group: cfg.Group.ID(), variants: groupVariants(cfg.Group),
		peers: map[twophase.PeerID]*peer{}, attached: make(chan struct{})}
	m.keys, m.byKey = keysByMember(cfg.Group)
	cert, err := memberCertificate(cfg.Identity)
	if err != nil {
		return nil, err
	}
	m.cert = cert
	for _, mem := range cfg.Group.Members {
		if mem.ID != cfg.Self {
			m.peers[mem.ID] = &peer{id: mem.ID, addr: cfg.Peers[mem.ID], dials: mem.ID > cfg.Self,
				queue: newQueue(cfg.QueueMessages, cfg.QueueBytes)}
		}
	}
	m.lis = cfg.Listener
	if m.lis == nil {
		lis, err := net.Listen("tcp", cfg.ListenAddr)
		if err != nil {
			return nil, fmt.Errorf("signermesh: listen on %s: %w", cfg.ListenAddr, err)
		}
		m.lis = lis
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.refusalLog = newRateLog(m.log, cfg.RefusalLogInterval)
	m.limits = newConnLimiter(cfg.MaxConnections, cfg.MaxPendingPerIP, cfg.HandshakeTimeout,
		func(r Refusal, addr string) { m.preAuthRefused(r, addr) })
	m.lis = &limitListener{Listener: m.lis, lim: m.limits}
	m.server = grpc.NewServer(m.serverOptions()...)
	m.server.RegisterService(&serviceDesc, m)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		if err := m.server.Serve(m.lis); err != nil && m.ctx.Err() == nil {
			m.log.Error("mesh stopped accepting links", "addr", m.lis.Addr().String(), "err", err)
		}
	}()
	for _, p := range m.peers {
		if p.dials {
			m.wg.Add(1)
			go m.dial(p)
		}
	}
	m.log.Info("mesh started", "addr", m.lis.Addr().String(), "group", m.group.Short(), "protocol_version", cfg.ProtocolVersion)
	return m, nil
}

// serverOptions bound what an accepted connection can cost before anyone
// on it proved a key: TLS within the handshake timeout, one stream per
// connection (a dialler keeps one link per connection, and opens the
// next only after the last ended), frames
// of at most WireFrameBytes, fixed flow-control windows, small headers,
// the HTTP/2 preface within the handshake timeout, idle connections
// closed, and no compressed streams.
func (m *Mesh) serverOptions() []grpc.ServerOption {
	cfg := m.cfg
	return []grpc.ServerOption{
		grpc.Creds(meshCredentials{m: m}),
		grpc.ForceServerCodecV2(frameCodec{}),
		grpc.MaxConcurrentStreams(1),
		grpc.MaxRecvMsgSize(cfg.WireFrameBytes),
		grpc.MaxSendMsgSize(cfg.WireFrameBytes),
		grpc.InitialWindowSize(int32(cfg.WindowBytes)),
		grpc.InitialConnWindowSize(int32(cfg.WindowBytes)),
		grpc.MaxHeaderListSize(maxHeaderBytes),
		grpc.ReadBufferSize(32 << 10),
		grpc.WriteBufferSize(32 << 10),
		// a backstop: the limiter closes a connection without an
		// authenticated link at HandshakeTimeout, and counts it
		grpc.ConnectionTimeout(cfg.HandshakeTimeout + time.Second),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: cfg.KeepaliveInterval, Timeout: cfg.KeepaliveTimeout,
			MaxConnectionIdle: cfg.IdleTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: cfg.KeepaliveInterval / 2, PermitWithoutStream: true}),
		grpc.StreamInterceptor(m.refuseCompressed),
		grpc.WaitForHandlers(true),
	}
}

// maxHeaderBytes bounds the headers of a stream: a Link carries a path
// and a content type.
const maxHeaderBytes = 8 << 10

func peerFromGRPC(ctx context.Context) (string, bool) {
	p, ok := grpcpeer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "", false
	}
	return p.Addr.String(), true
}

// Addr is the address the mesh accepts links on.
func (m *Mesh) Addr() net.Addr { return m.lis.Addr() }

// Attach makes recv receive what reaches this member; until the first
// Attach, inbound links hold their envelopes (the peers' queues take the
// strain). A restarted signer in the same process attaches its new
// Deliver.
func (m *Mesh) Attach(recv Receiver) {
	m.recv.Store(&recv)
	m.attach.Do(func() { close(m.attached) })
}

// Send queues raw for member to, or for every other member when to is
// empty, and returns without waiting for any peer: a peer's queue drops
// its oldest message when full (counted as DropQueueFull).
func (m *Mesh) Send(_ context.Context, to twophase.PeerID, raw []byte) error {
	if m.closed.Load() {
		return ErrClosed
	}
	if len(raw)+FrameOverhead > m.cfg.MaxMessageBytes {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(raw), m.cfg.MaxMessageBytes-FrameOverhead)
	}
	if to != "" {
		p := m.peers[to]
		if p == nil {
			if to == m.cfg.Self {
				return ErrSelf
			}
			return fmt.Errorf("%w: %q", ErrUnknownMember, to)
		}
		m.enqueue(p, bytes.Clone(raw))
		return nil
	}
	shared := bytes.Clone(raw) // one copy for every queue: nothing modifies it
	for _, p := range m.peers {
		m.enqueue(p, shared)
	}
	return nil
}

func (m *Mesh) enqueue(p *peer, raw []byte) {
	dropped := p.queue.push(raw)
	for range dropped {
		m.cfg.Metrics.Dropped(p.id, DropQueueFull)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case dropped > 0 && !p.dropping:
		p.dropping = true
		m.log.Warn("peer queue full, dropping its oldest messages", "peer", string(p.id), "connected", p.current != nil)
	case dropped == 0 && p.dropping && p.queue.len() <= 1:
		p.dropping = false // the queue had drained: a later overflow is news again
	}
}

// Close stops accepting and dialling, ends every link and returns once
// every goroutine of the mesh has, receivers in progress included (their
// context is cancelled). Queued messages are discarded.
func (m *Mesh) Close() error {
	m.closeOnce.Do(func() {
		m.closed.Store(true)
		m.cancel()
		m.server.Stop() // closes the listener and every accepted link; waits for their handlers
		m.wg.Wait()
		m.log.Info("mesh closed")
	})
	return nil
}

// PeerStatus is the state of the link to one member.
type PeerStatus struct {
	ID        twophase.PeerID
	Addr      string // "" when that member dials this one
	Connected bool
	Since     time.Time // when the last link came up
	Queued    int
	LastError string // why the last link or handshake ended, if one did
}

// Peers reports every other member's link, in id order.
func (m *Mesh) Peers() []PeerStatus {
	var out []PeerStatus
	for _, id := range m.cfg.Group.Sorted().IDs() {
		p := m.peers[id]
		if p == nil {
			continue
		}
		p.mu.Lock()
		s := PeerStatus{ID: id, Connected: p.current != nil, Since: p.since, LastError: p.lastErr}
		if p.dials {
			s.Addr = p.addr
		}
		p.mu.Unlock()
		s.Queued = p.queue.len()
		out = append(out, s)
	}
	return out
}

type peerKey struct{}

// PeerFromContext returns the authenticated member a received envelope
// came from.
func PeerFromContext(ctx context.Context) (twophase.PeerID, bool) {
	id, ok := ctx.Value(peerKey{}).(twophase.PeerID)
	return id, ok
}

// deliver hands an envelope to the receiver, waiting for one to be
// attached.
func (m *Mesh) deliver(from twophase.PeerID, raw []byte) {
	select {
	case <-m.attached:
	case <-m.ctx.Done():
		return
	}
	(*m.recv.Load())(context.WithValue(m.ctx, peerKey{}, from), raw)
}

// serveLink runs a link a smaller member dialled (the gRPC handler).
func (m *Mesh) serveLink(s grpc.ServerStream) error {
	addr := remoteAddr(s.Context())
	auth, ok := authFromContext(s.Context())
	if !ok { // every connection is TLS: not reached
		return errors.New("signermesh: a stream without the mesh's TLS")
	}
	newLink(m, s.Context(), s, addr, nil, auth).run()
	return nil
}

// dial keeps a link to p up until the mesh closes: gRPC reconnects the
// connection with backoff; each new stream runs the handshake again.
func (m *Mesh) dial(p *peer) {
	defer m.wg.Done()
	conn, err := grpc.NewClient(p.addr,
		grpc.WithTransportCredentials(meshCredentials{m: m, dialled: p}),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(frameCodec{}),
			grpc.MaxCallRecvMsgSize(m.cfg.WireFrameBytes), grpc.MaxCallSendMsgSize(m.cfg.WireFrameBytes)),
		grpc.WithInitialWindowSize(int32(m.cfg.WindowBytes)), grpc.WithInitialConnWindowSize(int32(m.cfg.WindowBytes)),
		grpc.WithMaxHeaderListSize(maxHeaderBytes),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: m.cfg.KeepaliveInterval, Timeout: m.cfg.KeepaliveTimeout, PermitWithoutStream: true}),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: m.cfg.ReconnectMin, Multiplier: 1.6, Jitter: 0.2,
			MaxDelay: m.cfg.ReconnectMax}, MinConnectTimeout: m.cfg.HandshakeTimeout}),
	)
	if err != nil { // only a target gRPC cannot parse
		m.log.Error("cannot dial peer", "peer", string(p.id), "addr", p.addr, "err", err)
		return
	}
	defer conn.Close()
	wait := m.cfg.ReconnectMin
	for m.ctx.Err() == nil {
		if m.dialOnce(conn, p) {
			wait = m.cfg.ReconnectMin
		}
		jittered := wait/2 + rand.N(wait/2+1)
		select {
		case <-m.ctx.Done():
		case <-time.After(jittered):
		}
		wait = min(2*wait, m.cfg.ReconnectMax)
	}
}

// dialOnce opens one stream to p and runs its link; it reports whether
// the handshake succeeded.
func (m *Mesh) dialOnce(conn *grpc.ClientConn, p *peer) bool {
	ctx, cancel := context.WithCancel(m.ctx)
	defer cancel() // ends the stream
	s, err := conn.NewStream(ctx, &serviceDesc.Streams[0], linkMethod, grpc.WaitForReady(true))
	if err != nil {
		m.log.Debug("cannot open a link", "peer", string(p.id), "addr", p.addr, "err", err)
		return false
	}
	auth, ok := authFromContext(s.Context())
	if !ok || auth.member != p.id { // TLS checked it: not reached
		m.log.Error("a link without the dialled member's TLS", "peer", string(p.id), "addr", p.addr)
		return false
	}
	return newLink(m, ctx, s, p.addr, p, auth).run()
}

// linkUp makes l the link of p; a link p had is replaced (its other end
// restarted and redialled).
func (m *Mesh) linkUp(p *peer, l *link) {
	if l.dialled == nil {
		m.limits.authenticated(l.addr)
	}
	m.cfg.Metrics.Handshake(p.id, OutcomeOK)
	p.mu.Lock()
	old := p.current
	p.current, p.since, p.lastErr = l, time.Now(), ""
	p.links++
	again := p.links > 1
	p.mu.Unlock()
	p.refusals.changed("")
	if old != nil {
		old.end(fmt.Errorf("replaced by a new link from %s", p.id))
	}
	if again {
		m.cfg.Metrics.Reconnect(p.id)
	}
	m.log.Info("peer link up", "peer", string(p.id), "addr", l.addr, "direction", l.dir)
}

// linkDown forgets l unless a newer link replaced it.
func (m *Mesh) linkDown(p *peer, l *link, cause error) {
	p.mu.Lock()
	if p.current == l {
		p.current = nil
	}
	if cause != nil {
		p.lastErr = cause.Error()
	}
	p.mu.Unlock()
	if m.ctx.Err() != nil {
		return // closing: every link goes down, and Close says so once
	}
	m.log.Info("peer link down", "peer", string(p.id), "addr", l.addr, "direction", l.dir, "err", cause)
}

// handshakeFailed counts and logs a refused or broken handshake. A
// refusal is a warning, logged again only when its reason changes; a
// handshake that broke (a peer going away) is a debug line.
func (m *Mesh) handshakeFailed(l *link, err error) {
	if m.ctx.Err() != nil {
		return
	}
	var herr *HandshakeError
	if !errors.As(err, &herr) {
		// the member whose key TLS proved (on the dialling side, the
		// member dialled)
		herr = &HandshakeError{Peer: l.auth.member, Outcome: OutcomeFailed, Detail: err.Error()}
	}
	m.recordHandshakeFailure(herr, l.addr, l.dir)
}

// recordHandshakeFailure counts herr against its peer, keeps it as the
// peer's last error, and logs it (see handshakeFailed).
func (m *Mesh) recordHandshakeFailure(herr *HandshakeError, addr, dir string) {
	if m.ctx.Err() != nil {
		return
	}
	if herr.Peer == "" {
		// Nobody proved a member's key: counted and logged by reason,
		// never against the member the hello named.
		m.preAuthRefused(Refusal(herr.Outcome), addr, "err", herr.Detail)
		return
	}
	m.cfg.Metrics.Handshake(herr.Peer, herr.Outcome)
	p := m.peers[herr.Peer]
	if p == nil {
		return // a peer id is a member's, never this signer's: checked before
	}
	seen := &p.refusals
	p.mu.Lock()
	p.lastErr = herr.Detail
	p.mu.Unlock()
	attrs := []any{"peer", string(herr.Peer), "addr", addr, "direction", dir, "outcome", string(herr.Outcome), "err", herr.Detail}
	if herr.Outcome == OutcomeFailed || !seen.changed(herr.Detail) {
		m.log.Debug("handshake failed", attrs...)
		return
	}
	m.log.Warn("handshake refused", attrs...)
}
