package main

import (
	"bytes"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/projections"
)

// midRun is a devnet part way through: some deposits minted, others
// confirmed, withdrawals in every state, batches anchored and failed.
func midRun() projections.BridgeStats {
	return projections.BridgeStats{
		Deposits:    map[string]int64{"MINTED": 16, "CONFIRMED": 3, "DETECTED": 1},
		Withdrawals: map[string]int64{"EXECUTED": 8, "BATCHED": 6, "CONFIRMED": 4, "DETECTED": 1, "FAILED": 1},
		Batches:     map[string]int64{"ANCHORED": 2, "ANCHOR_FAILED": 1},
	}
}

// TestDevnetLineFitsTheTerminal: the live line is shorter than the
// terminal at 80 and 120 columns (and at widths too narrow for the bar),
// says done of expected for both flows, and keeps the details where they
// fit.
func TestDevnetLineFitsTheTerminal(t *testing.T) {
	for _, c := range []struct {
		columns int
		want    []string
		lacks   []string
	}{
		{80, []string{"devnet |", "deposits 16/20 minted", "withdrawals 8/20 claimed"}, []string{"map["}},
		{120, []string{"devnet |", "deposits 16/20 minted (1 detected, 3 confirmed)", "withdrawals 8/20 claimed", "batches 2 anchored"},
			[]string{"map["}},
		{200, []string{"withdrawals 8/20 claimed (1 detected, 4 confirmed, 6 batched, 1 failed)",
			"batches 2 anchored (1 anchor failed)", "1m5s"}, nil},
		{40, []string{"devnet deposits 16/20"}, []string{"|"}},
	} {
		line := formatDevnetLine(midRun(), 20, 20, "", 65*time.Second, c.columns)
		if n := utf8.RuneCountInString(line); n >= c.columns {
			t.Errorf("%d columns: a line of %d: %q", c.columns, n, line)
		}
		for _, w := range c.want {
			if !strings.Contains(line, w) {
				t.Errorf("%d columns: %q lacks %q", c.columns, line, w)
			}
		}
		for _, l := range c.lacks {
			if strings.Contains(line, l) {
				t.Errorf("%d columns: %q has %q", c.columns, line, l)
			}
		}
	}
}

// TestDevnetDisplayRedrawsInPlace: on a terminal every redraw returns to
// the line's start and clears its rest, never starting a new line until
// the end; an unchanged line is not drawn again.
func TestDevnetDisplayRedrawsInPlace(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := &devnetProgress{w: &out, deposits: 20, withdrawals: 20, started: clock, now: func() time.Time { return clock },
		columns: func() int { return 80 }}
	s := midRun()
	for i := 0; i < 5; i++ {
		s.Deposits["MINTED"] = int64(10 + i)
		p.show(s)
		p.show(s)
	}
	p.finish()
	draws := strings.Split(out.String(), "\r")[1:]
	if len(draws) != 5 || strings.Count(out.String(), "\n") != 1 || !strings.HasSuffix(out.String(), "\n") {
		t.Fatalf("want 5 draws in place and one newline at the end:\n%q", out.String())
	}
	for _, d := range draws {
		line := strings.TrimSuffix(strings.TrimSuffix(d, "\n"), "\x1b[K")
		if n := utf8.RuneCountInString(line); n >= 80 || !strings.HasSuffix(strings.TrimSuffix(d, "\n"), "\x1b[K") {
			t.Fatalf("draw of %d runes, or not cleared to the line's end: %q", n, d)
		}
	}
}

// TestDevnetPlainProgress: output that is not a terminal gets a plain
// line (no carriage return, no escape, no bar) every few seconds, and a
// last line at the end.
func TestDevnetPlainProgress(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := newDevnetProgress(&out, 20, 20)
	p.started, p.now = clock, func() time.Time { return clock }
	if p.columns != nil {
		t.Fatal("a buffer taken for a terminal")
	}
	for i := 0; i <= 12; i++ { // every second for 12s: lines at 0s, 5s, 10s
		p.show(midRun())
		clock = clock.Add(time.Second)
	}
	p.finish()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 || strings.ContainsAny(out.String(), "\r\x1b|") {
		t.Fatalf("want 3 periodic lines and a last one, plain:\n%s", out.String())
	}
	want := "devnet: 5s: deposits 16/20 minted (1 detected, 3 confirmed), withdrawals 8/20 claimed " +
		"(1 detected, 4 confirmed, 6 batched, 1 failed), batches 2 anchored (1 anchor failed)"
	if lines[1] != want {
		t.Fatalf("line\n%s\nwant\n%s", lines[1], want)
	}
	if !strings.HasPrefix(lines[3], "devnet: 13s: ") {
		t.Fatalf("last line: %s", lines[3])
	}
}

