package main

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestRelaySurvivesSIGKILL runs the chain in one process and kills the
// relay process with SIGKILL at random moments, again and again, while
// deposits and withdrawals flow. Afterwards the chain shows every deposit
// minted exactly once and every withdrawal paid exactly once, and a replay
// of the log equals the projections the killed relays left. Then a relay
// started without its store builds it in bulk first, and backs its log up
// while it runs.
func TestRelaySurvivesSIGKILL(t *testing.T) {
	const deposits, withdrawals, kills = 6, 6, 12
	bin := testBinary(t)
	data := dataDir(t)
	if d := os.Getenv("BRIDGELOG_SIGKILL_DATA"); d != "" {
		data = d // keep the files for a post-mortem
	}
	cfg, _ := startChainOnly(t, bin, data, "--executors", "2", "--block-interval", "50ms")
	cfgPath := filepath.Join(data, "devnet.json")
	ctx := context.Background()
	users, closeUsers, err := devchain.Dial(ctx, cfg.RPC, devchain.Bridge{Distributor: common.Address(cfg.Distributor), Token: common.Address(cfg.Token)})
	if err != nil {
		t.Fatal(err)
	}
	defer closeUsers()
	keys, err := devchain.FundedUsers(ctx, users.Backend, devClaim0+devnetClaimWallets(cfg), 3)
	if err != nil {
		t.Fatal(err)
	}
	// send sends flows as devnet traffic does, with no relay running.
	send := func(deposits, withdrawals int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		f := devchain.Flows{Users: users, Keys: keys, Deposits: deposits, Withdrawals: withdrawals, Poll: 50 * time.Millisecond}
		if err := f.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}

	relayLog, _ := os.Create(filepath.Join(data, "relay.log"))
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	killed := 0
	killRelays := func(n int) {
		for i := 0; i < n; i++ {
			relay := exec.Command(bin, "relay", "--config", cfgPath, "--data", data, "--log-level", "info")
			relay.Stdout, relay.Stderr = relayLog, relayLog
			if err := relay.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(200+rng.IntN(1300)) * time.Millisecond)
			if err := relay.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			relay.Wait()
			killed++
		}
	}

	// Deposits, with relays dying under them.
	send(deposits, 0)
	killRelays(kills / 2)
	finish(t, cfg, data, func(s projections.BridgeStats) bool { return statusCount(s.Deposits, domain.StatusMinted) == deposits })

	// Withdrawals, the same way.
	send(0, withdrawals)
	killRelays(kills - kills/2)
	finish(t, cfg, data, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == withdrawals
	})
	if killed < 10 {
		t.Fatalf("only %d kills", killed)
	}

	// The chain is the judge.
	assertChainPaidOnce(t, users, deposits, withdrawals)
	if out, _ := os.ReadFile(relayLog.Name()); !strings.Contains(string(out), "relay started") {
		t.Fatalf("relay processes never started:\n%s", out)
	}

	// A relay started where the store is missing (a store deleted to
	// recover) builds it in bulk before it starts, and the store it built
	// equals a rebuild from the log.
	for _, f := range []string{"projections.db", "projections.db-wal", "projections.db-shm"} {
		if err := os.Remove(filepath.Join(data, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	firstLog := filepath.Join(data, "relay-first-build.log")
	out, _ := os.Create(firstLog)
	backups := filepath.Join(data, "backups")
	relay := exec.Command(bin, "relay", "--config", cfgPath, "--data", data, "--log-level", "info", "--bulk-build-min", "1",
		"--backup-every", "200ms", "--backup-dir", backups)
	relay.Stdout, relay.Stderr = out, out
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	var logged string
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(logged, "relay started"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			relay.Process.Kill()
			t.Fatalf("the relay did not start on a missing store:\n%s", logged)
		}
		b, _ := os.ReadFile(firstLog)
		logged = string(b)
	}
	// It also backs its log up while it runs.
	var copies []string
	for deadline := time.Now().Add(30 * time.Second); len(copies) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			relay.Process.Kill()
			b, _ := os.ReadFile(firstLog)
			t.Fatalf("the relay wrote no backup:\n%s", b)
		}
		copies, _ = filepath.Glob(filepath.Join(backups, "*Z"))
	}
	relay.Process.Signal(syscall.SIGTERM)
	relay.Wait()
	if i := strings.Index(logged, "store built in bulk"); i < 0 || i > strings.Index(logged, "relay started") {
		t.Fatalf("the relay did not build its missing store in bulk before it started:\n%s", logged)
	}
	verify := exec.Command(bin, "verify", "--data", data, "--log-level", "warn")
	if v, err := verify.CombinedOutput(); err != nil || strings.Contains(string(v), "MISMATCH") {
		t.Fatalf("verify after the relay built its store: %v\n%s", err, v)
	}
	// The backup is a log a new data directory can rebuild from.
	restored := t.TempDir()
	if err := os.Rename(copies[0], filepath.Join(restored, "log")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"project"}, {"verify"}} {
		cmd := exec.Command(bin, append(args, "--data", restored, "--log-level", "warn")...)
		if v, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(v), "MISMATCH") || strings.Contains(string(v), "truncat") {
			t.Fatalf("%s on the relay's backup: %v\n%s", args[0], err, v)
		}
	}
}

// finish runs the relay in this process over the killed relays' data until
// cond holds, then checks that a replay equals what they left.
func finish(t *testing.T, cfg relayConfig, data string, cond func(projections.BridgeStats) bool) {
	t.Helper()
	ctx := context.Background()
	lg, err := embeddedlog.Open(filepath.Join(data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(data, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble(ctx, cfg, lg, st, bridgeOptions{logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	tb := &testBridge{t: t, cfg: cfg, log: lg, store: st, b: b, dir: data}
	defer tb.close()
	tb.until("flows complete after the kills", 120*time.Second, cond)
	assertReplayEqual(t, tb)
}
