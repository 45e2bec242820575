package embeddedlog

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/topics"
)

// The crash test re-executes this test binary as a child that appends
// batches and prints one line per acknowledged Append; the parent kills
// it with SIGKILL at random moments and checks the directory.
const (
	crashDirEnv   = "EMBEDDEDLOG_CRASH_CHILD_DIR"
	crashFirstEnv = "EMBEDDEDLOG_CRASH_CHILD_FIRST"
	crashTopic    = topics.TopicBench
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		first, _ := strconv.Atoi(os.Getenv(crashFirstEnv))
		crashChild(dir, first)
		return
	}
	code := m.Run()
	if scanDir.dir != "" {
		os.RemoveAll(scanDir.dir) // BenchmarkScanDecode's shared fixture
	}
	os.Exit(code)
}

// crashBatch is batch b's messages, a pure function of b so the parent
// can check every byte. Batches span several partitions.
func crashBatch(b int) []topics.Message {
	n := 1 + b%11
	msgs := make([]topics.Message, n)
	for i := range msgs {
		v := fmt.Appendf(nil, "b=%d i=%d n=%d ", b, i, n)
		for j := range (b*31 + i*17) % 400 {
			v = append(v, byte('a'+(b+i+j)%26))
		}
		msgs[i] = topics.Message{Key: fmt.Appendf(nil, "key-%d", (b*7+i)%50), Value: v}
	}
	return msgs
}

func parseCrashValue(v []byte) (b, i, n int, ok bool) {
	_, err := fmt.Sscanf(string(v), "b=%d i=%d n=%d ", &b, &i, &n)
	return b, i, n, err == nil
}

func crashChild(dir string, first int) {
	// Small segments: the kills also land in segment creation.
	l, err := Open(dir, WithLogger(quiet), WithSegmentBytes(64<<10))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(2)
	}
	var next atomic.Int64
	next.Store(int64(first))
	var out sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				pos, err := l.Append(context.Background(), crashTopic, crashBatch(b)...)
				if err != nil {
					fmt.Fprintln(os.Stderr, "child append:", err)
					os.Exit(3)
				}
				var line strings.Builder
				fmt.Fprintf(&line, "ack %d", b)
				for _, p := range pos {
					fmt.Fprintf(&line, " %d:%d", p.Partition, p.Offset)
				}
				line.WriteByte('\n')
				out.Lock()
				os.Stdout.WriteString(line.String()) // unbuffered: printed means acknowledged
				out.Unlock()
			}
		})
	}
	wg.Wait()
}

type ack struct {
	batch int
	pos   []topics.Position
}

func TestSIGKILLKeepsAcknowledgedAppends(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	acked := map[int]ack{}
	nextBatch := 0
	m := &countingMetrics{}
	const iterations = 24
	start := time.Now()
	for iter := range iterations {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashFirstEnv+"="+strconv.Itoa(nextBatch))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1<<16)
		firstAck := make(chan struct{})
		go func() {
			defer close(lines)
			r := bufio.NewReader(stdout)
			once := sync.Once{}
			for {
				s, err := r.ReadString('\n')
				if err != nil {
					return // a line cut by the kill has no newline: not acknowledged
				}
				once.Do(func() { close(firstAck) })
				lines <- s
			}
		}()
		if iter%4 == 3 {
			// Sometimes kill early: during start-up and recovery.
			time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		} else {
			select {
			case <-firstAck:
			case <-time.After(20 * time.Second):
				t.Fatalf("child acknowledged nothing; stderr: %s", stderr.String())
			}
			time.Sleep(time.Duration(rng.IntN(250)) * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("iteration %d: child ended by itself (%v); stderr: %s", iter, err, stderr.String())
		}
		n := 0
		for s := range lines {
			a := parseAck(t, s)
			acked[a.batch] = a
			n++
		}
		maxBatch := verifyCrashDir(t, dir, acked, m)
		nextBatch = max(nextBatch, maxBatch+1)
		for b := range acked {
			nextBatch = max(nextBatch, b+1)
		}
		t.Logf("iteration %d: %d new acks, %d acknowledged batches so far", iter, n, len(acked))
	}
	if len(acked) == 0 {
		t.Fatal("no batch was ever acknowledged")
	}
	t.Logf("%d iterations in %v; recovery truncated %d tails (%d bytes), found %d corruptions",
		iterations, time.Since(start).Round(time.Millisecond), m.truncated, m.bytes, m.corrupt)
}

func parseAck(t *testing.T, s string) ack {
	t.Helper()
	f := strings.Fields(s)
	if len(f) < 3 || f[0] != "ack" {
		t.Fatalf("bad child line %q", s)
	}
	b, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("bad child line %q", s)
	}
	a := ack{batch: b}
	for _, ps := range f[2:] {
		var p int32
		var o int64
		if _, err := fmt.Sscanf(ps, "%d:%d", &p, &o); err != nil {
			t.Fatalf("bad position %q in %q", ps, s)
		}
		a.pos = append(a.pos, topics.Position{Topic: crashTopic, Partition: p, Offset: o})
	}
	return a
}

// verifyCrashDir reopens the log and checks: every acknowledged record is
// at its position, byte for byte; every record served is a whole record of
// some batch; every batch present is present whole. It returns the
// highest batch number found.
func verifyCrashDir(t *testing.T, dir string, acked map[int]ack, m *countingMetrics) int {
	t.Helper()
	l, err := Open(dir, WithLogger(quiet), WithSegmentBytes(64<<10), WithMetrics(m))
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer l.Close()
	ctx := context.Background()
	for b, a := range acked {
		want := crashBatch(b)
		if len(a.pos) != len(want) {
			t.Fatalf("batch %d: %d positions for %d messages", b, len(a.pos), len(want))
		}
		for i, p := range a.pos {
			recs, err := l.Read(ctx, crashTopic, p.Partition, p.Offset, 1)
			if err != nil || len(recs) != 1 {
				t.Fatalf("acknowledged batch %d message %d at %v: %v (%d records)", b, i, p, err, len(recs))
			}
			if !bytes.Equal(recs[0].Value, want[i].Value) || !bytes.Equal(recs[0].Key, want[i].Key) {
				t.Fatalf("acknowledged batch %d message %d at %v: got %q", b, i, p, recs[0].Value)
			}
		}
	}
	end, err := l.EndOffsets(ctx, crashTopic)
	if err != nil {
		t.Fatal(err)
	}
	present := map[int]int{}
	maxBatch := -1
	for p := range int32(len(end)) {
		var off int64
		for off < end[p] {
			recs, err := l.Read(ctx, crashTopic, p, off, 4096)
			if err != nil || len(recs) == 0 {
				t.Fatalf("scan %d/%d: %v (%d records, end %d)", p, off, err, len(recs), end[p])
			}
			for _, r := range recs {
				b, i, n, ok := parseCrashValue(r.Value)
				if !ok || i >= n {
					t.Fatalf("garbage served at %d/%d: %q", p, r.Offset, r.Value)
				}
				if w := crashBatch(b); n != len(w) || !bytes.Equal(r.Value, w[i].Value) || !bytes.Equal(r.Key, w[i].Key) {
					t.Fatalf("record at %d/%d is not batch %d message %d", p, r.Offset, b, i)
				}
				present[b]++
				maxBatch = max(maxBatch, b)
			}
			off = recs[len(recs)-1].Offset + 1
		}
	}
	for b, n := range present {
		if want := len(crashBatch(b)); n != want {
			t.Fatalf("batch %d half there: %d of %d records", b, n, want)
		}
	}
	return maxBatch
}
