package analytics

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAlertThresholdsMatchTheRules: the warehouse's alert conditions use
// the windows and thresholds of deploy/alerts/bridgelog-rules.yml. The
// rules are the one source; a threshold changed there and not here (or
// the reverse) fails this test.
func TestAlertThresholdsMatchTheRules(t *testing.T) {
	raw, err := os.ReadFile("../deploy/alerts/bridgelog-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules := alertExprs(string(raw))
	window := func(d time.Duration) string {
		if d%time.Hour == 0 {
			return fmt.Sprintf("[%dh]", d/time.Hour)
		}
		return fmt.Sprintf("[%dm]", d/time.Minute)
	}
	share := func(f float64) string { return "> " + strconv.FormatFloat(f, 'f', -1, 64) }
	for alert, wants := range map[string][]string{
		"BridgelogAnchorFailed":                      {window(anchorWindow)},
		"BridgelogWithdrawalFailureRateHigh":         {window(claimWindow), share(claimFailShare)},
		"BridgelogBatchCreationDelayed":              {fmt.Sprintf("> %d", int(batchDelay.Seconds()))},
		"BridgelogConfirmationDepthViolation":        {window(depthWindow)},
		"BridgelogEventConflict":                     {window(conflictWindow)},
		"BridgelogRateLimited":                       {window(rateLimitWait)},
		"BridgelogRelayPausedTooLong":                {fmt.Sprintf("> %d", int(pausedTooLong.Seconds()))},
		"BridgelogSignerEventAbandoned":              {window(signerWindow)},
		"BridgelogSignerTimeoutRateHigh":             {window(signerWindow), share(timeoutShare)},
		"BridgelogSignerRevalidationFailureRateHigh": {window(signerWindow), share(revalidationShare)},
		"BridgelogSignerMeshRefused":                 {window(meshRefusedWindow), fmt.Sprintf("> %d", meshRefusedCount)},
	} {
		expr, ok := rules[alert]
		if !ok {
			t.Errorf("%s: not in the rules", alert)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(expr, w) {
				t.Errorf("%s: expr %q lacks %q, which analytics/alerts.go uses", alert, expr, w)
			}
		}
	}
}

// alertExprs maps each alert of a rules file to its expr text (a one-line
// expr or a block).
func alertExprs(yml string) map[string]string {
	out := map[string]string{}
	var name string
	inExpr := false
	for _, line := range strings.Split(yml, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "- alert:"):
			name, inExpr = strings.TrimSpace(strings.TrimPrefix(trim, "- alert:")), false
		case strings.HasPrefix(trim, "- record:"):
			name, inExpr = "", false
		case name != "" && strings.HasPrefix(trim, "expr:"):
			out[name] = strings.TrimSpace(strings.TrimPrefix(trim, "expr:"))
			inExpr = out[name] == "|"
			if inExpr {
				out[name] = ""
			}
		case inExpr && strings.HasPrefix(line, "          "):
			out[name] += trim + " "
		default:
			inExpr = false
		}
	}
	return out
}
