package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// SignerProjections are the read models of a signer's own log (seed 001):
// its events' phases and streams, the votes it holds, the templates it
// signed, Profile B's lock certificates and reserved outpoints, and the
// audit keys of every event (so a signer's data can be audited; the
// relay keeps them too, through [RelayProjections]).
func SignerProjections() []Projection {
	return []Projection{EventPhases{}, EventProposals{}, SignedTemplates{}, LockCertificates{}, AuditKeys{}}
}

// EventPhases is event_phase, one row per signing event the signer took
// up, and signing_streams, each stream's next nonce and how many events
// wait at or after it (blocked: none of them holds the next nonce). The
// rows are what [twophase.State.Apply] makes of the same facts (those the
// log's dedup lets through): phase, epoch, round, canonical hash and
// commit round, retries, payout, signed hash and times. own_vote_round
// and own_vote_hash are the signer's vote in the highest round it voted
// in this epoch (no hash: it voted no).
//
// An event's facts share one partition (its aggregate), so they fold in
// log order. A row remembers the offset of the last fact that changed it
// and folds nothing at or before it, which makes a rewind's repeated facts
// no-ops although the phase is not monotonic. Streams span partitions;
// their rows are recomputed from the event rows, whose final state does
// not depend on how partitions interleave.
type EventPhases struct{}

func (EventPhases) Name() string           { return "event_phase" }
func (EventPhases) Version() int           { return 1 }
func (EventPhases) Topics() []string       { return []string{topics.TopicSigning} }
func (EventPhases) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p EventPhases) Tables() []Table {
	return []Table{{
		Name: Versioned("event_phase", p.Version()),
		Columns: []Column{
			{Name: "event_id", Type: Text}, {Name: "stream", Type: Text}, {Name: "nonce", Type: Integer},
			{Name: "destination", Type: Text}, {Name: "amount", Type: Text}, {Name: "via", Type: Text},
			{Name: "phase", Type: Text}, {Name: "epoch", Type: Integer}, {Name: "round", Type: Integer},
			{Name: "canonical_hash", Type: Text, Nullable: true}, {Name: "commit_round", Type: Integer, Nullable: true},
			{Name: "own_vote_round", Type: Integer, Nullable: true}, {Name: "own_vote_hash", Type: Text, Nullable: true},
			{Name: "retry_count", Type: Integer}, {Name: "retry_at", Type: Text, Nullable: true},
			{Name: "payout_attempts", Type: Integer}, {Name: "payout_txid", Type: Text, Nullable: true},
			{Name: "signed_hash", Type: Text, Nullable: true},
			{Name: "requested_at", Type: Text, Nullable: true}, {Name: "phase_since", Type: Text, Nullable: true},
			{Name: "first_round_at", Type: Text, Nullable: true}, {Name: "done_at", Type: Text, Nullable: true},
			{Name: "updated_at", Type: Text, Nullable: true}, {Name: "last_offset", Type: Integer},
		},
		PrimaryKey: []string{"event_id"},
		Indexes:    []Index{{Columns: []string{"stream", "nonce"}}, {Columns: []string{"phase"}}},
	}, {
		Name: Versioned("signing_streams", p.Version()),
		Columns: []Column{
			{Name: "stream", Type: Text}, {Name: "next_nonce", Type: Integer},
			{Name: "pending", Type: Integer}, {Name: "blocked", Type: Integer},
		},
		PrimaryKey: []string{"stream"},
	}}
}

// phaseRow is an event_phase row. Hashes and times are kept as their
// stored text: the fold only copies them.
type phaseRow struct {
	eventID, stream, destination, amount, via string
	nonce                                     int64
	phase                                     twophase.Phase
	epoch, round                              uint32
	canonical                                 sql.NullString
	commitRound, ownVoteRound                 sql.NullInt64
	ownVoteHash                               sql.NullString
	retryCount                                int64
	retryAt                                   sql.NullString
	payoutAttempts                            int64
	payoutTx, signedHash                      sql.NullString
	requestedAt, phaseSince, firstRoundAt     sql.NullString
	doneAt, updatedAt                         sql.NullString
	lastOffset                                int64
}

const phaseCols = `event_id, stream, nonce, destination, amount, via, phase, epoch, round, canonical_hash, commit_round,
	own_vote_round, own_vote_hash, retry_count, retry_at, payout_attempts, payout_txid, signed_hash,
	requested_at, phase_since, first_round_at, done_at, updated_at, last_offset`

