package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/analytics"
)

var analyticsAuditFlags auditOutput

var analyticsFlags struct {
	dsn         string
	json        bool
	follow      bool
	metricsAddr string
	since       time.Duration
	origin      string
}

var analyticsCmd = &cobra.Command{
	Use:   "analytics",
	Short: "Sink the log into ClickHouse and query gas, latency, error rates and audit trails",
	Long: `analytics copies every record of the log into ClickHouse (table
bridgelog_events, one row per record keyed by its log position, undecodable
records included with their error) and answers from there:

  analytics sink [--follow]   copy what is new on the log (and keep following)
  analytics gas               gas per kind of transaction and outcome
  analytics latency           deposit (detected → minted) and withdrawal
                              (detected → executed) latencies
  analytics errors            errors by kind, the error rate per hour, and
                              which of the seeds' alert conditions hold now
  analytics signing           the signers' rounds, commit latency, retries,
                              timeouts, abandoned events, and what each peer
                              did wrong (equivocations, invalid proposals)
  analytics audit KEY         the story of what a key names: an aggregate,
                              correlation or event id, a source key, a
                              transaction hash on either chain, a batch, a
                              leaf or a signing event (exit code 1: no
                              match; 2: the warehouse could not answer)

The warehouse is --clickhouse (or $BRIDGELOG_CLICKHOUSE_DSN), reached over
the native protocol. The schema is created or migrated on first use.

The relay's log and each signer's (sink --data <the signer's data dir>)
may share one warehouse: a signer's rows are stored under its topics
qualified by its id ("bridgelog.signing.v1@signer-2"), detected from its
signing.signer_started facts or given with --origin.`,
}

// openWarehouse connects and migrates.
func openWarehouse(ctx context.Context) (*clickhouse.Warehouse, error) {
	wh, err := clickhouse.Open(ctx, analyticsFlags.dsn)
	if err != nil {
		return nil, err
	}
	if err := analytics.Migrate(ctx, wh, time.Now()); err != nil {
		wh.Close()
		return nil, fmt.Errorf("%s: %w", wh.Where(), err)
	}
	return wh, nil
}

var analyticsSinkCmd = &cobra.Command{
	Use:   "sink [--follow] [--metrics-addr ADDR]",
	Short: "Copy the log's new records into ClickHouse",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		ctx, cancel := context.WithCancel(cmd.Context())
		defer cancel()
		lg, err := openLogReader(ctx) // beside a relay, which appends
		if err != nil {
			return err
		}
		defer lg.Close()
		wh, err := openWarehouse(ctx)
		if err != nil {
			return err
		}
		defer wh.Close()
		origin, err := sinkOrigin(ctx, lg)
		if err != nil {
			return err
		}
		cfg := analytics.Config{Origin: origin}
		if analyticsFlags.metricsAddr != "" {
			reg := metrics.New()
			cfg.Metrics = reg.Analytics()
			go func() {
				if err := metrics.Serve(ctx, analyticsFlags.metricsAddr, reg); err != nil {
					slog.Error("metrics endpoint failed", "addr", analyticsFlags.metricsAddr, "error", err)
					cancel()
				}
			}()
		}
		sink := analytics.NewSink(lg, wh, cfg)
		start := time.Now()
		st, err := sink.CatchUp(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "sank %d records (%d undecodable)%s into %s in %v\n",
			st.Records, st.Undecodable, originNote(origin), wh.Where(), time.Since(start).Round(time.Millisecond))
		if !analyticsFlags.follow {
			return nil
		}
		slog.Info("analytics sink following the log", "warehouse", wh.Where())
		return sink.Follow(ctx, func(st analytics.Stats) {
			slog.Info("analytics sink wrote records", "records", st.Records, "undecodable", st.Undecodable)
		})
	},
}

// withWarehouse opens (and migrates) the warehouse once for a query
// command and hands it to run.
func withWarehouse(run func(ctx context.Context, w io.Writer, wh analytics.Warehouse, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		wh, err := openWarehouse(cmd.Context())
		if err != nil {
			return err
		}
		defer wh.Close()
		return run(cmd.Context(), cmd.OutOrStdout(), wh, args)
	}
}

// show prints a query's rows as a table (header, then row's cells) or as
// JSON lines, or returns the query's error.
func show[T any](w io.Writer, header string, rows []T, err error, row func(T) []any) error {
	if err != nil {
		return err
	}
	return printRows(w, header, rows, row)
}

// printRows prints rows as the analytics commands' --json asks.
func printRows[T any](w io.Writer, header string, rows []T, row func(T) []any) error {
	return writeRows(w, analyticsFlags.json, header, rows, row)
}

// writeRows prints rows as JSON lines, or as a table: header, then each
// row's cells.
func writeRows[T any](w io.Writer, asJSON bool, header string, rows []T, row func(T) []any) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		for i, v := range row(r) {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, v)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

var analyticsGasCmd = &cobra.Command{
	Use:   "gas [--json]",
	Short: "Gas per kind of transaction and outcome",
	Args:  cobra.NoArgs,
	RunE: withWarehouse(func(ctx context.Context, w io.Writer, wh analytics.Warehouse, _ []string) error {
		rows, err := analytics.Gas(ctx, wh)
		return show(w, "KIND\tSTATUS\tTXS\tTOTAL GAS\tAVG\tMEDIAN\tMAX", rows, err, func(g analytics.GasRow) []any {
			return []any{g.Type, g.Status, g.Txs, g.Total, fmt.Sprintf("%.0f", g.Avg), fmt.Sprintf("%.0f", g.Median), g.Max}
		})
	}),
}

