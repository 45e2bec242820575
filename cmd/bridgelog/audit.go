package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/projections"
)

var auditFlags struct {
	json bool
}

// errNoAuditMatch: the key finds no event. The command exits 1 then, so
// a script can tell an empty answer from a trail.
var errNoAuditMatch = errors.New("no event has this key")

var auditCmd = &cobra.Command{
	Use:   "audit KEY [--json]",
	Short: "Every event a key names, from the local store and log (no ClickHouse needed)",
	Long: `audit prints every event of the log that KEY names, in the order they were
recorded: KEY is an aggregate id (withdrawal:evm:…, deposit:evm:…), a
correlation or event id, a source key, a transaction hash on either chain
(an EVM transaction, a Kaspa payout), a batch (batches:CHAIN:DISTRIBUTOR/ID),
a leaf hash or a signing event id. Hashes may be given in any case, with or
without 0x. KINDS says what KEY is to each event; a key that is several
things (a hash that is a transaction and a leaf) shows every match,
labelled. --json prints one JSON object a line, the same fields as
bridgelog analytics audit.

It reads the data directory of a relay or of a signer (--data): the
audit_keys projection finds the events, which are then read from the log.
Like status, it only reads: it runs beside a running relay or signer and
changes and creates nothing. It does not fold what the projection has not
folded yet; when the store is behind the log it says how far on standard
error (a running relay or signer folds as it goes; without one, bridgelog
project does). A key that matches nothing is said so, with exit status 1.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		key := strings.TrimSpace(args[0])
		if key == "" {
			return &exitError{code: exitBadInput, err: errors.New("audit: empty key")}
		}
		eng, err := openReaders(ctx)
		if err != nil {
			return err
		}
		defer eng.Close()
		if behind, err := unfoldedBy(ctx, eng.Log, eng.Store, []projections.Projection{projections.AuditKeys{}}); err != nil {
			return err
		} else if behind > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "audit_keys has not folded the last %d log records yet: newer events are not shown "+
				"(a running relay or signer folds them; without one, run bridgelog project)\n", behind)
		}
		matches, err := analytics.NewLocalFinder(projections.BridgeReader{Store: eng.Store}, eng.Log, nil).Find(ctx, key)
		if err != nil {
			return err
		}
		if len(matches) == 0 {
			return &exitError{code: 1, err: fmt.Errorf("audit %s: %w (an aggregate, correlation or event id, source key, "+
				"transaction hash, batch, leaf or signing event id)", key, errNoAuditMatch)}
		}
		return printAudit(cmd.OutOrStdout(), matches, auditFlags.json)
	},
}

// printAudit prints an audit's matches: a table for people, or JSON lines.
func printAudit(w io.Writer, matches []analytics.AuditMatch, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, m := range matches {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RECORDED\tPOSITION\tTYPE\tKINDS\tAGGREGATE\tPAYLOAD")
	for _, m := range matches {
		payload := m.Payload
		if m.DecodeError != "" {
			payload = "ERROR " + m.DecodeError
		}
		fmt.Fprintf(tw, "%s\t%s/%d@%d\t%s\t%s\t%s\t%s\n", time.UnixMilli(m.RecordedMs).UTC().Format("2006-01-02T15:04:05.000Z"),
			m.Topic, m.Partition, m.Offset, m.Type, strings.Join(m.Kinds, ","), m.AggregateID, payload)
	}
	return tw.Flush()
}

func init() {
	auditCmd.Flags().BoolVar(&auditFlags.json, "json", false, "print JSON lines instead of a table")
	rootCmd.AddCommand(auditCmd)
}
