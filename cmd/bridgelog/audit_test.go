package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAuditCommand: on a devnet run's data directory, `bridgelog audit`
// finds a withdrawal's detected, confirmed, batched and executed events
// by its aggregate id and by its transaction hash (given in upper case,
// without 0x), labelling each with what the key is to it, as JSON lines
// and as a table; a key of nothing is said so with exit status 1; a store
// behind its log is said so on standard error; a missing data directory
// is refused and not created.
func TestAuditCommand(t *testing.T) {
	o := devnetRun(t, 2, 2)
	aggregate, tx := devnetWithdrawal(t, o)
	lifecycle := []string{"withdrawal.detected", "withdrawal.confirmed", "withdrawal.batched", "withdrawal.executed"}

	for _, c := range []struct{ key, kind string }{
		{aggregate, "aggregate"},
		{strings.ToUpper(strings.TrimPrefix(tx, "0x")), "evm_tx"},
	} {
		out, stderr := o.run(0, "audit", c.key, "--events", "--json")
		if stderr != "" {
			t.Fatalf("audit %s wrote to stderr on a caught-up store: %s", c.key, stderr)
		}
		lines := jsonLines(t, out)
		var types []string
		for _, l := range lines {
			if l["aggregateId"] != aggregate {
				continue // the claim's transactions, found by correlation
			}
			types = append(types, l["type"].(string))
			if kinds, _ := l["kinds"].([]any); !slices.Contains(kinds, any(c.kind)) {
				t.Fatalf("audit %s: %s labelled %v, want %s", c.key, l["type"], l["kinds"], c.kind)
			}
		}
		for _, want := range lifecycle {
			if !slices.Contains(types, want) {
				t.Fatalf("audit %s: no %s among %v", c.key, want, types)
			}
		}
		if i := slices.Index(types, "withdrawal.detected"); i != 0 || !slices.IsSortedFunc(lines, byRecorded) {
			t.Fatalf("audit %s: not in recorded order: %v", c.key, types)
		}
	}

	table, _ := o.run(0, "audit", tx, "--events")
	if !strings.HasPrefix(table, "RECORDED") || !strings.Contains(table, "KINDS") ||
		!strings.Contains(table, "withdrawal.executed") || !strings.Contains(table, "evm_tx") {
		t.Fatalf("audit table:\n%s", table)
	}

	// The story: the withdrawal named by its transaction, its steps from
	// the chain log to the claim's outcome with gas, and in words.
	story, _ := o.run(0, "audit", tx)
	if !strings.HasPrefix(story, "== withdrawal "+aggregate) || !strings.Contains(story, "claim.tx_outcome") ||
		!strings.Contains(story, "gas_used=") || !strings.Contains(story, "proof") {
		t.Fatalf("audit story:\n%s", story)
	}
	explained, _ := o.run(0, "audit", aggregate, "--explain")
	if !strings.Contains(explained, "the withdrawal was confirmed") {
		t.Fatalf("audit --explain:\n%s", explained)
	}

	out, stderr := o.run(1, "audit", "withdrawal:evm:1337:0x00:0", "--json")
	if !strings.Contains(stderr, "no event matches") || !strings.Contains(out, `"subjects": []`) {
		t.Fatalf("a key of nothing: %s\n%s", out, stderr)
	}

	tamper(t, o.data, `DELETE FROM projection_checkpoints WHERE projection = 'audit_keys' AND topic = 'bridgelog.bridge.v1'`)
	if _, stderr := o.run(0, "audit", aggregate, "--events"); !strings.Contains(stderr, "audit_keys has not folded the last") {
		t.Fatalf("a store behind its log: %s", stderr)
	}

	missing := filepath.Join(t.TempDir(), "nothing-here")
	gone := operator{t: t, bin: o.bin, data: missing}
	if _, stderr := gone.run(1, "audit", aggregate); !strings.Contains(stderr, "no bridgelog data in") {
		t.Fatalf("a missing data directory: %s", stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("audit created %s: %v", missing, err)
	}
}

// byRecorded orders audit JSON lines as a finder must give them.
func byRecorded(a, b map[string]any) int {
	if a["recordedMs"].(float64) != b["recordedMs"].(float64) {
		return int(a["recordedMs"].(float64) - b["recordedMs"].(float64))
	}
	return strings.Compare(a["topic"].(string), b["topic"].(string))
}

// devnetRun runs `bridgelog devnet` (EVM only) with the given flows to
// completion and returns an operator on its data directory: a log and
// store as a relay leaves them, for audits (local or, sunk, ClickHouse).
func devnetRun(t *testing.T, deposits, withdrawals int) operator {
	t.Helper()
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	out, _ := o.run(0, "devnet", "--deposits", strconv.Itoa(deposits), "--withdrawals", strconv.Itoa(withdrawals), "--kaspa-payouts", "0", "--timeout", "90s")
	if !strings.Contains(out, "every deposit minted once, every withdrawal paid once") {
		t.Fatalf("devnet:\n%s", out)
	}
	return o
}

// devnetWithdrawal returns the aggregate id and the burn transaction of
// the first withdrawal on o's log.
func devnetWithdrawal(t *testing.T, o operator) (aggregate, tx string) {
	t.Helper()
	for _, ev := range jsonLines(t, first(o.run(0, "log", "inspect", "--json", "--topic", "bridgelog.bridge.v1", "--limit", "1000"))) {
		if ev["type"] == "withdrawal.detected" {
			aggregate = ev["aggregateId"].(string)
			// withdrawal:evm:CHAIN:TX:LOG
			if parts := strings.Split(aggregate, ":"); len(parts) == 5 {
				return aggregate, parts[3]
			}
			t.Fatalf("withdrawal aggregate id %q", aggregate)
		}
	}
	t.Fatal("no withdrawal on the devnet's log")
	return "", ""
}
