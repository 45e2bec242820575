package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The operator's usual window: the consoles must fit it.
const consoleWidth, consoleHeight = 1280, 800

// consoleFit is what fitJS measures on a page.
type consoleFit struct {
	Viewport int      `json:"viewport"`
	Tables   int      `json:"tables"`
	Amounts  int      `json:"amounts"`
	Longest  int      `json:"longest"` // the longest text of a mono or address cell
	Problems []string `json:"problems"`
}

// fitJS measures, in the page, that every table ends inside the viewport,
// that every number cell (amounts among them) shows all of its text, and
// that the page does not scroll sideways.
const fitJS = `(() => {
  const vw = document.documentElement.clientWidth;
  const r = {viewport: vw, tables: 0, amounts: 0, longest: 0, problems: []};
  for (const t of document.querySelectorAll('table')) {
    r.tables++;
    const right = t.getBoundingClientRect().right;
    if (right > vw + 0.5) r.problems.push('table ' + (t.id || t.dataset.phase) + ' ends at ' + right + 'px, past ' + vw + 'px');
  }
  for (const c of document.querySelectorAll('td.n')) {
    if (c.dataset.field === 'amount') r.amounts++;
    const right = c.getBoundingClientRect().right;
    if (c.scrollWidth > c.clientWidth || right > vw + 0.5)
      r.problems.push('number cell "' + c.textContent.trim() + '" cut: scrollWidth ' + c.scrollWidth + ', clientWidth ' + c.clientWidth + ', right ' + right);
  }
  for (const c of document.querySelectorAll('td.mono, td[data-field=destination], td[data-field=stream]'))
    r.longest = Math.max(r.longest, (c.title || c.textContent.trim()).length);
  if (document.documentElement.scrollWidth > vw) r.problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + 'px');
  return r;
})()`

// requireFits loads url in a 1280×800 window, saves a screenshot of it
// (into $BRIDGELOG_SCREENSHOTS when set, to look at) and fails t unless
// every table fits the window, every number cell is whole and the page
// does not scroll sideways.
func requireFits(t *testing.T, browser context.Context, url, selector, name string) consoleFit {
	t.Helper()
	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(consoleWidth, consoleHeight), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(selector))); err != nil {
		t.Fatalf("load %s in the browser: %v", url, err)
	}
	fit, err := chromedp.Run(ctx, chromedp.Evaluate[consoleFit](fitJS))
	if err != nil {
		t.Fatalf("measure %s in the browser: %v", url, err)
	}
	if dir := os.Getenv("BRIDGELOG_SCREENSHOTS"); dir != "" {
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", url, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if fit.Viewport != consoleWidth || len(fit.Problems) > 0 {
		t.Fatalf("%s at %d×%d: viewport %dpx, %d tables:\n%s", url, consoleWidth, consoleHeight, fit.Viewport, fit.Tables,
			strings.Join(fit.Problems, "\n"))
	}
	return fit
}
