package projections_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

// eventCounts is deliberately not idempotent (n = n + 1 per event): if a
// batch were ever applied twice, or a checkpoint skipped events, its rows
// would differ from a clean rebuild.
type eventCounts struct {
	killAt int64 // the child kills itself while applying this many events (0: never)
}

var applied atomic.Int64

func (eventCounts) Name() string           { return "event_counts" }
func (eventCounts) Version() int           { return 1 }
func (eventCounts) Topics() []string       { return []string{topics.TopicBridge} }
func (eventCounts) KeepsNothingPastBatch() {}
func (eventCounts) Tables() []projections.Table {
	return []projections.Table{{Name: "event_counts_v1", PrimaryKey: []string{"event_type"}, Columns: []projections.Column{
		{Name: "event_type", Type: projections.Text}, {Name: "n", Type: projections.Integer}}}}
}

func (c eventCounts) Apply(ctx context.Context, tx projections.Tx, ev *projections.Event) error {
	if _, err := tx.Exec(ctx, `INSERT INTO event_counts_v1 (event_type, n) VALUES (?, 1)
		ON CONFLICT (event_type) DO UPDATE SET n = event_counts_v1.n + 1`, ev.Envelope.Type); err != nil {
		return err
	}
	if c.killAt > 0 && applied.Add(1) == c.killAt {
		die() // inside the transaction: rows written, nothing committed
	}
	return nil
}

func die() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}

func crashProjections(killAt int64) []projections.Projection {
	return []projections.Projection{projections.Deposits{}, projections.Withdrawals{}, eventCounts{killAt: killAt}}
}

const (
	crashDirEnv = "BRIDGELOG_CRASH_CHILD"
	crashAtEnv  = "BRIDGELOG_CRASH_AT"
)

// TestCrashRecovery kills a process that appends events and folds them
// with SIGKILL, at least 20 times, at random points: between an append
// and the catch-up that folds it, in the middle of a batch transaction,
// right after a commit, or at a random moment. After every kill the
// projections are restarted and caught up, and every digest must equal a
// clean rebuild of the log: nothing applied twice, nothing lost.
func TestCrashRecovery(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(t, dir, os.Getenv(crashAtEnv))
		return
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	modes := []string{"append", "apply", "commit", "timer"}
	const kills = 24
	for i := 0; i < kills; i++ {
		mode := modes[i%len(modes)]
		at := fmt.Sprintf("%s:%d:%d", mode, 1+rng.IntN(8), i)
		switch mode {
		case "apply":
			at = fmt.Sprintf("%s:%d:%d", mode, 1+rng.IntN(600), i)
		case "commit":
			at = fmt.Sprintf("%s:%d:%d", mode, 1+rng.IntN(20), i)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashRecovery$")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashAtEnv+"="+at)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if mode == "timer" {
			time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
			cmd.Process.Signal(syscall.SIGKILL)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("kill %d (%s): child did not die by SIGKILL: %v\n%s", i, at, err, out.String())
		}
		records := checkAfterCrash(t, dir, i)
		t.Logf("kill %2d at %-16s log holds %d records; restarted projections equal a clean rebuild", i, at, records)
	}
}

// crashChild appends and folds until it is killed.
func crashChild(t *testing.T, dir, at string) {
	parts := strings.SplitN(at, ":", 3)
	mode := parts[0]
	n, _ := strconv.ParseInt(parts[1], 10, 64)
	seed, _ := strconv.ParseUint(parts[2], 10, 64)
	ctx := context.Background()
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"), embeddedlog.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	var killApply int64
	if mode == "apply" {
		killApply = n
	}
	var commits, lastCommitted int64
	rng := rand.New(rand.NewPCG(seed, 11))
	opts := []projections.Option{
		projections.WithLogger(quiet()),
		projections.WithBatchSize(10 + rng.IntN(100)),
		projections.WithCommitEvery(10 + rng.IntN(300)),
		projections.WithProgress(func(p projections.Progress) {
			// Called after each batch; Committed moves after a commit.
			if p.Committed != lastCommitted {
				lastCommitted = p.Committed
				if commits++; mode == "commit" && commits == n {
					die()
				}
			}
		}),
	}
	r, err := projections.NewRunner(ctx, lg, st, crashProjections(killApply), opts...)
	if err != nil {
		t.Fatal(err)
	}
	for round := uint64(0); ; round++ {
		// Some rounds re-send an earlier round's events (same seed):
		// duplicates across restarts must stay no-ops.
		s := seed*1000 + round
		if rng.IntN(4) == 0 {
			s = uint64(rng.IntN(int(seed*1000 + round + 1)))
		}
		if _, err := synth.Generate(ctx, lg, synth.Config{Events: 20 + rng.IntN(60), Seed: s, AppendBatch: 5 + rng.IntN(30)}, nil); err != nil {
			t.Fatal(err)
		}
		if mode == "append" && int64(round+1) == n {
			die() // appended, not folded
		}
		if _, err := r.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// checkAfterCrash restarts the projections over the crashed store, lets
// them catch up, and compares every digest with a rebuild into a fresh
// store. It returns the number of records in the log.
func checkAfterCrash(t *testing.T, dir string, i int) int64 {
	t.Helper()
	ctx := ctxT(t)
	lg, err := embeddedlog.Open(filepath.Join(dir, "log"), embeddedlog.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	restarted := newRunner(t, lg, st, crashProjections(0))
	catchUp(t, restarted)
	live := digests(t, restarted)

	fresh, _ := sqliteStore(t)
	rebuilt := newRunner(t, lg, fresh, crashProjections(0), projections.WithBatchSize(5000))
	s := catchUp(t, rebuilt)
	clean := digests(t, rebuilt)
	if len(live) != 4 {
		t.Fatalf("digests %v", live)
	}
	for name, d := range clean {
		if live[name] != d {
			t.Fatalf("after kill %d: %s digest %s after restart, %s from a clean rebuild", i, name, live[name], d)
		}
	}
	// The non-idempotent counter saw every First event exactly once.
	var n int64
	query(t, st, "SELECT coalesce(sum(n), 0) FROM event_counts_v1", nil, &n)
	if n != s.First {
		t.Fatalf("after kill %d: event_counts sums to %d, the log has %d first events", i, n, s.First)
	}
	return s.Records
}
