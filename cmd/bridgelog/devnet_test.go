package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// startChainOnly runs `devnet --chain-only` on data until the test ends
// and returns the relay config it wrote and the file its output goes to.
func startChainOnly(t *testing.T, bin, data string, args ...string) (relayConfig, string) {
	t.Helper()
	_, cfg, logPath := startChainProcess(t, bin, data, args...)
	return cfg, logPath
}

// startChainProcess is startChainOnly that also returns the chain's
// process, for a test that stops the chain before it ends.
func startChainProcess(t *testing.T, bin, data string, args ...string) (*exec.Cmd, relayConfig, string) {
	t.Helper()
	logPath := filepath.Join(data, "chain.log")
	chainLog, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	chain := exec.Command(bin, append([]string{"devnet", "--chain-only", "--data", data}, args...)...)
	chain.Stdout, chain.Stderr = chainLog, chainLog
	if err := chain.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Process.Kill(); chain.Wait(); chainLog.Close() })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		cfg, err := loadRelayConfig(filepath.Join(data, "devnet.json"))
		if err == nil {
			return chain, cfg, logPath
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logPath)
			t.Fatalf("chain process wrote no config: %v\n%s", err, out)
		}
	}
}

// TestDevnetTrafficAndCheck drives a `devnet --chain-only` chain with
// `devnet traffic` while a relay runs as a separate process, started
// with the command devnet prints; `devnet check` then finds every deposit
// minted once and every withdrawal paid once, and names a count that
// differs from what was sent. A relay whose config names another token is
// then refused on that data directory, naming both.
func TestDevnetTrafficAndCheck(t *testing.T) {
	o := operator{t: t, bin: testBinary(t), data: dataDir(t)}
	_, chainLog := startChainOnly(t, o.bin, o.data, "--executors", "2", "--block-interval", "50ms")
	cfgPath := filepath.Join(o.data, "devnet.json")
	printed := "bridgelog relay --config " + cfgPath + " --data " + o.data
	var said []byte
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(said), printed); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("devnet --chain-only did not print %q:\n%s", printed, said)
		}
		said, _ = os.ReadFile(chainLog)
	}

	relayLog, err := os.Create(filepath.Join(o.data, "relay.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer relayLog.Close()
	args := strings.Fields(strings.TrimPrefix(printed, "bridgelog "))
	relay := exec.Command(o.bin, append(args, "--log-level", "warn")...)
	relay.Stdout, relay.Stderr = relayLog, relayLog
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	stopRelay := func() { relay.Process.Signal(syscall.SIGTERM); relay.Wait() }
	defer stopRelay()

	out, _ := o.run(0, "devnet", "traffic", "--config", cfgPath, "--deposits", "6", "--withdrawals", "5",
		"--burst-size", "4", "--burst-every", "100ms", "--timeout", "3m")
	if !strings.Contains(out, "sent 4/6 deposits, 0/5 withdrawals") || !strings.Contains(out, "sent 6 deposits and 5 withdrawals") {
		t.Fatalf("traffic:\n%s", out)
	}
	out, _ = o.run(0, "devnet", "check", "--config", cfgPath, "--deposits", "6", "--withdrawals", "5", "--wait", "2m")
	if !strings.Contains(out, "6 deposits locked, 6 mints; 5 withdrawals burned, 5 claims") || !strings.Contains(out, "ok: ") {
		b, _ := os.ReadFile(relayLog.Name())
		t.Fatalf("check:\n%s\nrelay:\n%s", out, b)
	}
	out, stderr := o.run(3, "devnet", "check", "--config", cfgPath, "--deposits", "7", "--withdrawals", "5")
	if !strings.Contains(out, "DIFFERS: 6 deposits locked on chain, 7 sent") || !strings.Contains(stderr, "differs") {
		t.Fatalf("check against a wrong count:\n%s\n%s", out, stderr)
	}
	// More withdrawals than the users' tokens pay for are refused before
	// anything is sent.
	if _, stderr := o.run(1, "devnet", "traffic", "--config", cfgPath, "--deposits", "0", "--withdrawals", "500"); !strings.Contains(stderr, "withdrawals need more deposits") {
		t.Fatalf("traffic beyond the users' tokens: %s", stderr)
	}
	o.run(0, "devnet", "check", "--config", cfgPath, "--deposits", "6", "--withdrawals", "5")

	stopRelay()
	cfg, err := loadRelayConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	recordedToken := cfg.Token.Hex()
	cfg.Token = domain.Address{0xee}
	otherPath := filepath.Join(t.TempDir(), "other.json")
	if err := writeRelayConfig(otherPath, cfg); err != nil {
		t.Fatal(err)
	}
	_, stderr = o.run(1, "relay", "--config", otherPath)
	for _, w := range []string{"the log was used with other chains or contracts", "the log records chain 1337", "token " + recordedToken,
		"the config names chain 1337", "token " + cfg.Token.Hex()} {
		if !strings.Contains(stderr, w) {
			t.Fatalf("a relay for another token on the data directory: no %q in\n%s", w, stderr)
		}
	}
}

// TestDevnetAppendsEachDecisionOnce: a devnet run without a crash or a
// restart appends every decision once: no source key appears twice on the
// bridge, batches or claims topic (the batcher and the anchorer do not
// both mark a batch's withdrawals, a claim executor does not settle again
// the outcome it appended itself). Appended again after a crash, a record
// is a duplicate the projections ignore; here there is no crash.
func TestDevnetAppendsEachDecisionOnce(t *testing.T) {
	o := devnetRun(t, 3, 4)
	for _, topic := range []string{topics.TopicBridge, topics.TopicBatches, topics.TopicClaims} {
		seen := map[string][]string{}
		for _, ev := range jsonLines(t, first(o.run(0, "log", "inspect", "--json", "--topic", topic, "--limit", "1000000"))) {
			key := ev["sourceKey"].(string)
			seen[key] = append(seen[key], fmt.Sprintf("%v at %v:%v recorded %v", ev["type"], ev["partition"], ev["offset"], ev["recordedAt"]))
		}
		if len(seen) == 0 {
			t.Fatalf("topic %s is empty after a devnet run", topic)
		}
		for key, recs := range seen {
			if len(recs) > 1 {
				t.Errorf("%s: source key %s appended %d times: %v", topic, key, len(recs), recs)
			}
		}
	}
}
