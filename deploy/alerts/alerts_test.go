// Package alerts holds bridgelog's Prometheus alert and recording rules;
// this test runs their promtool unit tests as part of the test suite.
package alerts

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestAlertRules checks the rules and runs their unit tests
// (bridgelog-rules.test.yml) with promtool, which deploy/test.sh installs
// (Debian package prometheus).
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool not found (%v): install it with apt-get install -y prometheus", err)
	}
	for _, args := range [][]string{
		{"check", "rules", "bridgelog-rules.yml"},
		{"test", "rules", "bridgelog-rules.test.yml"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, promtool, args...).CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
