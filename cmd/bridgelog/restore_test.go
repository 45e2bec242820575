package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestRestoreFromAnOlderLogPaysNothingTwice: an operator who loses the
// data directory restores last night's backup of the log (taken while the
// relay ran). Everything the
// relay did after the copy (mints, batches, anchors, claims) is then
// missing from the log, but happened on the chain. The relay, started on
// the restored log with the store rebuilt from it, scans the chain again
// and must finish every flow without paying anything a second time, and
// then pay new flows.
func TestRestoreFromAnOlderLogPaysNothingTwice(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, nil)
	tb.lock(0, ether(100))
	tb.lock(1, ether(200))
	// The backup: a cut of the log, taken while the relay runs (as relay
	// --backup-every takes it), once both deposits are minted.
	backup := filepath.Join(t.TempDir(), "log")
	tb.until("first deposits minted, and the log backed up", 60*time.Second, func(s projections.BridgeStats) bool {
		if statusCount(s.Deposits, domain.StatusMinted) != 2 {
			return false
		}
		if _, err := tb.log.(*embeddedlog.Log).Backup(context.Background(), backup); err != nil {
			t.Fatal(err)
		}
		return true
	})

	// After the backup: more deposits, and withdrawals batched, anchored
	// and claimed.
	tb.lock(2, ether(300))
	tb.burn(0, ether(40))
	// A batch of one: after the restore both withdrawals are known at
	// once, so a batcher that cut again from the log alone would cut
	// another first batch than the one anchored on the chain.
	tb.until("first withdrawal paid", 90*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 1
	})
	tb.burn(1, ether(50))
	tb.until("everything paid before the loss", 90*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 3 && statusCount(s.Withdrawals, domain.StatusExecuted) == 2
	})
	tb.close()

	// The loss: the log goes back to the backup, and the store is rebuilt
	// from it (as `replay` does after the store refuses the older log).
	for _, f := range []string{"log", "projections.db", "projections.db-wal", "projections.db-shm"} {
		if err := os.RemoveAll(filepath.Join(tb.dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(backup, filepath.Join(tb.dir, "log")); err != nil {
		t.Fatal(err)
	}
	tb.open()
	s := tb.until("every flow finished again on the restored log", 90*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 3 && statusCount(s.Withdrawals, domain.StatusExecuted) == 2
	})
	// The first batch was cut again to match its root on chain (the second
	// was the only cut left), and no transaction used gas to finish: the
	// chain had done it all, and each was found done there.
	scrape := httptest.NewRecorder()
	tb.metrics.Handler().ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range []string{"bridgelog_batches_recovered_total 1", "bridgelog_batches_lost_total 0",
		"bridgelog_deposits_minted_total 1", "bridgelog_withdrawals_executed_total 2"} {
		if !strings.Contains(scrape.Body.String(), line+"\n") {
			t.Errorf("metrics lack %q", line)
		}
	}
	for _, l := range strings.Split(scrape.Body.String(), "\n") {
		if strings.HasPrefix(l, "bridgelog_gas_used_total{") && !strings.HasSuffix(l, " 0") {
			t.Errorf("a transaction was mined after the restore: %s", l)
		}
	}
	assertReplayEqual(t, tb)
	assertChainPaidOnce(t, tb.users, 3, 2)
	if s.Batches["ANCHORED"] != 2 {
		t.Fatalf("batches after the restore: %v, want the 2 anchored on chain", s.Batches)
	}

	// New flows after the restore: the wallets' nonces moved on chain past
	// what the restored log knows, and a third batch follows the two.
	tb.lock(0, ether(70))
	tb.burn(2, ether(30))
	tb.until("new flows paid after the restore", 90*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 4 && statusCount(s.Withdrawals, domain.StatusExecuted) == 3
	})
	assertChainPaidOnce(t, tb.users, 4, 3)
}
