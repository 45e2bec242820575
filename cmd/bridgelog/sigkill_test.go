package main

import (
	"context"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
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
	data := t.TempDir()
	if d := os.Getenv("BRIDGELOG_SIGKILL_DATA"); d != "" {
		data = d // keep the files for a post-mortem
	}
	dc := startDevChain(t, bin, data)
	ctx := context.Background()
	cfg, cfgPath, users, cl := dc.cfg, dc.cfgPath, dc.users, dc.cl
	user, waitMined := dc.user, dc.waitMined

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
	for i := 0; i < deposits; i++ {
		k, addr := user(i)
		tx, err := users.Lock(ctx, devchain.DevKey(k), ether(int64(10+i)), addr)
		if err != nil {
			t.Fatal(err)
		}
		waitMined(tx.Hash())
	}
	killRelays(kills / 2)
	finish(t, cfg, data, func(s projections.BridgeStats) bool { return statusCount(s.Deposits, domain.StatusMinted) == deposits })

	// Withdrawals, the same way.
	for i := 0; i < withdrawals; i++ {
		k, addr := user(i)
		tx, err := users.Burn(ctx, devchain.DevKey(k), ether(5), addr)
		if err != nil {
			t.Fatal(err)
		}
		waitMined(tx.Hash())
	}
	killRelays(kills - kills/2)
	finish(t, cfg, data, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == withdrawals
	})
	if killed < 10 {
		t.Fatalf("only %d kills", killed)
	}

	// The chain is the judge.
	c, err := checkChain(ctx, users, deposits, withdrawals)
	if err != nil {
		t.Fatal(err)
	}
	if c.claimedEvents != withdrawals || c.uniqueLeaves != withdrawals {
		t.Fatalf("on chain: %d Claimed events over %d leaves, want %d each (paid exactly once)", c.claimedEvents, c.uniqueLeaves, withdrawals)
	}
	want := new(big.Int)
	for i := 0; i < deposits; i++ {
		want.Add(want, ether(int64(10+i)))
	}
	want.Sub(want, ether(5*withdrawals))
	if c.mintedSupply.Cmp(want) != 0 {
		t.Fatalf("token supply %s, want %s: a deposit was minted more or less than once", c.mintedSupply, want)
	}
	tok := contracts.NewBridgeToken()
	mints, err := cl.FilterLogs(ctx, filterAll(common.Address(cfg.Token), tok.GetABI().Events["DepositMinted"].ID))
	if err != nil || len(mints) != deposits {
		t.Fatalf("%d DepositMinted events (%v), want %d", len(mints), err, deposits)
	}
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

// devChain is a chain in a process of its own (devnet --chain-only), as
// relays in other processes reach it, with the bridge's users.
type devChain struct {
	t       *testing.T
	cfg     relayConfig
	cfgPath string
	cl      *ethclient.Client
	users   devchain.Users
}

// startDevChain starts the chain process with data as its --data; it
// ends with the test.
func startDevChain(t *testing.T, bin, data string) *devChain {
	t.Helper()
	chainLog, _ := os.Create(filepath.Join(data, "chain.log"))
	chain := exec.Command(bin, "devnet", "--chain-only", "--data", data, "--executors", "2", "--deposits", "3",
		"--block-interval", "50ms")
	chain.Stdout, chain.Stderr = chainLog, chainLog
	if err := chain.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Process.Kill(); chain.Wait() })
	dc := &devChain{t: t, cfgPath: filepath.Join(data, "devnet.json")}
	for deadline := time.Now().Add(60 * time.Second); ; {
		var err error
		if dc.cfg, err = loadRelayConfig(dc.cfgPath); err == nil {
			break
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(chainLog.Name())
			t.Fatalf("chain process wrote no config: %v\n%s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	var err error
	if dc.cl, err = ethclient.DialContext(context.Background(), dc.cfg.RPC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dc.cl.Close)
	dc.users = devchain.Users{Backend: dc.cl, Bridge: devchain.Bridge{Distributor: common.Address(dc.cfg.Distributor), Token: common.Address(dc.cfg.Token)}}
	return dc
}

// user is the key and address of user i (three users take turns).
func (dc *devChain) user(i int) (int, common.Address) {
	k := devClaim0 + len(dc.cfg.ClaimKeys) + i%3
	return k, crypto.PubkeyToAddress(devchain.DevKey(k).PublicKey)
}

// waitMined waits for a user's transaction and fails the test if it
// reverted or was not mined in 20 s.
func (dc *devChain) waitMined(h common.Hash) {
	dc.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if r, err := dc.cl.TransactionReceipt(context.Background(), h); err == nil {
			if r.Status != 1 {
				dc.t.Fatalf("user tx %s reverted", h)
			}
			return
		}
	}
	dc.t.Fatalf("user tx %s not mined", h)
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
