package projections

import (
	"context"
	"database/sql"
	"strings"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// LockCertificates is Profile B's reservations as a signer's log records
// them (seed 001, 5.0 and 5.3): lock_certificates, one row per lock
// certificate the signer accepted (event, epoch, round; its anchor,
// template hash, signers and outpoint count), and reserved_outpoints,
// one row per outpoint a certificate reserves. A row is held while
// released_by is NULL, as [twophase.State.Reserved] counts it: from the
// LockCertAccepted until the event completes (signing.completed), is
// abandoned (signing.abandoned) or reset (signing.admin_reset), or gives
// its commit up (signing.round_failed/revalidation_failed or
// /payout_rejected); released_by names that fact and released_at its
// time. A later Committed on the same certificate holds it again, since
// the state reserves what its commit's certificate names. The held rows
// of reserved_outpoints are the outpoints no other event may spend.
//
// Rows are keyed by the certificate as well as the outpoint, so a
// released reservation stays as history beside a later one, and two held
// rows for one outpoint would show a certificate a signer must never
// have accepted. An event's facts share its partition and fold in log
// order; a certificate row remembers the offset of the last fact that
// changed it and folds nothing at or before it, which makes a rewind's
// repeated facts no-ops. Different events' rows never touch, so the
// tables do not depend on how partitions interleave.
type LockCertificates struct{}

func (LockCertificates) Name() string           { return "lock_certificates" }
func (LockCertificates) Version() int           { return 1 }
func (LockCertificates) Topics() []string       { return []string{topics.TopicSigning} }
func (LockCertificates) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p LockCertificates) Tables() []Table { return []Table{certTable.Table, outpointTable.Table} }

// certRow is one row of lock_certificates.
type certRow struct {
	eventID, templateHash, signers              string
	epoch, round, anchor, outpoints, lastOffset int64
	acceptedAt, releasedBy, releasedAt          sql.NullString
}

var certTable = declareTable(Versioned("lock_certificates", LockCertificates{}.Version()), []string{"event_id", "epoch", "round"}, nil,
	strCol("event_id", func(r *certRow) *string { return &r.eventID }),
	i64Col("epoch", func(r *certRow) *int64 { return &r.epoch }),
	i64Col("round", func(r *certRow) *int64 { return &r.round }),
	i64Col("anchor", func(r *certRow) *int64 { return &r.anchor }),
	strCol("template_hash", func(r *certRow) *string { return &r.templateHash }),
	strCol("signers", func(r *certRow) *string { return &r.signers }),
	i64Col("outpoints", func(r *certRow) *int64 { return &r.outpoints }),
	textCol("accepted_at", func(r *certRow) *sql.NullString { return &r.acceptedAt }),
	textCol("released_by", func(r *certRow) *sql.NullString { return &r.releasedBy }),
	textCol("released_at", func(r *certRow) *sql.NullString { return &r.releasedAt }),
	i64Col("last_offset", func(r *certRow) *int64 { return &r.lastOffset }),
)

// outpointRow is one row of reserved_outpoints.
type outpointRow struct {
	outpoint, eventID, templateHash    string
	epoch, round, anchor               int64
	reservedAt, releasedBy, releasedAt sql.NullString
}

var outpointTable = declareTable(Versioned("reserved_outpoints", LockCertificates{}.Version()),
	[]string{"outpoint", "event_id", "epoch", "round"}, []Index{{Columns: []string{"event_id", "epoch", "round"}}},
	strCol("outpoint", func(r *outpointRow) *string { return &r.outpoint }),
	strCol("event_id", func(r *outpointRow) *string { return &r.eventID }),
	i64Col("epoch", func(r *outpointRow) *int64 { return &r.epoch }),
	i64Col("round", func(r *outpointRow) *int64 { return &r.round }),
	strCol("template_hash", func(r *outpointRow) *string { return &r.templateHash }),
	i64Col("anchor", func(r *outpointRow) *int64 { return &r.anchor }),
	textCol("reserved_at", func(r *outpointRow) *sql.NullString { return &r.reservedAt }),
	textCol("released_by", func(r *outpointRow) *sql.NullString { return &r.releasedBy }),
	textCol("released_at", func(r *outpointRow) *sql.NullString { return &r.releasedAt }),
)

var (
	certInsert     = certTable.insertNewSQL()
	outpointInsert = outpointTable.insertNewSQL()
	// The certificates a fact changes: the event's, last changed before
	// it, and held or given up as the fact requires.
	certsGivenUp     = certsToChange("epoch = ? AND round = ? AND template_hash = ? AND released_by IN (?, ?)")
	certsHeldInEpoch = certsToChange("epoch = ? AND released_by IS NULL")
	certsHeld        = certsToChange("released_by IS NULL")
	certsHeldBefore  = certsToChange("epoch < ? AND released_by IS NULL")
	certRelease      = certTable.update("released_by", "released_at", "last_offset")
	outpointsRelease = outpointTable.updateWhereSQL("event_id = ? AND epoch = ? AND round = ?", "released_by", "released_at")
)

