package main

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/analytics"
)

// Figures are what a relay page and `bridgelog status` both show, keyed
// alike: chain/ID/FIELD, FLOW/STATUS, conflicts, unfolded.
type figures map[string]string

var (
	statusChainLine = regexp.MustCompile(`^chain (\d+): scanned to block (\d+), tip (\d+) \((\d+) behind\), (\d+) reorgs, (\d+) rejected logs$`)
	statusCountLine = regexp.MustCompile(`^(deposits|withdrawals|batches)\s+(.*)$`)
)

// statusFigures parses `bridgelog status`'s text for people.
func statusFigures(t *testing.T, out string) figures {
	t.Helper()
	f := figures{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		line = strings.TrimSpace(line)
		if m := statusChainLine.FindStringSubmatch(line); m != nil {
			for i, field := range []string{"scannedTo", "tip", "behind", "reorgs", "rejectedLogs"} {
				f["chain/"+m[1]+"/"+field] = m[i+2]
			}
			continue
		}
		if m := statusCountLine.FindStringSubmatch(line); m != nil {
			if m[2] == "none" {
				continue
			}
			for _, kv := range strings.Fields(m[2]) {
				i := strings.LastIndex(kv, "=")
				k, v := kv[:max(i, 0)], kv[i+1:]
				if i < 0 {
					t.Fatalf("status line %q: %q is not STATUS=N", line, kv)
				}
				f[m[1]+"/"+k] = v
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "conflicts"); ok {
			f["conflicts"] = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "unfolded"); ok {
			v = strings.TrimSpace(v)
			if strings.HasPrefix(v, "none") {
				f["unfolded"] = "0"
			} else {
				f["unfolded"] = strings.Fields(v)[0]
			}
		}
	}
	if f["conflicts"] == "" || f["unfolded"] == "" {
		t.Fatalf("status printed no conflicts or unfolded line:\n%s", out)
	}
	return f
}

var (
	pageChainRow = regexp.MustCompile(`(?s)<tr data-chain="(\d+)">(.*?)</tr>`)
	pageField    = regexp.MustCompile(`data-field="(\w+)">(\d+)<`)
	pageFlowRow  = regexp.MustCompile(`(?s)<tr data-flow="(\w+)" data-status="([^"]*)">.*?<td class="n">(\d+)</td></tr>`)
	pageConflict = regexp.MustCompile(`id="conflicts">(\d+)<`)
	pageUnfolded = regexp.MustCompile(`id="unfolded">(\d+)<`)
)

// pageFigures parses the relay page's HTML.
func pageFigures(t *testing.T, page string) figures {
	t.Helper()
	f := figures{}
	for _, row := range pageChainRow.FindAllStringSubmatch(page, -1) {
		for _, m := range pageField.FindAllStringSubmatch(row[2], -1) {
			f["chain/"+row[1]+"/"+m[1]] = m[2]
		}
	}
	for _, m := range pageFlowRow.FindAllStringSubmatch(page, -1) {
		f[m[1]+"/"+html.UnescapeString(m[2])] = m[3]
	}
	c, u := pageConflict.FindStringSubmatch(page), pageUnfolded.FindStringSubmatch(page)
	if c == nil || u == nil {
		t.Fatalf("page shows no conflicts or unfolded figure:\n%s", page)
	}
	f["conflicts"], f["unfolded"] = c[1], u[1]
	return f
}

func sameFigures(t *testing.T, what string, page, status figures) {
	t.Helper()
	if len(page) == 0 || len(page) != len(status) {
		t.Fatalf("%s: the page shows %d figures, status %d:\npage:   %v\nstatus: %v", what, len(page), len(status), page, status)
	}
	for k, v := range status {
		if page[k] != v {
			t.Fatalf("%s: %s is %q on the page, %q in status:\npage:   %v\nstatus: %v", what, k, page[k], v, page, status)
		}
	}
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// hostile is a string an event may carry that must reach a page as text.
// It holds no space: `bridgelog status` prints a flow's status as one
// word.
const hostile = `<script>alert("x")</script><img/src=x/onerror=alert(1)>`

func checkEscaped(t *testing.T, what, page string) {
	t.Helper()
	if strings.Contains(page, "<script>") || strings.Contains(page, "<img/src") {
		t.Fatalf("%s: a hostile string reached the page as markup:\n%s", what, page)
	}
	if !strings.Contains(page, "&lt;script&gt;") {
		t.Fatalf("%s: the hostile string is not shown escaped:\n%s", what, page)
	}
}

// TestRelayConsolePage serves the relay's console over a generated log's
// projections, one flow status tampered into markup: the page shows the
// numbers `bridgelog status` prints, the markup as text, says audit is
// unavailable without a finder, and takes no POST.
func TestRelayConsolePage(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: t.TempDir()}
	o.run(0, "log", "generate", "--events", "2000", "--seed", "11")
	o.run(0, "project")
	tamper(t, o.data, `UPDATE deposits_v1 SET status = '`+hostile+`' WHERE rowid = (SELECT min(rowid) FROM deposits_v1)`)
	out, _ := o.run(0, "status")

	ctx := context.Background()
	lg, err := embeddedlog.OpenReadOnly(filepath.Join(o.data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	st, err := sqlstore.OpenSQLiteReadOnly(ctx, filepath.Join(o.data, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mux := http.NewServeMux()
	(&relayConsole{log: lg, store: st}).routes(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	code, h, page := get(t, srv.URL+"/")
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", code, h.Get("Content-Type"))
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("GET /: Content-Security-Policy %q", csp)
	}
	checkEscaped(t, "relay page", page)
	want := statusFigures(t, out)
	if want["deposits/"+hostile] != "1" {
		t.Fatalf("status does not show the tampered deposit: %v", want)
	}
	sameFigures(t, "relay page", pageFigures(t, page), want)

	if code, _, css := get(t, srv.URL+"/console.css"); code != http.StatusOK || !strings.Contains(css, "table") {
		t.Fatalf("GET /console.css: %d", code)
	}
	code, _, page = get(t, srv.URL+"/audit?key="+hostile)
	if code != http.StatusOK || !strings.Contains(page, `id="audit-unavailable"`) {
		t.Fatalf("GET /audit without a finder: %d\n%s", code, page)
	}
	checkEscaped(t, "audit page", page)
	resp, err := http.Post(srv.URL+"/", "application/x-www-form-urlencoded", strings.NewReader("x=1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST /: %d, want 405: the relay's console only reads", resp.StatusCode)
	}
}

// fixedFinder answers every key with the same matches.
type fixedFinder []analytics.AuditMatch

func (f fixedFinder) Find(context.Context, string) ([]analytics.AuditMatch, error) { return f, nil }

// TestConsoleAuditTimeline: a finder's matches render as a timeline in
// their order, each labelled with its kinds, hostile payloads as text; a
// key that matches nothing says so.
func TestConsoleAuditTimeline(t *testing.T) {
	matches := fixedFinder{
		{Kinds: []string{"aggregate"}, AuditRow: analytics.AuditRow{Topic: "bridgelog.bridge.v1", Offset: 3, RecordedMs: 1000,
			Type: "withdrawal.detected", AggregateID: "withdrawal:evm:1:0xab:0", Payload: `{"recipient":"` + hostile + `"}`}},
		{Kinds: []string{"evm_tx", "leaf"}, AuditRow: analytics.AuditRow{Topic: "bridgelog.bridge.v1", Offset: 9, RecordedMs: 2000,
			Type: "withdrawal.claimed", AggregateID: "withdrawal:evm:1:0xab:0"}},
	}
	mux := http.NewServeMux()
	mux.Handle("GET /audit", auditHandler("relay", matches, nil))
	mux.Handle("GET /none", auditHandler("relay", fixedFinder{}, nil))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	code, _, page := get(t, srv.URL+"/audit?key=withdrawal:evm:1:0xab:0")
	if code != http.StatusOK || !strings.Contains(page, `id="audit-timeline"`) {
		t.Fatalf("GET /audit: %d\n%s", code, page)
	}
	detected, claimed := strings.Index(page, "withdrawal.detected"), strings.Index(page, "withdrawal.claimed")
	if detected < 0 || claimed < detected || !strings.Contains(page, "as evm_tx, leaf") {
		t.Fatalf("timeline out of order or unlabelled:\n%s", page)
	}
	checkEscaped(t, "audit timeline", page)
	if code, _, page := get(t, srv.URL+"/none?key=nothing"); code != http.StatusOK || !strings.Contains(page, `id="audit-none"`) {
		t.Fatalf("a key that matches nothing: %d\n%s", code, page)
	}
	if code, _, _ := get(t, srv.URL+"/audit?key=+"); code != http.StatusBadRequest {
		t.Fatalf("an empty key: %d, want 400", code)
	}
}

// atoi is for figures the tests compare as numbers.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
