package main

import (
	"net"
	"sync"
	"time"
)

// maxConsoleConnsPerAddress bounds the console connections one remote IP
// holds at once, so that one client (a runaway script, a flood) cannot
// take all maxConsoleConns of them: an operator's browser and Prometheus
// open a few each.
const maxConsoleConnsPerAddress = 16

// consoleRefusedTooMany is the refusal reason of a connection past it
// (signer_console_refused_total).
const consoleRefusedTooMany = "too_many_from_address"

// perAddressListener closes, at once, a connection from a remote IP that
// already holds max open connections; the others it counts until they
// close.
type perAddressListener struct {
	net.Listener
	max     int
	refused func(remote string) // counts (and may log) one refusal

	mu   sync.Mutex
	open map[string]int
}

func limitPerAddress(ln net.Listener, max int, refused func(remote string)) net.Listener {
	return &perAddressListener{Listener: ln, max: max, refused: refused, open: map[string]int{}}
}

func (l *perAddressListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c)
		l.mu.Lock()
		if l.open[ip] >= l.max {
			l.mu.Unlock()
			_ = c.Close()
			l.refused(c.RemoteAddr().String())
			continue
		}
		l.open[ip]++
		l.mu.Unlock()
		return &addressConn{Conn: c, release: func() { l.release(ip) }}, nil
	}
}

func (l *perAddressListener) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

func remoteIP(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

// addressConn gives its address's slot back once, on its first Close.
type addressConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *addressConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// quietLog calls logf for the first refusal and then at most once per
// every, with how many it kept quiet about.
type quietLog struct {
	every time.Duration
	logf  func(remote string, suppressed int)

	mu     sync.Mutex
	last   time.Time
	silent int
}

func (q *quietLog) note(remote string) {
	q.mu.Lock()
	now := time.Now()
	if !q.last.IsZero() && now.Sub(q.last) < q.every {
		q.silent++
		q.mu.Unlock()
		return
	}
	n := q.silent
	q.last, q.silent = now, 0
	q.mu.Unlock()
	q.logf(remote, n)
}
