package main

import (
	"encoding/json"
	"slices"
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
