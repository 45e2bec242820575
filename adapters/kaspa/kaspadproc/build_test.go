package kaspadproc

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// TestBuildOnceUnderTheLock: two builds into an empty cache at once (the
// lock is per open file, so two in one process exclude each other as two
// processes do): one builds and says so in one line, the other waits or
// finds the result; a build after them finds it and says nothing.
func TestBuildOnceUnderTheLock(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	var (
		wg   sync.WaitGroup
		outs [2]bytes.Buffer
		bins [2]Binaries
		errs [2]error
	)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bins[i], errs[i] = build(ctx, root, &outs[i])
		}()
	}
	wg.Wait()
	building := 0
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("build %d: %v", i, errs[i])
		}
		said := outs[i].String()
		switch {
		case strings.HasPrefix(said, "building kaspad v") && strings.Count(said, "\n") == 1:
			building++
		case said != "" && !strings.HasPrefix(said, "waiting for another process building kaspad"):
			t.Errorf("build %d said %q", i, said)
		}
	}
	if building != 1 || bins[0] != bins[1] {
		t.Fatalf("%d builds said they built; binaries %v and %v\n%s\n%s", building, bins[0], bins[1], &outs[0], &outs[1])
	}
	for _, bin := range []string{bins[0].Kaspad, bins[0].Miner} {
		if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
			t.Errorf("%s --version: %v\n%s", bin, err, out)
		}
	}
	var again bytes.Buffer
	if b, err := build(ctx, root, &again); err != nil || b != bins[0] || again.Len() != 0 {
		t.Fatalf("cached build: %v, %v, said %q", b, err, &again)
	}
}
