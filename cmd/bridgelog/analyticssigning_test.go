package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/analytics/chtest"
)

// TestAnalyticsSigningCommands keeps the signers' logs of a simulated run
// (simulate --log-dir), sinks each data directory through the binary (its
// origin detected from the log), and reads the signers' figures and the
// alert conditions back with the commands.
func TestAnalyticsSigningCommands(t *testing.T) {
	srv := chtest.Start(t)
	dsn := srv.NewDB(t)
	bin, dir := testBinary(t), t.TempDir()
	raw, err := exec.Command(bin, "simulate", "--signers", "3", "--events", "4", "--streams", "4", "--seed", "3",
		"--partition", "1/1/1@0s+10h", "--json", "--log-dir", dir).Output()
	if err != nil {
		t.Fatalf("simulate: %v\n%s", err, raw)
	}
	var rep struct {
		Events, Abandoned, Retries int
	}
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Abandoned != 4 {
		t.Fatalf("simulate's report: %v %s", err, raw)
	}
	for _, id := range []string{"s1", "s2", "s3"} {
		o := operator{t: t, bin: bin, data: filepath.Join(dir, id)}
		if out, _ := o.run(0, "analytics", "sink", "--clickhouse", dsn); !strings.Contains(out, "of signer "+id+"'s log") {
			t.Fatalf("sink %s: %s", id, out)
		}
		if out, _ := o.run(0, "analytics", "sink", "--clickhouse", dsn); !strings.Contains(out, "sank 0 records") {
			t.Fatalf("second sink of %s: %s", id, out)
		}
	}
	o := operator{t: t, bin: bin, data: filepath.Join(dir, "s1")}
	if _, errOut := o.run(1, "analytics", "sink", "--origin", "s@1", "--clickhouse", dsn); !strings.Contains(errOut, "origin") {
		t.Fatalf("--origin s@1: %s", errOut)
	}
	var got struct {
		Signers []struct {
			Origin                     string
			Events, Abandoned, Retries uint64
		}
	}
	out, _ := o.run(0, "analytics", "signing", "--json", "--clickhouse", dsn)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("signing --json: %v\n%s", err, out)
	}
	if len(got.Signers) != 4 || got.Signers[0].Origin != "*" || got.Signers[0].Events != uint64(rep.Events) ||
		got.Signers[0].Abandoned != uint64(rep.Abandoned) || got.Signers[0].Retries != uint64(rep.Retries) {
		t.Fatalf("signing: %+v; the report: %+v", got, rep)
	}
	errs, _ := o.run(0, "analytics", "errors", "--clickhouse", dsn)
	for _, want := range []string{`ALERT CONDITION`, `merkle root anchoring failed\s+-\s+no`,
		`signing events abandoned\s+s3\s+YES\s+4 event\(s\) abandoned`} {
		if !regexp.MustCompile(want).MatchString(errs) {
			t.Fatalf("errors: no %q in\n%s", want, errs)
		}
	}
}
