package main

import (
	"io"
	"net"
	"sync"
	"testing"
)

// linkProxy forwards the TCP connections it accepts on its own loopback
// address to target until it is cut: a cut closes every open connection
// and refuses new ones, as a network partition does, and Heal lets them
// through again.
type linkProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]struct{}
}

func startLinkProxy(t testing.TB, target string) *linkProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &linkProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
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
		_, _ = io.Copy(dst, src)
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
}

// Heal lets connections through again.
func (p *linkProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
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
}
