package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// lines splits a command's output into its lines.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestVerifyAndReplayQuiet: on a small relay log, verify and replay print
// a line per projection and a final line on standard output, and nothing
// on standard error; --log-level debug shows their internal steps; a
// mismatch still exits with status 3, its verdict the one line on
// standard error.
func TestVerifyAndReplayQuiet(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "2000", "--seed", "31", "--relay-events")
	o.run(0, "project")
	labels := []string{"processed_events@v1", "audit_keys@v2", "deposits@v1", withdrawalsLabel(), "withdrawals_to_kaspa@v1", "tx_intents@v2",
		"chain_cursors@v2", "relay_bindings@v1", "refunds@v1", "relay_brakes@v1", "batches@v1", "event_phase@v2", "event_proposals@v1", "signed_templates@v1",
		"lock_certificates@v1", "kaspa_deposits@v1"}

	out, errOut := o.run(0, "verify")
	if errOut != "" {
		t.Fatalf("verify wrote to standard error:\n%s", errOut)
	}
	got := lines(out)
	if len(got) != len(labels)+1 {
		t.Fatalf("verify printed %d lines, want %d:\n%s", len(got), len(labels)+1, out)
	}
	// A line per projection, in the order their checks end.
	for _, l := range labels {
		if !slices.ContainsFunc(got[:len(labels)], func(line string) bool { return strings.HasPrefix(line, "ok        "+l+"  ") }) {
			t.Fatalf("verify printed no ok line for %s:\n%s", l, out)
		}
	}
	if v := got[len(labels)]; v != "verify: 16 projections equal to a rebuild, log frames intact" {
		t.Fatalf("verify verdict %q", v)
	}
	if _, errOut := o.run(0, "verify", "--log-level", "debug"); !strings.Contains(errOut, "level=DEBUG") ||
		!strings.Contains(errOut, "projection loading from zero through the store's bulk loader") {
		t.Fatalf("verify --log-level debug does not show the rebuild's steps:\n%s", errOut)
	}

	out, errOut = o.run(0, "replay")
	if errOut != "" {
		t.Fatalf("replay wrote to standard error:\n%s", errOut)
	}
	got = lines(out)
	if len(got) != len(labels)+1 {
		t.Fatalf("replay printed %d lines, want %d:\n%s", len(got), len(labels)+1, out)
	}
	for _, l := range labels {
		re := regexp.MustCompile(`^` + l + ` +live +\d+ rows`)
		found := false
		for _, line := range got[:len(labels)] {
			found = found || re.MatchString(line)
		}
		if !found {
			t.Fatalf("replay printed no line of %s's rows:\n%s", l, out)
		}
	}
	final := regexp.MustCompile(`^replay: folded 2000 records in [0-9.]+m?s, \d+ events/s: \d+ first, \d+ duplicates, \d+ conflicts, 0 skipped$`)
	if !final.MatchString(got[len(labels)]) {
		t.Fatalf("replay's final line %q", got[len(labels)])
	}
	if _, errOut := o.run(0, "replay", "--log-level", "debug"); !strings.Contains(errOut, "store replaced") {
		t.Fatalf("replay --log-level debug does not show the store's replacement:\n%s", errOut)
	}

	tamper(t, o.data, setFirstWithdrawalAmount("1"))
	out, errOut = o.run(3, "verify")
	want := "bridgelog: verify: digest mismatch in " + withdrawalsLabel() + " (15 of 16 projections equal to a rebuild)"
	if e := lines(errOut); len(e) != 1 || e[0] != want {
		t.Fatalf("verify of a changed row: standard error\n%s\nwant the one line %q", errOut, want)
	}
	if !strings.Contains(out, "MISMATCH  "+withdrawalsLabel()) || strings.Count(okLines(out), "ok ") != 15 || strings.Contains(out, "verify: ") {
		t.Fatalf("verify of a changed row: standard output\n%s", out)
	}
}
