package main

import (
	"context"
	"crypto/sha256"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/metrics"
)

// From another host the console's pages need the viewer credential (as a
// bearer token or a Basic password); from loopback, and for /healthz and
// /metrics, they do not. Each refusal is counted by reason and logged at
// most once a second.
func TestConsoleViewerCredential(t *testing.T) {
	sum := sha256.Sum256([]byte("viewer-secret"))
	reg := metrics.New()
	var logged []string
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	g := &viewerGate{h: inner, want: sum[:], counts: reg.Handlers(),
		logf: func(reason, _ string, _ int) { logged = append(logged, reason) }}
	tests := []struct {
		name, method, path, remote string
		auth                       func(*http.Request)
		want                       int
	}{
		{"overview from loopback", "GET", "/", "127.0.0.1:5000", nil, 200},
		{"status from loopback v6", "GET", "/status", "[::1]:5000", nil, 200},
		{"overview from afar", "GET", "/", "10.0.0.9:5000", nil, 401},
		{"status from afar", "GET", "/status", "10.0.0.9:5000", nil, 401},
		{"audit from afar", "GET", "/audit", "10.0.0.9:5000", nil, 401},
		{"audit with the wrong credential", "GET", "/audit", "10.0.0.9:5000",
			func(r *http.Request) { r.Header.Set("Authorization", "Bearer admin-secret") }, 401},
		{"status with the viewer credential", "GET", "/status", "10.0.0.9:5000",
			func(r *http.Request) { r.Header.Set("Authorization", "Bearer viewer-secret") }, 200},
		{"overview with it as a Basic password", "GET", "/", "10.0.0.9:5000",
			func(r *http.Request) { r.SetBasicAuth("anyone", "viewer-secret") }, 200},
		{"healthz from afar", "GET", "/healthz", "10.0.0.9:5000", nil, 200},
		{"metrics from afar", "GET", "/metrics", "10.0.0.9:5000", nil, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.path, nil)
			r.RemoteAddr = tc.remote
			if tc.auth != nil {
				tc.auth(r)
			}
			w := httptest.NewRecorder()
			g.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Fatalf("%s %s from %s: %d, want %d", tc.method, tc.path, tc.remote, w.Code, tc.want)
			}
			if tc.want == 401 && !strings.Contains(w.Header().Get("WWW-Authenticate"), "Basic") {
				t.Fatal("no Basic challenge for a browser")
			}
		})
	}
	body := scrape(t, reg)
	for _, want := range []string{`bridgelog_signer_console_refused_total{reason="viewer_credential_missing"} 3`,
		`bridgelog_signer_console_refused_total{reason="viewer_credential_wrong"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if len(logged) != 1 {
		t.Errorf("%d lines logged for 4 refusals within a second, want 1: %v", len(logged), logged)
	}

	// The console's own address, dialled from its host, is this host.
	local := httptest.NewRequest("GET", "/status", nil)
	local.RemoteAddr = "10.0.0.5:40000"
	local = local.WithContext(context.WithValue(local.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 9471}))
	w0 := httptest.NewRecorder()
	g.ServeHTTP(w0, local)
	if w0.Code != 200 {
		t.Fatalf("from the console's own address: %d", w0.Code)
	}

	// Without a viewer credential configured nothing matches from afar.
	none := &viewerGate{h: inner, counts: reg.Handlers(), logf: func(string, string, int) {}}
	r := httptest.NewRequest("GET", "/status", nil)
	r.RemoteAddr = "10.0.0.9:5000"
	r.Header.Set("Authorization", "Bearer ")
	w := httptest.NewRecorder()
	none.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Fatalf("with no viewer credential configured: %d", w.Code)
	}
}

func scrape(t *testing.T, reg *metrics.Registry) string {
	t.Helper()
	w := httptest.NewRecorder()
	reg.Mux().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	return w.Body.String()
}

func TestConsoleListensOnLoopback(t *testing.T) {
	for in, want := range map[string]string{":9471": "127.0.0.1:9471", "0.0.0.0:9471": "0.0.0.0:9471",
		"10.0.0.5:9471": "10.0.0.5:9471", "[::]:9471": "[::]:9471"} {
		if got := consoleListenAddr(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
