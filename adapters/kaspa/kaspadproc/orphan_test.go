package kaspadproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
)

// parentDirEnv makes the test binary the parent of TestChildrenDieWithTheParent
// instead of running tests.
const parentDirEnv = "KASPADPROC_TEST_PARENT_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(parentDirEnv); dir != "" {
		if err := runParent(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// runParent starts a mining node, prints the pids of kaspad and
// kaspaminer and waits to be killed.
func runParent(dir string) error {
	ctx := context.Background()
	bins, err := Build(ctx, os.Stderr)
	if err != nil {
		return err
	}
	w, err := kaspa.NewRandomWallet(Network)
	if err != nil {
		return err
	}
	n, err := NewNode(bins, Options{Dir: dir, MineTo: w.Address()})
	if err != nil {
		return err
	}
	if err := n.Start(ctx); err != nil {
		return err
	}
	n.mu.Lock()
	fmt.Printf("pids %d %d\n", n.node.Pid(), n.miner.Pid())
	n.mu.Unlock()
	select {}
}

// TestChildrenDieWithTheParent: a parent killed with SIGKILL, which runs
// no cleanup, leaves no kaspad or kaspaminer behind.
func TestChildrenDieWithTheParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentDirEnv+"="+t.TempDir())
	parent.Stderr = os.Stderr
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	var node, miner int
	select {
	case s := <-line:
		if _, err := fmt.Sscanf(s, "pids %d %d", &node, &miner); err != nil {
			t.Fatalf("the parent said %q: %v", s, err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("the parent did not start its node within 3 minutes")
	}
	if !alive(node) || !alive(miner) {
		t.Fatalf("kaspad %d or kaspaminer %d not running under the parent", node, miner)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(node) || alive(miner) {
		if time.Now().After(deadline) {
			nodeAlive, minerAlive := alive(node), alive(miner)
			_ = syscall.Kill(node, syscall.SIGKILL)
			_ = syscall.Kill(miner, syscall.SIGKILL)
			t.Fatalf("kaspad %d (alive: %v) or kaspaminer %d (alive: %v) outlived its parent by 10 s", node, nodeAlive, miner, minerAlive)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie nobody reaped has exited).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}
