package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/handlers/signingsource"
)

// maxConsoleConns bounds the console's open connections (an operator's
// browser, Prometheus, a probe).
const maxConsoleConns = 64

// consoleIdleTimeout closes a kept-alive console connection idle that
// long, so that idle clients cannot hold maxConsoleConns for a minute.
const consoleIdleTimeout = 10 * time.Second

// maxRequestBytes bounds a POST /signing-events body: a signing event is a
// few hundred bytes.
const maxRequestBytes = 16 << 10

// serveHTTP serves /metrics, /healthz, /status, /refusals, POST /signing-events and
// the operator console (/, /audit, POST /admin/…) until ctx ends.
func (p *signerProcess) serveHTTP(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", consoleListenAddr(p.set.http))
	if err != nil {
		return fmt.Errorf("signer http: listen %s: %w", p.set.http, err)
	}
	// The console has a file-descriptor budget of its own: past it, new
	// connections wait in the kernel's backlog (no descriptor) until one
	// ends, so neither a flood of the console nor one of the mesh (which
	// bounds its own) can take the other's descriptors. The server's read
	// header and idle timeouts free what a silent client holds.
	ln = netutil.LimitListener(ln, maxConsoleConns)
	// Within it, one remote address holds at most
	// maxConsoleConnsPerAddress: past that its new connection is closed
	// at once (giving its slot back), counted and logged sparingly.
	quiet := &quietLog{every: 10 * time.Second, logf: func(remote string, suppressed int) {
		p.logger.Warn("console connection refused", "reason", consoleRefusedTooMany, "remote", remote, "refused_since_last_line", suppressed)
	}}
	ln = limitPerAddress(ln, maxConsoleConnsPerAddress, func(remote string) {
		p.reg.Handlers().Count("signer_console_refused_total", map[string]string{"reason": consoleRefusedTooMany}, 1)
		quiet.note(remote)
	})
	// /healthz is not ready while a node is down: the signer runs and
	// keeps its links, but signs nothing (see ready).
	mux := p.reg.MuxReady(p.ready)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, p.status(time.Now()))
	})
	refusalRoutes(mux, func() []signing.Refusal {
		if p.signer == nil {
			return nil // not opened yet
		}
		return p.signer.Refusals()
	})
	sub := &eventSubmitter{p: p}
	mux.Handle("POST /signing-events", sub)
	p.console(sub).routes(mux)
	return metrics.ServeHandlerIdle(ctx, ln, p.viewerGate(mux), p.logger, consoleIdleTimeout)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// eventSubmitter is the authenticated entry point for external signing
// requests (SubmitSigningEvent): the caller presents the signer's admin
// credential as a bearer token; the request is proven on the signer's
// own EVM node and handed to the signer, or refused and recorded.
type eventSubmitter struct {
	p *signerProcess

	mu           sync.Mutex
	lastRecorded time.Time // of an unauthenticated request
}

// submitAnswer is POST /signing-events' answer.
type submitAnswer struct {
	EventID string `json:"eventId,omitempty"`
	Phase   string `json:"phase,omitempty"`
	Error   string `json:"error,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

func (s *eventSubmitter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var req signingsource.SigningEventRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	dec.DisallowUnknownFields()
	decodeErr := dec.Decode(&req)
	if !s.authenticated(r) {
		ev, _ := signingsource.ParseSigningEventRequest(req)
		s.unauthenticated(ctx, signingsource.ViaRPC, ev, "unauthenticated")
		writeJSON(w, http.StatusUnauthorized, submitAnswer{Error: "unauthenticated: present the signer's admin credential as 'Authorization: Bearer CREDENTIAL'",
			Reason: "unauthenticated"})
		return
	}
	if decodeErr != nil {
		err := fmt.Errorf("%w: %w", signingsource.ErrBadRequest, decodeErr)
		ev, _ := signingsource.ParseSigningEventRequest(req)
		s.refused(ctx, signingsource.ViaRPC, ev, "malformed", err.Error())
		writeJSON(w, http.StatusBadRequest, submitAnswer{Error: err.Error(), Reason: "malformed"})
		return
	}
	ev, err := s.p.source.SubmitSigningEvent(ctx, req)
	switch {
	case errors.Is(err, signingsource.ErrBadRequest):
		writeJSON(w, http.StatusBadRequest, submitAnswer{Error: err.Error(), Reason: signingsource.ReasonLabel(err)})
		return
	case errors.Is(err, signingsource.ErrUnproven):
		writeJSON(w, http.StatusUnprocessableEntity, submitAnswer{Error: err.Error(), Reason: signingsource.ReasonLabel(err)})
		return
	case err != nil:
		// The node could not be read, or the signer not record the
		// request: nothing was decided, the caller may retry.
		writeJSON(w, http.StatusServiceUnavailable, submitAnswer{Error: err.Error()})
		return
	}
	e, _ := s.p.signer.Event(ev.ID())
	writeJSON(w, http.StatusOK, submitAnswer{EventID: ev.ID().Hex(), Phase: e.Phase.String()})
}

// authenticated compares the bearer token's SHA-256 with the configured
// one in constant time; a signer without an admin credential takes no
// requests.
func (s *eventSubmitter) authenticated(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && adminCredentialMatches(s.p.setup.adminHash, token)
}

// adminCredentialMatches compares a presented credential's SHA-256 with
// the configured one (want) in constant time; with none configured
// nothing matches.
func adminCredentialMatches(want []byte, token string) bool {
	token = strings.TrimSpace(token)
	if want == nil || token == "" {
		return false
	}
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], want) == 1
}

// unauthenticated refuses a request without the credential (via the RPC
// entry point or the console; reason says what was asked); it is
// recorded at most once a second: whoever floods the endpoints without
// the credential fills a counter, not the signer's log.
func (s *eventSubmitter) unauthenticated(ctx context.Context, via string, ev twophase.SigningEvent, reason string) {
	s.refusedAtMostEverySecond(ctx, via, ev, "unauthenticated", reason)
}

// refusedAtMostEverySecond records a refusal labelled label at most once
// a second and counts every one.
func (s *eventSubmitter) refusedAtMostEverySecond(ctx context.Context, via string, ev twophase.SigningEvent, label, reason string) {
	s.mu.Lock()
	now := time.Now()
	record := now.Sub(s.lastRecorded) >= time.Second
	if record {
		s.lastRecorded = now
	}
	s.mu.Unlock()
	if !record {
		s.p.reg.Handlers().RequestRefused(via, label)
		return
	}
	s.refused(ctx, via, ev, label, reason)
}

// refused counts a request the source never saw, logs it and records it
// (signing_request.refused), as the source does those it refuses.
func (s *eventSubmitter) refused(ctx context.Context, via string, ev twophase.SigningEvent, label, reason string) {
	s.p.reg.Handlers().RequestRefused(via, label)
	s.p.logger.Warn("signing event request refused", "via", via, "reason", label, "error", reason)
	rec := domain.SigningRequestRefused{Via: via, Event: ev, Reason: reason}
	if _, err := s.p.app.Append(ctx, handlers.Cause{}, rec); err != nil {
		s.p.logger.Warn("recording a refused request failed", "err", err)
	}
}
