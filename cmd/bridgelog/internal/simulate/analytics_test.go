package simulate

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// TestSigningAnalyticsEqualTheReport keeps each honest signer's log of a
// run (--log-dir), sinks every one into one warehouse (each under the
// origin its facts name), twice, and checks that `analytics signing`
// says what the simulator's own report says for the same seed: events,
// completed and abandoned, rounds, commit latency, retries, timeouts
// without quorum, equivocations, invalid proposals, conflicting commits.
func TestSigningAnalyticsEqualTheReport(t *testing.T) {
	srv := chtest.Start(t)
	for name, cfg := range map[string]Config{
		// Byzantine members, loss, a crash and a reorganised input:
		// equivocations, rejected proposals, retries.
		"byzantine": {Profile: twophase.ProfileB, Signers: 7, Byzantine: 2, Behaviour: BehaviourMixed, Events: 12, Streams: 2,
			Crash: 0.05, Invalidate: 0.2, Seed: 5, Faults: simnet.Faults{Delay: 20 * time.Millisecond, Loss: 0.05}},
		// No group holds a quorum: every round times out, every event is
		// abandoned.
		"partitioned": {Signers: 5, Events: 3, Streams: 3, Seed: 3, Faults: simnet.Faults{Delay: 20 * time.Millisecond,
			Partitions: []simnet.Partition{{Groups: []int{2, 2, 1}, For: 10 * time.Hour}}}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.LogDir = t.TempDir()
			rep := run(t, cfg)
			if !rep.InvariantsHeld() {
				t.Fatalf("the run itself broke: %+v", rep)
			}
			wh := sinkSignerLogs(t, srv, cfg.LogDir, cfg.Signers-cfg.Byzantine)
			ctx := context.Background()
			rows, err := analytics.Signing(ctx, wh)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1+cfg.Signers-cfg.Byzantine || rows[0].Origin != analytics.AllOrigins {
				t.Fatalf("want a row for all logs and one per honest signer, got %+v", rows)
			}
			all := rows[0]
			want := analytics.SigningRow{Origin: analytics.AllOrigins, Events: uint64(rep.Events), Completed: uint64(rep.Completed),
				Abandoned: uint64(rep.Abandoned - rep.BlockedBehindAbandoned), RoundsP50: uint64(rep.RoundsP50), RoundsMax: uint64(rep.RoundsMax),
				CommitLatencyMs: analytics.Percentiles(rep.CommitLatencyMs), Retries: uint64(rep.Retries),
				TimeoutsWithoutQuorum: uint64(rep.TimeoutsWithoutQuoum), Equivocations: uint64(rep.Equivocations),
				InvalidProposals: uint64(rep.InvalidRejected), CommitConflicts: uint64(rep.CommitConflicts)}
			// Not in the report: taken from the warehouse, checked below
			// as the sum of the signers' own.
			want.Commits, want.RevalidationFailures, want.RequestToCommitMs = all.Commits, all.RevalidationFailures, all.RequestToCommitMs
			if all != want {
				t.Fatalf("analytics signing over every log:\n got %+v\nwant %+v (the report: %+v)", all, want, rep)
			}
			// An event is requested before it starts: the wait adds to each
			// event's commit latency, so to each percentile.
			if l, w := all.CommitLatencyMs, all.RequestToCommitMs; w.P50 < l.P50 || w.P95 < l.P95 || w.P99 < l.P99 || w.Max < l.Max {
				t.Fatalf("request to commit %+v is shorter than the commit latency %+v", w, l)
			}
			var sum analytics.SigningRow
			for _, r := range rows[1:] {
				sum.Commits += r.Commits
				sum.Retries += r.Retries
				sum.TimeoutsWithoutQuorum += r.TimeoutsWithoutQuorum
				sum.RevalidationFailures += r.RevalidationFailures
				sum.Equivocations += r.Equivocations
				sum.InvalidProposals += r.InvalidProposals
				if r.Events != uint64(rep.Events) {
					t.Errorf("signer %s: %d events, the run had %d", r.Origin, r.Events, rep.Events)
				}
			}
			if sum.Commits != all.Commits || sum.Retries != all.Retries || sum.TimeoutsWithoutQuorum != all.TimeoutsWithoutQuorum ||
				sum.RevalidationFailures != all.RevalidationFailures || sum.Equivocations != all.Equivocations || sum.InvalidProposals != all.InvalidProposals {
				t.Fatalf("the signers' rows do not add up to the row of all logs:\n sum %+v\n all %+v", sum, all)
			}
			peers, err := analytics.SigningPeers(ctx, wh)
			if err != nil {
				t.Fatal(err)
			}
			var equivocations, invalid uint64
			for _, p := range peers {
				equivocations += p.Equivocations
				invalid += p.InvalidProposals
				var reasons uint64
				for _, n := range p.Reasons {
					reasons += n
				}
				if reasons != p.InvalidProposals {
					t.Errorf("peer %s at %s: %d invalid proposals, %d reasons", p.Peer, p.Origin, p.InvalidProposals, reasons)
				}
			}
			if equivocations != uint64(rep.Equivocations) || invalid != uint64(rep.InvalidRejected) {
				t.Fatalf("by peer: %d equivocations, %d invalid proposals; the report: %d, %d", equivocations, invalid, rep.Equivocations, rep.InvalidRejected)
			}
		})
	}
}

// sinkSignerLogs sinks each signer log under dir into a fresh database,
// twice (the second sink finds nothing new), and checks the signers
// found there and their origins.
func sinkSignerLogs(t *testing.T, srv *chtest.Server, dir string, want int) *clickhouse.Warehouse {
	t.Helper()
	ctx := context.Background()
	wh, err := clickhouse.Open(ctx, srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	if err := analytics.Migrate(ctx, wh, epoch); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != want {
		t.Fatalf("%d signer logs kept in %s, want %d", len(entries), dir, want)
	}
	for _, e := range entries {
		lg, err := embeddedlog.OpenReadOnly(filepath.Join(dir, e.Name(), "log"))
		if err != nil {
			t.Fatal(err)
		}
		origin, err := analytics.DetectOrigin(ctx, lg)
		if err != nil || origin != e.Name() {
			t.Fatalf("origin of %s's log: %q, %v", e.Name(), origin, err)
		}
		for round := 0; round < 2; round++ {
			st, err := analytics.NewSink(lg, wh, analytics.Config{Origin: origin}).CatchUp(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if (round == 0) != (st.Records > 0) || st.Undecodable != 0 {
				t.Fatalf("sink %d of %s: %+v", round+1, origin, st)
			}
		}
		lg.Close()
	}
	return wh
}
