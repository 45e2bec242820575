package main

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// One address holds at most the limit of console connections: the next
// is closed at once and counted, and a slot given back admits another.
func TestConsoleConnectionsPerAddress(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int64
	ln := limitPerAddress(raw, 2, func(string) { refused.Add(1) })
	defer ln.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	first, _ := dial(), dial()
	held := []net.Conn{<-accepted, <-accepted}
	third := dial()
	_ = third.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on a hang, not a timing
	if _, err := third.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("the third connection from one address was not closed: %v", err)
	}
	if n := refused.Load(); n != 1 {
		t.Fatalf("%d refusals counted, want 1", n)
	}
	_ = first.Close()
	_ = held[0].Close() // the server's end gives the slot back
	dial()
	select {
	case <-accepted:
	case <-time.After(30 * time.Second):
		t.Fatal("a connection after a slot was given back was not accepted")
	}
	if n := refused.Load(); n != 1 {
		t.Fatalf("%d refusals counted, want still 1", n)
	}
}

// isReset: the server's close reached the client as a reset (not a
// timeout of the read).
func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}
