package signermesh

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Config configures one member's end of the mesh. The zero value of every
// duration and size means its default.
type Config struct {
	// Self is this member's id in Group.
	Self twophase.PeerID
	// Identity is this member's ed25519 identity key: the private half of
	// its IdentityKey in Group.
	Identity ed25519.PrivateKey
	// Group is the signing group; its id (Group.ID()) is checked at every
	// handshake.
	Group twophase.Group
	// ProtocolVersion is the version this member speaks (default
	// twophase.ProtocolVersion).
	ProtocolVersion uint16

	// ListenAddr is host:port to accept links on; ignored when Listener is
	// set.
	ListenAddr string
	// Listener, when set, is an already bound listener to serve on (tests
	// bind port 0 first); the mesh closes it.
	Listener net.Listener
	// Peers maps member ids to host:port. Every member whose id is greater
	// than Self must be listed (this member dials them); other entries are
	// allowed, so one address book serves every member.
	Peers map[twophase.PeerID]string

	// HandshakeTimeout bounds a link's handshake (default 10 s).
	HandshakeTimeout time.Duration
	// KeepaliveInterval is how long a link may be silent before a ping
	// (default 15 s); KeepaliveTimeout is how long a ping may go
	// unanswered before the link is closed (default 5 s).
	KeepaliveInterval time.Duration
	KeepaliveTimeout  time.Duration
	// ReconnectMin and ReconnectMax bound the backoff between dials of a
	// peer (defaults 100 ms and 5 s).
	ReconnectMin time.Duration
	ReconnectMax time.Duration
	// MaxMessageBytes bounds one frame on the wire, framing included
	// (default twophase.MaxEnvelopeBytes plus FrameOverhead).
	MaxMessageBytes int
	// WireFrameBytes bounds one gRPC message either way (default 64 KiB):
	// what anyone may make this member buffer before proving a key. An
	// envelope longer than that is sent as fragments and reassembled,
	// up to MaxMessageBytes, only on an authenticated link.
	WireFrameBytes int
	// WindowBytes is gRPC's flow-control window of a connection and of
	// its stream (default 256 KiB), fixed (no BDP growth): with one
	// stream per connection, what a connection can make this member hold
	// in buffers is about WireFrameBytes plus WindowBytes.
	WindowBytes int
	// MaxConnections bounds the connections the listener holds (default
	// 4N+8 for N members); when full, the oldest not yet authenticated is
	// closed to admit a new one. MaxPendingPerIP bounds the connections
	// of one remote IP that have not authenticated (default 4).
	MaxConnections  int
	MaxPendingPerIP int
	// IdleTimeout closes an accepted connection that has carried no
	// stream for that long (default 30 s); a connection on which no link
	// authenticated within HandshakeTimeout is closed then.
	IdleTimeout time.Duration
	// RefusalLogInterval is how often at most a refusal before
	// authentication is logged, per reason, with how many it stands
	// for (default 10 s); every one is counted (Metrics.Refused).
	RefusalLogInterval time.Duration
	// QueueMessages and QueueBytes bound the messages waiting for one peer
	// (defaults 1024 and 16 MiB); when either is exceeded the oldest
	// are dropped.
	QueueMessages int
	QueueBytes    int

	Metrics Metrics
	Logger  *slog.Logger
}

// ErrConfig: a configuration the mesh refuses to start with.
var ErrConfig = errors.New("signermesh: invalid configuration")

func (c Config) withDefaults() Config {
	if c.ProtocolVersion == 0 {
		c.ProtocolVersion = twophase.ProtocolVersion
	}
	setDefault(&c.HandshakeTimeout, 10*time.Second)
	setDefault(&c.KeepaliveInterval, 15*time.Second)
	setDefault(&c.KeepaliveTimeout, 5*time.Second)
	setDefault(&c.ReconnectMin, 100*time.Millisecond)
	setDefault(&c.ReconnectMax, 5*time.Second)
	setDefault(&c.MaxMessageBytes, twophase.MaxEnvelopeBytes+FrameOverhead)
	setDefault(&c.WireFrameBytes, 64<<10)
	setDefault(&c.WindowBytes, 256<<10)
	setDefault(&c.MaxConnections, 4*len(c.Group.Members)+8)
	setDefault(&c.MaxPendingPerIP, 4)
	setDefault(&c.IdleTimeout, 30*time.Second)
	setDefault(&c.RefusalLogInterval, 10*time.Second)
	setDefault(&c.QueueMessages, 1024)
	setDefault(&c.QueueBytes, 16<<20)
	if c.Metrics == nil {
		c.Metrics = nopMetrics{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// validate checks a configuration that has its defaults.
func (c Config) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
	}
	if err := c.Group.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	self, ok := c.Group.Member(c.Self)
	if !ok {
		return bad("%q is not a member of the group", c.Self)
	}
	if len(c.Identity) != ed25519.PrivateKeySize {
		return bad("identity key has %d bytes, want %d", len(c.Identity), ed25519.PrivateKeySize)
	}
	if pub := c.Identity.Public().(ed25519.PublicKey); !bytes.Equal(pub, self.IdentityKey) {
		return bad("identity key does not match the key the group lists for %s", c.Self)
	}
	if c.Listener == nil && c.ListenAddr == "" {
		return bad("no listen address")
	}
	for id, addr := range c.Peers {
		if _, ok := c.Group.Member(id); !ok {
			return bad("peer address for %q, which is not a member", id)
		}
		if id == c.Self {
			return bad("peer address for %s, which is this member", id)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return bad("address of %s: %v", id, err)
		}
	}
	for _, m := range c.Group.Members {
		if m.ID > c.Self && c.Peers[m.ID] == "" {
			return bad("no address for %s, which %s dials", m.ID, c.Self)
		}
	}
	switch {
	case c.HandshakeTimeout < 0 || c.KeepaliveInterval < 0 || c.KeepaliveTimeout < 0 || c.ReconnectMin < 0:
		return bad("negative timeout or backoff")
	case c.IdleTimeout < 0 || c.RefusalLogInterval < 0:
		return bad("negative idle timeout or log interval")
	case c.WireFrameBytes < 1<<10 || c.WireFrameBytes > c.MaxMessageBytes:
		return bad("wire frame size %d outside 1 KiB and the max message size %d", c.WireFrameBytes, c.MaxMessageBytes)
	case c.WindowBytes < 64<<10:
		return bad("flow-control window %d below gRPC's minimum of 64 KiB", c.WindowBytes)
	case c.MaxConnections < len(c.Group.Members) || c.MaxPendingPerIP < 1:
		return bad("connection limits %d (fewer than the members) or %d per IP", c.MaxConnections, c.MaxPendingPerIP)
	case c.MaxMessageBytes <= FrameOverhead:
		return bad("max message size %d leaves no room for a payload", c.MaxMessageBytes)
	case c.QueueBytes < c.MaxMessageBytes:
		return bad("queue of %d bytes cannot hold one message of %d", c.QueueBytes, c.MaxMessageBytes)
	case c.QueueMessages < 1:
		return bad("queue of %d messages", c.QueueMessages)
	case c.ReconnectMax < c.ReconnectMin:
		return bad("reconnect backoff max %v below min %v", c.ReconnectMax, c.ReconnectMin)
	}
	return nil
}
