package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

// ViaConsole names, in a signing_request.refused, an admin action asked
// from the console without the signer's credential.
const ViaConsole = "console"

// consoleAdmin is what the console's admin actions need of a running
// signer: the same calls a signer's protocol state takes for
// `signer admin reset` and `signer admin reinject`.
type consoleAdmin interface {
	AdminReset(ctx context.Context, id twophase.Hash, operator, reason string) error
	AdminReinject(ctx context.Context, ev twophase.SigningEvent, operator, reason string) error
	Event(id twophase.Hash) (twophase.EventState, bool)
}

// signerConsole serves a signer's pages: GET / (events by phase with
// their rounds and reasons, every Abandoned event with the runbook,
// streams and holes, peers and nodes, as `signer status` reads them),
// GET /audit, and with the signer's admin credential POST /admin/reset
// and POST /admin/reinject.
type signerConsole struct {
	status    func(now time.Time) signerStatusDoc
	log       topics.Log // the signer's own: why events failed or were abandoned
	admin     consoleAdmin
	adminHash []byte // the credential's SHA-256; nil: no admin actions
	rules     twophase.LedgerRules
	refusals  *eventSubmitter // records refused calls as POST /signing-events does
	finder    analytics.Finder
	logger    *slog.Logger
}

// console is the running signer's console.
func (p *signerProcess) console(sub *eventSubmitter) *signerConsole {
	return &signerConsole{status: p.status, log: p.log, admin: p.signer, adminHash: p.setup.adminHash,
		rules: p.setup.protocol.Rules, refusals: sub, finder: consoleAuditFinder(p.log, p.store), logger: p.logger}
}

func (c *signerConsole) routes(mux *http.ServeMux) {
	if c.logger == nil {
		c.logger = slog.Default()
	}
	mux.HandleFunc("GET /{$}", c.overview)
	mux.HandleFunc("GET /console.css", serveConsoleCSS)
	mux.Handle("GET /audit", auditHandler("signer", c.finder, c.logger))
	// A browser's cross-site POST is refused before the credential is
	// even read; the credential itself comes in the body or a header,
	// never from a cookie, so a forged form cannot carry it.
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(c.crossOrigin))
	mux.Handle("POST /admin/reset", csrf.Handler(http.HandlerFunc(c.reset)))
	mux.Handle("POST /admin/reinject", csrf.Handler(http.HandlerFunc(c.reinject)))
}

// signerView is the overview's data.
type signerView struct {
	Doc       signerStatusDoc
	Phases    []phaseGroup
	Abandoned []eventView
	Holes     []statusStream
	Admin     bool // the signer has an admin credential
	ReasonErr string
}

type phaseGroup struct {
	Phase  string
	Count  int
	Events []eventView
}

type eventView struct {
	statusEvent
	Why string // the last failure or abandonment, for a Failed or Abandoned event
}

// why says what ended an event's latest round or the event: the round
// failure's reason or the abandonment's trigger, and its detail.
func why(reason, detail string) string {
	if detail == "" {
		return reason
	}
	return reason + ": " + detail
}

func (c *signerConsole) overview(w http.ResponseWriter, r *http.Request) {
	doc := c.status(time.Now())
	v := signerView{Doc: doc, Admin: c.adminHash != nil}
	var reasons map[string]string
	if needsReasons(doc) {
		var err error
		if reasons, err = failures(r.Context(), c.log); err != nil {
			c.logger.Warn("console could not read why events failed", "err", err)
			v.ReasonErr = err.Error()
		}
	}
	byPhase := map[string]*phaseGroup{}
	for p := twophase.PhaseUnknown; p <= twophase.PhaseRefused; p++ {
		if n := doc.Phases[p.String()]; n > 0 {
			v.Phases = append(v.Phases, phaseGroup{Phase: p.String(), Count: n})
		}
	}
	for i := range v.Phases {
		byPhase[v.Phases[i].Phase] = &v.Phases[i]
	}
	for _, e := range doc.Events {
		ev := eventView{statusEvent: e}
		if e.Phase == twophase.PhaseFailed.String() || e.Phase == twophase.PhaseAbandoned.String() {
			ev.Why = reasons[e.ID]
		}
		if e.Refusal != "" {
			ev.Why = e.Refusal + "; refund " + e.Refund // never paid: the burner is refunded on the certificate
		}
		if g := byPhase[e.Phase]; g != nil {
			g.Events = append(g.Events, ev)
		}
		if e.Phase == twophase.PhaseAbandoned.String() {
			v.Abandoned = append(v.Abandoned, ev)
		}
	}
	for _, s := range doc.Streams {
		if s.Blocked {
			v.Holes = append(v.Holes, s)
		}
	}
	renderConsole(w, c.logger, http.StatusOK, "signer", consolePage{Title: "signer " + doc.Self, Role: "signer", At: doc.At, Data: v})
}

