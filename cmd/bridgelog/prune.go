package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

var pruneFlags struct {
	yes bool
}

var pruneCmd = &cobra.Command{
	Use:   "prune [--yes]",
	Short: "Drop the tables of retired projection versions",
	Long: `prune lists the projection versions that a newer version replaced (state
"retired") and the tables of theirs still in the store. With --yes it drops
those tables and their checkpoints in one transaction and marks the versions
"dropped"; live and building versions are never touched, and the log is not
touched at all (a dropped version can always be rebuilt from it).

Prune only after every process on this store runs the binary with the new
version: an older process would still be writing the retired tables.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if err := requireData(); err != nil {
			return err
		}
		if _, err := os.Stat(sqlitePath()); engineFlags.store == "sqlite" && errors.Is(err, os.ErrNotExist) {
			return noStoreError(sqlitePath(), err) // nothing to prune, and none to make
		}
		// Prune changes the store only: it reads the log beside the relay.
		lg, err := openLogReader(ctx)
		if err != nil {
			return err
		}
		eng := &engines{Log: lg}
		defer eng.Close()
		if eng.Store, err = openStore(ctx); err != nil {
			return err
		}
		r, err := newProjector(ctx, eng, nil, 0)
		if err != nil {
			return err
		}
		retired, err := r.Prune(ctx, pruneFlags.yes)
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		if len(retired) == 0 {
			fmt.Fprintln(out, "no retired projection versions")
			return nil
		}
		verb := "would drop"
		if pruneFlags.yes {
			verb = "dropped"
		}
		for _, v := range retired {
			fmt.Fprintf(out, "%s %s: %s\n", verb, v, strings.Join(v.Tables, ", "))
		}
		if !pruneFlags.yes {
			fmt.Fprintln(out, "nothing was changed; run again with --yes to drop them")
		}
		return nil
	},
}

func init() {
	pruneCmd.Flags().BoolVar(&pruneFlags.yes, "yes", false, "drop the tables (without it, only list them)")
	rootCmd.AddCommand(pruneCmd)
}
