package signermesh

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
)

// tlsPair runs one mesh TLS handshake between s1 dialling and s2
// accepting over loopback TCP, as the links do, and returns the
// accepting side's connection state.
func tlsPair(tb testing.TB, ln net.Listener, s1, s2 *Mesh) tls.ConnectionState {
	accepted := make(chan net.Conn, 1)
	go func() {
		raw, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		conn, _, err := meshCredentials{m: s2}.ServerHandshake(raw)
		if err != nil {
			tb.Error(err)
			conn = nil
		}
		accepted <- conn
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	conn, _, err := meshCredentials{m: s1, dialled: s1.peers["s2"]}.ClientHandshake(context.Background(), "", raw)
	if err != nil {
		tb.Fatal(err)
	}
	// the accepting side completes once it reads the dialler's first byte
	if _, err := conn.Write([]byte{0}); err != nil {
		tb.Fatal(err)
	}
	ac := <-accepted
	if ac == nil {
		tb.FailNow()
	}
	state := ac.(*readAheadConn).ConnectionState()
	conn.Close()
	ac.Close()
	return state
}

// The links use TLS 1.3 with a hybrid post-quantum key exchange (Go's
// default) and Ed25519 certificates.
func TestTLSParameters(t *testing.T) {
	c := newCluster(t, "s1", "s2")
	s1, s2 := c.start(c.config("s1")), c.start(c.config("s2"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	st := tlsPair(t, ln, s1, s2)
	if st.Version != tls.VersionTLS13 || st.CurveID != tls.X25519MLKEM768 || st.DidResume {
		t.Fatalf("version %x, key exchange %v, resumed %v", st.Version, st.CurveID, st.DidResume)
	}
	if len(st.PeerCertificates) != 1 || st.PeerCertificates[0].PublicKeyAlgorithm.String() != "Ed25519" {
		t.Fatalf("peer certificates %v", st.PeerCertificates)
	}
}

// BenchmarkLinkTLSHandshake: one link's TLS handshake, both sides in
// this process, over loopback TCP (see BENCHMARKS.md).
func BenchmarkLinkTLSHandshake(b *testing.B) {
	c := newCluster(b, "s1", "s2")
	s1, s2 := c.start(c.config("s1")), c.start(c.config("s2"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	for b.Loop() {
		tlsPair(b, ln, s1, s2)
	}
}