func needsReasons(doc signerStatusDoc) bool {
	return slices.ContainsFunc(doc.Events, func(e statusEvent) bool {
		return e.Phase == twophase.PhaseFailed.String() || e.Phase == twophase.PhaseAbandoned.String()
	})
}

// failures reads, from the signer's log, each event's latest round
// failure or abandonment in its current epoch. It reads the whole log,
// so the overview calls it only when an event is Failed or Abandoned.
func failures(ctx context.Context, lg topics.Log) (map[string]string, error) {
	out := map[string]string{}
	_, err := signing.Replay(ctx, lg, func(f twophase.Fact) {
		switch f := f.(type) {
		case *twophase.RoundFailed:
			out[f.EventID.Hex()] = why(string(f.Reason), f.Detail)
		case *twophase.Abandoned:
			out[f.EventID.Hex()] = why(string(f.Trigger), f.Detail)
		case *twophase.AdminReset:
			delete(out, f.EventID.Hex())
		}
	})
	return out, err
}

// adminOutcome is the page an admin action answers with.
type adminOutcome struct {
	Action   string
	OK       bool
	Message  string
	Recorded []string
}

// authorized reads the credential from the Authorization header or the
// form body (never the URL or a cookie) and records a refusal; ev is
// what the refused call named, for the record.
func (c *signerConsole) authorized(w http.ResponseWriter, r *http.Request, action string, ev twophase.SigningEvent) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		token = r.PostFormValue("credential")
	}
	if adminCredentialMatches(c.adminHash, token) {
		return true
	}
	c.refusals.unauthenticated(r.Context(), ViaConsole, ev, "unauthenticated admin "+action)
	msg := "refused: this action needs the signer's admin credential"
	if c.adminHash == nil {
		msg = "refused: this signer sets no admin.credentialSha256, so it takes no admin actions"
	}
	c.answer(w, http.StatusForbidden, adminOutcome{Action: "admin " + action, Message: msg})
	return false
}

// crossOrigin refuses an admin POST another site's page sent (the
// browser says so, or its Origin is not this console's): recorded and
// counted as unauthenticated calls are, labelled cross_origin.
func (c *signerConsole) crossOrigin(w http.ResponseWriter, r *http.Request) {
	action := strings.TrimPrefix(r.URL.Path, "/admin/")
	origin := r.Header.Get("Origin")
	if len(origin) > 200 { // the sender chooses it: keep the record small
		origin = origin[:200] + "…"
	}
	c.refusals.refusedAtMostEverySecond(r.Context(), ViaConsole, twophase.SigningEvent{}, "cross_origin",
		"cross-site admin "+action+" from "+origin)
	c.answer(w, http.StatusForbidden, adminOutcome{Action: "admin " + action,
		Message: "refused: a cross-site request (sent by another site's page, not this console)"})
}

func (c *signerConsole) answer(w http.ResponseWriter, code int, o adminOutcome) {
	renderConsole(w, c.logger, code, "result", consolePage{Title: o.Action, Role: "signer", Data: o})
}

// adminFailed answers an action the signer refused (twophase.ErrAdmin:
// nothing recorded) or could not record.
func (c *signerConsole) adminFailed(w http.ResponseWriter, action string, err error) {
	code := http.StatusServiceUnavailable
	if errors.Is(err, twophase.ErrAdmin) {
		code = http.StatusUnprocessableEntity
	}
	c.answer(w, code, adminOutcome{Action: "admin " + action, Message: err.Error()})
}

