package signermesh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// A member that closes and starts again on its address is linked again
// both ways (the smaller member redials it, it dials the greater), what
// was queued for it while it was away arrives, and envelopes carry their
// authenticated sender.
func TestPeerRestart(t *testing.T) {
	c := newCluster(t, "s1", "s2", "s3")
	s1, s3 := c.start(c.config("s1")), c.start(c.config("s3"))
	in1, in3 := &inbox{}, &inbox{}
	s1.Attach(in1.receiver())
	s3.Attach(in3.receiver())
	s2 := c.start(c.config("s2"))
	s2.Attach((&inbox{}).receiver())
	waitFor(t, "s2 linked to s1 and s3", func() bool { return connected(s1, "s2") && connected(s3, "s2") })

	addr := c.addrs["s2"]
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "s1 and s3 to see s2 gone", func() bool { return !connected(s1, "s2") && !connected(s3, "s2") })
	for _, m := range []*Mesh{s1, s3} {
		if err := m.Send(context.Background(), "s2", []byte("while away from "+string(m.cfg.Self))); err != nil {
			t.Fatal(err)
		}
	}

	c.bind("s2", addr)
	s2 = c.start(c.config("s2"))
	in2 := &inbox{}
	s2.Attach(in2.receiver())
	waitFor(t, "s2 to receive what was queued while it was away", func() bool {
		return in2.has("s1", "while away from s1") && in2.has("s3", "while away from s3")
	})
	if err := s2.Send(context.Background(), "", []byte("back")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "s1 and s3 to receive from the restarted s2", func() bool {
		return in1.has("s2", "back") && in3.has("s2", "back")
	})
	for _, m := range []*Mesh{s1, s3} {
		if n := c.metrics[m.cfg.Self].get("reconnect", "s2"); n == 0 {
			t.Errorf("%s counted no reconnect of s2: %s", m.cfg.Self, c.metrics[m.cfg.Self])
		}
	}
}

// Send returns at once whatever the peer does: to a member nobody
// listens for, to one that accepts TCP and never answers, and to one
// whose receiver is stuck. Each peer's queue keeps the newest messages
// and counts the ones it dropped.
func TestSendDoesNotWaitForPeers(t *testing.T) {
	c := newCluster(t, "s1", "s2", "s3", "s4")
	// s2: the port is closed. s3: it accepts and never speaks.
	c.lis["s2"].Close()
	hung := c.lis["s3"]
	var held []net.Conn
	var heldMu sync.Mutex
	go func() {
		for {
			conn, err := hung.Accept()
			if err != nil {
				return
			}
			heldMu.Lock()
			held = append(held, conn)
			heldMu.Unlock()
		}
	}()
	t.Cleanup(func() {
		hung.Close()
		heldMu.Lock()
		defer heldMu.Unlock()
		for _, conn := range held {
			conn.Close()
		}
	})
	// s4: linked, but its receiver never returns until the test ends.
	stuck := make(chan struct{})
	s4 := c.start(c.config("s4"))
	s4.Attach(func(context.Context, []byte) { <-stuck })
	t.Cleanup(func() { close(stuck) }) // runs before s4's Close

	cfg := c.config("s1")
	cfg.QueueMessages = 8
	s1 := c.start(cfg)
	waitFor(t, "s1 linked to s4", func() bool { return connected(s1, "s4") })

	const sends = 2000
	msg := bytes.Repeat([]byte{7}, 64<<10) // enough to fill gRPC's flow-control windows to s4
	done := make(chan error, 1)
	go func() {
		for i := range sends {
			if err := s1.Send(context.Background(), "", msg); err != nil {
				done <- fmt.Errorf("send %d: %w", i, err)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitBound):
		t.Fatalf("%d sends to dead, hung and stuck peers did not return", sends)
	}
	for _, s := range s1.Peers() {
		if s.Queued > cfg.QueueMessages {
			t.Errorf("%s's queue holds %d messages, bound %d", s.ID, s.Queued, cfg.QueueMessages)
		}
		if n := c.metrics["s1"].get("dropped", string(s.ID), string(DropQueueFull)); n == 0 {
			t.Errorf("s1 counted no drops for %s: %s", s.ID, c.metrics["s1"])
		}
		if s.ID != "s4" && s.Connected {
			t.Errorf("s1 reports a link to %s", s.ID)
		}
	}
	if _, ok := c.logs["s1"].find("peer queue full, dropping its oldest messages", map[string]string{"peer": "s2"}); !ok {
		t.Error("s1 did not log that s2's queue drops")
	}
}

// Send refuses what the mesh cannot deliver, with a typed error.
func TestSendErrors(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	m := c.start(c.config("s1"))
	tests := []struct {
		name string
		to   twophase.PeerID
		raw  []byte
		want error
	}{
		{"unknown member", "mallory", []byte("x"), ErrUnknownMember},
		{"itself", "s1", []byte("x"), ErrSelf},
		{"over the frame limit", "s2", make([]byte, twophase.MaxEnvelopeBytes+1), ErrTooLarge},
		{"over the frame limit to all", "", make([]byte, twophase.MaxEnvelopeBytes+1), ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := m.Send(context.Background(), tc.to, tc.raw); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if err := m.Send(context.Background(), "s2", make([]byte, twophase.MaxEnvelopeBytes)); err != nil {
		t.Fatalf("an envelope of the maximum size: %v", err)
	}
	m.Close()
	if err := m.Send(context.Background(), "s2", []byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: got %v, want %v", err, ErrClosed)
	}
}

// New refuses configurations that cannot work, saying what is wrong.
func TestConfigRefused(t *testing.T) {
	c := newCluster(t, "s1", "s2", "s3")
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"not a member", func(cfg *Config) { cfg.Self = "s9" }},
		{"another member's key", func(cfg *Config) { cfg.Identity = c.g.Identity["s2"] }},
		{"no key", func(cfg *Config) { cfg.Identity = nil }},
		{"no address of a member it dials", func(cfg *Config) { delete(cfg.Peers, "s3") }},
		{"an address of a stranger", func(cfg *Config) { cfg.Peers["s9"] = "127.0.0.1:1" }},
		{"an address of itself", func(cfg *Config) { cfg.Peers["s1"] = "127.0.0.1:1" }},
		{"an address without a port", func(cfg *Config) { cfg.Peers["s2"] = "localhost" }},
		{"nowhere to listen", func(cfg *Config) { cfg.Listener = nil }},
		{"a queue smaller than a message", func(cfg *Config) { cfg.QueueBytes = 1 << 10 }},
		{"an invalid group", func(cfg *Config) { cfg.Group.Quorum = 1 }},
		{"a negative timeout", func(cfg *Config) { cfg.HandshakeTimeout = -time.Second }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := c.config("s1")
			tc.change(&cfg)
			m, err := New(cfg)
			if err == nil {
				m.Close()
				t.Fatal("New accepted it")
			}
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v is not ErrConfig", err)
			}
		})
	}
}