func certsToChange(where string) string {
	return certTable.selectSQL("event_id = ? AND last_offset < ? AND "+where, "epoch", "round")
}

// certKey names one lock_certificates row.
type certKey struct {
	epoch, round int64
}

func (p LockCertificates) Apply(ctx context.Context, tx Tx, ev *Event) error {
	switch f := ev.Body.(type) {
	case *twophase.LockCertAccepted:
		return p.accepted(ctx, tx, ev, f)
	case *twophase.Committed:
		// Holds again a certificate whose commit was given up and is
		// made again (the state takes the reservation from the commit).
		return p.change(ctx, tx, ev, f.EventID, release{}, certsGivenUp,
			int64(f.Epoch), int64(f.Round), f.Hash.Hex(), givenUp(twophase.ReasonRevalidationFailed), givenUp(twophase.ReasonPayoutRejected))
	case *twophase.RoundFailed:
		if f.Reason != twophase.ReasonRevalidationFailed && f.Reason != twophase.ReasonPayoutRejected {
			return nil
		}
		return p.change(ctx, tx, ev, f.EventID, released(givenUp(f.Reason), f.AtNs), certsHeldInEpoch, int64(f.Epoch))
	case *twophase.Completed:
		return p.change(ctx, tx, ev, f.EventID, released(f.EventType(), f.AtNs), certsHeld)
	case *twophase.Abandoned:
		return p.change(ctx, tx, ev, f.EventID, released(f.EventType(), f.AtNs), certsHeld)
	case *twophase.AdminReset:
		return p.change(ctx, tx, ev, f.EventID, released(f.EventType(), f.AtNs), certsHeldBefore, int64(f.Epoch))
	}
	return nil
}

// accepted inserts a certificate and its reservations. The first
// certificate of an (event, epoch, round) stands: honest members never
// certify two.
func (p LockCertificates) accepted(ctx context.Context, tx Tx, ev *Event, f *twophase.LockCertAccepted) error {
	anchor, err := nullUint(f.Anchor, "anchor", ev)
	if err != nil {
		return err
	}
	signers := make([]string, len(f.Signers))
	for i, s := range f.Signers {
		signers[i] = string(s)
	}
	r := certRow{eventID: f.EventID.Hex(), epoch: int64(f.Epoch), round: int64(f.Round), anchor: anchor.Int64,
		templateHash: f.TemplateHash.Hex(), signers: strings.Join(signers, ","), outpoints: int64(len(f.Outpoints)),
		acceptedAt: nsTime(f.AtNs), lastOffset: ev.Position.Offset}
	n, err := tx.Exec(ctx, certInsert, certTable.args(&r, nil, false)...)
	if err != nil || n == 0 {
		return err // n == 0: folded already, or another certificate of the round stands
	}
	var args []any
	for _, o := range f.Outpoints {
		args = outpointTable.args(&outpointRow{outpoint: o.String(), eventID: r.eventID, epoch: r.epoch, round: r.round,
			templateHash: r.templateHash, anchor: r.anchor, reservedAt: r.acceptedAt}, args[:0], false)
		if _, err := tx.Exec(ctx, outpointInsert, args...); err != nil {
			return err
		}
	}
	return nil
}

// givenUp is released_by of a commit given up for reason.
func givenUp(reason twophase.Reason) string { return twophase.TypeRoundFailed + "/" + string(reason) }

// release is what a releasing fact writes: released_by and released_at
// (NULL, NULL holds a certificate again).
type release struct {
	by, at sql.NullString
}

func released(by string, atNs int64) release { return release{by: nullText(by), at: nsTime(atNs)} }

// change sets released_by and released_at to rel on the event's
// certificates that sel (a certsToChange) selects with args, and on their
// reservations.
func (p LockCertificates) change(ctx context.Context, tx Tx, ev *Event, event twophase.Hash, rel release, sel string, args ...any) error {
	id := event.Hex()
	rows, err := tx.Query(ctx, sel, append([]any{id, ev.Position.Offset}, args...)...)
	if err != nil {
		return err
	}
	var keys []certKey
	for rows.Next() {
		var k certKey
		if err := rows.Scan(&k.epoch, &k.round); err != nil {
			rows.Close()
			return err
		}
		keys = append(keys, k)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		r := certRow{eventID: id, epoch: k.epoch, round: k.round, releasedBy: rel.by, releasedAt: rel.at, lastOffset: ev.Position.Offset}
		if _, err := tx.Exec(ctx, certRelease.sql, certRelease.args(&r)...); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, outpointsRelease, rel.by, rel.at, id, k.epoch, k.round); err != nil {
			return err
		}
	}
	return nil
}