func (c *signerConsole) reset(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
	id, idErr := twophase.ParseHash(strings.TrimSpace(r.PostFormValue("event")))
	named, _ := c.admin.Event(id)
	if !c.authorized(w, r, "reset", named.Event) {
		return
	}
	operator, reason := r.PostFormValue("operator"), r.PostFormValue("reason")
	if idErr != nil {
		c.adminFailed(w, "reset", fmt.Errorf("%w: event: %w", twophase.ErrAdmin, idErr))
		return
	}
	if err := checkOperatorReason(operator, reason); err != nil {
		c.adminFailed(w, "reset", err)
		return
	}
	if err := c.admin.AdminReset(r.Context(), id, operator, reason); err != nil {
		c.adminFailed(w, "reset", err)
		return
	}
	e, _ := c.admin.Event(id)
	c.logger.Info("admin reset from the console", "event", id.Hex(), "epoch", e.Epoch, "operator", operator)
	c.answer(w, http.StatusOK, adminOutcome{Action: "admin reset", OK: true,
		Message:  fmt.Sprintf("event %s restarts at round 0 of epoch %d when its turn comes", id.Hex(), e.Epoch),
		Recorded: []string{fmt.Sprintf("recorded %s event_id=%s epoch=%d operator=%q reason=%q", twophase.TypeAdminReset, id.Hex(), e.Epoch, operator, reason)}})
}

func (c *signerConsole) reinject(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
	ev, evErr := reinjectedEvent(r)
	if !c.authorized(w, r, "reinject", ev) {
		return
	}
	operator, reason := r.PostFormValue("operator"), r.PostFormValue("reason")
	if evErr == nil {
		evErr = checkReinjected(ev, c.rules)
	}
	if err := errors.Join(evErr, checkOperatorReason(operator, reason)); err != nil {
		c.adminFailed(w, "reinject", err)
		return
	}
	_, known := c.admin.Event(ev.ID())
	if err := c.admin.AdminReinject(r.Context(), ev, operator, reason); err != nil {
		c.adminFailed(w, "reinject", err)
		return
	}
	e, now := c.admin.Event(ev.ID())
	c.logger.Info("admin reinject from the console", "event", ev.ID().Hex(), "stream", ev.Stream, "nonce", ev.Nonce, "operator", operator)
	msg := fmt.Sprintf("event %s (stream %s, nonce %d) is %s", ev.ID().Hex(), ev.Stream, ev.Nonce, e.Phase)
	switch {
	case known:
		msg = fmt.Sprintf("event %s was already requested: no new request recorded", ev.ID().Hex())
	case !now:
		msg = fmt.Sprintf("event %s: stream %q is past nonce %d (completed): no new request recorded", ev.ID().Hex(), ev.Stream, ev.Nonce)
	}
	c.answer(w, http.StatusOK, adminOutcome{Action: "admin reinject", OK: true, Message: msg,
		Recorded: []string{fmt.Sprintf("recorded %s event_id=%s operator=%q reason=%q", twophase.TypeAdminReinjected, ev.ID().Hex(), operator, reason)}})
}

// reinjectedEvent reads the reinject form: the fields of `signer admin
// reinject`, named as its flags.
func reinjectedEvent(r *http.Request) (twophase.SigningEvent, error) {
	var ev twophase.SigningEvent
	var errs []error
	num := func(name string, bits int) uint64 {
		s := strings.TrimSpace(r.PostFormValue(name))
		if s == "" {
			return 0
		}
		var n uint64
		if _, err := fmt.Sscan(s, &n); err != nil || (bits < 64 && n >= 1<<bits) {
			errs = append(errs, fmt.Errorf("%s %q: want a number", name, s))
		}
		return n
	}
	ev.Stream = strings.TrimSpace(r.PostFormValue("stream"))
	ev.Nonce = num("nonce", 64)
	ev.Destination = strings.TrimSpace(r.PostFormValue("destination"))
	ev.Amount = num("amount", 64)
	ev.Source.Chain = strings.TrimSpace(r.PostFormValue("source-chain"))
	ev.Source.LogIndex = uint32(num("source-log-index", 32))
	ev.Source.Block = num("source-block", 64)
	if tx := strings.TrimSpace(r.PostFormValue("source-tx")); tx != "" {
		h, err := twophase.ParseHash(tx)
		if err != nil {
			errs = append(errs, fmt.Errorf("source-tx: %w", err))
		}
		ev.Source.TxHash = h
	}
	if err := errors.Join(errs...); err != nil {
		return ev, fmt.Errorf("%w: %w", twophase.ErrAdmin, err)
	}
	return ev, nil
}