func (r *phaseRow) args() []any {
	return []any{r.eventID, r.stream, r.nonce, r.destination, r.amount, r.via, r.phase.String(), int64(r.epoch), int64(r.round),
		r.canonical, r.commitRound, r.ownVoteRound, r.ownVoteHash, r.retryCount, r.retryAt, r.payoutAttempts, r.payoutTx,
		r.signedHash, r.requestedAt, r.phaseSince, r.firstRoundAt, r.doneAt, r.updatedAt, r.lastOffset}
}

func (r *phaseRow) scan(sc RowScanner) error {
	var phase string
	var epoch, round int64
	if err := sc.Scan(&r.eventID, &r.stream, &r.nonce, &r.destination, &r.amount, &r.via, &phase, &epoch, &round,
		&r.canonical, &r.commitRound, &r.ownVoteRound, &r.ownVoteHash, &r.retryCount, &r.retryAt, &r.payoutAttempts, &r.payoutTx,
		&r.signedHash, &r.requestedAt, &r.phaseSince, &r.firstRoundAt, &r.doneAt, &r.updatedAt, &r.lastOffset); err != nil {
		return err
	}
	var ok bool
	if r.phase, ok = parsePhase(phase); !ok {
		return fmt.Errorf("event_phase row %s: unknown phase %q", r.eventID, phase)
	}
	r.epoch, r.round = uint32(epoch), uint32(round)
	return nil
}

func parsePhase(s string) (twophase.Phase, bool) {
	for p := twophase.PhaseUnknown; p <= twophase.PhaseAbandoned; p++ {
		if p.String() == s {
			return p, true
		}
	}
	return 0, false
}

// fold applies one fact of the row's event exactly as [twophase.State.Apply]
// does (see apply.go), and reports whether the row changed.
func (r *phaseRow) fold(f twophase.Fact) bool {
	var at int64
	switch f := f.(type) {
	case *twophase.RoundStarted:
		if f.Epoch != r.epoch {
			return false
		}
		at = f.AtNs
		if f.Trigger == twophase.TriggerRetry {
			r.retryCount++
		}
		if !r.firstRoundAt.Valid {
			r.firstRoundAt = nsTime(at)
		}
		r.phase, r.round, r.phaseSince, r.retryAt = twophase.PhaseProposing, f.Round, nsTime(at), sql.NullString{}
	case *twophase.VoteAccepted:
		// Only the signer's own vote; a member's first vote in a round
		// stands (a second has the same source key, and never gets here).
		if !f.Own || f.Epoch != r.epoch || (r.ownVoteRound.Valid && int64(f.Round) < r.ownVoteRound.Int64) {
			return false
		}
		at = f.AtNs
		r.ownVoteRound, r.ownVoteHash = sql.NullInt64{Int64: int64(f.Round), Valid: true}, sql.NullString{}
		if !f.NoVote {
			r.ownVoteHash = nullText(f.Hash.Hex())
		}
	case *twophase.Committed:
		if f.Epoch != r.epoch || r.phase == twophase.PhaseCommitted || r.phase.Terminal() {
			return false
		}
		at = f.AtNs
		r.phase, r.phaseSince = twophase.PhaseCommitted, nsTime(at)
		r.canonical, r.commitRound = nullText(f.Hash.Hex()), sql.NullInt64{Int64: int64(f.Round), Valid: true}
		r.round = max(r.round, f.Round)
		if !r.firstRoundAt.Valid {
			r.firstRoundAt = nsTime(at)
		}
	case *twophase.TemplateSigned:
		if r.signedHash.Valid {
			return false
		}
		at = f.AtNs
		r.signedHash = nullText(f.Hash.Hex())
	case *twophase.RoundFailed:
		if f.Epoch != r.epoch || r.phase.Terminal() {
			return false
		}
		at = f.AtNs
		r.phase, r.phaseSince, r.retryAt = twophase.PhaseFailed, nsTime(at), nsTime(f.RetryAtNs)
		r.round = max(r.round, f.Round)
		if f.Reason == twophase.ReasonRevalidationFailed || f.Reason == twophase.ReasonPayoutRejected {
			r.canonical = sql.NullString{} // the commit is given up; a later round may commit again
		}
	case *twophase.PayoutSubmitted:
		at = f.AtNs
		r.payoutAttempts = max(r.payoutAttempts, int64(f.Attempt))
		r.payoutTx = nullText(f.TxID.Hex())
	case *twophase.Completed:
		if r.phase == twophase.PhaseCompleted {
			return false
		}
		at = f.AtNs
		r.phase, r.phaseSince, r.doneAt = twophase.PhaseCompleted, nsTime(at), nsTime(at)
		r.canonical, r.payoutTx = nullText(f.Hash.Hex()), nullText(f.TxID.Hex())
	case *twophase.Abandoned:
		if r.phase.Terminal() {
			return false
		}
		at = f.AtNs
		r.phase, r.phaseSince, r.doneAt = twophase.PhaseAbandoned, nsTime(at), nsTime(at)
	case *twophase.AdminReset:
		if r.phase == twophase.PhaseCompleted || f.Epoch <= r.epoch {
			return false
		}
		at = f.AtNs
		r.epoch, r.phase, r.round, r.retryCount = f.Epoch, twophase.PhaseUnknown, 0, 0
		r.phaseSince, r.retryAt, r.firstRoundAt, r.doneAt = nsTime(at), sql.NullString{}, sql.NullString{}, sql.NullString{}
		r.canonical, r.commitRound = sql.NullString{}, sql.NullInt64{}
		r.ownVoteRound, r.ownVoteHash = sql.NullInt64{}, sql.NullString{} // the epoch's votes are forgotten
		// signed_hash stays: a signer signs one template per event, ever.
	default:
		return false
	}
	r.updatedAt = nsTime(at)
	return true
}

