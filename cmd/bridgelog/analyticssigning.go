package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/topics"
)

// sinkOrigin is the origin of the log being sunk: --origin, or the signer
// its facts name (none for a relay's log).
func sinkOrigin(ctx context.Context, lg topics.Log) (string, error) {
	if analyticsFlags.origin != "" {
		return analyticsFlags.origin, analytics.CheckOrigin(analyticsFlags.origin)
	}
	origin, err := analytics.DetectOrigin(ctx, lg)
	if err != nil {
		return "", fmt.Errorf("%w (--origin)", err)
	}
	return origin, nil
}

// originNote names a signer's log in the sink's summary.
func originNote(origin string) string {
	if origin == "" {
		return ""
	}
	return fmt.Sprintf(" of signer %s's log", origin)
}

var analyticsSigningCmd = &cobra.Command{
	Use:   "signing [--json]",
	Short: "The signers' rounds, commit latency, retries, timeouts, abandoned events, and each peer's equivocations and invalid proposals",
	Long: `signing sums up what the signers recorded, from their sunk logs (analytics
sink --data <a signer's data dir>): one line per signer log, and a line "*"
for all of them together when there are several. Events were requested,
completed (paid), abandoned; rounds are an event's highest round + 1 over
completed events; commit latency runs from an event's activation (its round
0 starting) to its last commit (over all logs: the first signer starting it
to the last signer's commit), in ms, nearest-rank percentiles p50/p95/p99
and the max; request to commit adds the wait behind earlier events of the
stream (from the event's first request); retries are
rounds after the first; timeouts are rounds that ended without a quorum.
Then, per signer log and peer, the equivocations and the rejected proposals
(by reason) it recorded against that peer. --json prints one object
{"signers": [...], "peers": [...]}.`,
	Args: cobra.NoArgs,
	RunE: withWarehouse(func(ctx context.Context, w io.Writer, wh analytics.Warehouse, _ []string) error {
		rows, err := analytics.Signing(ctx, wh)
		if err != nil {
			return err
		}
		peers, err := analytics.SigningPeers(ctx, wh)
		if err != nil {
			return err
		}
		if analyticsFlags.json {
			return json.NewEncoder(w).Encode(struct {
				Signers []analytics.SigningRow `json:"signers"`
				Peers   []analytics.PeerRow    `json:"peers"`
			}{rows, peers})
		}
		err = printRows(w, "SIGNER LOG\tEVENTS\tCOMPLETED\tABANDONED\tROUNDS P50\tROUNDS MAX\tCOMMIT MS P50/P95/P99/MAX\tREQUEST TO COMMIT MS\tCOMMITS\tRETRIES\tTIMEOUTS NO QUORUM\tREVALIDATION FAILURES\tEQUIVOCATIONS\tINVALID PROPOSALS\tCONFLICTS",
			rows, func(r analytics.SigningRow) []any {
				return []any{originLabel(r.Origin), r.Events, r.Completed, r.Abandoned, r.RoundsP50, r.RoundsMax, r.CommitLatencyMs, r.RequestToCommitMs,
					r.Commits, r.Retries, r.TimeoutsWithoutQuorum, r.RevalidationFailures, r.Equivocations, r.InvalidProposals, r.CommitConflicts}
			})
		if err != nil || len(peers) == 0 {
			return err
		}
		fmt.Fprintln(w)
		return printRows(w, "SIGNER LOG\tPEER\tEQUIVOCATIONS\tINVALID PROPOSALS\tREASONS", peers, func(p analytics.PeerRow) []any {
			return []any{originLabel(p.Origin), p.Peer, p.Equivocations, p.InvalidProposals, analytics.FormatReasons(p.Reasons)}
		})
	}),
}

// showAlerts prints which of the seeds' alert conditions hold at now
// (after the errors' tables; --json: one JSON line per condition).
func showAlerts(ctx context.Context, w io.Writer, wh analytics.Warehouse, now time.Time) error {
	conds, err := analytics.Alerts(ctx, wh, now)
	if err != nil {
		return err
	}
	if !analyticsFlags.json {
		fmt.Fprintln(w)
	}
	return printRows(w, "ALERT CONDITION\tSIGNER LOG\tHOLDS\tFIGURE\tTHRESHOLD", conds, func(c analytics.AlertCondition) []any {
		holds := "no"
		if c.Holds {
			holds = "YES"
		}
		return []any{c.Condition, originLabel(c.Origin), holds, c.Figure, c.Threshold}
	})
}

// originLabel shows a log's origin: "-" for a log sunk without one.
func originLabel(origin string) string {
	if origin == "" {
		return "-"
	}
	return origin
}
