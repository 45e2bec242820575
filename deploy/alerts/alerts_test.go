// Package alerts holds bridgelog's Prometheus alert and recording rules;
// this test runs their promtool unit tests as part of the test suite.
package alerts

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/adapters/signermesh"
	"github.com/bridgelog/bridgelog/domain/twophase"
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

// The signer's rules must name series adapters/metrics exports: a typo
// there would be an alert that never fires. The signer process's mesh
// and node series exist from their first observation, made here.
func TestSignerRulesNameExportedSeries(t *testing.T) {
	rules, err := os.ReadFile("bridgelog-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	r := metrics.New(metrics.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	s := r.Signer("s1")
	for _, name := range twophase.MetricNames {
		// Labelled vectors show only the series they hold; the call with
		// the wrong label shape is dropped.
		s.Observe(name, "", 0)
		s.Observe(name, "x", 0)
	}
	mesh, node := r.Mesh(), r.KaspaNode()
	mesh.Handshake("s2", signermesh.OutcomeOK)
	mesh.Sent("s2")
	mesh.Received("s2")
	mesh.Dropped("s2", signermesh.DropQueueFull)
	mesh.Reconnect("s2")
	mesh.Connected("s2", true)
	mesh.Refused(signermesh.RefusalTooManyConnections)
	node.RPCError("get_info")
	node.Reconnected()
	node.VirtualDAAScore(1)
	node.Up(true)
	r.EVMNode().Up(true)
	fams, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range fams {
		name := f.GetName()
		exported[name] = true
		if f.GetType() == dto.MetricType_HISTOGRAM {
			exported[name+"_bucket"], exported[name+"_count"], exported[name+"_sum"] = true, true, true
		}
	}
	used := regexp.MustCompile(`bridgelog_(signer|kaspa_node|evm_node)_[a-z0-9_]+`).FindAllString(string(rules), -1)
	if len(used) == 0 {
		t.Fatal("no bridgelog_signer_ series in the rules")
	}
	for _, name := range used {
		if !exported[name] {
			t.Errorf("the rules use %s, which adapters/metrics does not export", name)
		}
	}
}
