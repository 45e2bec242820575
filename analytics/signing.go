package analytics

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// What the signers record (the signing.* facts of domain/twophase), read
// from their sunk logs: each signer's log is one origin (see
// [StoredTopic]). Every query reads with FINAL.

// AllOrigins labels the figures of every signer's log taken together.
const AllOrigins = "*"

// Percentiles are nearest-rank percentiles of a set of milliseconds: the
// value at index round(p·(n−1)) of the sorted set (the simulator's
// report computes them the same way).
type Percentiles struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

func (p Percentiles) String() string { return fmt.Sprintf("%d/%d/%d/%d", p.P50, p.P95, p.P99, p.Max) }

// SigningRow sums up one signer's log, or every signer's log together
// (Origin [AllOrigins]).
type SigningRow struct {
	Origin string `json:"origin"`
	// Events were requested (from the signer's source, its RPC or an
	// operator); Completed were paid and deep enough; Abandoned ran out
	// of rounds or time (an event abandoned and later completed counts in
	// both).
	Events    uint64 `json:"events"`
	Completed uint64 `json:"completed"`
	Abandoned uint64 `json:"abandoned"`
	// Rounds an event took (its highest round + 1), over completed events.
	RoundsP50 uint64 `json:"roundsP50"`
	RoundsMax uint64 `json:"roundsMax"`
	// CommitLatencyMs runs, per completed event, from its activation (the
	// first start of its round 0: an event waits for the earlier ones of
	// its stream before that) to its last commit, in recorded time. Over
	// every log, that is from the first signer starting it to the last
	// signer's commit.
	CommitLatencyMs Percentiles `json:"commitLatencyMs"`
	// RequestToCommitMs runs from the event's first request to its last
	// commit: the commit latency plus the wait behind earlier events of
	// its stream (one event of a UTXO pool is in flight at a time).
	RequestToCommitMs Percentiles `json:"requestToCommitMs"`
	Commits           uint64      `json:"commits"`
	Retries           uint64      `json:"retries"` // rounds after the first
	// TimeoutsWithoutQuorum are rounds that timed out without a quorum
	// for one template.
	TimeoutsWithoutQuorum uint64 `json:"timeoutsWithoutQuorum"`
	// RevalidationFailures are pre-sign revalidations that found an input
	// missing, spent or too shallow (a failed round, or an own no-vote).
	RevalidationFailures uint64 `json:"revalidationFailures"`
	Equivocations        uint64 `json:"equivocations"`
	InvalidProposals     uint64 `json:"invalidProposals"` // votes rejected
	CommitConflicts      uint64 `json:"commitConflicts"`
}

// signingFact is the SQL condition "the row is a fact of type typ"; the
// payload* expressions read the fields of a fact's JSON payload.
func signingFact(typ string) string { return fmt.Sprintf("type = '%s'", typ) }

const (
	payloadRound   = `visitParamExtractUInt(payload, 'round')`
	payloadReason  = `visitParamExtractString(payload, 'reason')`
	payloadTrigger = `visitParamExtractString(payload, 'trigger')`
)

// revalidationFailed is a fact recording a failed pre-sign revalidation:
// a round failed for it, or the signer's own no-vote.
var revalidationFailed = fmt.Sprintf(`((%s OR (%s AND visitParamExtractBool(payload, 'own'))) AND %s = '%s')`,
	signingFact(twophase.TypeRoundFailed), signingFact(twophase.TypeVoteAccepted), payloadReason, twophase.ReasonRevalidationFailed)

// perEvent folds each signing event's facts of one origin (or of all,
// origin empty) into a row.
func perEvent(byOrigin bool) string {
	origin := `''`
	if byOrigin {
		origin = originColumn
	}
	return fmt.Sprintf(`SELECT %[1]s AS origin, aggregate_id,
			countIf(%[2]s OR %[3]s) > 0 AS requested,
			minIf(recorded_ms, %[2]s OR %[3]s) AS requested_ms,
			countIf(%[4]s) > 0 AS completed,
			countIf(%[5]s) > 0 AS abandoned,
			maxIf(%[6]s, %[7]s) + 1 AS rounds,
			countIf(%[7]s AND %[6]s = 0) > 0 AS activated,
			minIf(recorded_ms, %[7]s AND %[6]s = 0) AS activated_ms,
			countIf(%[8]s) AS commits,
			maxIf(recorded_ms, %[8]s) AS committed_ms,
			countIf(%[7]s AND %[9]s = '%[10]s') AS retries,
			countIf(%[11]s AND %[12]s = '%[13]s') AS timeouts,
			countIf(%[14]s) AS revalidation_failures,
			countIf(%[15]s) AS equivocations,
			countIf(%[16]s) AS invalid,
			countIf(%[17]s) AS conflicts
		FROM `+EventsTable+` FINAL
		WHERE type LIKE 'signing.%%' AND aggregate_id LIKE 'signing:%%'
		GROUP BY origin, aggregate_id`,
		origin,
		signingFact(twophase.TypeEventRequested), signingFact(twophase.TypeAdminReinjected),
		signingFact(twophase.TypeCompleted), signingFact(twophase.TypeAbandoned),
		payloadRound, signingFact(twophase.TypeRoundStarted), signingFact(twophase.TypeCommitted),
		payloadTrigger, twophase.TriggerRetry,
		signingFact(twophase.TypeRoundFailed), payloadReason, twophase.ReasonTimeoutNoQuorum,
		revalidationFailed, signingFact(twophase.TypeEquivocation), signingFact(twophase.TypeVoteRejected),
		signingFact(twophase.TypeCommitConflict))
}

