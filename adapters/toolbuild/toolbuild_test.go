package toolbuild

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestOneBuildUnderTheLock: two runs at once into an empty cache (the
// lock is per open file, so two in one process exclude each other as two
// processes do) compile once; the one that builds says so in one line,
// the other waits (saying so) or finds the build; a run after them finds
// it and says nothing. A failed compile leaves nothing in place.
func TestOneBuildUnderTheLock(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tool-v1")
	bin := filepath.Join(dir, "tool")
	var compiles atomic.Int32
	job := Job{Dir: dir, Err: errors.New("cannot build tool"), Waiting: "waiting", Building: "building",
		Present: func() bool { _, err := os.Stat(bin); return err == nil },
		Compile: func(_ context.Context, into string) error {
			compiles.Add(1)
			return os.WriteFile(filepath.Join(into, "tool"), []byte("#!/bin/sh\n"), 0o755)
		}}
	var (
		wg   sync.WaitGroup
		outs [2]bytes.Buffer
		errs [2]error
	)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = job.Run(ctx, &outs[i]) }()
	}
	wg.Wait()
	said := outs[0].String() + outs[1].String()
	if errs[0] != nil || errs[1] != nil || compiles.Load() != 1 || strings.Count(said, "building\n") != 1 ||
		strings.Count(said, "\n") > 2 || !job.Present() {
		t.Fatalf("errors %v, %v; %d compiles; said %q", errs[0], errs[1], compiles.Load(), said)
	}
	var again bytes.Buffer
	if err := job.Run(ctx, &again); err != nil || again.Len() != 0 || compiles.Load() != 1 {
		t.Fatalf("a run over a build: %v, said %q, %d compiles", err, &again, compiles.Load())
	}

	failing := job
	failing.Dir = filepath.Join(t.TempDir(), "tool-v2")
	bin = filepath.Join(failing.Dir, "tool")
	broken := errors.New("compile failed")
	failing.Compile = func(_ context.Context, into string) error {
		_ = os.WriteFile(filepath.Join(into, "tool"), nil, 0o755)
		return broken
	}
	if err := failing.Run(ctx, &again); !errors.Is(err, broken) || failing.Present() {
		t.Fatalf("a failed compile: %v; present %v", err, failing.Present())
	}
}