var analyticsLatencyCmd = &cobra.Command{
	Use:   "latency [--json]",
	Short: "Deposit and withdrawal latencies (seconds, recorded-at to recorded-at)",
	Args:  cobra.NoArgs,
	RunE: withWarehouse(func(ctx context.Context, w io.Writer, wh analytics.Warehouse, _ []string) error {
		rows, err := analytics.Latency(ctx, wh)
		return show(w, "FLOW\tCOMPLETED\tP50 S\tP90 S\tP99 S\tMAX S", rows, err, func(l analytics.LatencyRow) []any {
			return []any{l.Flow, l.Completed, fmt.Sprintf("%.1f", l.P50), fmt.Sprintf("%.1f", l.P90), fmt.Sprintf("%.1f", l.P99), fmt.Sprintf("%.1f", l.Max)}
		})
	}),
}

var analyticsErrorsCmd = &cobra.Command{
	Use:   "errors [--since 24h] [--json]",
	Short: "Errors by kind, the error rate per hour, and which alert conditions hold now",
	Args:  cobra.NoArgs,
	RunE: withWarehouse(func(ctx context.Context, w io.Writer, wh analytics.Warehouse, _ []string) error {
		kinds, err := analytics.Errors(ctx, wh)
		err = show(w, "KIND\tCOUNT\tLAST AT\tLAST REASON", kinds, err, func(e analytics.ErrorKind) []any {
			return []any{e.Kind, e.Count, e.LastAt.Format(time.RFC3339), e.LastReason}
		})
		if err != nil {
			return err
		}
		if !analyticsFlags.json {
			fmt.Fprintln(w)
		}
		since := time.Unix(0, 0)
		if analyticsFlags.since > 0 {
			since = time.Now().Add(-analyticsFlags.since)
		}
		hours, err := analytics.ErrorRates(ctx, wh, since)
		err = show(w, "HOUR\tEVENTS\tERRORS\tRATE", hours, err, func(h analytics.ErrorHour) []any {
			return []any{h.Hour.Format("2006-01-02 15:00"), h.Events, h.Errors, fmt.Sprintf("%.2f%%", 100*h.Rate())}
		})
		if err != nil {
			return err
		}
		return showAlerts(ctx, w, wh, time.Now())
	}),
}

// Exit codes of analytics audit besides 0 (found): like grep's.
const (
	exitAuditNoMatch = 1
	exitAuditFailed  = 2
)

var analyticsAuditCmd = &cobra.Command{
	Use:   "audit KEY [--json] [--explain] [--events]",
	Short: "The story of what an id, source key, transaction hash, batch, leaf or signing event names",
	Long: `audit looks KEY up in the warehouse's audit keys table and tells the story of
what it names, as bridgelog audit does from the local store: a withdrawal's
chain log, confirmation, batch, leaf and proof, anchor and claims with gas; a
Kaspa payout's rounds, votes, commits and quorum, signatures, transaction,
fee and confirmation (from every signer log sunk). A key that names several
things (a hash that is a transaction of one event and a leaf of another)
shows each, labelled. --explain adds a sentence per step, --json prints one
JSON document, --events lists the events the key finds instead.
Exit code 0: found; 1: nothing matches; 2: the warehouse could not answer
(then ` + "`bridgelog audit KEY`" + ` reads the local store instead).`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		ctx, key := cmd.Context(), args[0]
		failed := func(err error) error {
			return &exitError{code: exitAuditFailed, err: fmt.Errorf(
				"analytics audit: ClickHouse is unreachable or failed: %w; `bridgelog audit %s` reads the local store instead", err, key)}
		}
		wh, err := openWarehouse(ctx)
		if err != nil {
			return failed(err)
		}
		defer wh.Close()
		analyticsAuditFlags.json = analyticsFlags.json // the group's --json
		err = tellAudit(ctx, cmd.OutOrStdout(), analytics.NewWarehouseFinder(wh), "the warehouse "+wh.Where(), key, analyticsAuditFlags)
		var exit *exitError
		if err != nil && !errors.As(err, &exit) {
			return failed(fmt.Errorf("%s: %w", wh.Where(), err))
		}
		return err
	},
}

func init() {
	dsn := os.Getenv("BRIDGELOG_CLICKHOUSE_DSN")
	if dsn == "" {
		dsn = "clickhouse://127.0.0.1:9000/default"
	}
	pf := analyticsCmd.PersistentFlags()
	pf.StringVar(&analyticsFlags.dsn, "clickhouse", dsn, "ClickHouse DSN, native protocol (or $BRIDGELOG_CLICKHOUSE_DSN)")
	pf.BoolVar(&analyticsFlags.json, "json", false, "print JSON lines instead of a table")
	analyticsSinkCmd.Flags().BoolVar(&analyticsFlags.follow, "follow", false, "keep following the log until interrupted")
	analyticsSinkCmd.Flags().StringVar(&analyticsFlags.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on /metrics and /healthz at this address")
	analyticsSinkCmd.Flags().StringVar(&analyticsFlags.origin, "origin", "", "whose log this is, in a warehouse several logs share: a signer's id (default: detected from the log; the relay's has none)")
	analyticsErrorsCmd.Flags().DurationVar(&analyticsFlags.since, "since", 0, "only hours since this long ago (default: all)")
	addAuditFlags(analyticsAuditCmd, &analyticsAuditFlags)
	analyticsCmd.AddCommand(analyticsSinkCmd, analyticsGasCmd, analyticsLatencyCmd, analyticsErrorsCmd, analyticsAuditCmd, analyticsSigningCmd)
	rootCmd.AddCommand(analyticsCmd)
}
