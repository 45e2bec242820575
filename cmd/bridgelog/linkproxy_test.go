package main

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// linkProxy forwards the TCP connections it accepts on its own loopback
// address to target until it is cut: a cut closes every open connection
// and refuses new ones, as a network partition does, and Heal lets them
// through again. A stalled proxy keeps its connections open and holds
// their bytes until Heal, as a link that stopped carrying traffic
// without either end noticing does.
type linkProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	cut     bool
	stalled bool
	flowing *sync.Cond // broadcast when stalled or cut changes
	conns   map[net.Conn]struct{}
}

func startLinkProxy(t testing.TB, target string) *linkProxy {
	t.Helper()
	return startLinkProxyOn(t, "127.0.0.1:0", target)
}

// startLinkProxyOn is a proxy listening on addr: a node that comes up
// where a process was told to find it.
func startLinkProxyOn(t testing.TB, addr, target string) *linkProxy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("proxy to %s cannot listen on %s: %v", target, addr, err)
	}
	p := &linkProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.flowing = sync.NewCond(&p.mu)
	t.Cleanup(func() { ln.Close(); p.Cut() })
	go p.serve()
	return p
}

func (p *linkProxy) Addr() string { return p.ln.Addr().String() }

func (p *linkProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(in)
	}
}

func (p *linkProxy) forward(in net.Conn) {
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		in.Close()
		return
	}
	if !p.track(in, out) {
		in.Close()
		out.Close()
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, heldReader{p, src})
		done <- struct{}{}
	}
	go pipe(out, in)
	go pipe(in, out)
	<-done
	in.Close()
	out.Close()
	p.untrack(in, out)
}

// track registers a connection pair, false while cut.
func (p *linkProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *linkProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

// Cut drops every connection and refuses new ones until Heal.
func (p *linkProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
	p.flowing.Broadcast()
}

// Stall holds every byte in both directions until Heal; connections stay
// open and new ones are accepted (and held too).
func (p *linkProxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = true
}

// Heal lets connections and their bytes through again.
func (p *linkProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut, p.stalled = false, false
	p.flowing.Broadcast()
}

// heldReader hands on what it read only while its proxy is not stalled
// (a cut ends the wait: the connection is closed anyway).
type heldReader struct {
	p   *linkProxy
	src net.Conn
}

func (r heldReader) Read(b []byte) (int, error) {
	n, err := r.src.Read(b)
	r.p.mu.Lock()
	for r.p.stalled && !r.p.cut {
		r.p.flowing.Wait()
	}
	r.p.mu.Unlock()
	return n, err
}

func TestLinkProxyCutsAndHeals(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	p := startLinkProxy(t, echo.Addr().String())
	roundTrip := func() error {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		buf := make([]byte, 4)
		_, err = io.ReadFull(c, buf)
		return err
	}
	if err := roundTrip(); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.Cut()
	if err := roundTrip(); err == nil {
		t.Fatal("a cut proxy let a connection through")
	}
	p.Heal()
	if err := roundTrip(); err != nil {
		t.Fatalf("after heal: %v", err)
	}

	// Stalled: the connection stays open, its bytes wait for Heal.
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.Stall()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a stalled proxy carried %q (%v)", buf[:n], err)
	}
	p.Heal()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("after the stall healed: %q, %v", buf, err)
	}
}
