package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// devnetProgress is devnet's live display. On a terminal it is one line,
// fitted to the terminal's width and redrawn in place; elsewhere (a file,
// a pipe, CI) it is a plain line every few seconds.
type devnetProgress struct {
	w           io.Writer
	deposits    int // expected, the denominators
	withdrawals int
	started     time.Time
	now         func() time.Time
	columns     func() int    // the terminal's width; nil: not a terminal
	every       time.Duration // between plain lines
	last        string        // the line shown on the terminal
	lastAt      time.Time     // when the last plain line was printed
	lastStats   projections.BridgeStats
	// kaspa is the Kaspa payouts' count ("kaspa 3/10 paid", and ", 1/2
	// refunded" with refused burns); "" when the devnet pays none.
	kaspa string
}

// setKaspa sets the Kaspa payouts' and refused burns' counts shown from
// the next redraw.
func (p *devnetProgress) setKaspa(paid, want, refunded, refused int) {
	if want > 0 || refused > 0 {
		p.kaspa = fmt.Sprintf("kaspa %d/%d paid", paid, want)
	}
	if refused > 0 {
		p.kaspa += fmt.Sprintf(", %d/%d refunded", refunded, refused)
	}
}

// fallbackColumns is the width assumed when a terminal does not say.
const fallbackColumns = 80

func newDevnetProgress(w io.Writer, deposits, withdrawals int) *devnetProgress {
	p := &devnetProgress{w: w, deposits: deposits, withdrawals: withdrawals, now: time.Now, every: 5 * time.Second}
	p.started = p.now()
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fd := int(f.Fd())
		// Read at every redraw: the window may be resized while devnet runs.
		p.columns = func() int {
			if c, _, err := term.GetSize(fd); err == nil && c > 0 {
				return c
			}
			return fallbackColumns
		}
	}
	return p
}

func (p *devnetProgress) show(s projections.BridgeStats) {
	p.lastStats = s
	now := p.now()
	elapsed := now.Sub(p.started)
	if p.columns != nil {
		line := formatDevnetLine(s, p.deposits, p.withdrawals, p.kaspa, elapsed, p.columns())
		if line == p.last {
			return
		}
		p.last = line
		// Back to the line's start, draw, clear what a longer line left.
		fmt.Fprint(p.w, "\r"+line+"\x1b[K")
		return
	}
	if !p.lastAt.IsZero() && now.Sub(p.lastAt) < p.every {
		return
	}
	p.lastAt = now
	fmt.Fprintln(p.w, plainDevnetLine(s, p.deposits, p.withdrawals, p.kaspa, elapsed))
}

