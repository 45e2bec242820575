package signermesh

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// waitBound guards against a mesh that hangs; not a performance
// assertion.
const waitBound = 30 * time.Second

// cluster runs members of one group on loopback, each on a port bound
// before any member starts, so every member's address book is complete.
type cluster struct {
	t       testing.TB
	g       simledger.Group
	addrs   map[twophase.PeerID]string
	lis     map[twophase.PeerID]net.Listener
	logs    map[twophase.PeerID]*logRecorder
	metrics map[twophase.PeerID]*counters
}

func newCluster(t testing.TB, ids ...twophase.PeerID) *cluster {
	t.Helper()
	c := &cluster{t: t, g: simledger.NewGroup("mesh", "signermesh-test", ids, len(ids)/2+1),
		addrs: map[twophase.PeerID]string{}, lis: map[twophase.PeerID]net.Listener{},
		logs: map[twophase.PeerID]*logRecorder{}, metrics: map[twophase.PeerID]*counters{}}
	for _, id := range ids {
		c.bind(id, "127.0.0.1:0")
	}
	return c
}

// bind listens for member id (again, after a restart, on its address).
func (c *cluster) bind(id twophase.PeerID, addr string) {
	c.t.Helper()
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		c.t.Fatalf("listen for %s on %s: %v", id, addr, err)
	}
	c.lis[id] = lis
	c.addrs[id] = lis.Addr().String()
}

// config is member id's configuration: every other member's address,
// fast redials, and a log and counters the test can read.
func (c *cluster) config(id twophase.PeerID) Config {
	peers := map[twophase.PeerID]string{}
	for other, addr := range c.addrs {
		if other != id {
			peers[other] = addr
		}
	}
	if c.logs[id] == nil {
		c.logs[id] = newLogRecorder()
		c.metrics[id] = newCounters()
	}
	return Config{Self: id, Identity: c.g.Identity[id], Group: c.g.Group, Listener: c.lis[id], Peers: peers,
		ReconnectMax: 200 * time.Millisecond, Logger: slog.New(c.logs[id]), Metrics: c.metrics[id]}
}

// start runs member id with cfg (see config); it is closed when the test
// ends.
func (c *cluster) start(cfg Config) *Mesh {
	c.t.Helper()
	m, err := New(cfg)
	if err != nil {
		c.t.Fatalf("start %s: %v", cfg.Self, err)
	}
	c.t.Cleanup(func() { m.Close() })
	return m
}

// startUnchecked runs a configuration New would refuse: an impostor or an
// outsider, as a real process of another build or configuration would.
func (c *cluster) startUnchecked(cfg Config) *Mesh {
	c.t.Helper()
	m, err := start(cfg.withDefaults())
	if err != nil {
		c.t.Fatalf("start %s: %v", cfg.Self, err)
	}
	c.t.Cleanup(func() { m.Close() })
	return m
}

// waitFor polls cond until it holds; polling is fine for state that
// changes in the background, and the bound only catches a hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// connected reports whether m has a link up to peer.
func connected(m *Mesh, peer twophase.PeerID) bool {
	for _, s := range m.Peers() {
		if s.ID == peer {
			return s.Connected
		}
	}
	return false
}

// inbox collects what one member receives, with the authenticated sender.
type inbox struct {
	mu  sync.Mutex
	got []received
}

type received struct {
	from twophase.PeerID
	raw  []byte
}

func (in *inbox) receiver() Receiver {
	return func(ctx context.Context, raw []byte) {
		from, _ := PeerFromContext(ctx)
		in.mu.Lock()
		in.got = append(in.got, received{from: from, raw: bytes.Clone(raw)})
		in.mu.Unlock()
	}
}

// has reports whether raw arrived from from.
func (in *inbox) has(from twophase.PeerID, raw string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, r := range in.got {
		if r.from == from && string(r.raw) == raw {
			return true
		}
	}
	return false
}

// logRecorder keeps every log record, with the logger's attributes.
type logRecorder struct {
	mu    *sync.Mutex
	recs  *[]logRecord
	attrs []slog.Attr
}

type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

func newLogRecorder() *logRecorder {
	return &logRecorder{mu: &sync.Mutex{}, recs: &[]logRecord{}}
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	*h.recs = append(*h.recs, rec)
	h.mu.Unlock()
	return nil
}

func (h *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logRecorder{mu: h.mu, recs: h.recs, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *logRecorder) WithGroup(string) slog.Handler { return h }

// find returns the first record with msg whose attributes include want.
// containing reports whether a record msg has attribute key containing
// sub.
func (h *logRecorder) containing(msg, key, sub string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range *h.recs {
		if r.msg == msg && strings.Contains(r.attrs[key], sub) {
			return true
		}
	}
	return false
}

// atLeast counts the records of level or above.
func (h *logRecorder) atLeast(level slog.Level) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range *h.recs {
		if r.level >= level {
			n++
		}
	}
	return n
}

// syncBuffer is a bytes.Buffer safe for a child process's two pipes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lines counts the records with message msg.
func (h *logRecorder) lines(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range *h.recs {
		if r.msg == msg {
			n++
		}
	}
	return n
}

func (h *logRecorder) find(msg string, want map[string]string) (logRecord, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
next:
	for _, r := range *h.recs {
		if r.msg != msg {
			continue
		}
		for k, v := range want {
			if r.attrs[k] != v {
				continue next
			}
		}
		return r, true
	}
	return logRecord{}, false
}

// counters implements Metrics by counting under "kind peer label" keys.
type counters struct {
	mu sync.Mutex
	n  map[string]int
}

func newCounters() *counters { return &counters{n: map[string]int{}} }

func (c *counters) add(parts ...string) {
	c.mu.Lock()
	c.n[strings.Join(parts, " ")]++
	c.mu.Unlock()
}

func (c *counters) get(parts ...string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[strings.Join(parts, " ")]
}

func (c *counters) Handshake(p twophase.PeerID, o Outcome) { c.add("handshake", string(p), string(o)) }
func (c *counters) Sent(p twophase.PeerID)                 { c.add("sent", string(p)) }
func (c *counters) Received(p twophase.PeerID)             { c.add("received", string(p)) }
func (c *counters) Dropped(p twophase.PeerID, r DropReason) {
	c.add("dropped", string(p), string(r))
}
func (c *counters) Reconnect(p twophase.PeerID) { c.add("reconnect", string(p)) }
func (c *counters) Refused(r Refusal)           { c.add("refused", string(r)) }

func (c *counters) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return fmt.Sprint(c.n)
}
