package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
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
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
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

// rowsFinder is the Finder's contract over rows as the sink makes them
// from recorded events.
type rowsFinder []analytics.Row

// record wraps each event as the relay records it, a second apart.
func (f *rowsFinder) record(t *testing.T, evs ...domain.Event) {
	t.Helper()
	for _, ev := range evs {
		at := time.Date(2026, 3, 1, 12, 0, len(*f), 0, time.UTC)
		env, topic, err := topics.DefaultCatalog().Wrap(ev, topics.Meta{OccurredAt: at, RecordedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := env.Message(topics.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rec := topics.Record{Topic: topic, Offset: int64(len(*f)), Value: msg.Value}
		*f = append(*f, analytics.RowOf(topics.DefaultCatalog(), &rec))
	}
}

func (f rowsFinder) Find(_ context.Context, key string) ([]analytics.AuditMatch, error) {
	key = projections.NormalizeAuditKey(key)
	var out []analytics.AuditMatch
	for _, r := range f {
		var kinds []string
		for _, k := range r.Keys {
			if k.Key == key {
				kinds = append(kinds, k.Kind)
			}
		}
		if len(kinds) > 0 {
			out = append(out, analytics.AuditMatch{Kinds: kinds, AuditRow: analytics.AuditRow{Topic: r.Topic,
				Partition: r.Partition, Offset: r.Offset, RecordedAt: r.RecordedAt, RecordedMs: r.RecordedMs,
				Type: r.Type, SourceKey: r.SourceKey, EventID: r.EventID, AggregateID: r.AggregateID,
				Correlation: r.CorrelationID, Payload: r.Payload, DecodeError: r.DecodeError}})
		}
	}
	return out, nil
}

// failingFinder is a store or warehouse that cannot answer.
type failingFinder struct{}

func (failingFinder) Find(context.Context, string) ([]analytics.AuditMatch, error) {
	return nil, errors.New("the store is gone")
}

var (
	pageSubject  = regexp.MustCompile(`(?s)<section class="subject" data-kind="(\w+)" data-id="([^"]*)">(.*?)</section>`)
	pageStepKind = regexp.MustCompile(`<li data-kind="([^"]+)"`)
	pageLink     = regexp.MustCompile(`<a href="(/audit\?key=[^"]*)">`)
)

// TestConsoleAuditTimeline: a withdrawal recorded as the relay records it
// (its first claim reverting with a hostile reason) and a second
// withdrawal whose transaction hash is the first's leaf. The leaf's page
// names both subjects, each labelled with what the key matched as; the
// first's steps are a timeline in recorded order with their sentences and
// facts, the reason as text; each link is to the audit of exactly the
// key the story links, and following one tells the same withdrawal. A
// key of nothing and a finder that fails are said so.
func TestConsoleAuditTimeline(t *testing.T) {
	settlement := domain.Settlement{ChainID: 338, Distributor: domain.Address{0xd1}}
	hash := func(s string) domain.Hash32 { return domain.Hash32(sha256.Sum256([]byte(s))) }
	ref, leaf := domain.LogRef{ChainID: 338, TxHash: hash("burn tx")}, hash("leaf")
	twin := domain.LogRef{ChainID: 338, TxHash: leaf}
	claim := domain.ClaimID(settlement, leaf)
	var f rowsFinder
	f.record(t,
		domain.WithdrawalDetected{Ref: ref, BlockNumber: 100, BlockHash: hash("block 100")},
		domain.WithdrawalConfirmed{Ref: ref, AtBlock: 112, Confirmation: 12},
		domain.WithdrawalBatched{Ref: ref, SequenceID: settlement.SequenceID(), BatchID: 4, Leaf: leaf},
		domain.ClaimRequested{Settlement: settlement, BatchID: 4, LeafInfo: domain.BatchLeaf{Withdrawal: ref, Leaf: leaf}},
		domain.TxIntent{Purpose: domain.PurposeClaim, Subject: claim, TxHash: hash("claim 1"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: claim, TxHash: hash("claim 1"), Status: domain.TxReverted,
			BlockNumber: 121, Reason: hostile},
		domain.TxIntent{Purpose: domain.PurposeClaim, Subject: claim, TxHash: hash("claim 2"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: claim, TxHash: hash("claim 2"), Status: domain.TxSucceeded,
			BlockNumber: 122},
		domain.WithdrawalExecuted{Ref: ref, BatchID: 4, ClaimTxHash: hash("claim 2")},
		domain.WithdrawalDetected{Ref: twin, BlockNumber: 130, BlockHash: hash("block 130")},
	)
	mux := http.NewServeMux()
	mux.Handle("GET /audit", auditHandler("relay", f, nil))
	mux.Handle("GET /failing", auditHandler("relay", failingFinder{}, slog.New(slog.DiscardHandler)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	code, _, page := get(t, srv.URL+"/audit?key="+leaf.Hex())
	if code != http.StatusOK || !strings.Contains(page, `id="audit-timeline"`) || !strings.Contains(page, `id="audit-ambiguous"`) {
		t.Fatalf("GET /audit: %d\n%s", code, page)
	}
	checkEscaped(t, "audit timeline", page)
	subjects := pageSubject.FindAllStringSubmatch(page, -1)
	if len(subjects) != 2 || subjects[0][2] != ref.WithdrawalID() || subjects[1][2] != twin.WithdrawalID() ||
		!strings.Contains(subjects[0][3], "matched as leaf") || !strings.Contains(subjects[1][3], "matched as evm_tx") {
		t.Fatalf("the ambiguous key's subjects are not both shown, labelled:\n%s", page)
	}
	var steps []string
	for _, m := range pageStepKind.FindAllStringSubmatch(subjects[0][3], -1) {
		steps = append(steps, m[1])
	}
	want := []string{domain.TypeWithdrawalDetected, domain.TypeWithdrawalConfirmed, domain.TypeWithdrawalBatched,
		domain.TypeClaimRequested, domain.TypeClaimIntent, domain.TypeClaimOutcome, domain.TypeClaimIntent,
		domain.TypeClaimOutcome, domain.TypeWithdrawalExecuted}
	if strings.Join(steps, " ") != strings.Join(want, " ") {
		t.Fatalf("the withdrawal's timeline\n got %v\nwant %v", steps, want)
	}
	for _, shown := range []string{"the withdrawal was confirmed 12 blocks deep at block 112",
		"<dt>depth</dt><dd>12</dd>", "found as leaf", "<dd>" + html.EscapeString(hostile) + "</dd>"} {
		if !strings.Contains(subjects[0][3], shown) {
			t.Fatalf("the withdrawal's timeline lacks %q:\n%s", shown, subjects[0][3])
		}
	}

	st, err := analytics.BuildStory(context.Background(), f, leaf.Hex())
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, sub := range st.Subjects {
		for _, s := range sub.Steps {
			links = append(links, s.Links...)
		}
	}
	hrefs := pageLink.FindAllStringSubmatch(page, -1)
	if len(hrefs) == 0 || len(hrefs) != len(links) {
		t.Fatalf("the page links %d keys, the story %d", len(hrefs), len(links))
	}
	for i, h := range hrefs {
		u, err := url.Parse(html.UnescapeString(h[1]))
		if err != nil || u.Query().Get("key") != links[i] {
			t.Fatalf("link %s is not to the audit of %s (%v)", h[1], links[i], err)
		}
	}
	if !slices.Contains(links, settlement.SequenceID()+"/4") || !slices.Contains(links, hash("claim 2").Hex()) {
		t.Fatalf("the story links neither its batch nor its paying claim: %v", links)
	}
	code, _, page = get(t, srv.URL+"/audit?key="+url.QueryEscape(hash("claim 2").Hex()))
	if subjects := pageSubject.FindAllStringSubmatch(page, -1); code != http.StatusOK || len(subjects) != 1 ||
		subjects[0][2] != ref.WithdrawalID() || strings.Contains(page, `id="audit-ambiguous"`) {
		t.Fatalf("following the claim's link: %d\n%s", code, page)
	}

	code, _, page = get(t, srv.URL+"/audit?key="+url.QueryEscape(hostile))
	if code != http.StatusOK || !strings.Contains(page, `id="audit-none"`) || !strings.Contains(page, "no event matches") {
		t.Fatalf("a key that matches nothing: %d\n%s", code, page)
	}
	checkEscaped(t, "audit of nothing", page)
	if code, _, _ := get(t, srv.URL+"/audit?key=+"); code != http.StatusBadRequest {
		t.Fatalf("an empty key: %d, want 400", code)
	}
	if code, _, page := get(t, srv.URL+"/failing?key=x"); code != http.StatusServiceUnavailable ||
		!strings.Contains(page, `id="audit-error"`) || !strings.Contains(page, "the store is gone") {
		t.Fatalf("a finder that fails: %d\n%s", code, page)
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