// finish ends the display: the terminal line is closed, and a plain
// output gets its final counts.
func (p *devnetProgress) finish() {
	if p.columns != nil {
		if p.last != "" {
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintln(p.w, plainDevnetLine(p.lastStats, p.deposits, p.withdrawals, p.kaspa, p.now().Sub(p.started)))
}

// Bar widths of the terminal line, in cells.
const (
	minBarCells = 10
	maxBarCells = 30
)

// formatDevnetLine is the terminal line for the given width: shorter than
// it, so that it never wraps (a wrapped line cannot be redrawn in place).
// The counts of done flows always show; the bar, then the states before
// done, the batches and the time are added while they fit.
func formatDevnetLine(s projections.BridgeStats, deposits, withdrawals int, kaspa string, elapsed time.Duration, columns int) string {
	limit := max(columns, 2) - 1 // writing the last column wraps on some terminals
	dep, wd := depositCounts(s, deposits), withdrawalCounts(s, withdrawals)
	batches := batchCounts(s.Batches)
	type part struct {
		text   string
		detail bool // follows the count before it, after one space
	}
	parts := []part{{dep.done, false}, {dep.detail, true}, {wd.done, false}, {wd.detail, true}, {kaspa, false},
		{batches.done, false}, {batches.detail, true}, {formatElapsed(elapsed), false}}
	kept := []bool{true, false, true, false, true, false, false, false}
	render := func() string {
		var b strings.Builder
		for i, p := range parts {
			if !kept[i] || p.text == "" {
				continue
			}
			switch {
			case b.Len() == 0:
			case p.detail:
				b.WriteString(" ")
			default:
				b.WriteString("  ")
			}
			b.WriteString(p.text)
		}
		return b.String()
	}
	// room is what is left for the bar and its edges: "devnet BAR TEXT".
	room := func(text string) int { return limit - utf8.RuneCountInString("devnet  "+text) }
	if room(render()) < minBarCells+2 {
		return truncateRunes("devnet "+render(), limit)
	}
	for i, p := range parts {
		if kept[i] || p.text == "" || (p.detail && !kept[i-1]) {
			continue
		}
		if kept[i] = true; room(render()) < minBarCells+2 {
			kept[i] = false
		}
	}
	text := render()
	done := s.Deposits[string(domain.StatusMinted)] + s.Withdrawals[string(domain.StatusExecuted)]
	return "devnet " + bar(done, int64(deposits+withdrawals), min(room(text), maxBarCells+2)-2) + " " + text
}

// plainDevnetLine is one progress line for output that is not a terminal.
func plainDevnetLine(s projections.BridgeStats, deposits, withdrawals int, kaspa string, elapsed time.Duration) string {
	dep, wd := depositCounts(s, deposits), withdrawalCounts(s, withdrawals)
	line := fmt.Sprintf("devnet: %s: %s, %s", formatElapsed(elapsed), joinNonEmpty(" ", dep.done, dep.detail),
		joinNonEmpty(" ", wd.done, wd.detail))
	if kaspa != "" {
		line += ", " + kaspa
	}
	return line + ", " + batchWords(s.Batches)
}

// flowCounts says how far one kind of flow is: done of expected, and how
// many are in the states before done.
type flowCounts struct{ done, detail string }

func depositCounts(s projections.BridgeStats, want int) flowCounts {
	return flowCounts{
		done:   fmt.Sprintf("deposits %d/%d minted", s.Deposits[string(domain.StatusMinted)], want),
		detail: parenthesised(statusWords(s.Deposits, domain.StatusDetected, domain.StatusConfirmed, domain.StatusFailed)),
	}
}

func withdrawalCounts(s projections.BridgeStats, want int) flowCounts {
	return flowCounts{
		done: fmt.Sprintf("withdrawals %d/%d claimed", s.Withdrawals[string(domain.StatusExecuted)], want),
		detail: parenthesised(statusWords(s.Withdrawals, domain.StatusDetected, domain.StatusConfirmed, domain.StatusBatched,
			domain.StatusFailed)),
	}
}

// statusWords counts the given states that are not empty: "4 confirmed,
// 1 failed".
func statusWords(m map[string]int64, states ...domain.Status) string {
	var words []string
	for _, st := range states {
		if n := m[string(st)]; n > 0 {
			words = append(words, fmt.Sprintf("%d %s", n, stateWord(string(st))))
		}
	}
	return strings.Join(words, ", ")
}

// batchCounts is "batches 2 anchored" with the batches in other states:
// "(1 created, 1 anchor failed)".
func batchCounts(m map[string]int64) flowCounts {
	const anchored = "ANCHORED"
	others := make([]string, 0, len(m))
	for st := range m {
		if st != anchored {
			others = append(others, st)
		}
	}
	sort.Strings(others)
	states := make([]domain.Status, len(others))
	for i, st := range others {
		states[i] = domain.Status(st)
	}
	return flowCounts{done: fmt.Sprintf("batches %d anchored", m[anchored]), detail: parenthesised(statusWords(m, states...))}
}

func batchWords(m map[string]int64) string {
	c := batchCounts(m)
	return joinNonEmpty(" ", c.done, c.detail)
}

// stateWord is a stored state name as a word: ANCHOR_FAILED, anchor failed.
func stateWord(st string) string { return strings.ReplaceAll(strings.ToLower(st), "_", " ") }

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func joinNonEmpty(sep string, parts ...string) string {
	kept := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// bar draws done of total in cells, between two edges.
func bar(done, total int64, cells int) string {
	filled := 0
	if total > 0 {
		filled = int(min(done, total) * int64(cells) / total)
	}
	return "|" + strings.Repeat("█", filled) + strings.Repeat(" ", cells-filled) + "|"
}

func formatElapsed(d time.Duration) string { return d.Round(time.Second).String() }

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n, 0)])
}
