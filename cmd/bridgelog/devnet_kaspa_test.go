package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// processesUsing lists the processes (pid and command line) whose command
// line or environment names dir (kaspaminer's home is there): what a
// devnet in dir started and left running.
func processesUsing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append(b, env...), []byte(dir)) {
			continue
		}
		out = append(out, e.Name()+": "+string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
	}
	return out
}

// waitNoProcessesUsing fails the test when processes naming dir are still
// there after a while.
func waitNoProcessesUsing(t *testing.T, dir string) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if left = processesUsing(t, dir); len(left) == 0 {
			return
		}
	}
	t.Fatalf("processes left running:\n%s", strings.Join(left, "\n"))
}

// TestDevnetPaysKaspa runs the README's main command with a little traffic:
// a kaspad simnet node and miner, three signer processes (2-of-3), and
// withdrawals to Kaspa among the EVM ones, two of them to addresses the
// group's policy denies (--kaspa-refused 2). It exits 0, its summary says
// every payout was confirmed once on the node and both refused burns were
// refused and refunded once (on chain: the token's Refunded logs, the
// audit's supply and balances), the logs agree (checkDevnetRefunds),
// nothing it started is left running, and no log appended a record twice
// (checkKaspaAppendedOnce).
func TestDevnetPaysKaspa(t *testing.T) {
	bin, data := testBinary(t), dataDir(t)
	cmd := exec.Command(bin, "devnet", "--data", data, "--deposits", "4", "--withdrawals", "3", "--kaspa-payouts", "4",
		"--kaspa-refused", "2", "--timeout", "5m")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		t.Fatalf("devnet: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	for _, want := range []string{"kaspa payouts confirmed 4 / 4, refused 2, refunded 2   (", "kaspa rounds per event",
		"kaspa commit latency", "kaspa fee per payout", "every Kaspa payout confirmed once, every refused burn refunded once",
		"; 6 burns toward Kaspa, 2 refunded;"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, &stdout)
		}
	}
	waitNoProcessesUsing(t, data)
	checkDevnetRefunds(t, data, 2)
	checkKaspaAppendedOnce(t, data)
}

