package signermesh

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Refusal is why the mesh turned away a connection or a link before the
// other side proved it is a member: a metric label
// (Metrics.Refused) and the reason of a rate-limited log line. Nothing
// refused before authentication is blamed on a member.
type Refusal string

const (
	// RefusalTooManyConnections: the listener held MaxConnections; the
	// oldest connection not yet authenticated was closed to make room,
	// or, when every one was authenticated, the new one.
	RefusalTooManyConnections Refusal = "too_many_connections"
	// RefusalTooManyFromAddress: the remote IP already had
	// MaxPendingPerIP connections that had not authenticated.
	RefusalTooManyFromAddress Refusal = "too_many_from_address"
	// RefusalNotAuthenticated: a connection carried no authenticated
	// link within HandshakeTimeout of being accepted, and was closed.
	RefusalNotAuthenticated Refusal = "not_authenticated_in_time"
	// RefusalCompressed: a stream declared a compressed encoding; the
	// mesh never decompresses.
	RefusalCompressed Refusal = "compressed"

	// The accepting side's TLS handshakes that did not complete, by why.
	//
	// RefusalTLSUnknownKey: the dialler's certificate carries a key no
	// other member of the group has (an outsider, or a member whose key
	// the group does not list).
	RefusalTLSUnknownKey Refusal = "tls_unknown_key"
	// RefusalTLSBadCertificate: no certificate, several, one that does
	// not parse, or one whose key is not ed25519.
	RefusalTLSBadCertificate Refusal = "tls_bad_certificate"
	// RefusalTLSKeyNotProven: the certificate carries a member's key but
	// the handshake did not complete (its signature failed, or it
	// stopped): a member's key is public, proving it takes the private.
	RefusalTLSKeyNotProven Refusal = "tls_key_not_proven"
	// RefusalTLSTimeout: the handshake did not complete within
	// HandshakeTimeout.
	RefusalTLSTimeout Refusal = "tls_timeout"
	// RefusalTLSFailed: any other failure: not TLS, a TLS alert from the
	// peer, a protocol error, the connection closed.
	RefusalTLSFailed Refusal = "tls_failed"
)

// connLimiter bounds the connections the mesh holds before anyone on
// them has authenticated. Every accepted connection counts against
// MaxConnections; one whose TLS handshake has not proved a member's key
// is "pending", at most MaxPendingPerIP of them per remote IP. Every
// connection is closed HandshakeTimeout after it was accepted unless a
// link on it came up. When MaxConnections is reached the oldest pending
// connection is closed to admit the new one: an outsider holding
// connections open cannot keep a member out, it can only be evicted by
// another newcomer.
type connLimiter struct {
	max, perIP int
	timeout    time.Duration
	refused    func(r Refusal, addr string)

	mu      sync.Mutex
	conns   map[string]*limitedConn // by remote address
	pending []*limitedConn          // oldest first
	byIP    map[string]int          // pending connections per remote IP
}

func newConnLimiter(max, perIP int, timeout time.Duration, refused func(Refusal, string)) *connLimiter {
	return &connLimiter{max: max, perIP: perIP, timeout: timeout, refused: refused,
		conns: map[string]*limitedConn{}, byIP: map[string]int{}}
}

// limitedConn is an accepted connection under the limiter.
type limitedConn struct {
	net.Conn
	lim   *connLimiter
	addr  string
	ip    string
	timer *time.Timer
	auth  bool // under lim.mu
	cut   bool // under lim.mu: closed by the limiter, which counted it
	once  sync.Once
}

// cutByLimiter reports whether the limiter closed the connection (and
// counted why): its TLS handshake's failure is not counted again.
func (c *limitedConn) cutByLimiter() bool {
	c.lim.mu.Lock()
	defer c.lim.mu.Unlock()
	return c.cut
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.lim.release(c) })
	return err
}

// limitListener applies a connLimiter to what a listener accepts.
type limitListener struct {
	net.Listener
	lim *connLimiter
}

// Accept returns the next connection the limiter admits; the ones it
// refuses are closed here and never reach gRPC.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.lim.admit(conn); lc != nil {
			return lc, nil
		}
	}
}

// admit registers conn, or closes it and returns nil.
func (lim *connLimiter) admit(conn net.Conn) *limitedConn {
	addr := conn.RemoteAddr().String()
	ip := addr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		ip = host
	}
	lim.mu.Lock()
	if lim.byIP[ip] >= lim.perIP {
		lim.mu.Unlock()
		_ = conn.Close()
		lim.refused(RefusalTooManyFromAddress, addr)
		return nil
	}
	var evict *limitedConn
	if len(lim.conns) >= lim.max {
		if len(lim.pending) == 0 {
			lim.mu.Unlock()
			_ = conn.Close()
			lim.refused(RefusalTooManyConnections, addr)
			return nil
		}
		evict = lim.pending[0]
		evict.cut = true
		lim.forgetLocked(evict)
	}
	lc := &limitedConn{Conn: conn, lim: lim, addr: addr, ip: ip}
	lim.conns[addr] = lc
	lim.pending = append(lim.pending, lc)
	lim.byIP[ip]++
	lc.timer = time.AfterFunc(lim.timeout, func() { lim.expire(lc) })
	lim.mu.Unlock()
	if evict != nil {
		_ = evict.Close()
		lim.refused(RefusalTooManyConnections, evict.addr)
	}
	return lc
}