// nsTime is a fact's time (Unix nanoseconds, 0 for none) as stored.
func nsTime(v int64) sql.NullString {
	if v == 0 {
		return sql.NullString{}
	}
	return nullTime(time.Unix(0, v))
}

// signingEventOf returns the signing event a fact that event_phase folds
// is about.
func signingEventOf(body any) (twophase.Fact, twophase.Hash, bool) {
	switch f := body.(type) {
	case *twophase.RoundStarted:
		return f, f.EventID, true
	case *twophase.VoteAccepted:
		return f, f.EventID, f.Own
	case *twophase.Committed:
		return f, f.EventID, true
	case *twophase.TemplateSigned:
		return f, f.EventID, true
	case *twophase.RoundFailed:
		return f, f.EventID, true
	case *twophase.PayoutSubmitted:
		return f, f.EventID, true
	case *twophase.Completed:
		return f, f.EventID, true
	case *twophase.Abandoned:
		return f, f.EventID, true
	case *twophase.AdminReset:
		return f, f.EventID, true
	}
	return nil, twophase.Hash{}, false
}

func (p EventPhases) Apply(ctx context.Context, tx Tx, ev *Event) error {
	if f, ok := ev.Body.(*twophase.EventRequested); ok {
		return p.requested(ctx, tx, ev, f)
	}
	f, id, ok := signingEventOf(ev.Body)
	if !ok {
		return nil
	}
	var r phaseRow
	err := r.scan(tx.QueryRow(ctx, `SELECT `+phaseCols+` FROM event_phase_v1 WHERE event_id = ?`, id.Hex()))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil // an event the signer never took up: its state ignores the fact too
	case err != nil:
		return err
	case ev.Position.Offset <= r.lastOffset:
		return nil // folded already (a rewind)
	}
	wasCompleted := r.phase == twophase.PhaseCompleted
	if !r.fold(f) {
		return nil
	}
	r.lastOffset = ev.Position.Offset
	if _, err := tx.Exec(ctx, `UPDATE event_phase_v1 SET phase = ?, epoch = ?, round = ?, canonical_hash = ?, commit_round = ?,
		own_vote_round = ?, own_vote_hash = ?, retry_count = ?, retry_at = ?, payout_attempts = ?, payout_txid = ?, signed_hash = ?,
		phase_since = ?, first_round_at = ?, done_at = ?, updated_at = ?, last_offset = ? WHERE event_id = ?`,
		r.phase.String(), int64(r.epoch), int64(r.round), r.canonical, r.commitRound, r.ownVoteRound, r.ownVoteHash, r.retryCount,
		r.retryAt, r.payoutAttempts, r.payoutTx, r.signedHash, r.phaseSince, r.firstRoundAt, r.doneAt, r.updatedAt, r.lastOffset,
		r.eventID); err != nil {
		return err
	}
	if !wasCompleted && r.phase == twophase.PhaseCompleted {
		return p.settleStream(ctx, tx, r.stream)
	}
	return nil
}

