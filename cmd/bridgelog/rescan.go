package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/topics"
)

var rescanFlags struct {
	chainID uint64
	from    uint64
	reason  string
	by      string
}

var rescanCmd = &cobra.Command{
	Use:   "rescan --chain-id ID --from BLOCK --reason TEXT",
	Short: "Ask the relay to index a chain again from a block",
	Long: `rescan appends chain.rescan_requested: the relay's indexer of that chain
moves its cursor back to BLOCK-1 and scans every block from BLOCK again.
What it finds again is a duplicate and changes nothing; what it missed is
found. This is how an indexer stopped by a reorg deeper than the chain's
confirmation depth (chain.reorg_beyond_window, alert
BridgelogReorgBeyondWindow) goes on: pick a BLOCK below the fork, at the
latest the event's oldest_kept. With the embedded log, stop the relay first
(one process holds the log).`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if rescanFlags.chainID == 0 || rescanFlags.reason == "" {
			return errors.New("--chain-id and --reason are required")
		}
		lg, err := openLog(cmd.Context())
		if err != nil {
			return err
		}
		defer lg.Close()
		ev := domain.ChainRescanRequested{ChainID: rescanFlags.chainID, From: rescanFlags.from, Reason: rescanFlags.reason,
			RequestedBy: rescanFlags.by, RequestID: topics.NewID()}
		app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
		if _, err := app.Append(cmd.Context(), handlers.Cause{}, ev); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "rescan of chain %d from block %d requested (%s)\n", ev.ChainID, ev.From, ev.RequestID)
		return nil
	},
}

func init() {
	rescanCmd.Flags().Uint64Var(&rescanFlags.chainID, "chain-id", 0, "the chain to index again")
	rescanCmd.Flags().Uint64Var(&rescanFlags.from, "from", 0, "the first block to scan again")
	rescanCmd.Flags().StringVar(&rescanFlags.reason, "reason", "", "why, for the audit trail")
	rescanCmd.Flags().StringVar(&rescanFlags.by, "by", os.Getenv("USER"), "who asks, for the audit trail")
	_ = rescanCmd.MarkFlagRequired("from")
	rootCmd.AddCommand(rescanCmd)
}