// nearestRank is the SQL of the nearest-rank percentile p of array a.
func nearestRank(a string, p float64) string {
	return fmt.Sprintf(`arrayElement(arraySort(%[1]s), toUInt64(floor(%[2]g * (length(%[1]s) - 1) + 0.5)) + 1)`, a, p)
}

// Signing sums up each signer's log (one row per origin, in order) and,
// when there are several, all of them together (Origin [AllOrigins],
// first).
func Signing(ctx context.Context, wh Warehouse) ([]SigningRow, error) {
	all, err := signingRows(ctx, wh, false)
	if err != nil {
		return nil, err
	}
	each, err := signingRows(ctx, wh, true)
	if err != nil {
		return nil, err
	}
	if len(each) <= 1 {
		return each, nil
	}
	all[0].Origin = AllOrigins
	return append(all, each...), nil
}

func signingRows(ctx context.Context, wh Warehouse, byOrigin bool) ([]SigningRow, error) {
	rounds := `groupArrayIf(rounds, completed)`
	took := `groupArrayIf(committed_ms - activated_ms, completed AND activated AND commits > 0)`
	waited := `groupArrayIf(committed_ms - requested_ms, completed AND requested AND commits > 0)`
	q := `SELECT origin, countIf(requested), countIf(completed), countIf(abandoned),
			` + nearestRank(rounds, 0.5) + `, arrayReduce('max', ` + rounds + `),
			` + nearestRank(took, 0.5) + `, ` + nearestRank(took, 0.95) + `, ` + nearestRank(took, 0.99) + `, arrayReduce('max', ` + took + `),
			` + nearestRank(waited, 0.5) + `, ` + nearestRank(waited, 0.95) + `, ` + nearestRank(waited, 0.99) + `, arrayReduce('max', ` + waited + `),
			sum(commits), sum(retries), sum(timeouts), sum(revalidation_failures), sum(equivocations), sum(invalid), sum(conflicts)
		FROM (` + perEvent(byOrigin) + `)
		GROUP BY origin
		ORDER BY origin`
	rows, err := wh.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("analytics: signing: %w", err)
	}
	out, err := scanAll(rows, func(r *SigningRow) []any {
		l, w := &r.CommitLatencyMs, &r.RequestToCommitMs
		return []any{&r.Origin, &r.Events, &r.Completed, &r.Abandoned, &r.RoundsP50, &r.RoundsMax, &l.P50, &l.P95, &l.P99, &l.Max,
			&w.P50, &w.P95, &w.P99, &w.Max,
			&r.Commits, &r.Retries, &r.TimeoutsWithoutQuorum, &r.RevalidationFailures, &r.Equivocations, &r.InvalidProposals, &r.CommitConflicts}
	})
	if err != nil {
		return nil, fmt.Errorf("analytics: signing: %w", err)
	}
	return out, nil
}

// PeerRow is what one signer's log (Origin) holds against one peer:
// proposals it sent in two versions for one round, and votes of it that
// failed a check, by reason.
type PeerRow struct {
	Origin           string            `json:"origin"`
	Peer             string            `json:"peer"`
	Equivocations    uint64            `json:"equivocations"`
	InvalidProposals uint64            `json:"invalidProposals"`
	Reasons          map[string]uint64 `json:"reasons,omitempty"` // of the invalid proposals
}

// SigningPeers lists, per signer log and peer, the equivocations and the
// invalid proposals recorded against it, by origin and peer.
func SigningPeers(ctx context.Context, wh Warehouse) ([]PeerRow, error) {
	rows, err := wh.Query(ctx, `SELECT `+originColumn+` AS origin,
			if(`+signingFact(twophase.TypeEquivocation)+`, visitParamExtractString(payload, 'voter'), visitParamExtractString(payload, 'sender')) AS peer,
			countIf(`+signingFact(twophase.TypeEquivocation)+`),
			countIf(`+signingFact(twophase.TypeVoteRejected)+`),
			groupArrayIf(`+payloadReason+`, `+signingFact(twophase.TypeVoteRejected)+`)
		FROM `+EventsTable+` FINAL
		WHERE type IN (?, ?)
		GROUP BY origin, peer
		ORDER BY origin, peer`, twophase.TypeEquivocation, twophase.TypeVoteRejected)
	if err != nil {
		return nil, fmt.Errorf("analytics: signing peers: %w", err)
	}
	got, err := scanAll(rows, func(r *peerScan) []any {
		return []any{&r.Origin, &r.Peer, &r.Equivocations, &r.InvalidProposals, &r.reasons}
	})
	if err != nil {
		return nil, fmt.Errorf("analytics: signing peers: %w", err)
	}
	out := make([]PeerRow, len(got))
	for i, g := range got {
		out[i] = g.PeerRow
		for _, why := range g.reasons {
			if out[i].Reasons == nil {
				out[i].Reasons = map[string]uint64{}
			}
			out[i].Reasons[why]++
		}
	}
	return out, nil
}

type peerScan struct {
	PeerRow
	reasons []string
}

// FormatReasons prints reasons as "a 2, b 1", most frequent first.
func FormatReasons(reasons map[string]uint64) string {
	keys := slices.Collect(maps.Keys(reasons))
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(reasons[b], reasons[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, reasons[k])
	}
	return strings.Join(parts, ", ")
}