// requested takes an event up as [twophase.State] does: unless it is
// known, its nonce is behind the stream, or another event holds the nonce
// (the signer refuses those, so they reach a log only by mistake).
func (p EventPhases) requested(ctx context.Context, tx Tx, ev *Event, f *twophase.EventRequested) error {
	id := f.Event.ID()
	var one int
	switch err := tx.QueryRow(ctx, `SELECT 1 FROM event_phase_v1 WHERE event_id = ?`, id.Hex()).Scan(&one); {
	case err == nil:
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	nonce, err := nullUint(f.Event.Nonce, "nonce", ev)
	if err != nil {
		return err
	}
	next, err := p.streamNext(ctx, tx, f.Event.Stream, ev)
	if err != nil || nonce.Int64 < next {
		return err
	}
	switch err := tx.QueryRow(ctx, `SELECT 1 FROM event_phase_v1 WHERE stream = ? AND nonce = ?`, f.Event.Stream, nonce.Int64).Scan(&one); {
	case err == nil:
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	at := nsTime(f.AtNs)
	r := phaseRow{eventID: id.Hex(), stream: f.Event.Stream, nonce: nonce.Int64, destination: f.Event.Destination,
		amount: strconv.FormatUint(f.Event.Amount, 10), via: f.Via, phase: twophase.PhaseUnknown,
		requestedAt: at, updatedAt: at, lastOffset: ev.Position.Offset}
	if _, err := tx.Exec(ctx, `INSERT INTO event_phase_v1 (`+phaseCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.args()...); err != nil {
		return err
	}
	return p.settleStream(ctx, tx, f.Event.Stream)
}

// streamNext returns a stream's next nonce, creating the stream at the
// first nonce.
func (p EventPhases) streamNext(ctx context.Context, tx Tx, stream string, ev *Event) (int64, error) {
	first, err := nullUint(twophase.FirstNonce, "first nonce", ev)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO signing_streams_v1 (stream, next_nonce, pending, blocked) VALUES (?, ?, 0, 0)
		ON CONFLICT (stream) DO NOTHING`, stream, first.Int64); err != nil {
		return 0, err
	}
	var next int64
	err = tx.QueryRow(ctx, `SELECT next_nonce FROM signing_streams_v1 WHERE stream = ?`, stream).Scan(&next)
	return next, err
}

// settleStream moves a stream past every nonce completed without a gap
// (a payout seen out of order waits for the nonces before it, as in
// [twophase.State]) and recounts the events at or after the next nonce:
// all from the event rows, so the result does not depend on the order in
// which the streams' partitions were folded.
func (p EventPhases) settleStream(ctx context.Context, tx Tx, stream string) error {
	var next int64
	if err := tx.QueryRow(ctx, `SELECT next_nonce FROM signing_streams_v1 WHERE stream = ?`, stream).Scan(&next); err != nil {
		return err
	}
	for {
		var phase string
		err := tx.QueryRow(ctx, `SELECT phase FROM event_phase_v1 WHERE stream = ? AND nonce = ?`, stream, next).Scan(&phase)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && phase != twophase.PhaseCompleted.String()) {
			break
		}
		if err != nil {
			return err
		}
		next++
	}
	var pending, head int64
	if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(sum(CASE WHEN nonce = ? THEN 1 ELSE 0 END), 0) FROM event_phase_v1
		WHERE stream = ? AND nonce >= ?`, next, stream, next).Scan(&pending, &head); err != nil {
		return err
	}
	blocked := 0
	if pending > 0 && head == 0 {
		blocked = 1 // later nonces wait for a missing one
	}
	_, err := tx.Exec(ctx, `UPDATE signing_streams_v1 SET next_nonce = ?, pending = ?, blocked = ? WHERE stream = ?`,
		next, pending, blocked, stream)
	return err
}

// EventProposals is event_proposals, what an auditor reads to see who
// voted for which template: one row per vote the signer stored (record
// "vote": a hash, or a no-vote with its reason; own marks the signer's
// own), per vote it rejected (record "rejected/<envelope digest>", with
// the reason and detail) and per equivocation (record
// "equivocation/<second hash>": the second vote, which did not count).
// Rows are only ever inserted, keyed by what the facts' source keys
// distinguish, so any order and any repetition give the same table.
type EventProposals struct{}

func (EventProposals) Name() string           { return "event_proposals" }
func (EventProposals) Version() int           { return 1 }
func (EventProposals) Topics() []string       { return []string{topics.TopicSigning} }
func (EventProposals) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p EventProposals) Tables() []Table {
	return []Table{{
		Name: Versioned("event_proposals", p.Version()),
		Columns: []Column{
			{Name: "event_id", Type: Text}, {Name: "epoch", Type: Integer}, {Name: "round", Type: Integer},
			{Name: "voter", Type: Text}, {Name: "record", Type: Text},
			{Name: "hash", Type: Text, Nullable: true}, {Name: "no_vote", Type: Integer},
			{Name: "reason", Type: Text}, {Name: "detail", Type: Text},
			{Name: "own", Type: Integer}, {Name: "accepted", Type: Integer}, {Name: "at", Type: Text, Nullable: true},
		},
		PrimaryKey: []string{"event_id", "epoch", "round", "voter", "record"},
	}}
}