// TestDevnetSummaryInWords: the summary names batch states in words, not
// Go's map syntax, and says INCOMPLETE when the chain differs.
func TestDevnetSummaryInWords(t *testing.T) {
	var out bytes.Buffer
	a := devchain.Audit{Supply: big.NewInt(0), Locked: big.NewInt(0)}
	ok := printDevnetSummary(&out, midRun(), a, devchain.Counts{Locks: 20, Burns: 20}, time.Minute)
	printDevnetResult(&out, ok, 0, 0)
	s := out.String()
	if ok || strings.Contains(s, "map[") || !strings.Contains(s, "batches                2 anchored (1 anchor failed)") ||
		!strings.Contains(s, "chain differs          0 deposits locked on chain, 20 sent") || !strings.Contains(s, "INCOMPLETE") {
		t.Fatalf("summary:\n%s", s)
	}
}

// TestDevnetSecondRun: a second devnet on the same --data refuses, naming
// --fresh and leaving the previous run whole; with --fresh it deletes the
// run (its keystore and passphrase too) and says so. A log or a keystore
// that no devnet wrote is refused either way.
func TestDevnetSecondRun(t *testing.T) {
	dir := t.TempDir()
	if cleared, err := prepareDevnetData(dir, false); err != nil || cleared {
		t.Fatalf("a new directory: cleared %t, %v", cleared, err)
	}
	run := []string{filepath.Join(dir, "log", "seg"), filepath.Join(dir, "projections.db"), filepath.Join(dir, devnetKeystoreDir, "UTC--k"),
		filepath.Join(dir, devnetPassphrase), filepath.Join(dir, "devnet.json")}
	for _, f := range run {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := prepareDevnetData(dir, false)
	if !errors.Is(err, ErrPreviousDevnet) || !strings.Contains(err.Error(), "--fresh") {
		t.Fatalf("a second run without --fresh: %v", err)
	}
	for _, f := range run {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the refused run touched the previous one: %v", err)
		}
	}
	if cleared, err := prepareDevnetData(dir, true); err != nil || !cleared {
		t.Fatalf("with --fresh: cleared %t, %v", cleared, err)
	}
	for _, f := range run {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s left after --fresh: %v", f, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "log")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := prepareDevnetData(dir, true); !errors.Is(err, ErrNotDevnetData) {
		t.Fatalf("a log no devnet wrote, with --fresh: %v", err)
	}
	keys := t.TempDir()
	if err := os.MkdirAll(filepath.Join(keys, devnetKeystoreDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := prepareDevnetData(keys, true); !errors.Is(err, ErrNotDevnetData) {
		t.Fatalf("a keystore no devnet wrote, with --fresh: %v", err)
	}
	if _, err := os.Stat(filepath.Join(keys, devnetKeystoreDir)); err != nil {
		t.Fatalf("the refused run touched the keystore: %v", err)
	}
}

// TestDevnetProgressKaspaCounts: the progress line's Kaspa part counts the
// payouts paid, and the refunds of refused burns when there are any.
func TestDevnetProgressKaspaCounts(t *testing.T) {
	for _, c := range []struct {
		paid, want, refunded, refused int
		line                          string
	}{
		{0, 0, 0, 0, ""}, {3, 4, 0, 0, "kaspa 3/4 paid"}, {3, 4, 1, 2, "kaspa 3/4 paid, 1/2 refunded"}, {0, 0, 2, 2, "kaspa 0/0 paid, 2/2 refunded"},
	} {
		p := &devnetProgress{}
		p.setKaspa(c.paid, c.want, c.refunded, c.refused)
		if p.kaspa != c.line {
			t.Errorf("setKaspa(%d, %d, %d, %d): %q, want %q", c.paid, c.want, c.refunded, c.refused, p.kaspa, c.line)
		}
	}
}
