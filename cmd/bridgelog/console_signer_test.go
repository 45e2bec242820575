package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

// signerConsoleRig is signer s1 of a fixture group with fixtureEvent
// Abandoned, opened as a running signer (offline: nothing is proposed or
// signed) and served by its console.
type signerConsoleRig struct {
	f   *signerFixture
	s   *signerSetup
	lg  *embeddedlog.Log
	sg  *signing.Signer
	srv *httptest.Server
}

func newSignerConsoleRig(t *testing.T) *signerConsoleRig {
	t.Helper()
	r := &signerConsoleRig{f: newSignerFixture(t, 3, 2)}
	r.f.write(t)
	r.s = r.f.load(t)
	abandonedSignerLog(t, r.s)
	var err error
	if r.lg, err = embeddedlog.Open(r.s.logDir()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.lg.Close() })
	quiet := slog.New(slog.DiscardHandler)
	r.sg, err = signing.Open(context.Background(), signing.Config{Protocol: r.s.protocol, Log: r.lg, Transport: silentTransport{},
		Ledger: offlineLedger{}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	p := &signerProcess{setup: r.s, reg: metrics.New(), logger: quiet, app: &handlers.Appender{Log: r.lg, Catalog: topics.DefaultCatalog()}}
	c := &signerConsole{status: func(now time.Time) signerStatusDoc { return newStatusDoc(r.sg.Status(), true, now, nil, nil) },
		log: r.lg, admin: r.sg, adminHash: r.s.adminHash, rules: r.s.protocol.Rules, refusals: &eventSubmitter{p: p}, logger: quiet}
	mux := http.NewServeMux()
	c.routes(mux)
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

// post sends a form, with headers, and returns the status and body.
func (r *signerConsoleRig) post(t *testing.T, path string, form url.Values, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b.String()
}

// refusedRecords reads the signing_request.refused records of the log.
func refusedRecords(t *testing.T, lg topics.Log) []domain.SigningRequestRefused {
	t.Helper()
	ctx := context.Background()
	ends, err := lg.EndOffsets(ctx, topics.TopicChain)
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.SigningRequestRefused
	for p, end := range ends {
		recs, err := lg.Read(ctx, topics.TopicChain, int32(p), 0, int(end))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			env, err := topics.DecodeEnvelope(rec.Value)
			if err != nil {
				t.Fatal(err)
			}
			if env.Type != domain.TypeSigningRequestRefused {
				continue
			}
			var r domain.SigningRequestRefused
			if err := topics.DecodePayload(env.Payload, &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
	}
	return out
}

func resetForm(credential string) url.Values {
	return url.Values{"event": {fixtureEvent.ID().Hex()}, "operator": {"alice"}, "reason": {"s2's node was out of sync; fixed"},
		"credential": {credential}}
}

// TestSignerConsolePage: the signer's overview shows its events by phase
// as signer status counts them, the Abandoned event with why, the
// runbook's steps and a reset form, and a hostile stream name as text.
func TestSignerConsolePage(t *testing.T) {
	r := newSignerConsoleRig(t)
	odd := twophase.SigningEvent{Stream: "evm:1:" + hostile, Nonce: twophase.FirstNonce, Destination: "sim:mallory", Amount: 1000}
	if err := r.sg.Request(context.Background(), odd, "source"); err != nil {
		t.Fatal(err)
	}
	code, _, page := get(t, r.srv.URL+"/")
	if code != http.StatusOK {
		t.Fatalf("GET /: %d\n%s", code, page)
	}
	checkEscaped(t, "signer page", page)
	doc := newStatusDoc(r.sg.Status(), true, time.Now(), nil, nil)
	if doc.Phases["Abandoned"] != 1 || len(doc.Phases) < 2 {
		t.Fatalf("fixture: phases %v, want the abandoned event and the odd one", doc.Phases)
	}
	for phase, n := range doc.Phases {
		want := `<tr data-phase="` + phase + `"><td>` + phase + `</td><td class="n">` + strconv.Itoa(n) + `</td></tr>`
		if !strings.Contains(page, want) {
			t.Fatalf("page does not show %d events %s (%q):\n%s", n, phase, want, page)
		}
	}
	id := fixtureEvent.ID().Hex()
	for _, want := range []string{`data-abandoned="` + id + `"`, "(max_rounds: round 0 failed", "Reset on every member",
		"bridgelog signer admin reset --config FILE --event " + id, `action="/admin/reset"`, `name="credential" type="password"`,
		`href="/audit?key=` + id + `"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %q:\n%s", want, page)
		}
	}
}

// TestSignerConsoleAdminRefused: without the credential, or with it
// where a forged request would put it (a cookie, the URL), or from
// another site, a reset is refused with 403 and changes nothing; the
// first refusal is recorded as signing_request.refused via console.
func TestSignerConsoleAdminRefused(t *testing.T) {
	r := newSignerConsoleRig(t)
	before := countFacts(signerLogFacts(t, r.s))
	for _, c := range []struct {
		name   string
		path   string
		form   url.Values
		header map[string]string
	}{
		{"no credential", "/admin/reset", resetForm(""), nil},
		{"a wrong credential", "/admin/reset", resetForm("incorrect horse"), nil},
		{"a wrong bearer", "/admin/reset", resetForm(""), map[string]string{"Authorization": "Bearer incorrect horse"}},
		{"the credential in a cookie", "/admin/reset", resetForm(""), map[string]string{"Cookie": "credential=" + url.QueryEscape(fixtureCredential)}},
		{"the credential in the URL", "/admin/reset?credential=" + url.QueryEscape(fixtureCredential), resetForm(""), nil},
		{"another site's form", "/admin/reset", resetForm(fixtureCredential), map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}},
		{"a reinject without credential", "/admin/reinject", url.Values{"stream": {fixtureEvent.Stream}, "nonce": {"2"},
			"destination": {"sim:bob"}, "amount": {"20000"}, "operator": {"alice"}, "reason": {"hole"}}, nil},
	} {
		code, page := r.post(t, c.path, c.form, c.header)
		if code != http.StatusForbidden {
			t.Fatalf("%s: %d, want 403\n%s", c.name, code, page)
		}
	}
	if after := countFacts(signerLogFacts(t, r.s)); after != before {
		t.Fatalf("%d signing facts before, %d after refused admin calls", before, after)
	}
	refused := refusedRecords(t, r.lg)
	if len(refused) != 1 || refused[0].Via != ViaConsole || refused[0].Reason != "unauthenticated admin reset" ||
		refused[0].Event.ID() != fixtureEvent.ID() {
		t.Fatalf("recorded refusals %+v, want the first one (rate-limited), via console, naming the event", refused)
	}
	if e, _ := r.sg.Event(fixtureEvent.ID()); e.Phase != twophase.PhaseAbandoned {
		t.Fatalf("the event is %s after refused resets", e.Phase)
	}
}

// TestSignerConsoleCrossSiteRefusalRecorded: another site's form posting
// the right credential is refused before the credential is read, and the
// refusal is recorded via console, naming the site.
func TestSignerConsoleCrossSiteRefusalRecorded(t *testing.T) {
	r := newSignerConsoleRig(t)
	code, page := r.post(t, "/admin/reset", resetForm(fixtureCredential),
		map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
	if code != http.StatusForbidden || !strings.Contains(page, "cross-site request") {
		t.Fatalf("cross-site reset: %d\n%s", code, page)
	}
	refused := refusedRecords(t, r.lg)
	if len(refused) != 1 || refused[0].Via != ViaConsole || refused[0].Reason != "cross-site admin reset from https://evil.example" {
		t.Fatalf("recorded refusals %+v, want one cross-site reset via console", refused)
	}
	if e, _ := r.sg.Event(fixtureEvent.ID()); e.Phase != twophase.PhaseAbandoned {
		t.Fatalf("the event is %s after a refused cross-site reset", e.Phase)
	}
}

// TestSignerConsoleAdminAsCLI: with the credential (in the form, or as a
// bearer token) a reset and a re-inject from the page record the same
// facts as `signer admin reset` and `signer admin reinject` record on
// another copy of the same signer's log.
func TestSignerConsoleAdminAsCLI(t *testing.T) {
	r := newSignerConsoleRig(t)
	cli := newSignerFixture(t, 3, 2)
	cliPath := cli.write(t)
	cliSetup := cli.load(t)
	abandonedSignerLog(t, cliSetup)

	operator := "alice " + hostile
	form := resetForm(fixtureCredential)
	form.Set("operator", operator)
	code, page := r.post(t, "/admin/reset", form, nil)
	if code != http.StatusOK || !strings.Contains(page, "recorded signing.admin_reset event_id="+fixtureEvent.ID().Hex()+" epoch=1") {
		t.Fatalf("reset with the credential: %d\n%s", code, page)
	}
	checkEscaped(t, "reset result", page)
	flags := adminFlagsFor(cli, cliPath)
	flags.operator = operator
	if _, err := runSignerAdmin(context.Background(), flags, resetAction(fixtureEvent.ID())); err != nil {
		t.Fatal(err)
	}
	pageReset := signerLogFacts(t, r.s)[twophase.TypeAdminReset]
	cliReset := signerLogFacts(t, cliSetup)[twophase.TypeAdminReset]
	if len(pageReset) != 1 || len(cliReset) != 1 {
		t.Fatalf("%d resets recorded from the page, %d from the command line", len(pageReset), len(cliReset))
	}
	p, c := *pageReset[0].(*twophase.AdminReset), *cliReset[0].(*twophase.AdminReset)
	p.AtNs, c.AtNs = 0, 0
	if p != c {
		t.Fatalf("the page recorded %+v, the command line %+v", p, c)
	}
	if e, _ := r.sg.Event(fixtureEvent.ID()); e.Epoch != 1 || e.Phase == twophase.PhaseAbandoned {
		t.Fatalf("after the reset: %s in epoch %d", e.Phase, e.Epoch)
	}
	// A second reset of a Completed or unknown event is the protocol's
	// refusal: 422, nothing recorded.
	bad := resetForm(fixtureCredential)
	bad.Set("event", "0x"+strings.Repeat("00", 32))
	if code, page := r.post(t, "/admin/reset", bad, nil); code != http.StatusUnprocessableEntity || !strings.Contains(page, "admin action refused") {
		t.Fatalf("reset of an unknown event: %d\n%s", code, page)
	}

	missing := twophase.SigningEvent{Stream: fixtureEvent.Stream, Nonce: 2, Destination: "sim:bob", Amount: 20000,
		Source: twophase.SourceRef{Chain: "evm:31337", Block: 1300, TxHash: twophase.Hash{0: 0xab}}}
	reinject := url.Values{"stream": {missing.Stream}, "nonce": {"2"}, "destination": {missing.Destination}, "amount": {"20000"},
		"source-chain": {"evm:31337"}, "source-block": {"1300"}, "source-tx": {missing.Source.TxHash.Hex()},
		"operator": {"alice"}, "reason": {"missed by the indexer"}}
	code, page = r.post(t, "/admin/reinject", reinject, map[string]string{"Authorization": "Bearer " + fixtureCredential})
	if code != http.StatusOK || !strings.Contains(page, "recorded signing.admin_reinjected event_id="+missing.ID().Hex()) {
		t.Fatalf("reinject with a bearer credential: %d\n%s", code, page)
	}
	cliFlags := adminFlagsFor(cli, cliPath)
	cliFlags.reason = "missed by the indexer"
	if _, err := runSignerAdmin(context.Background(), cliFlags, reinjectAction(missing)); err != nil {
		t.Fatal(err)
	}
	// The same facts, but for the time each was taken.
	timeless := func(f twophase.Fact) twophase.Fact {
		switch f := f.(type) {
		case *twophase.AdminReinjected:
			c := *f
			c.AtNs = 0
			return c
		case *twophase.EventRequested:
			c := *f
			c.AtNs = 0
			return c
		}
		return f
	}
	for _, typ := range []string{twophase.TypeAdminReinjected, twophase.TypeEventRequested} {
		pageFacts, cliFacts := signerLogFacts(t, r.s)[typ], signerLogFacts(t, cliSetup)[typ]
		if len(pageFacts) == 0 || len(pageFacts) != len(cliFacts) {
			t.Fatalf("%s: %d recorded from the page, %d from the command line", typ, len(pageFacts), len(cliFacts))
		}
		for i := range pageFacts {
			if p, c := timeless(pageFacts[i]), timeless(cliFacts[i]); p != c {
				t.Fatalf("%s: the page recorded %+v, the command line %+v", typ, p, c)
			}
		}
	}
	re := signerLogFacts(t, r.s)[twophase.TypeAdminReinjected][0].(*twophase.AdminReinjected)
	if re.Event != missing || re.Operator != "alice" || re.Reason != "missed by the indexer" {
		t.Fatalf("recorded %+v", re)
	}
}
