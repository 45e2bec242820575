package main

import (
	"context"
	"encoding/json"
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

var analyticsFlags struct {
	dsn         string
	json        bool
	follow      bool
	metricsAddr string
	since       time.Duration
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
  analytics errors            errors by kind, and the error rate per hour
  analytics audit ID          everything that happened to an aggregate,
                              correlation id, source key or transaction hash

The warehouse is --clickhouse (or $BRIDGELOG_CLICKHOUSE_DSN), reached over
the native protocol. The schema is created or migrated on first use.`,
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
		lg, err := openLog(ctx)
		if err != nil {
			return err
		}
		defer lg.Close()
		wh, err := openWarehouse(ctx)
		if err != nil {
			return err
		}
		defer wh.Close()
		cfg := analytics.Config{}
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
		fmt.Fprintf(cmd.OutOrStdout(), "sank %d records (%d undecodable) into %s in %v\n",
			st.Records, st.Undecodable, wh.Where(), time.Since(start).Round(time.Millisecond))
		if !analyticsFlags.follow {
			return nil
		}
		slog.Info("analytics sink following the log", "warehouse", wh.Where())
		return sink.Follow(ctx, func(st analytics.Stats) {
			slog.Info("analytics sink wrote records", "records", st.Records, "undecodable", st.Undecodable)
		})
	},
}

// query opens the warehouse, runs q and prints its rows as a table or
// as JSON lines.
func query[T any](header string, q func(context.Context, analytics.Warehouse) ([]T, error), row func(T) []any) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		wh, err := openWarehouse(ctx)
		if err != nil {
			return err
		}
		defer wh.Close()
		rows, err := q(ctx, wh)
		if err != nil {
			return err
		}
		return printRows(cmd.OutOrStdout(), header, rows, row)
	}
}

func printRows[T any](w io.Writer, header string, rows []T, row func(T) []any) error {
	if analyticsFlags.json {
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
	RunE: query("KIND\tSTATUS\tTXS\tTOTAL GAS\tAVG\tMEDIAN\tMAX", analytics.Gas, func(g analytics.GasRow) []any {
		return []any{g.Type, g.Status, g.Txs, g.Total, fmt.Sprintf("%.0f", g.Avg), fmt.Sprintf("%.0f", g.Median), g.Max}
	}),
}

var analyticsLatencyCmd = &cobra.Command{
	Use:   "latency [--json]",
	Short: "Deposit and withdrawal latencies (seconds, recorded-at to recorded-at)",
	Args:  cobra.NoArgs,
	RunE: query("FLOW\tCOMPLETED\tP50 S\tP90 S\tP99 S\tMAX S", analytics.Latency, func(l analytics.LatencyRow) []any {
		return []any{l.Flow, l.Completed, fmt.Sprintf("%.1f", l.P50), fmt.Sprintf("%.1f", l.P90), fmt.Sprintf("%.1f", l.P99), fmt.Sprintf("%.1f", l.Max)}
	}),
}

var analyticsErrorsCmd = &cobra.Command{
	Use:   "errors [--since 24h] [--json]",
	Short: "Errors by kind, and the error rate per hour",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, args []string) error {
		err := query("KIND\tCOUNT\tLAST AT\tLAST REASON", analytics.Errors, func(e analytics.ErrorKind) []any {
			return []any{e.Kind, e.Count, e.LastAt.Format(time.RFC3339), e.LastReason}
		})(cmd, args)
		if err != nil {
			return err
		}
		if !analyticsFlags.json {
			fmt.Fprintln(cmd.OutOrStdout())
		}
		since := time.Unix(0, 0)
		if analyticsFlags.since > 0 {
			since = time.Now().Add(-analyticsFlags.since)
		}
		rates := func(ctx context.Context, wh analytics.Warehouse) ([]analytics.ErrorHour, error) {
			return analytics.ErrorRates(ctx, wh, since)
		}
		return query("HOUR\tEVENTS\tERRORS\tRATE", rates, func(h analytics.ErrorHour) []any {
			return []any{h.Hour.Format("2006-01-02 15:00"), h.Events, h.Errors, fmt.Sprintf("%.2f%%", 100*h.Rate())}
		})(cmd, args)
	},
}

var analyticsAuditCmd = &cobra.Command{
	Use:   "audit ID [--json]",
	Short: "Everything that happened to an aggregate, correlation id, source key or transaction hash",
	Args:  cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		trail := func(ctx context.Context, wh analytics.Warehouse) ([]analytics.AuditRow, error) {
			return analytics.Audit(ctx, wh, args[0])
		}
		return query("RECORDED\tPOSITION\tTYPE\tSOURCE KEY\tPAYLOAD", trail, func(a analytics.AuditRow) []any {
			payload := a.Payload
			if a.DecodeError != "" {
				payload = "ERROR " + a.DecodeError
			}
			return []any{time.UnixMilli(a.RecordedMs).UTC().Format("2006-01-02T15:04:05.000Z"),
				fmt.Sprintf("%s/%d@%d", a.Topic, a.Partition, a.Offset), a.Type, a.SourceKey, payload}
		})(cmd, args)
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
	analyticsErrorsCmd.Flags().DurationVar(&analyticsFlags.since, "since", 0, "only hours since this long ago (default: all)")
	analyticsCmd.AddCommand(analyticsSinkCmd, analyticsGasCmd, analyticsLatencyCmd, analyticsErrorsCmd, analyticsAuditCmd)
	rootCmd.AddCommand(analyticsCmd)
}