func (p EventProposals) Apply(ctx context.Context, tx Tx, ev *Event) error {
	var args []any
	switch f := ev.Body.(type) {
	case *twophase.VoteAccepted:
		hash := nullText(f.Hash.Hex())
		if f.NoVote {
			hash = sql.NullString{}
		}
		args = []any{f.EventID.Hex(), int64(f.Epoch), int64(f.Round), string(f.Voter), "vote", hash, boolInt(f.NoVote),
			string(f.Reason), "", boolInt(f.Own), 1, nsTime(f.AtNs)}
	case *twophase.VoteRejected:
		args = []any{f.EventID.Hex(), int64(f.Epoch), int64(f.Round), string(f.Sender), "rejected/" + f.Digest.Hex(),
			hashOrNull(f.Hash), 0, string(f.Reason), f.Detail, 0, 0, nsTime(f.AtNs)}
	case *twophase.Equivocation:
		first := "first vote: none"
		if !f.FirstHash.IsZero() {
			first = "first vote: " + f.FirstHash.Hex()
		}
		args = []any{f.EventID.Hex(), int64(f.Epoch), int64(f.Round), string(f.Voter), "equivocation/" + f.SecondHash.Hex(),
			hashOrNull(f.SecondHash), 0, string(twophase.ReasonEquivocation), first, 0, 0, nsTime(f.AtNs)}
	default:
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO event_proposals_v1 (event_id, epoch, round, voter, record, hash, no_vote, reason, detail, own, accepted, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id, epoch, round, voter, record) DO NOTHING`, args...)
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hashOrNull(h twophase.Hash) sql.NullString {
	if h.IsZero() {
		return sql.NullString{}
	}
	return nullText(h.Hex())
}

// SignedTemplates is signed_templates: per event, the one template this
// signer signed, written once and never changed.
//
// No second signature can reach it: a TemplateSigned's source key is its
// event's alone, so processed_events judges a second one with another
// hash a Conflict (recorded in event_conflicts, counted by status, never
// applied) and an identical one a Duplicate. Hence no violations table:
// a signer that signed twice shows as a conflict on that key.
type SignedTemplates struct{}

func (SignedTemplates) Name() string           { return "signed_templates" }
func (SignedTemplates) Version() int           { return 1 }
func (SignedTemplates) Topics() []string       { return []string{topics.TopicSigning} }
func (SignedTemplates) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p SignedTemplates) Tables() []Table {
	return []Table{{
		Name: Versioned("signed_templates", p.Version()),
		Columns: []Column{
			{Name: "event_id", Type: Text}, {Name: "hash", Type: Text}, {Name: "round", Type: Integer},
			{Name: "txid", Type: Text}, {Name: "signed_at", Type: Text, Nullable: true},
		},
		PrimaryKey: []string{"event_id"},
	}}
}

func (p SignedTemplates) Apply(ctx context.Context, tx Tx, ev *Event) error {
	f, ok := ev.Body.(*twophase.TemplateSigned)
	if !ok {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO signed_templates_v1 (event_id, hash, round, txid, signed_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (event_id) DO NOTHING`, f.EventID.Hex(), f.Hash.Hex(), int64(f.Round), f.TxID.Hex(), nsTime(f.AtNs))
	return err
}
