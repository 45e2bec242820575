package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
)

// TestAuditFromStoreEqualsAuditFromClickHouse: on a devnet run sunk into
// ClickHouse, `bridgelog audit` (the local store and log) and `bridgelog
// analytics audit` (the warehouse) print the same bytes for a
// withdrawal's key and for every key its story links to (its
// transactions, batch, leaf, claim), as stories and as event lists.
func TestAuditFromStoreEqualsAuditFromClickHouse(t *testing.T) {
	srv := chtest.Start(t)
	o := devnetRun(t, 2, 2)
	dsn := srv.NewDB(t)
	o.run(0, "analytics", "sink", "--clickhouse", dsn)
	aggregate, tx := devnetWithdrawal(t, o)

	var story analytics.Story
	if err := json.Unmarshal([]byte(first(o.run(0, "audit", aggregate, "--json"))), &story); err != nil {
		t.Fatal(err)
	}
	keys := []string{aggregate, tx}
	for _, sub := range story.Subjects {
		for _, step := range sub.Steps {
			for _, link := range step.Links {
				if !slices.Contains(keys, link) {
					keys = append(keys, link)
				}
			}
		}
	}
	t.Logf("comparing the audits of %d keys: %v", len(keys), keys)
	if len(keys) < 5 {
		t.Fatalf("the withdrawal's story links to %v only; want its batch, leaf and transactions", keys)
	}
	for _, key := range keys {
		for _, flags := range [][]string{{"--json"}, {"--events", "--json"}, {"--explain"}} {
			local, _ := o.run(0, append([]string{"audit", key}, flags...)...)
			warehouse, _ := o.run(0, append([]string{"analytics", "audit", key, "--clickhouse", dsn}, flags...)...)
			if local != warehouse {
				t.Fatalf("audit %s %v differs:\nlocal store:\n%s\nClickHouse:\n%s", key, flags, local, warehouse)
			}
		}
	}
	// A key of nothing: both exit 1.
	o.run(1, "audit", "batches:1:0x00/9")
	o.run(1, "analytics", "audit", "batches:1:0x00/9", "--clickhouse", dsn)
}

// TestSignerAuditFromStoreEqualsAuditFromClickHouse: a simulated signer's
// data directory, projected and sunk alone into a warehouse, audits a
// signing event the same from its store as from ClickHouse, its log named
// by the signer's id both ways, and the story shows the round's votes,
// the commit's quorum and the payout.
func TestSignerAuditFromStoreEqualsAuditFromClickHouse(t *testing.T) {
	srv := chtest.Start(t)
	bin, dir := testBinary(t), t.TempDir()
	if out, err := exec.Command(bin, "simulate", "--signers", "3", "--events", "3", "--streams", "3", "--seed", "4",
		"--log-dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("simulate: %v\n%s", err, out)
	}
	o := operator{t: t, bin: bin, data: filepath.Join(dir, "s1")}
	dsn := srv.NewDB(t)
	o.run(0, "analytics", "sink", "--clickhouse", dsn)
	o.run(0, "project")
	var event string
	for _, ev := range jsonLines(t, first(o.run(0, "log", "inspect", "--json", "--topic", "bridgelog.signing.v1", "--limit", "1000"))) {
		if ev["type"] == "signing.completed" {
			event = strings.TrimPrefix(ev["aggregateId"].(string), "signing:")
			break
		}
	}
	if event == "" {
		t.Fatal("no completed signing event on s1's log")
	}
	for _, flags := range [][]string{{"--json"}, {"--events", "--json"}, {"--explain"}} {
		local, _ := o.run(0, append([]string{"audit", event}, flags...)...)
		warehouse, _ := o.run(0, append([]string{"analytics", "audit", event, "--clickhouse", dsn}, flags...)...)
		if local != warehouse {
			t.Fatalf("audit %s %v differs:\nlocal store:\n%s\nClickHouse:\n%s", event, flags, local, warehouse)
		}
	}
	story, _ := o.run(0, "audit", event, "--json")
	explained, _ := o.run(0, "audit", event, "--explain")
	for _, want := range []string{`"log": "bridgelog.signing.v1@s1"`, `"kind": "signing.committed"`, `"kind": "signing.payout_submitted"`} {
		if !strings.Contains(story, want) {
			t.Fatalf("the story of %s has no %s:\n%s", event, want, story)
		}
	}
	if !strings.Contains(explained, "voted for template") || !strings.Contains(explained, "quorum") {
		t.Fatalf("the explained story of %s:\n%s", event, explained)
	}
}