// checkDevnetRefunds fails the test unless the devnet's relay config names
// its signers, every signer denies refused destinations and refused
// nothing but those, a quorum of them recorded refused refusals (a third
// may lag behind when devnet stops it), and the relay's log requested and
// completed that many refunds, each by a transaction of its own.
func checkDevnetRefunds(t *testing.T, data string, refused int) {
	t.Helper()
	cfg, err := loadRelayConfig(filepath.Join(data, "devnet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Signers == nil || len(cfg.Signers.Endpoints) != devnetSigners {
		t.Errorf("devnet.json's signers section: %+v", cfg.Signers)
	}
	complete := 0
	for i := 1; i <= devnetSigners; i++ {
		setup, err := loadSignerConfig(filepath.Join(data, "signers", fmt.Sprintf("s%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(setup.protocol.Policy.DeniedDestinations); n != refused {
			t.Errorf("signer s%d denies %d destinations, want %d", i, n, refused)
		}
		var reasons []twophase.Reason
		for _, r := range topicRecords(t, setup.logDir(), topics.TopicSigning) {
			var f twophase.Refused
			if r.env.Type != twophase.TypeRefused {
				continue
			}
			if err := topics.DecodePayload(r.env.Payload, &f); err != nil {
				t.Fatal(err)
			}
			reasons = append(reasons, f.Reason)
		}
		if len(reasons) > refused || slices.ContainsFunc(reasons, func(r twophase.Reason) bool { return r != twophase.RefusedDeniedDestination }) {
			t.Errorf("signer s%d recorded refusals %v, want at most %d, each for %s", i, reasons, refused, twophase.RefusedDeniedDestination)
		}
		if len(reasons) == refused {
			complete++
		}
	}
	if complete < devnetQuorum {
		t.Errorf("%d signers recorded all %d refusals, want a quorum (%d)", complete, refused, devnetQuorum)
	}
	requested, txs := 0, map[domain.Hash32]bool{}
	for _, r := range topicRecords(t, filepath.Join(data, "log"), topics.TopicBridge) {
		switch r.env.Type {
		case domain.TypeRefundRequested:
			requested++
		case domain.TypeRefundCompleted:
			var c domain.RefundCompleted
			if err := topics.DecodePayload(r.env.Payload, &c); err != nil {
				t.Fatal(err)
			}
			if c.AlreadyDone || c.TxHash == (domain.Hash32{}) {
				t.Errorf("refund of %s completed without a transaction of its own: %+v", c.Burn.Key(), c)
			}
			txs[c.TxHash] = true
		}
	}
	if requested != refused || len(txs) != refused {
		t.Errorf("the relay's log requested %d refunds and completed them in %d transactions, want %d", requested, len(txs), refused)
	}
}

// checkKaspaAppendedOnce fails the test when a log of a devnet run
// without a crash holds one source key twice: a signer's on any topic
// (its EVM source's chain and burn records, its signing facts), the
// relay's on the bridge topic (its records of the burns toward Kaspa).
// Every fact the protocol repeats has its own source key, so no repeat
// is allowed: a vote of a new round or epoch names them, a payout sent
// again names its attempt, a failed round names its round and reason, a
// rejected envelope names its digest; a message received again (resent,
// or relayed in a sync answer) is recorded once (twophase's recordedOnce);
// a request for an event the signer knows appends nothing. A signer's
// signing facts are also never the same twice by content (all but their
// time), but for message.rejected: it counts the rejections of each
// minute, and two minutes may count alike.
func checkKaspaAppendedOnce(t *testing.T, data string) {
	t.Helper()
	for i := 1; i <= devnetSigners; i++ {
		id := fmt.Sprintf("s%d", i)
		setup, err := loadSignerConfig(filepath.Join(data, "signers", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range topics.Topics() {
			checkAppendedOnce(t, "signer "+id, setup.logDir(), spec.Name)
		}
		checkSigningFactsDiffer(t, id, setup.logDir())
	}
	checkAppendedOnce(t, "relay", filepath.Join(data, "log"), topics.TopicBridge)
}

// checkAppendedOnce fails the test when a topic of the log in dir holds
// one source key twice.
func checkAppendedOnce(t testing.TB, who, dir, topic string) {
	t.Helper()
	seen := map[string][]string{}
	for _, r := range topicRecords(t, dir, topic) {
		seen[r.env.SourceKey] = append(seen[r.env.SourceKey],
			fmt.Sprintf("%s at %d:%d recorded %v", r.env.Type, r.at.Partition, r.at.Offset, r.env.RecordedAt))
	}
	for key, recs := range seen {
		if len(recs) > 1 {
			t.Errorf("%s, %s: source key %s appended %d times: %v", who, topic, key, len(recs), recs)
		}
	}
}

// checkSigningFactsDiffer fails the test when a signer's log holds two
// signing facts of one type and aggregate that differ in their time only.
func checkSigningFactsDiffer(t testing.TB, id, dir string) {
	t.Helper()
	seen := map[string]topics.Position{}
	for _, r := range topicRecords(t, dir, topics.TopicSigning) {
		if r.env.Type == twophase.TypeMessageRejected {
			continue
		}
		var content map[string]any
		if err := topics.DecodePayload(r.env.Payload, &content); err != nil {
			t.Fatal(err)
		}
		delete(content, "at")
		key := fmt.Sprintf("%s %s %v", r.env.Type, r.env.AggregateID, content) // fmt prints maps sorted
		if first, ok := seen[key]; ok {
			t.Errorf("signer %s appended %s twice (at %d:%d and %d:%d), differing in time only", id, r.env.Type,
				first.Partition, first.Offset, r.at.Partition, r.at.Offset)
		}
		seen[key] = r.at
	}
}

// TestDevnetInterruptStopsEverything: Ctrl-C (SIGINT) while payouts flow
// stops devnet, and with it the node, the miner and the signers.
func TestDevnetInterruptStopsEverything(t *testing.T) {
	bin, data := testBinary(t), dataDir(t)
	out := filepath.Join(data, "devnet.out")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, "devnet", "--data", data, "--deposits", "4", "--withdrawals", "3", "--kaspa-payouts", "20")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// Wait until the signers run.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(data, "signers", "s3", "signer.out"))
		if bytes.Contains(b, []byte("signer running")) {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(out)
			t.Fatalf("the signers did not start:\n%s", b)
		}
	}
	if len(processesUsing(t, data)) < 6 { // devnet, kaspad, kaspaminer, 3 signers
		t.Fatalf("running: %v", processesUsing(t, data))
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an interrupted devnet exited 0")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("devnet did not exit within 60 s of SIGINT")
	}
	waitNoProcessesUsing(t, data)
}
