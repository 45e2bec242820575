package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/projections"
)

// auditOutput is how an audit is printed, the same for `audit` and
// `analytics audit`.
type auditOutput struct {
	json    bool // the story as one JSON document (with events: JSON lines)
	explain bool // a sentence per step
	events  bool // the events the key finds, one a line, instead of the story
}

var auditFlags auditOutput

// tellAudit prints the audit of key through finder (which searches
// where): the story of what it names (analytics.BuildStory), or with
// out.events the events it finds. A key of nothing exits 1, saying so
// (the JSON story is printed too, with no subjects, for scripts), so a
// script can tell an empty answer from a trail.
func tellAudit(ctx context.Context, w io.Writer, finder analytics.Finder, where, key string, out auditOutput) error {
	noMatch := &exitError{code: exitAuditNoMatch, err: &analytics.NoMatchError{Key: key, Where: where}}
	if out.events {
		matches, err := finder.Find(ctx, key)
		if err != nil {
			return err
		}
		if len(matches) == 0 {
			return noMatch
		}
		return printAudit(w, matches, out.json)
	}
	st, err := analytics.BuildStory(ctx, finder, key)
	if errors.Is(err, analytics.ErrNoAuditKey) {
		return &exitError{code: exitBadInput, err: fmt.Errorf("audit: %w", err)}
	}
	if err != nil {
		return err
	}
	if st.Empty() {
		if out.json {
			if err := analytics.PrintStory(w, st, analytics.PrintOptions{JSON: true}); err != nil {
				return err
			}
		}
		return noMatch
	}
	return analytics.PrintStory(w, st, analytics.PrintOptions{JSON: out.json, Explain: out.explain})
}

// addAuditFlags declares the output flags of an audit command.
func addAuditFlags(cmd *cobra.Command, out *auditOutput) {
	cmd.Flags().BoolVar(&out.explain, "explain", false, "a sentence per step, in words")
	cmd.Flags().BoolVar(&out.events, "events", false, "the events the key finds, one a line (JSON lines with --json), instead of the story")
}

var auditCmd = &cobra.Command{
	Use:   "audit KEY [--json] [--explain] [--events]",
	Short: "The story of what a key names, from the local store and log (no ClickHouse needed)",
	Long: `audit tells the whole story of what KEY names, as bridgelog analytics audit
does from ClickHouse: KEY is an aggregate id (withdrawal:evm:…, deposit:evm:…),
a correlation or event id, a source key, a transaction hash on either chain
(an EVM transaction, a Kaspa payout), a batch (batches:CHAIN:DISTRIBUTOR/ID),
a leaf hash or a signing event id. Hashes may be given in any case, with or
without 0x. A withdrawal shows its chain log, confirmation, batch, leaf and
proof, anchor and claims with gas; a Kaspa payout (on a signer's data
directory) its rounds, votes, commits and quorum, signatures, the submitted
transaction, its fee and confirmation. A key that names several things (a
hash that is a transaction and a leaf) shows each, labelled. --explain adds
a sentence per step; --json prints the story as one JSON document; --events
lists the events the key finds instead (KINDS: what KEY is to each).

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
		// A signer's log is named by its id, as the sink stores it.
		origin, err := analytics.DetectOrigin(ctx, eng.Log)
		if err != nil {
			return err
		}
		finder := analytics.NewLocalFinder(projections.BridgeReader{Store: eng.Store}, eng.Log, nil, analytics.WithOrigin(origin))
		return tellAudit(ctx, cmd.OutOrStdout(), finder, "the local store of "+engineFlags.data, key, auditFlags)
	},
}

// printAudit prints an audit's matches: a table for people, or JSON lines.
func printAudit(w io.Writer, matches []analytics.AuditMatch, asJSON bool) error {
	return writeRows(w, asJSON, "RECORDED\tPOSITION\tTYPE\tKINDS\tAGGREGATE\tPAYLOAD", matches, func(m analytics.AuditMatch) []any {
		payload := m.Payload
		if m.DecodeError != "" {
			payload = "ERROR " + m.DecodeError
		}
		return []any{time.UnixMilli(m.RecordedMs).UTC().Format("2006-01-02T15:04:05.000Z"),
			fmt.Sprintf("%s/%d@%d", m.Topic, m.Partition, m.Offset), m.Type, strings.Join(m.Kinds, ","), m.AggregateID, payload}
	})
}

func init() {
	auditCmd.Flags().BoolVar(&auditFlags.json, "json", false, "print JSON instead of a table")
	addAuditFlags(auditCmd, &auditFlags)
	rootCmd.AddCommand(auditCmd)
}
