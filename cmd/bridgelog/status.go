package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/projections"
)

var statusFlags struct {
	json    bool
	bulkMin int64
}

var statusCmd = &cobra.Command{
	Use:   "status [--json]",
	Short: "Show the bridge's state: indexer lag per chain, flows by status, batches, gas, conflicts",
	Long: `status catches the projections up with the log and prints what an operator
checks first: how far each chain's indexer is behind the tip it last saw, the
deposits and withdrawals by status, the batches, the gas the relay's
transactions used, and how many events were recorded as conflicts. A missing
SQLite store is built first as project builds it (--bulk-build-min).`,
	RunE: func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if _, err := buildMissingStore(ctx, cmd.ErrOrStderr(), statusFlags.bulkMin); err != nil {
			return err
		}
		eng, err := openEngines(ctx)
		if err != nil {
			return err
		}
		defer eng.Close()
		r, err := projections.NewRunner(ctx, eng.Log, eng.Store, projectionSet(), runnerOptions()...)
		if err != nil {
			return err
		}
		if err := catchUpShared(ctx, r); err != nil {
			return err
		}
		rd := projections.BridgeReader{Store: eng.Store}
		cursors, err := rd.Cursors(ctx)
		if err != nil {
			return err
		}
		stats, err := rd.Stats(ctx)
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		if statusFlags.json {
			return json.NewEncoder(out).Encode(map[string]any{"chains": cursors, "stats": stats})
		}
		for _, c := range cursors {
			fmt.Fprintf(out, "chain %d: scanned to block %d, tip %d (%d behind), %d reorgs, %d rejected logs\n",
				c.ChainID, c.ScannedTo, c.Tip, c.Tip-min(c.Tip, c.ScannedTo), c.Reorgs, c.RejectedLogs)
		}
		for _, kv := range []struct {
			name string
			m    map[string]int64
		}{{"deposits", stats.Deposits}, {"withdrawals", stats.Withdrawals}, {"batches", stats.Batches}} {
			fmt.Fprintf(out, "%-12s %s\n", kv.name, sortedCounts(kv.m))
		}
		for _, p := range []string{"mint", "anchor", "claim"} {
			if g, ok := stats.Gas[p]; ok {
				fmt.Fprintf(out, "gas %-8s %d sent, median %d, max %d\n", p, g.Count, g.Median, g.Max)
			}
		}
		fmt.Fprintf(out, "conflicts    %d\n", stats.Conflicts)
		return nil
	},
}

func sortedCounts(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for _, k := range keys {
		s += fmt.Sprintf("%s=%d ", k, m[k])
	}
	if s == "" {
		return "none"
	}
	return s
}

func init() {
	statusCmd.Flags().BoolVar(&statusFlags.json, "json", false, "print JSON")
	addBulkBuildFlag(statusCmd, &statusFlags.bulkMin)
	rootCmd.AddCommand(statusCmd)
}

// catchUpShared catches r up with the log on a store that other runners
// (a relay, claim workers) may be writing: losing a commit to one of them
// (ErrCheckpointMoved) reloads the checkpoints, and the catch-up is tried
// again, up to 5 times.
func catchUpShared(ctx context.Context, r *projections.Runner) error {
	for attempt := 1; ; attempt++ {
		_, err := r.CatchUp(ctx)
		if err == nil || !errors.Is(err, projections.ErrCheckpointMoved) || attempt == 5 {
			return err
		}
	}
}