// expire closes a connection that has not authenticated in time.
func (lim *connLimiter) expire(lc *limitedConn) {
	lim.mu.Lock()
	auth := lc.auth
	lc.cut = !auth
	lim.mu.Unlock()
	if auth {
		return
	}
	_ = lc.Close()
	lim.refused(RefusalNotAuthenticated, lc.addr)
}

// proved marks the connection from addr as a member's: its TLS
// handshake proved a member's key. It no longer counts as pending (a
// newcomer cannot evict it, and it is not counted against its IP), but
// is still closed by the handshake deadline unless a link on it
// authenticates.
func (lim *connLimiter) proved(addr string) {
	lim.mu.Lock()
	defer lim.mu.Unlock()
	if lc := lim.conns[addr]; lc != nil && !lc.auth {
		lim.dropPendingLocked(lc)
	}
}

// authenticated marks the connection from addr as carrying an
// authenticated link: it is not closed by the handshake deadline.
func (lim *connLimiter) authenticated(addr string) {
	lim.mu.Lock()
	defer lim.mu.Unlock()
	lc := lim.conns[addr]
	if lc == nil || lc.auth {
		return
	}
	lc.auth = true
	lc.timer.Stop()
	lim.dropPendingLocked(lc)
}

// release forgets a closed connection.
func (lim *connLimiter) release(lc *limitedConn) {
	lim.mu.Lock()
	defer lim.mu.Unlock()
	lim.forgetLocked(lc)
}

func (lim *connLimiter) forgetLocked(lc *limitedConn) {
	if lim.conns[lc.addr] == lc {
		delete(lim.conns, lc.addr)
	}
	if !lc.auth {
		lim.dropPendingLocked(lc)
		lc.auth = true // counted once; the timer finds nothing to do
	}
	if lc.timer != nil {
		lc.timer.Stop()
	}
}

func (lim *connLimiter) dropPendingLocked(lc *limitedConn) {
	for i, p := range lim.pending {
		if p == lc {
			lim.pending = append(lim.pending[:i], lim.pending[i+1:]...)
			if lim.byIP[lc.ip]--; lim.byIP[lc.ip] <= 0 {
				delete(lim.byIP, lc.ip)
			}
			return
		}
	}
}

// counts reports the connections held and how many are pending.
func (lim *connLimiter) counts() (held, pending int) {
	lim.mu.Lock()
	defer lim.mu.Unlock()
	return len(lim.conns), len(lim.pending)
}

// rateLog writes a refusal's log line at most once per interval for each
// reason, with how many refusals of that reason the line stands for: an
// outsider flooding the port fills a counter, not the log.
type rateLog struct {
	log      *slog.Logger
	interval time.Duration

	mu   sync.Mutex
	last map[string]time.Time
	held map[string]int // refusals since the last line, per reason
}

func newRateLog(log *slog.Logger, interval time.Duration) *rateLog {
	return &rateLog{log: log, interval: interval, last: map[string]time.Time{}, held: map[string]int{}}
}

// warn logs msg for reason unless a line for reason was written within
// the interval; attrs describe this refusal, "count" how many the line
// covers.
func (r *rateLog) warn(msg, reason string, attrs ...any) {
	r.mu.Lock()
	r.held[reason]++
	now := time.Now()
	if now.Sub(r.last[reason]) < r.interval {
		r.mu.Unlock()
		return
	}
	n := r.held[reason]
	r.held[reason] = 0
	r.last[reason] = now
	r.mu.Unlock()
	r.log.Warn(msg, append([]any{"reason", reason, "count", n}, attrs...)...)
}

// refuseCompressed is a stream interceptor that refuses a stream
// declaring a compressed encoding before its handler reads a message:
// the mesh's frames are never compressed, and a decompressor registered
// by another package in the process (gzip) must not run on what an
// outsider sends.
func (m *Mesh) refuseCompressed(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if ts, ok := grpc.ServerTransportStreamFromContext(ss.Context()).(interface{ RecvCompress() string }); ok {
		if enc := ts.RecvCompress(); enc != "" && enc != "identity" {
			m.preAuthRefused(RefusalCompressed, remoteAddr(ss.Context()), "encoding", enc)
			return status.Errorf(codes.Unimplemented, "signermesh: compressed frames (%q) are not accepted", enc)
		}
	}
	return handler(srv, ss)
}

// preAuthRefused counts a refusal before authentication and logs it,
// rate limited.
func (m *Mesh) preAuthRefused(r Refusal, addr string, attrs ...any) {
	if m.ctx.Err() != nil {
		return
	}
	m.cfg.Metrics.Refused(r)
	m.refusalLog.warn("connection refused before authentication", string(r), append([]any{"addr", addr}, attrs...)...)
}

func remoteAddr(ctx context.Context) string {
	if p, ok := peerFromGRPC(ctx); ok {
		return p
	}
	return "unknown"
}
