package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/topics"
)

// TestMain lets the test binary act as the command: the test re-executes
// itself with BRIDGELOG_KFAKE_MAIN=1 to get a real separate process.
func TestMain(m *testing.M) {
	if os.Getenv("BRIDGELOG_KFAKE_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// startBroker runs the command in a child process and returns its address
// once it printed "ready".
func startBroker(t *testing.T, args ...string) (addr string, stop func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args...)...)
	cmd.Env = append(os.Environ(), "BRIDGELOG_KFAKE_MAIN=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kfake process: %v", err)
	}
	exited := make(chan error, 1)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("kfake process exited: %v", err)
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("kfake process ignored SIGTERM")
		}
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("kfake process ended before ready")
			}
			if a, found := strings.CutPrefix(line, "listening "); found {
				addr = a
			}
			if line == "ready" {
				if addr == "" {
					t.Fatal("ready without a listening line")
				}
				return addr, stop
			}
		case <-timeout:
			_ = cmd.Process.Kill()
			t.Fatal("kfake process not ready after 20s")
		}
	}
}

func TestStandaloneBrokerKeepsDataAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	addr, stop := startBroker(t, "--port", "0", "--data", dir)
	l, err := kafkalog.Open(ctx, kafkalog.Config{Brokers: []string{addr}})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	var msgs []topics.Message
	for i := range 100 {
		msgs = append(msgs, topics.Message{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "v%d", i)})
	}
	pos, err := l.Append(ctx, topics.TopicBridge, msgs...)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	l.Close()
	stop()

	addr, stop = startBroker(t, "--port", "0", "--data", dir)
	defer stop()
	l, err = kafkalog.Open(ctx, kafkalog.Config{Brokers: []string{addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i, p := range pos {
		recs, err := l.Read(ctx, p.Topic, p.Partition, p.Offset, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || string(recs[0].Value) != string(msgs[i].Value) {
			t.Fatalf("after restart, %+v holds %+v, want %s", p, recs, msgs[i].Value)
		}
	}
}
