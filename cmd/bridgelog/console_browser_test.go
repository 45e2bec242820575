package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/chromedp/chromedp"
)

// headlessBrowser starts Debian's Chromium, headless, for the test. A
// machine without it fails the test: .ci/run installs it.
func headlessBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no chromium on PATH (%v): install it with `apt-get install -y chromium` (deploy/test.sh does)", err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first run starts the browser and must not carry a timeout.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`)); err != nil {
		t.Fatalf("start %s headless: %v", path, err)
	}
	return ctx
}

// browserFiguresJS reads, in the browser, the figures of the relay page
// keyed as pageFigures and statusFigures key them.
const browserFiguresJS = `(() => {
  const f = {};
  for (const row of document.querySelectorAll('tr[data-chain]'))
    for (const cell of row.querySelectorAll('[data-field]'))
      f['chain/' + row.dataset.chain + '/' + cell.dataset.field] = cell.textContent.trim();
  for (const row of document.querySelectorAll('tr[data-flow]'))
    f[row.dataset.flow + '/' + row.dataset.status] = row.querySelector('td.n').textContent.trim();
  f.conflicts = document.getElementById('conflicts').textContent.trim();
  f.unfolded = document.getElementById('unfolded').textContent.trim();
  return f;
})()`

// loadInBrowser opens url in the browser and returns what script gives
// once selector is visible.
func loadInBrowser[T any](t *testing.T, browser context.Context, url, selector, script string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(selector))); err != nil {
		t.Fatalf("load %s in the browser: %v", url, err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script))
	if err != nil {
		t.Fatalf("read %s in the browser: %v", url, err)
	}
	return v
}

func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := childproc.FreeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

