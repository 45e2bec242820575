package projections

import (
	"context"
	"database/sql"
	"errors"
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
func (EventPhases) Version() int           { return 2 }
func (EventPhases) Topics() []string       { return []string{topics.TopicSigning} }
func (EventPhases) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p EventPhases) Tables() []Table { return []Table{phaseTable.Table, streamTable.Table} }

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

var phaseTable = declareTable(Versioned("event_phase", EventPhases{}.Version()), []string{"event_id"},
	[]Index{{Columns: []string{"stream", "nonce"}}, {Columns: []string{"phase"}}},
	strCol("event_id", func(r *phaseRow) *string { return &r.eventID }),
	strCol("stream", func(r *phaseRow) *string { return &r.stream }),
	i64Col("nonce", func(r *phaseRow) *int64 { return &r.nonce }),
	strCol("destination", func(r *phaseRow) *string { return &r.destination }),
	strCol("amount", func(r *phaseRow) *string { return &r.amount }),
	strCol("via", func(r *phaseRow) *string { return &r.via }),
	enumCol("phase", func(r *phaseRow) *twophase.Phase { return &r.phase }, twophase.PhaseUnknown, twophase.PhaseProposing,
		twophase.PhaseCommitted, twophase.PhaseCompleted, twophase.PhaseFailed, twophase.PhaseAbandoned, twophase.PhaseRefused),
	u32Col("epoch", func(r *phaseRow) *uint32 { return &r.epoch }),
	u32Col("round", func(r *phaseRow) *uint32 { return &r.round }),
	textCol("canonical_hash", func(r *phaseRow) *sql.NullString { return &r.canonical }),
	intCol("commit_round", func(r *phaseRow) *sql.NullInt64 { return &r.commitRound }),
	intCol("own_vote_round", func(r *phaseRow) *sql.NullInt64 { return &r.ownVoteRound }),
	textCol("own_vote_hash", func(r *phaseRow) *sql.NullString { return &r.ownVoteHash }),
	i64Col("retry_count", func(r *phaseRow) *int64 { return &r.retryCount }),
	textCol("retry_at", func(r *phaseRow) *sql.NullString { return &r.retryAt }),
	i64Col("payout_attempts", func(r *phaseRow) *int64 { return &r.payoutAttempts }),
	textCol("payout_txid", func(r *phaseRow) *sql.NullString { return &r.payoutTx }),
	textCol("signed_hash", func(r *phaseRow) *sql.NullString { return &r.signedHash }),
	textCol("requested_at", func(r *phaseRow) *sql.NullString { return &r.requestedAt }),
	textCol("phase_since", func(r *phaseRow) *sql.NullString { return &r.phaseSince }),
	textCol("first_round_at", func(r *phaseRow) *sql.NullString { return &r.firstRoundAt }),
	textCol("done_at", func(r *phaseRow) *sql.NullString { return &r.doneAt }),
	textCol("updated_at", func(r *phaseRow) *sql.NullString { return &r.updatedAt }),
	i64Col("last_offset", func(r *phaseRow) *int64 { return &r.lastOffset }),
)

// streamRow is a signing_streams row.
type streamRow struct {
	stream                      string
	nextNonce, pending, blocked int64
}

var streamTable = declareTable(Versioned("signing_streams", EventPhases{}.Version()), []string{"stream"}, nil,
	strCol("stream", func(r *streamRow) *string { return &r.stream }),
	i64Col("next_nonce", func(r *streamRow) *int64 { return &r.nextNonce }),
	i64Col("pending", func(r *streamRow) *int64 { return &r.pending }),
	i64Col("blocked", func(r *streamRow) *int64 { return &r.blocked }),
)

