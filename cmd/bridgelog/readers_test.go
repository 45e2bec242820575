package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// readOnlyCommands are the commands that only read --data (prune changes
// the store, not the log, and refuses to make one; log backup writes only
// into its own directory).
func readOnlyCommands(t *testing.T) [][]string {
	return [][]string{{"status"}, {"status", "--json"}, {"verify"}, {"log", "inspect"}, {"log", "tail"},
		{"log", "tail", "--follow"}, {"analytics", "sink"}, {"prune"}, {"log", "backup", filepath.Join(t.TempDir(), "copy")}}
}

// TestReadOnlyCommandsCreateNothing: the commands that do not append to
// the log, pointed at a --data directory that does not exist, exit 1
// saying so and what to run, and leave it missing; pointed at a log
// without a store, status and verify say to build the store and build
// none; status counts what the projections have not folded, and folds
// nothing; at an empty directory, log inspect says it holds no log and
// leaves it empty.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	bin := testBinary(t)
	parent := filepath.Join(t.TempDir(), "no")
	missing := operator{t: t, bin: bin, data: filepath.Join(parent, "such", "dir")}
	want := "no bridgelog data in " + missing.data + ": run bridgelog devnet or relay first"
	for _, args := range readOnlyCommands(t) {
		if _, stderr := missing.run(1, args...); !strings.Contains(stderr, want) {
			t.Errorf("bridgelog %s on a missing --data: %q, want %q", strings.Join(args, " "), stderr, want)
		}
		if _, err := os.Stat(parent); err == nil {
			t.Fatalf("bridgelog %s created %s", strings.Join(args, " "), parent)
		}
	}

	logOnly := operator{t: t, bin: bin, data: dataDir(t)}
	logOnly.run(0, "log", "generate", "--events", "300", "--seed", "3")
	store := filepath.Join(logOnly.data, "projections.db")
	for _, cmd := range []string{"status", "verify", "prune"} {
		want := "no projection store at " + store + ": run bridgelog project (or relay) first"
		if _, stderr := logOnly.run(1, cmd); !strings.Contains(stderr, want) {
			t.Errorf("%s on a log without a store: %q, want %q", cmd, stderr, want)
		}
		if matches, _ := filepath.Glob(store + "*"); len(matches) > 0 {
			t.Fatalf("%s on a log without a store created %v", cmd, matches)
		}
	}

	// status reports what is not folded yet, and folds nothing itself.
	logOnly.run(0, "project")
	logOnly.run(0, "log", "generate", "--events", "100", "--seed", "4")
	for range 2 {
		var st struct{ Unfolded int64 }
		if out, _ := logOnly.run(0, "status", "--json"); json.Unmarshal([]byte(out), &st) != nil || st.Unfolded != 100 {
			t.Fatalf("status --json after 100 more events: %s", out)
		}
	}
	if out, _ := logOnly.run(0, "status"); !strings.Contains(out, "unfolded     100 log records not in the projections yet") {
		t.Fatalf("status after 100 more events:\n%s", out)
	}

	empty := operator{t: t, bin: bin, data: dataDir(t)}
	want = "no bridgelog data in " + filepath.Join(empty.data, "log")
	for _, args := range [][]string{{"log", "inspect"}, {"log", "tail"}, {"log", "backup", filepath.Join(t.TempDir(), "copy")}} {
		if _, stderr := empty.run(1, args...); !strings.Contains(stderr, want) {
			t.Errorf("bridgelog %s on an empty --data: %q, want %q", strings.Join(args, " "), stderr, want)
		}
	}
	if entries, _ := os.ReadDir(empty.data); len(entries) > 0 {
		t.Fatalf("commands wrote into an empty --data: %v", entries)
	}
}

