package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

var statusFlags struct {
	json bool
}

var statusCmd = &cobra.Command{
	Use:   "status [--json]",
	Short: "Show the bridge's state: indexer lag per chain, flows by status, batches, gas, conflicts",
	Long: `status prints what an operator checks first, from the projections as they
are: how far each chain's indexer is behind the tip it last saw, the deposits
and withdrawals by status, the batches, the gas the relay's transactions
used, how many events were recorded as conflicts, and how many log records
the projections have not folded yet (a running relay folds them as they come;
without one, bridgelog project does).

status only reads: it runs beside a running relay, takes no lock a writer
needs, and changes and creates nothing; where --data holds no data it says
so and exits with status 1.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		eng, err := openReaders(ctx)
		if err != nil {
			return err
		}
		defer eng.Close()
		st, err := readBridgeStatus(ctx, eng.Log, eng.Store)
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		if statusFlags.json {
			return json.NewEncoder(out).Encode(st)
		}
		stats, unfolded := st.Stats, st.Unfolded
		for _, c := range st.Chains {
			fmt.Fprintf(out, "chain %d: scanned to block %d, tip %d (%d behind), %d reorgs, %d rejected logs\n",
				c.ChainID, c.ScannedTo, c.Tip, chainLag(c), c.Reorgs, c.RejectedLogs)
		}
		for _, kv := range []struct {
			name string
			m    map[string]int64
		}{{"deposits", stats.Deposits}, {"withdrawals", stats.Withdrawals}, {"batches", stats.Batches}, {"refunds", st.Refunds}} {
			fmt.Fprintf(out, "%-12s %s\n", kv.name, sortedCounts(kv.m))
		}
		if len(st.KaspaDeposits) > 0 { // only on a relay that indexes Kaspa
			fmt.Fprintf(out, "%-12s %s\n", "kas in", sortedCounts(st.KaspaDeposits))
		}
		for _, p := range []string{"mint", "anchor", "claim", "refund"} {
			if g, ok := stats.Gas[p]; ok {
				fmt.Fprintf(out, "gas %-8s %d sent, median %d, max %d\n", p, g.Count, g.Median, g.Max)
			}
		}
		fmt.Fprintf(out, "conflicts    %d\n", stats.Conflicts)
		fmt.Fprintln(out, pauseLine(st.Pause))
		fmt.Fprintf(out, "held mints   %d\n", len(st.Held))
		for _, h := range st.Held {
			fmt.Fprintln(out, "  "+h.line)
		}
		if unfolded == 0 {
			fmt.Fprintf(out, "unfolded     none: the projections are caught up with the log\n")
		} else {
			fmt.Fprintf(out, "unfolded     %d log records not in the projections yet\n", unfolded)
		}
		return nil
	},
}

// bridgeStatus is what `status` prints and the relay's console shows:
// one read of the projections as they are.
type bridgeStatus struct {
	Chains   []projections.ChainCursorRow `json:"chains"`
	Stats    projections.BridgeStats      `json:"stats"`
	Unfolded int64                        `json:"unfolded"`
	// Refunds counts the refusal certificates by status: REQUESTED,
	// COMPLETED, FAILED, REFUSED (certificates not acted on).
	Refunds map[string]int64 `json:"refunds"`
	// KaspaDeposits counts the deposits on Kaspa by status: DETECTED,
	// CONFIRMED, REFUSED (recorded, never minted), REORGED.
	KaspaDeposits map[string]int64 `json:"kaspaDeposits,omitempty"`
	// Pause is the relay's emergency pause; Held the mints the governor
	// or an operator holds (at most maxStatusHolds).
	Pause domain.PauseState `json:"pause"`
	Held  []heldMint        `json:"held"`
}

// heldMint is one held mint as status shows it.
type heldMint struct {
	Deposit   string `json:"deposit"`
	Reason    string `json:"reason"`
	Amount    string `json:"amount,omitempty"`
	ReleaseAt int64  `json:"releaseAt,omitempty"` // unix seconds of source chain time
	By        string `json:"by,omitempty"`
	Note      string `json:"note,omitempty"`
	line      string
}

// maxStatusHolds bounds the held mints status reads.
const maxStatusHolds = 1000

// readBrakes reads the pause and the standing holds.
func readBrakes(ctx context.Context, rd projections.BridgeReader, out *bridgeStatus) error {
	var err error
	if out.Pause, err = rd.PauseState(ctx); err != nil {
		return err
	}
	holds, err := rd.MintHolds(ctx, maxStatusHolds)
	if err != nil {
		return err
	}
	for _, h := range holds {
		if !h.Standing() {
			continue
		}
		m := heldMint{Deposit: h.Ref.DepositID(), Reason: h.Reason, Amount: h.Amount, By: h.HeldBy, Note: h.HoldNote, line: holdLine(h)}
		if h.Reason != domain.HoldOperator {
			m.ReleaseAt = h.ReleaseAt
		}
		out.Held = append(out.Held, m)
	}
	return nil
}

func readBridgeStatus(ctx context.Context, lg topics.Log, st projections.Store) (bridgeStatus, error) {
	var out bridgeStatus
	rd := projections.BridgeReader{Store: st}
	var err error
	if out.Chains, err = rd.Cursors(ctx); err != nil {
		return out, err
	}
	if out.Stats, err = rd.Stats(ctx); err != nil {
		return out, err
	}
	if out.Refunds, err = rd.RefundCounts(ctx); err != nil {
		return out, err
	}
	if out.KaspaDeposits, err = rd.KaspaDepositCounts(ctx); err != nil {
		return out, err
	}
	if err := readBrakes(ctx, rd, &out); err != nil {
		return out, err
	}
	out.Unfolded, err = unfoldedRecords(ctx, lg, st)
	return out, err
}

// chainLag is how many blocks the indexer is behind the tip it last saw.
func chainLag(c projections.ChainCursorRow) uint64 { return c.Tip - min(c.Tip, c.ScannedTo) }

// unfoldedRecords counts the log records the projections have not folded
// yet (see unfoldedBy).
func unfoldedRecords(ctx context.Context, lg topics.Log, st projections.Store) (int64, error) {
	return unfoldedBy(ctx, lg, st, projectionSet())
}

// unfoldedBy counts the log records ps have not folded yet: for the
// projection furthest behind, from its checkpoints (read first, in one
// transaction) to the log's end offsets (read after).
func unfoldedBy(ctx context.Context, lg topics.Log, st projections.Store, ps []projections.Projection) (int64, error) {
	tx, err := st.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	checkpoints := map[string]map[string][]int64{}
	for _, p := range ps {
		v, err := projections.LiveVersion(ctx, tx, p.Name())
		switch {
		case errors.Is(err, projections.ErrNoLiveVersion):
			checkpoints[p.Name()] = nil // never built: the whole log is ahead
			continue
		case err != nil:
			return 0, err
		}
		if checkpoints[p.Name()], err = projections.StoredCheckpoint(ctx, tx, p.Name(), v); err != nil {
			return 0, err
		}
	}
	ends := map[string][]int64{}
	var most int64
	for _, p := range ps {
		cp := checkpoints[p.Name()]
		var n int64
		for _, t := range p.Topics() {
			if _, ok := ends[t]; !ok {
				if ends[t], err = lg.EndOffsets(ctx, t); err != nil {
					return 0, fmt.Errorf("end offsets of %s: %w", t, err)
				}
			}
			for part, end := range ends[t] {
				folded := int64(0)
				if part < len(cp[t]) {
					folded = cp[t][part]
				}
				n += max(0, end-folded)
			}
		}
		most = max(most, n)
	}
	return most, nil
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
	// Kept so that scripts passing it still run.
	statusCmd.Flags().Int64("bulk-build-min", 0, "")
	_ = statusCmd.Flags().MarkDeprecated("bulk-build-min", "status only reads; bridgelog project (or relay) builds a missing store")
	rootCmd.AddCommand(statusCmd)
}
