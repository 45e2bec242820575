package main

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/adapters/metrics"
)

// viewerPages are the console's pages that show events' destinations and
// amounts: from another host they need the viewer credential.
var viewerPages = map[string]bool{"/": true, "/status": true, "/audit": true}

// Reasons a console page was refused (signer_console_refused_total).
const (
	viewerRefusedMissing = "viewer_credential_missing" // none presented, or none configured
	viewerRefusedWrong   = "viewer_credential_wrong"
)

// viewerGate serves h, but a GET of a viewer page from a non-loopback
// address only with the viewer credential (compared in constant time by
// its SHA-256). Every refusal is counted; one a second at most is logged.
type viewerGate struct {
	h      http.Handler
	want   []byte // the viewer credential's SHA-256; nil: loopback only
	counts *metrics.HandlerMetrics
	logf   func(reason, remote string, suppressed int)

	mu     sync.Mutex
	last   time.Time
	silent int
}

func (p *signerProcess) viewerGate(h http.Handler) http.Handler {
	return &viewerGate{h: h, want: p.setup.viewerHash, counts: p.reg.Handlers(),
		logf: func(reason, remote string, suppressed int) {
			p.logger.Warn("console page refused", "reason", reason, "remote", remote, "refused_since_last_line", suppressed)
		}}
}

func (g *viewerGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || !viewerPages[r.URL.Path] || fromThisHost(r) {
		g.h.ServeHTTP(w, r)
		return
	}
	token, presented := viewerToken(r)
	if presented && adminCredentialMatches(g.want, token) {
		g.h.ServeHTTP(w, r)
		return
	}
	reason := viewerRefusedMissing
	if presented && g.want != nil {
		reason = viewerRefusedWrong
	}
	g.refused(reason, r.RemoteAddr)
	w.Header().Set("WWW-Authenticate", `Basic realm="bridgelog signer console (viewer credential as the password)"`)
	http.Error(w, "unauthenticated: from another host the console needs the viewer credential "+
		"('Authorization: Bearer CREDENTIAL', or it as the password of HTTP Basic)", http.StatusUnauthorized)
}

func (g *viewerGate) refused(reason, remote string) {
	g.counts.Count("signer_console_refused_total", map[string]string{"reason": reason}, 1)
	g.mu.Lock()
	now := time.Now()
	if now.Sub(g.last) < time.Second {
		g.silent++
		g.mu.Unlock()
		return
	}
	n := g.silent
	g.last, g.silent = now, 0
	g.mu.Unlock()
	g.logf(reason, remote, n)
}

// viewerToken is the credential a request presents: a bearer token, or
// the password of HTTP Basic.
func viewerToken(r *http.Request) (string, bool) {
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return token, true
	}
	if _, pass, ok := r.BasicAuth(); ok {
		return pass, true
	}
	return "", false
}

// fromThisHost: the client is on loopback, or dialled the console's own
// address from it (`bridgelog signer status` against a console bound to
// 10.0.0.5 comes from 10.0.0.5). A TCP connection cannot be opened with
// a forged source address whose replies the kernel keeps for itself.
func fromThisHost(r *http.Request) bool {
	ip := hostIP(r.RemoteAddr)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && ip.Equal(hostIP(local.String()))
}

func hostIP(addr string) net.IP {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	return net.ParseIP(host)
}

// consoleListenAddr binds a console address without a host ("":9471")
// to loopback: another host reaches the console only when the config
// names an address for it ("0.0.0.0:9471", "10.0.0.5:9471").
func consoleListenAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return addr
	}
	return net.JoinHostPort("127.0.0.1", port)
}