// TestReadOnlyCommandsBesideRelay: on the embedded default, status,
// verify (exit 0), log inspect and log tail run while a relay appends
// (deposits flowing, the log growing during each command), take no lock
// from it and disturb nothing; log tail --follow prints what the relay
// appends after it started. A second writer is still refused, naming the
// relay's pid.
func TestReadOnlyCommandsBesideRelay(t *testing.T) {
	bin := testBinary(t)
	data := dataDir(t)
	dc := startDevChain(t, bin, data)
	relayLog := filepath.Join(data, "relay.log")
	rl, _ := os.Create(relayLog)
	relay := exec.Command(bin, "relay", "--config", dc.cfgPath, "--data", data, "--log-level", "info")
	relay.Stdout, relay.Stderr = rl, rl
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	relayDone := make(chan error, 1)
	go func() { relayDone <- relay.Wait() }()
	t.Cleanup(func() {
		relay.Process.Kill()
		<-relayDone
	})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, _ := os.ReadFile(relayLog); strings.Contains(string(b), "relay started") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(relayLog)
			t.Fatalf("the relay did not start:\n%s", b)
		}
	}

	// Traffic: deposits, one after another, until the test is done.
	ctx, stopTraffic := context.WithCancel(context.Background())
	var traffic sync.WaitGroup
	traffic.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			key := dc.keys[i%len(dc.keys)]
			if _, err := dc.users.Lock(ctx, key, ether(int64(10+i%7)), crypto.PubkeyToAddress(key.PublicKey)); err != nil && ctx.Err() == nil {
				t.Errorf("deposit %d: %v", i, err)
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(150 * time.Millisecond):
			}
		}
	})
	defer func() { stopTraffic(); traffic.Wait() }()

	o := operator{t: t, bin: bin, data: data}
	// The test reads beside the relay as well, to see the log grow.
	lg, err := embeddedlog.OpenReadOnly(filepath.Join(data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	records := func() int64 {
		var n int64
		for _, s := range topics.Topics() {
			ends, err := lg.EndOffsets(context.Background(), s.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ends {
				n += e
			}
		}
		return n
	}
	status := func() (projections.BridgeStats, int64) {
		out, _ := o.run(0, "status", "--json")
		var st struct {
			Chains   []projections.ChainCursorRow
			Stats    projections.BridgeStats
			Unfolded int64
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		if len(st.Chains) == 0 || st.Chains[0].ScannedTo == 0 {
			t.Fatalf("status shows no chain scanned: %s", out)
		}
		return st.Stats, st.Unfolded
	}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if s, _ := status(); statusCount(s.Deposits, domain.StatusMinted) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no deposit minted in 90 s")
		}
	}
	lock, _ := os.ReadFile(filepath.Join(data, "log", "LOCK"))
	if strings.TrimSpace(string(lock)) != fmt.Sprint(relay.Process.Pid) {
		t.Fatalf("DATA/log/LOCK holds %q, want the relay's pid %d", lock, relay.Process.Pid)
	}

	tailOut := &lockedWriter{}
	tail := exec.Command(bin, "log", "tail", "--follow", "--json", "-n", "0", "--poll", "50ms", "--data", data)
	tail.Stdout, tail.Stderr = tailOut, tailOut
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	tailStarted := records()

	for round := range 3 {
		before := records()
		status()
		out, stderr := o.run(0, "verify")
		if ok := okLines(out); strings.Count(ok, "ok ") < 3 || strings.Contains(ok, "MISMATCH") {
			t.Fatalf("round %d: verify beside the relay:\n%s\n%s", round, out, stderr)
		}
		if recs := jsonLines(t, first(o.run(0, "log", "inspect", "--json", "--topic", topics.TopicChain, "--limit", "3"))); len(recs) == 0 {
			t.Fatalf("round %d: log inspect printed nothing", round)
		}
		if recs := jsonLines(t, first(o.run(0, "log", "tail", "--json", "-n", "2"))); len(recs) == 0 {
			t.Fatalf("round %d: log tail printed nothing", round)
		}
		if after := records(); after <= before {
			t.Fatalf("round %d: the log did not grow while the commands ran (%d records before, %d after)", round, before, after)
		}
	}

	// A second writer is refused, and the message names the relay.
	want := fmt.Sprintf("log directory locked by another writer (held by pid %d)", relay.Process.Pid)
	if _, stderr := o.run(1, "project"); !strings.Contains(stderr, want) {
		t.Fatalf("project beside the relay: %q, want %q", stderr, want)
	}

	// tail --follow printed records appended after it started, in order.
	for deadline := time.Now().Add(30 * time.Second); len(jsonLines(t, tailOut.String())) < 5; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("log tail --follow printed %d records in 30 s:\n%s", len(jsonLines(t, tailOut.String())), tailOut.String())
		}
	}
	if err := tail.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := tail.Wait(); err != nil {
		t.Fatalf("log tail --follow on SIGINT: %v\n%s", err, tailOut.String())
	}
	seen := map[string]int64{}
	for _, r := range jsonLines(t, tailOut.String()) {
		k := fmt.Sprint(r["topic"], "/", r["partition"])
		off := int64(r["offset"].(float64))
		if prev, ok := seen[k]; ok && off != prev+1 {
			t.Fatalf("log tail --follow printed %s@%d after @%d", k, off, prev)
		}
		seen[k] = off
	}
	if records() <= tailStarted {
		t.Fatal("the log did not grow while log tail --follow ran")
	}

	// The relay was never disturbed: it runs, holds its lock, and no
	// runner of its lost a commit to a reader.
	select {
	case err := <-relayDone:
		b, _ := os.ReadFile(relayLog)
		t.Fatalf("the relay ended while readers ran: %v\n%s", err, b)
	default:
	}
	if after, _ := os.ReadFile(filepath.Join(data, "log", "LOCK")); string(after) != string(lock) {
		t.Fatalf("DATA/log/LOCK changed from %q to %q", lock, after)
	}
	if b, _ := os.ReadFile(relayLog); strings.Contains(string(b), projections.ErrCheckpointMoved.Error()) {
		t.Fatalf("a relay runner lost a commit while only readers ran:\n%s", b)
	}
	stopTraffic()
	traffic.Wait()
	relay.Process.Signal(syscall.SIGTERM)
	if err := <-relayDone; err != nil {
		b, _ := os.ReadFile(relayLog)
		t.Fatalf("relay on SIGTERM: %v\n%s", err, b)
	}
	relayDone <- nil // for the cleanup
	o.run(0, "verify")
}

// devChain is a chain in a process of its own (devnet --chain-only), as
// relays in other processes reach it, with three funded users.
type devChain struct {
	cfgPath string
	users   devchain.Users
	keys    []*ecdsa.PrivateKey
}

func startDevChain(t *testing.T, bin, data string) *devChain {
	t.Helper()
	cfg, _ := startChainOnly(t, bin, data, "--executors", "2", "--block-interval", "50ms")
	ctx := context.Background()
	users, closeUsers, err := devchain.Dial(ctx, cfg.RPC, devchain.Bridge{Distributor: common.Address(cfg.Distributor), Token: common.Address(cfg.Token)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeUsers)
	keys, err := devchain.FundedUsers(ctx, users.Backend, devClaim0+devnetClaimWallets(cfg), 3)
	if err != nil {
		t.Fatal(err)
	}
	return &devChain{cfgPath: filepath.Join(data, "devnet.json"), users: users, keys: keys}
}
