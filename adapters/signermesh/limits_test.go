package signermesh

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // registered, as in the signer binary: the mesh must still refuse it
	"google.golang.org/grpc/status"
)

// An envelope longer than a wire frame crosses the link in fragments and
// arrives whole; frames stay within WireFrameBytes.
func TestLargeEnvelopeFragmented(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	s1, s2 := c.start(c.config("s1")), c.start(c.config("s2"))
	in1, in2 := &inbox{}, &inbox{}
	s1.Attach(in1.receiver())
	s2.Attach(in2.receiver())
	big := bytes.Repeat([]byte("0123456789abcdef"), (s1.cfg.MaxMessageBytes-FrameOverhead)/16)
	for _, send := range []struct {
		from *Mesh
		to   *inbox
	}{{s1, in2}, {s2, in1}} {
		if err := send.from.Send(context.Background(), "", big); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the large envelope to arrive whole", func() bool { return send.to.has(send.from.cfg.Self, string(big)) })
	}
}

// Before anyone proved a key: a connection that never answers TLS, and
// one that completed TLS but opens no stream, are closed after the
// handshake timeout; the connections one address holds
// pending are bounded; a frame over the wire limit and a compressed
// stream are refused. Each is counted by reason, never against a member.
func TestLimitsBeforeAuthentication(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	cfg := c.config("s2")
	cfg.HandshakeTimeout = 500 * time.Millisecond
	cfg.RefusalLogInterval = time.Hour
	s2 := c.start(cfg)
	addr := c.addrs["s2"]
	counts := c.metrics["s2"]

	for _, tc := range []struct {
		name  string
		tls   bool // complete TLS as s1 first
		speak []byte
	}{
		// s2 sends its ClientHello and waits for an answer that never comes
		{"idle TCP connection closed", false, nil},
		// TLS as a member, then the HTTP/2 preface and an empty SETTINGS
		// frame: a connection gRPC accepts, on which no stream ever opens
		{"HTTP/2 connection without a stream closed", true, append([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), 0, 0, 0, 4, 0, 0, 0, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conn net.Conn
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if tc.tls {
				ctx, cancel := context.WithTimeout(context.Background(), waitBound)
				defer cancel()
				if conn, err = rawTLS(ctx, conn, c.g.Identity["s1"]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := conn.Write(tc.speak); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(waitBound))
			start := time.Now()
			// closed: EOF, or a reset or a TLS error, never the deadline
			if _, err := io.Copy(io.Discard, conn); isTimeout(err) {
				t.Fatalf("read: %v", err)
			}
			if took := time.Since(start); took > 5*cfg.HandshakeTimeout {
				t.Fatalf("closed after %v, handshake timeout %v", took, cfg.HandshakeTimeout)
			}
		})
	}
	waitFor(t, "the timeout counted", func() bool { return counts.get("refused", string(RefusalNotAuthenticated)) > 0 })
	t.Run("pending per address", func(t *testing.T) {
		var conns []net.Conn
		defer func() {
			for _, conn := range conns {
				conn.Close()
			}
		}()
		for range s2.cfg.MaxPendingPerIP + 3 {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, conn)
		}
		waitFor(t, "the surplus refused", func() bool { return counts.get("refused", string(RefusalTooManyFromAddress)) >= 3 })
		if held, pending := s2.limits.counts(); pending > s2.cfg.MaxPendingPerIP {
			t.Fatalf("%d connections pending (%d held), bound %d", pending, held, s2.cfg.MaxPendingPerIP)
		}
		for _, conn := range conns {
			conn.Close()
		}
		// the next cases come from the same address
		waitFor(t, "the pending connections released", func() bool { _, pending := s2.limits.counts(); return pending == 0 })
	})
	if n := counts.get("handshake", "s1", string(OutcomeBadProof)); n != 0 {
		t.Fatalf("outsiders counted against s1: %s", counts)
	}
}

// A frame over the wire limit and a compressed stream are refused before
// the handshake reads them.
func TestFramesRefusedBeforeAuthentication(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	c.start(c.config("s2"))
	addr := c.addrs["s2"]
	counts := c.metrics["s2"]
	t.Run("frame over the wire limit", func(t *testing.T) {
		s := rawLink(t, addr, c.g.Identity["s1"], grpc.MaxCallSendMsgSize(8<<20))
		if err := s.SendMsg(&frame{kind: frameHello, body: make([]byte, 1<<20)}); err != nil {
			t.Fatal(err)
		}
		for {
			var f frame
			if err := s.RecvMsg(&f); err != nil {
				break // the link ended
			}
		}
	})
	t.Run("compressed stream", func(t *testing.T) {
		s := rawLink(t, addr, c.g.Identity["s1"], grpc.UseCompressor("gzip"))
		_ = s.SendMsg(&frame{kind: frameHello, body: []byte("x")})
		var f frame
		if err := s.RecvMsg(&f); status.Code(err) != codes.Unimplemented {
			t.Fatalf("got %v, want Unimplemented", err)
		}
		waitFor(t, "the compressed stream counted", func() bool { return counts.get("refused", string(RefusalCompressed)) > 0 })
	})
}
