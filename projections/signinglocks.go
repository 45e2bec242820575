package projections

import (
	"context"
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

func (p LockCertificates) Tables() []Table {
	return []Table{{
		Name: Versioned("lock_certificates", p.Version()),
		Columns: []Column{
			{Name: "event_id", Type: Text}, {Name: "epoch", Type: Integer}, {Name: "round", Type: Integer},
			{Name: "anchor", Type: Integer}, {Name: "template_hash", Type: Text},
			{Name: "signers", Type: Text}, {Name: "outpoints", Type: Integer},
			{Name: "accepted_at", Type: Text, Nullable: true},
			{Name: "released_by", Type: Text, Nullable: true}, {Name: "released_at", Type: Text, Nullable: true},
			{Name: "last_offset", Type: Integer},
		},
		PrimaryKey: []string{"event_id", "epoch", "round"},
	}, {
		Name: Versioned("reserved_outpoints", p.Version()),
		Columns: []Column{
			{Name: "outpoint", Type: Text}, {Name: "event_id", Type: Text}, {Name: "epoch", Type: Integer},
			{Name: "round", Type: Integer}, {Name: "template_hash", Type: Text}, {Name: "anchor", Type: Integer},
			{Name: "reserved_at", Type: Text, Nullable: true},
			{Name: "released_by", Type: Text, Nullable: true}, {Name: "released_at", Type: Text, Nullable: true},
		},
		PrimaryKey: []string{"outpoint", "event_id", "epoch", "round"},
		Indexes:    []Index{{Columns: []string{"event_id", "epoch", "round"}}},
	}}
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
		return p.change(ctx, tx, ev, f.EventID, nil, `epoch = ? AND round = ? AND template_hash = ? AND released_by IN (?, ?)`,
			int64(f.Epoch), int64(f.Round), f.Hash.Hex(), givenUp(twophase.ReasonRevalidationFailed), givenUp(twophase.ReasonPayoutRejected))
	case *twophase.RoundFailed:
		if f.Reason != twophase.ReasonRevalidationFailed && f.Reason != twophase.ReasonPayoutRejected {
			return nil
		}
		return p.change(ctx, tx, ev, f.EventID, released(givenUp(f.Reason), f.AtNs), `epoch = ? AND released_by IS NULL`, int64(f.Epoch))
	case *twophase.Completed:
		return p.change(ctx, tx, ev, f.EventID, released(f.EventType(), f.AtNs), `released_by IS NULL`)
	case *twophase.Abandoned:
		return p.change(ctx, tx, ev, f.EventID, released(f.EventType(), f.AtNs), `released_by IS NULL`)
	case *twophase.AdminReset:
		return p.change(ctx, tx, ev, f.EventID, released(f.EventType(), f.AtNs), `epoch < ? AND released_by IS NULL`, int64(f.Epoch))
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
	id, epoch, round, hash, at := f.EventID.Hex(), int64(f.Epoch), int64(f.Round), f.TemplateHash.Hex(), nsTime(f.AtNs)
	n, err := tx.Exec(ctx, `INSERT INTO lock_certificates_v1 (event_id, epoch, round, anchor, template_hash, signers, outpoints,
		accepted_at, released_by, released_at, last_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?)
		ON CONFLICT (event_id, epoch, round) DO NOTHING`,
		id, epoch, round, anchor, hash, strings.Join(signers, ","), len(f.Outpoints), at, ev.Position.Offset)
	if err != nil || n == 0 {
		return err // n == 0: folded already, or another certificate of the round stands
	}
	for _, o := range f.Outpoints {
		if _, err := tx.Exec(ctx, `INSERT INTO reserved_outpoints_v1 (outpoint, event_id, epoch, round, template_hash, anchor,
			reserved_at, released_by, released_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)
			ON CONFLICT (outpoint, event_id, epoch, round) DO NOTHING`, o.String(), id, epoch, round, hash, anchor, at); err != nil {
			return err
		}
	}
	return nil
}

// givenUp is released_by of a commit given up for reason.
func givenUp(reason twophase.Reason) string { return twophase.TypeRoundFailed + "/" + string(reason) }

// release is what a releasing fact writes: released_by and released_at.
type release struct {
	by, at any
}

func released(by string, atNs int64) *release { return &release{by: by, at: nsTime(atNs)} }

// change sets released_by and released_at (rel; nil holds the rows
// again) on the event's certificates that match where and were last
// changed before this fact, and on their reservations.
func (p LockCertificates) change(ctx context.Context, tx Tx, ev *Event, event twophase.Hash, rel *release, where string, args ...any) error {
	id := event.Hex()
	rows, err := tx.Query(ctx, `SELECT epoch, round FROM lock_certificates_v1 WHERE event_id = ? AND last_offset < ? AND `+where,
		append([]any{id, ev.Position.Offset}, args...)...)
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
	if rel == nil {
		rel = &release{}
	}
	for _, k := range keys {
		if _, err := tx.Exec(ctx, `UPDATE lock_certificates_v1 SET released_by = ?, released_at = ?, last_offset = ?
			WHERE event_id = ? AND epoch = ? AND round = ?`, rel.by, rel.at, ev.Position.Offset, id, k.epoch, k.round); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE reserved_outpoints_v1 SET released_by = ?, released_at = ?
			WHERE event_id = ? AND epoch = ? AND round = ?`, rel.by, rel.at, id, k.epoch, k.round); err != nil {
			return err
		}
	}
	return nil
}