func equalFigures(a, b figures) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestRelayConsoleInBrowser runs a devnet relay with --metrics-addr,
// sends deposits and withdrawals until devnet check passes, stops the
// chain so that the figures hold still, and loads the relay's console in
// headless Chromium: every number the page shows (indexer lag per chain,
// flows by status, batches, conflicts, unfolded) is the one `bridgelog
// status` prints. A withdrawal's id typed into the search box shows its
// story: detected, confirmed, batched, its claim and executed, in the
// order `bridgelog audit ID --json` gives them.
func TestRelayConsoleInBrowser(t *testing.T) {
	browser := headlessBrowser(t)
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	chain, _, _ := startChainProcess(t, o.bin, o.data, "--block-interval", "50ms")
	cfgPath := filepath.Join(o.data, "devnet.json")
	addr := freeAddr(t)
	relayLog, err := os.Create(filepath.Join(o.data, "relay.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer relayLog.Close()
	relay := exec.Command(o.bin, "relay", "--config", cfgPath, "--data", o.data, "--metrics-addr", addr, "--log-level", "warn")
	relay.Stdout, relay.Stderr = relayLog, relayLog
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { relay.Process.Signal(syscall.SIGTERM); relay.Wait() }()

	o.run(0, "devnet", "traffic", "--config", cfgPath, "--deposits", "4", "--withdrawals", "3", "--timeout", "2m")
	out, _ := o.run(0, "devnet", "check", "--config", cfgPath, "--deposits", "4", "--withdrawals", "3", "--wait", "2m")
	if !strings.Contains(out, "ok: ") {
		t.Fatalf("devnet check:\n%s", out)
	}
	// Without a chain the indexers' tips stop; the relay keeps serving.
	if err := chain.Process.Kill(); err != nil {
		t.Fatal(err)
	}

	var page, status figures
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		before := statusFigures(t, first(o.run(0, "status")))
		page = loadInBrowser[figures](t, browser, "http://"+addr+"/", "#flows", browserFiguresJS)
		status = statusFigures(t, first(o.run(0, "status")))
		if equalFigures(before, status) && equalFigures(page, status) {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(relayLog.Name())
			t.Fatalf("the page never showed status's figures:\npage:   %v\nstatus: %v\nrelay:\n%s", page, status, b)
		}
	}
	sameFigures(t, "relay page in Chromium", page, status)
	if fit := requireFits(t, browser, "http://"+addr+"/", "#flows", "relay"); fit.Tables < 4 {
		t.Fatalf("the relay page at %d×%d has %d tables, want its 4", consoleWidth, consoleHeight, fit.Tables)
	}
	deposits, withdrawals := 0, 0
	for k, v := range page {
		switch {
		case strings.HasPrefix(k, "deposits/"):
			deposits += atoi(t, v)
		case strings.HasPrefix(k, "withdrawals/"):
			withdrawals += atoi(t, v)
		}
	}
	if deposits != 4 || withdrawals != 3 || page["chain/1337/tip"] == "" {
		t.Fatalf("the page shows %d deposits, %d withdrawals, chain 1337's tip %q; want 4, 3 and a tip: %v",
			deposits, withdrawals, page["chain/1337/tip"], page)
	}

	// The search box: a withdrawal's id typed and submitted in the
	// browser shows its story, in the order `bridgelog audit` gives.
	aggregate, _ := devnetWithdrawal(t, o)
	var shown, audited []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		shown = searchInBrowser(t, browser, "http://"+addr+"/", aggregate)
		audited = auditedKinds(t, first(o.run(0, "audit", aggregate, "--json")), aggregate)
		if slices.Equal(withdrawalSteps(shown), withdrawalSteps(audited)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit page of %s never showed bridgelog audit's steps:\npage:  %v\naudit: %v", aggregate, shown, audited)
		}
	}
	// A step the relay recorded twice (same source key, at least once)
	// is shown twice, as the audit gives it.
	steps := withdrawalSteps(shown)
	lifecycle := slices.Compact(slices.DeleteFunc(slices.Clone(steps), func(k string) bool { return !strings.HasPrefix(k, "withdrawal.") }))
	if !slices.Equal(lifecycle, []string{"withdrawal.detected", "withdrawal.confirmed", "withdrawal.batched", "withdrawal.executed"}) ||
		slices.Index(steps, "claim.tx_outcome") < slices.Index(steps, "withdrawal.batched") {
		t.Fatalf("the audit page of %s: want detected, confirmed, batched, its claim and executed: %v", aggregate, shown)
	}
	// Its story holds hashes, addresses and amounts: none may widen the page.
	requireFits(t, browser, "http://"+addr+"/audit?key="+aggregate, "#audit-timeline", "relay-audit")
}

