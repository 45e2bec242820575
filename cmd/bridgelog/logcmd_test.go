package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLogInspectLimitIsTotal: --limit counts events in all, partition
// after partition, not per partition.
func TestLogInspectLimitIsTotal(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	o.run(0, "log", "generate", "--events", "300", "--seed", "4")
	type pos struct {
		Partition int32 `json:"partition"`
		Offset    int64 `json:"offset"`
	}
	inspect := func(args ...string) []pos {
		t.Helper()
		out, _ := o.run(0, append([]string{"log", "inspect", "--json"}, args...)...)
		var ps []pos
		for _, l := range lines(out) {
			var p pos
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatalf("%v: %q", err, l)
			}
			ps = append(ps, p)
		}
		return ps
	}
	if got := inspect("--limit", "5"); len(got) != 5 || got[0] != (pos{0, 0}) || got[4] != (pos{0, 4}) {
		t.Fatalf("--limit 5: %v", got)
	}
	first := len(inspect("--partition", "0", "--limit", "100000"))
	if first < 2 {
		t.Fatalf("partition 0 holds %d events", first)
	}
	// Past the end of partition 0 the count goes on in partition 1.
	got := inspect("--limit", fmt.Sprint(first+3))
	if len(got) != first+3 || got[first-1] != (pos{0, int64(first - 1)}) || got[first] != (pos{1, 0}) || got[first+2] != (pos{1, 2}) {
		t.Fatalf("--limit %d with %d events in partition 0: %v", first+3, first, got)
	}
	if all := inspect("--limit", "100000"); len(all) != 300 {
		t.Fatalf("--limit 100000 printed %d of 300 events", len(all))
	}
	if _, errOut := o.run(1, "log", "inspect", "--limit", "-1"); !strings.Contains(errOut, "--limit -1") {
		t.Fatalf("--limit -1: %s", errOut)
	}
}