var (
	phaseInsert = phaseTable.insertSQL()
	phaseByID   = phaseTable.selectSQL("event_id = ?")
	// A fact changes all but what the request fixed.
	phaseFolded = phaseTable.update("phase", "epoch", "round", "canonical_hash", "commit_round", "own_vote_round", "own_vote_hash",
		"retry_count", "retry_at", "payout_attempts", "payout_txid", "signed_hash", "phase_since", "first_round_at", "done_at",
		"updated_at", "last_offset")
	phaseKnown   = phaseTable.selectSQL("event_id = ?", "1")
	nonceTaken   = phaseTable.selectSQL("stream = ? AND nonce = ?", "1")
	phaseAtNonce = phaseTable.selectSQL("stream = ? AND nonce = ?", "phase")
	// A stream's events at or after a nonce, and how many hold it.
	phasesFrom    = phaseTable.selectSQL("stream = ? AND nonce >= ?", "count(*)", "coalesce(sum(CASE WHEN nonce = ? THEN 1 ELSE 0 END), 0)")
	streamCreate  = streamTable.insertNewSQL()
	streamNextOf  = streamTable.selectSQL("stream = ?", "next_nonce")
	streamSettled = streamTable.update("next_nonce", "pending", "blocked")
)

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
	case *twophase.Refused:
		// Only an event nothing was voted for or signed (as the state).
		if r.phase != twophase.PhaseUnknown || r.signedHash.Valid {
			return false
		}
		at = f.AtNs
		r.phase, r.phaseSince, r.doneAt = twophase.PhaseRefused, nsTime(at), nsTime(at)
	case *twophase.AdminReset:
		if r.phase == twophase.PhaseCompleted || r.phase == twophase.PhaseRefused || f.Epoch <= r.epoch {
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
	case *twophase.Refused:
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
	err := phaseTable.scan(tx.QueryRow(ctx, phaseByID, id.Hex()), &r)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil // an event the signer never took up: its state ignores the fact too
	case err != nil:
		return err
	case ev.Position.Offset <= r.lastOffset:
		return nil // folded already (a rewind)
	}
	wasDone := r.phase == twophase.PhaseCompleted || r.phase == twophase.PhaseRefused
	if !r.fold(f) {
		return nil
	}
	r.lastOffset = ev.Position.Offset
	if _, err := tx.Exec(ctx, phaseFolded.sql, phaseFolded.args(&r)...); err != nil {
		return err
	}
	if !wasDone && (r.phase == twophase.PhaseCompleted || r.phase == twophase.PhaseRefused) {
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
	switch err := tx.QueryRow(ctx, phaseKnown, id.Hex()).Scan(&one); {
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
	switch err := tx.QueryRow(ctx, nonceTaken, f.Event.Stream, nonce.Int64).Scan(&one); {
	case err == nil:
		return nil
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	at := nsTime(f.AtNs)
	r := phaseRow{eventID: id.Hex(), stream: f.Event.Stream, nonce: nonce.Int64, destination: f.Event.Destination,
		amount: strconv.FormatUint(f.Event.Amount, 10), via: f.Via, phase: twophase.PhaseUnknown,
		requestedAt: at, updatedAt: at, lastOffset: ev.Position.Offset}
	if _, err := tx.Exec(ctx, phaseInsert, phaseTable.args(&r, nil, false)...); err != nil {
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
	if _, err := tx.Exec(ctx, streamCreate, streamTable.args(&streamRow{stream: stream, nextNonce: first.Int64}, nil, false)...); err != nil {
		return 0, err
	}
	var next int64
	err = tx.QueryRow(ctx, streamNextOf, stream).Scan(&next)
	return next, err
}

// settleStream moves a stream past every nonce completed or refused without a gap
// (a payout seen out of order waits for the nonces before it, as in
// [twophase.State]) and recounts the events at or after the next nonce:
// all from the event rows, so the result does not depend on the order in
// which the streams' partitions were folded.
func (p EventPhases) settleStream(ctx context.Context, tx Tx, stream string) error {
	r := streamRow{stream: stream}
	if err := tx.QueryRow(ctx, streamNextOf, stream).Scan(&r.nextNonce); err != nil {
		return err
	}
	for {
		var phase string
		err := tx.QueryRow(ctx, phaseAtNonce, stream, r.nextNonce).Scan(&phase)
		done := phase == twophase.PhaseCompleted.String() || phase == twophase.PhaseRefused.String()
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !done) {
			break
		}
		if err != nil {
			return err
		}
		r.nextNonce++
	}
	var head int64
	if err := tx.QueryRow(ctx, phasesFrom, r.nextNonce, stream, r.nextNonce).Scan(&r.pending, &head); err != nil {
		return err
	}
	if r.pending > 0 && head == 0 {
		r.blocked = 1 // later nonces wait for a missing one
	}
	_, err := tx.Exec(ctx, streamSettled.sql, streamSettled.args(&r)...)
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

func (p EventProposals) Tables() []Table { return []Table{proposalTable.Table} }

// proposalRow is an event_proposals row.
type proposalRow struct {
	eventID, voter, record, reason, detail string
	epoch, round, noVote, own, accepted    int64
	hash, at                               sql.NullString
}

var proposalTable = declareTable(Versioned("event_proposals", EventProposals{}.Version()),
	[]string{"event_id", "epoch", "round", "voter", "record"}, nil,
	strCol("event_id", func(r *proposalRow) *string { return &r.eventID }),
	i64Col("epoch", func(r *proposalRow) *int64 { return &r.epoch }),
	i64Col("round", func(r *proposalRow) *int64 { return &r.round }),
	strCol("voter", func(r *proposalRow) *string { return &r.voter }),
	strCol("record", func(r *proposalRow) *string { return &r.record }),
	textCol("hash", func(r *proposalRow) *sql.NullString { return &r.hash }),
	i64Col("no_vote", func(r *proposalRow) *int64 { return &r.noVote }),
	strCol("reason", func(r *proposalRow) *string { return &r.reason }),
	strCol("detail", func(r *proposalRow) *string { return &r.detail }),
	i64Col("own", func(r *proposalRow) *int64 { return &r.own }),
	i64Col("accepted", func(r *proposalRow) *int64 { return &r.accepted }),
	textCol("at", func(r *proposalRow) *sql.NullString { return &r.at }),
)

var proposalInsert = proposalTable.insertNewSQL()

func (p EventProposals) Apply(ctx context.Context, tx Tx, ev *Event) error {
	var r proposalRow
	switch f := ev.Body.(type) {
	case *twophase.VoteAccepted:
		r = proposalRow{eventID: f.EventID.Hex(), epoch: int64(f.Epoch), round: int64(f.Round), voter: string(f.Voter), record: "vote",
			hash: nullText(f.Hash.Hex()), noVote: boolInt(f.NoVote), reason: string(f.Reason), own: boolInt(f.Own), accepted: 1, at: nsTime(f.AtNs)}
		if f.NoVote {
			r.hash = sql.NullString{}
		}
	case *twophase.VoteRejected:
		r = proposalRow{eventID: f.EventID.Hex(), epoch: int64(f.Epoch), round: int64(f.Round), voter: string(f.Sender),
			record: "rejected/" + f.Digest.Hex(), hash: hashOrNull(f.Hash), reason: string(f.Reason), detail: f.Detail, at: nsTime(f.AtNs)}
	case *twophase.Equivocation:
		first := "first vote: none"
		if !f.FirstHash.IsZero() {
			first = "first vote: " + f.FirstHash.Hex()
		}
		r = proposalRow{eventID: f.EventID.Hex(), epoch: int64(f.Epoch), round: int64(f.Round), voter: string(f.Voter),
			record: "equivocation/" + f.SecondHash.Hex(), hash: hashOrNull(f.SecondHash), reason: string(twophase.ReasonEquivocation),
			detail: first, at: nsTime(f.AtNs)}
	default:
		return nil
	}
	_, err := tx.Exec(ctx, proposalInsert, proposalTable.args(&r, nil, false)...)
	return err
}

func boolInt(b bool) int64 {
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

func (p SignedTemplates) Tables() []Table { return []Table{templateTable.Table} }

// templateRow is a signed_templates row.
type templateRow struct {
	eventID, hash, txid string
	round               int64
	signedAt            sql.NullString
}

var templateTable = declareTable(Versioned("signed_templates", SignedTemplates{}.Version()), []string{"event_id"}, nil,
	strCol("event_id", func(r *templateRow) *string { return &r.eventID }),
	strCol("hash", func(r *templateRow) *string { return &r.hash }),
	i64Col("round", func(r *templateRow) *int64 { return &r.round }),
	strCol("txid", func(r *templateRow) *string { return &r.txid }),
	textCol("signed_at", func(r *templateRow) *sql.NullString { return &r.signedAt }),
)

var templateInsert = templateTable.insertNewSQL()

func (p SignedTemplates) Apply(ctx context.Context, tx Tx, ev *Event) error {
	f, ok := ev.Body.(*twophase.TemplateSigned)
	if !ok {
		return nil
	}
	r := templateRow{eventID: f.EventID.Hex(), hash: f.Hash.Hex(), round: int64(f.Round), txid: f.TxID.Hex(), signedAt: nsTime(f.AtNs)}
	_, err := tx.Exec(ctx, templateInsert, templateTable.args(&r, nil, false)...)
	return err
}