// searchInBrowser types key into the search box of the page at url,
// submits the form and returns the step kinds of the subject named key.
func searchInBrowser(t *testing.T, browser context.Context, url, key string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`#key`)),
		chromedp.SendKeys(chromedp.CSS(`#key`), key), chromedp.Submit(chromedp.CSS(`#key`)),
		chromedp.WaitVisible(chromedp.CSS(`#audit-timeline, #audit-none, #audit-error`))); err != nil {
		t.Fatalf("search %s in the browser: %v", key, err)
	}
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.Contains(at, "/audit?key=") {
		t.Fatalf("the search box led to %q (%v), not to /audit", at, err)
	}
	quoted, _ := json.Marshal(key)
	kinds, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
  const s = [...document.querySelectorAll('#audit-timeline section.subject')].find(s => s.dataset.id === `+string(quoted)+`);
  return s ? [...s.querySelectorAll('li[data-kind]')].map(li => li.dataset.kind) : [];
})()`))
	if err != nil {
		t.Fatalf("read the audit of %s in the browser: %v", key, err)
	}
	return kinds
}

// auditedKinds are the event types `bridgelog audit KEY --json` gives for
// the subject aggregate, in its order: JSON lines of matches, or one story.
func auditedKinds(t *testing.T, out, aggregate string) []string {
	t.Helper()
	var st analytics.Story
	if json.Unmarshal([]byte(out), &st) == nil && st.Subjects != nil {
		for _, sub := range st.Subjects {
			if sub.ID == aggregate {
				var kinds []string
				for _, s := range sub.Steps {
					kinds = append(kinds, s.Kind)
				}
				return kinds
			}
		}
		return nil
	}
	var kinds []string
	for _, l := range jsonLines(t, out) {
		kinds = append(kinds, l["type"].(string))
	}
	return kinds
}

// withdrawalSteps keeps a withdrawal's own events and its claim's
// transactions: what both an audit's matches and its story hold.
func withdrawalSteps(kinds []string) []string {
	return slices.DeleteFunc(slices.Clone(kinds), func(k string) bool {
		return !strings.HasPrefix(k, "withdrawal.") && !strings.HasPrefix(k, "claim.tx_")
	})
}

// signerFiguresJS reads, in the browser, the signer page's figures keyed
// as signerDocFigures keys them.
const signerFiguresJS = `(() => {
  const f = {session: document.getElementById('session').textContent.trim()};
  for (const row of document.querySelectorAll('#phases tr[data-phase]'))
    f['phase/' + row.dataset.phase] = row.querySelector('td.n').textContent.trim();
  for (const row of document.querySelectorAll('#streams tr[data-stream]')) {
    f['stream/' + row.dataset.stream + '/next'] = row.querySelector('[data-field=next]').textContent.trim();
    f['stream/' + row.dataset.stream + '/pending'] = row.querySelector('[data-field=pending]').textContent.trim();
  }
  for (const row of document.querySelectorAll('#peers tr[data-peer]'))
    f['peer/' + row.dataset.peer + '/session'] = row.lastElementChild.textContent.trim();
  return f;
})()`

// signerDocFigures are the figures of `signer status --json` the page
// shows.
func signerDocFigures(doc signerStatusDoc) figures {
	f := figures{"session": fmt.Sprint(doc.Session)}
	for p, n := range doc.Phases {
		f["phase/"+p] = fmt.Sprint(n)
	}
	for _, s := range doc.Streams {
		f["stream/"+s.Stream+"/next"], f["stream/"+s.Stream+"/pending"] = fmt.Sprint(s.Next), fmt.Sprint(s.Pending)
	}
	for _, p := range doc.Peers {
		f["peer/"+p.ID+"/session"] = fmt.Sprint(p.Session)
	}
	return f
}

// TestSignerConsoleInBrowser: a signer process of a 2-of-3 group that paid
// two burns on kaspad simnet serves its console; headless Chromium finds
// on it the events by phase, streams and peers `signer status` reports.
func TestSignerConsoleInBrowser(t *testing.T) {
	browser := headlessBrowser(t)
	c := newSignerCluster(t, clusterOptions{})
	for i := range 2 {
		c.burn(payoutSompi(i))
	}
	c.waitPaid(2 * time.Minute)
	m := c.member("s1")
	var page, status figures
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		before := signerDocFigures(c.cliStatus("s1"))
		page = loadInBrowser[figures](t, browser, "http://"+m.http+"/", "#phases", signerFiguresJS)
		status = signerDocFigures(c.cliStatus("s1"))
		if equalFigures(before, status) && equalFigures(page, status) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the signer page never showed signer status's figures:\npage:   %v\nstatus: %v", page, status)
		}
	}
	sameFigures(t, "signer page in Chromium", page, status)
	// Its events tables hold Kaspa addresses, stream names and amounts.
	fit := requireFits(t, browser, "http://"+m.http+"/", "#phases", "signer")
	if fit.Amounts < 2 || fit.Longest < 60 {
		t.Fatalf("the signer page shows %d amounts, its longest address or hash %d characters: want the 2 payouts' rows, with their Kaspa addresses", fit.Amounts, fit.Longest)
	}
	if page["phase/Completed"] != "2" || page["peer/s2/session"] == "" || page["peer/s3/session"] == "" {
		t.Fatalf("the page shows %v: want 2 Completed events and peers s2 and s3", page)
	}
}
