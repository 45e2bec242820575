package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
)

var verifyCmd = &cobra.Command{
	Use:   "verify",
	Short: "Rebuild the projections into a scratch store and compare digests with the live ones",
	Long: `verify reads each live projection's checkpoint and digest (sha256 over its
rows in primary-key order), rebuilds the projections from the log into a scratch
SQLite store up to exactly those checkpoints, and compares the digests. It
changes nothing in the live store. It prints a line per projection (ok,
MISMATCH with the tables that differ, or skipped where the live version is
not this binary's) and a verdict. A mismatch names the projection and exits
with status 3: the live tables are not what the log says they should be.

The scratch store hashes its rows as the rebuild writes them. With --read-back
it is digested the way the live store is, by reading every row back through
SQLite: slower, and independent of the bulk writer.

An embedded log is opened with a full scan: every frame of every segment is
checked, including sealed segments that other commands open from their index
files, so damage anywhere in the log stops verify (exit status 1) with the
file and byte offset.

verify only reads, so it runs beside a running relay: the live store is read
in one snapshot (its checkpoints and its rows), and the rebuild stops at
exactly those checkpoints, however far the relay has appended since.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		eng, err := openReaders(cmd.Context(), embeddedlog.WithFullScan(true))
		if err != nil {
			return err
		}
		defer eng.Close()
		return runVerify(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), eng, verifyFlags.readBack, engineFlags.log == "embedded")
	},
}

var verifyFlags struct {
	readBack bool
}

// liveState is what verify reads from the live store for one projection.
type liveState struct {
	p      projections.Projection
	cp     map[string][]int64
	digest projections.Digest
}

// runVerify compares the live digests with those of a rebuild and prints
// a line per projection and a verdict; readBack digests the rebuild by
// reading its rows back instead of hashing them as they are written, and
// scanned says the log was opened with every frame checked.
func runVerify(ctx context.Context, out, errOut io.Writer, eng *engines, readBack, scanned bool) error {
	all := append([]projections.Projection{projections.ProcessedEvents{}}, projectionSet()...)
	snap, err := openLiveSnapshot(ctx, eng.Store, all, out)
	if err != nil {
		return err
	}
	// Against another log the digests would only differ: say why.
	if err := projections.CheckLog(ctx, snap.tx, eng.Log); err != nil {
		snap.close()
		return fmt.Errorf("verify: %w", err)
	}
	// The live digests are read from the snapshot while the rebuilds run:
	// the scan takes about as long as a rebuild, and the two share the
	// cores instead of taking turns.
	digestCtx, cancel := context.WithCancel(ctx)
	digested := make(chan error, 1)
	go func() { digested <- snap.digest(digestCtx) }()
	waitLive := sync.OnceValue(func() error {
		err := <-digested
		snap.close()
		return err
	})
	defer func() {
		cancel()
		waitLive()
	}()
	// Projections at the same checkpoint are checked by one rebuild.
	groups := map[string][]*liveState{}
	var keys []string
	for _, l := range snap.live {
		k := cpKey(l.cp)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], l)
	}
	rebuilt := map[string]projections.Digest{}
	for _, k := range keys {
		g := groups[k]
		scratch, done, err := openScratchStore(ctx, !readBack)
		if err != nil {
			return err
		}
		bar := newProgress(errOut, "verify")
		r, err := projections.NewRunner(ctx, eng.Log, scratch, projectionSet(),
			runnerOptions(projections.WithStopAt(g[0].cp), projections.WithProgress(bar.update))...)
		if err == nil {
			_, err = r.CatchUp(ctx)
		}
		bar.finish()
		var ds []projections.Digest
		if err == nil {
			ds, err = r.Digests(ctx)
		}
		done()
		if err != nil {
			return fmt.Errorf("verify: rebuild: %w", err)
		}
		for _, l := range g {
			for _, d := range ds {
				if d.Projection == l.p.Name() {
					rebuilt[l.p.Name()] = d
				}
			}
		}
	}
	if err := waitLive(); err != nil {
		return fmt.Errorf("verify: live digests: %w", err)
	}
	var bad []string
	for _, k := range keys {
		for _, l := range groups[k] {
			d := rebuilt[l.p.Name()]
			if d.SHA == l.digest.SHA {
				fmt.Fprintf(out, "ok        %s@v%d  %d rows  %s\n", l.p.Name(), l.p.Version(), l.digest.Rows(), l.digest.SHA[:16])
				continue
			}
			bad = append(bad, fmt.Sprintf("%s@v%d", l.p.Name(), l.p.Version()))
			fmt.Fprintf(out, "MISMATCH  %s@v%d  live %s (%d rows), rebuilt %s (%d rows)\n",
				l.p.Name(), l.p.Version(), l.digest.SHA[:16], l.digest.Rows(), d.SHA[:16], d.Rows())
			for i, t := range l.digest.Tables {
				if i < len(d.Tables) && d.Tables[i].SHA != t.SHA {
					fmt.Fprintf(out, "          table %s: live %d rows %s, rebuilt %d rows %s\n",
						t.Table, t.Rows, t.SHA[:16], d.Tables[i].Rows, d.Tables[i].SHA[:16])
				}
			}
		}
	}
	equal := len(snap.live) - len(bad)
	if len(bad) > 0 {
		return &exitError{code: 3, err: fmt.Errorf("verify: digest mismatch in %s (%d of %d projections equal to a rebuild)",
			strings.Join(bad, ", "), equal, len(snap.live))}
	}
	verdict := fmt.Sprintf("verify: %d projections equal to a rebuild", equal)
	if equal == 1 {
		verdict = "verify: 1 projection equal to a rebuild"
	}
	if skipped := len(all) - len(snap.live); skipped > 0 {
		verdict += fmt.Sprintf(", %d skipped", skipped)
	}
	if scanned {
		verdict += ", log frames intact"
	}
	fmt.Fprintln(out, verdict)
	return nil
}

// liveSnapshot is one read transaction of the live store: the live
// versions' checkpoints are read when it opens, their digests later, from
// the same snapshot.
type liveSnapshot struct {
	tx   projections.StoreTx
	live []*liveState
}

// openLiveSnapshot reads the checkpoints of the live versions. Projections
// whose live version is not the binary's are reported and left out.
func openLiveSnapshot(ctx context.Context, st projections.Store, all []projections.Projection, out io.Writer) (*liveSnapshot, error) {
	tx, err := st.Begin(ctx)
	if err != nil {
		return nil, err
	}
	snap := &liveSnapshot{tx: tx}
	if tx.Dialect() == projections.Postgres {
		// Checkpoints and rows from one snapshot even while a runner
		// writes.
		if _, err := tx.Exec(ctx, `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`); err != nil {
			snap.close()
			return nil, err
		}
	}
	for _, p := range all {
		v, err := projections.LiveVersion(ctx, tx, p.Name())
		if err != nil {
			snap.close()
			return nil, fmt.Errorf("verify %s: %w (run bridgelog project first)", p.Name(), err)
		}
		if v != p.Version() {
			fmt.Fprintf(out, "skipped   %s: live version v%d, this binary has v%d\n", p.Name(), v, p.Version())
			continue
		}
		cp, err := projections.StoredCheckpoint(ctx, tx, p.Name(), v)
		if err != nil {
			snap.close()
			return nil, err
		}
		snap.live = append(snap.live, &liveState{p: p, cp: cp})
	}
	return snap, nil
}

// digest fills in the live digests.
func (s *liveSnapshot) digest(ctx context.Context) error {
	for _, l := range s.live {
		d, err := projections.DigestOf(ctx, s.tx, l.p)
		if err != nil {
			return err
		}
		l.digest = d
	}
	return nil
}

// close ends the read transaction.
func (s *liveSnapshot) close() { s.tx.Rollback() }

func cpKey(cp map[string][]int64) string {
	topics := make([]string, 0, len(cp))
	for t := range cp {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	var b strings.Builder
	for _, t := range topics {
		fmt.Fprintf(&b, "%s=%v;", t, cp[t])
	}
	return b.String()
}

var demoFlags struct {
	events int
	seed   uint64
}

var demoCmd = &cobra.Command{
	Use:   "demo [--events N]",
	Short: "Generate a synthetic bridge log, project it and verify the projections",
	Long: `demo is the tour: it appends a realistic synthetic log (deposits and
withdrawals going detected, confirmed, minted or executed, some failed, with
duplicates and a few conflicting duplicates) to the log in --data, catches the
projections up, prints what they hold, and verifies them against a rebuild
from the log. Run it twice: the second run appends more and catches up only
the new events. Look around afterwards with bridgelog log inspect and
sqlite3 DATA/projections.db.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		eng, err := openEngines(ctx)
		if err != nil {
			return err
		}
		defer eng.Close()
		out := cmd.OutOrStdout()
		fmt.Fprintf(out, "== generate: %d events into the %s log (%s)\n", demoFlags.events, engineFlags.log, engineFlags.data)
		if err := runGenerate(ctx, out, cmd.ErrOrStderr(), eng, synth.Config{Events: demoFlags.events, Seed: demoFlags.seed}); err != nil {
			return err
		}
		fmt.Fprintf(out, "\n== project: catch the projections up (%s store)\n", engineFlags.store)
		if err := runProject(ctx, out, cmd.ErrOrStderr(), eng, false, 0, nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "\n== verify: rebuild from the log into a scratch store and compare digests\n")
		return runVerify(ctx, out, cmd.ErrOrStderr(), eng, false, false)
	},
}

func init() {
	demoCmd.Flags().IntVar(&demoFlags.events, "events", 20000, "events to generate")
	demoCmd.Flags().Uint64Var(&demoFlags.seed, "seed", 0, "generator seed (0: a new one each run)")
	verifyCmd.Flags().BoolVar(&verifyFlags.readBack, "read-back", false,
		"digest the rebuilt store by reading its rows back through SQLite, not as they are written (slower)")
	rootCmd.AddCommand(verifyCmd, demoCmd)
	rebuilds(verifyCmd, demoCmd)
}
