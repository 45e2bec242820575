package projections

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// RelayBrakes holds the relay's emergency pause (relay_pause: one row, the
// latest pause or resume) and its mint governor's holds (mint_holds: one
// row per deposit ever held, HELD or RELEASED). The pause events share one
// partition and a deposit's holds share the deposit's, so plain log order
// applies.
type RelayBrakes struct{}

func (RelayBrakes) Name() string           { return "relay_brakes" }
func (RelayBrakes) Version() int           { return 1 }
func (RelayBrakes) Topics() []string       { return []string{topics.TopicChain, topics.TopicBridge} }
func (RelayBrakes) KeepsNothingPastBatch() {} // every value goes to the store in Apply
func (p RelayBrakes) Tables() []Table      { return []Table{pauseTable.Table, holdTable.Table} }

// Statuses of a mint_holds row.
const (
	MintHeldStatus     = "HELD"
	MintReleasedStatus = "RELEASED"
)

type pauseRow struct {
	id                      string
	paused                  int64
	since                   sql.NullString
	operator, reason, reqID string
}

var pauseTable = declareTable(Versioned("relay_pause", RelayBrakes{}.Version()), []string{"id"}, nil,
	strCol("id", func(r *pauseRow) *string { return &r.id }),
	i64Col("paused", func(r *pauseRow) *int64 { return &r.paused }),
	textCol("since", func(r *pauseRow) *sql.NullString { return &r.since }),
	strCol("operator", func(r *pauseRow) *string { return &r.operator }),
	strCol("reason", func(r *pauseRow) *string { return &r.reason }),
	strCol("request_id", func(r *pauseRow) *string { return &r.reqID }),
)

type holdRow struct {
	chainID, logIndex                            int64
	txHash, status, amount, reason               string
	heldBy, holdNote, releasedReason, releasedBy string
	releaseNote                                  string
	heldChainTime, releaseAt, releasedChainTime  int64
}

var holdTable = declareTable(Versioned("mint_holds", RelayBrakes{}.Version()), []string{"chain_id", "tx_hash", "log_index"},
	[]Index{{Columns: []string{"status"}}},
	i64Col("chain_id", func(r *holdRow) *int64 { return &r.chainID }),
	strCol("tx_hash", func(r *holdRow) *string { return &r.txHash }),
	i64Col("log_index", func(r *holdRow) *int64 { return &r.logIndex }),
	strCol("status", func(r *holdRow) *string { return &r.status }),
	strCol("amount", func(r *holdRow) *string { return &r.amount }),
	strCol("reason", func(r *holdRow) *string { return &r.reason }),
	strCol("held_by", func(r *holdRow) *string { return &r.heldBy }),
	strCol("hold_note", func(r *holdRow) *string { return &r.holdNote }),
	i64Col("held_chain_time", func(r *holdRow) *int64 { return &r.heldChainTime }),
	i64Col("release_at", func(r *holdRow) *int64 { return &r.releaseAt }),
	strCol("released_reason", func(r *holdRow) *string { return &r.releasedReason }),
	strCol("released_by", func(r *holdRow) *string { return &r.releasedBy }),
	strCol("release_note", func(r *holdRow) *string { return &r.releaseNote }),
	i64Col("released_chain_time", func(r *holdRow) *int64 { return &r.releasedChainTime }),
)

var (
	upsertPause = pauseTable.upsertSQL([]string{"paused", "since", "operator", "reason", "request_id"})
	// A new hold starts the row over: an operator may hold a deposit the
	// governor released.
	upsertHold  = holdTable.upsertSQL(holdTable.except("chain_id", "tx_hash", "log_index"))
	releaseHold = holdTable.update("status", "released_reason", "released_by", "release_note", "released_chain_time")
	pauseOf     = pauseTable.selectLive("id = ?")
	holdsAll    = holdTable.queryLive("ORDER BY held_chain_time, chain_id, tx_hash, log_index")
	holdOf      = holdTable.selectLive("chain_id = ? AND tx_hash = ? AND log_index = ?")
	// depositsConfirmed reads the confirmed deposits in the chain's order
	// (block, then log index: the same in a replay, unlike partitions), and
	// depositsMintedSince the minted ones whose block is at or after a time.
	depositsConfirmed = depositTable.selectLive("status = ? ORDER BY block_number, log_index, tx_hash LIMIT ?",
		"chain_id", "tx_hash", "log_index", "amount", "detected_at")
	// confirmedWithHolds is depositsConfirmed with each deposit's hold, if
	// any: on(deposits, mint_holds).
	confirmedWithHolds = func() liveSQL {
		d, h := depositTable.as("d"), holdTable.as("h")
		on := func(c string) string { return h.col(c) + " = " + d.col(c) }
		return liveSQL{"SELECT " + d.list("chain_id", "tx_hash", "log_index", "amount", "detected_at") + ", " +
			"COALESCE(" + h.col("status") + ", ''), COALESCE(" + h.col("reason") + ", ''), COALESCE(" + h.col("release_at") + ", 0) FROM ",
			" " + d.alias + " LEFT JOIN ", " " + h.alias + " ON " + on("chain_id") + " AND " + on("tx_hash") + " AND " + on("log_index") +
				" WHERE " + d.col("status") + " = ? ORDER BY " + d.list("block_number", "log_index", "tx_hash") + " LIMIT ?"}
	}()
	depositsMintedSince = depositTable.selectLive("status = ? AND detected_at >= ?", "amount", "detected_at")
	depositStatusOf     = depositTable.selectLive("chain_id = ? AND tx_hash = ? AND log_index = ?", "status")
)

func (p RelayBrakes) Apply(ctx context.Context, tx Tx, ev *Event) error {
	switch e := ev.Body.(type) {
	case *domain.RelayPaused:
		r := pauseRow{id: "relay", paused: 1, since: nullTime(time.Unix(0, e.At)), operator: e.Operator, reason: e.Reason, reqID: e.RequestID}
		_, err := tx.Exec(ctx, upsertPause, pauseTable.args(&r, nil, false)...)
		return err
	case *domain.RelayResumed:
		r := pauseRow{id: "relay", since: nullTime(time.Unix(0, e.At)), operator: e.Operator, reason: e.Reason, reqID: e.RequestID}
		_, err := tx.Exec(ctx, upsertPause, pauseTable.args(&r, nil, false)...)
		return err
	case *domain.MintHeld:
		r := holdRowOf(e.Ref)
		r.status, r.amount, r.reason, r.heldChainTime, r.releaseAt = MintHeldStatus, e.Amount.String(), e.Reason, e.ChainTime, e.ReleaseAt
		r.heldBy, r.holdNote = e.Action.Operator, e.Action.Reason
		_, err := tx.Exec(ctx, upsertHold, holdTable.args(&r, nil, false)...)
		return err
	case *domain.MintReleased:
		r := holdRowOf(e.Ref)
		r.status, r.releasedReason, r.releasedChainTime = MintReleasedStatus, e.Reason, e.ChainTime
		r.releasedBy, r.releaseNote = e.Action.Operator, e.Action.Reason
		_, err := tx.Exec(ctx, releaseHold.sql, releaseHold.args(&r)...)
		return err
	}
	return nil
}

func holdRowOf(ref domain.LogRef) holdRow {
	return holdRow{chainID: int64(ref.ChainID), txHash: ref.TxHash.Hex(), logIndex: int64(ref.LogIndex)}
}

// PauseState reads the relay's pause: not paused before any pause.
func (r BridgeReader) PauseState(ctx context.Context) (domain.PauseState, error) {
	var s domain.PauseState
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, RelayBrakes{}.Name(), "relay_pause")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, pauseOf.on(t), []any{"relay"}, func(rows RowScanner) error {
			var p pauseRow
			if err := pauseTable.scan(rows, &p); err != nil {
				return err
			}
			s = domain.PauseState{Paused: p.paused == 1, Operator: p.operator, Reason: p.reason}
			if p.since.Valid {
				s.Since, err = ParseTime(p.since.String)
			}
			return err
		})
	})
	return s, err
}

// MintHoldRow is one deposit's hold, as status and the console show it.
type MintHoldRow struct {
	Ref                        domain.LogRef
	Status, Amount, Reason     string
	HeldBy, HoldNote           string
	HeldChainTime, ReleaseAt   int64 // unix seconds of source chain time
	ReleasedReason, ReleasedBy string
	ReleaseNote                string
	ReleasedChainTime          int64
	DepositStatus              domain.Status
}

// Standing reports whether the hold still holds its deposit: held, and
// the deposit neither minted nor failed (a deposit whose mint was already
// out when it was held is seen through).
func (h MintHoldRow) Standing() bool {
	return h.Status == MintHeldStatus && h.DepositStatus != domain.StatusMinted && h.DepositStatus != domain.StatusFailed
}

// Hold is the row's standing hold, nil once released.
func (h MintHoldRow) Hold() *domain.MintHold {
	if h.Status != MintHeldStatus {
		return nil
	}
	return &domain.MintHold{Reason: h.Reason, ReleaseAt: time.Unix(h.ReleaseAt, 0).UTC()}
}

// MintHolds reads every deposit ever held, oldest hold first (at most
// limit), with its deposit's status.
func (r BridgeReader) MintHolds(ctx context.Context, limit int) ([]MintHoldRow, error) {
	var out []MintHoldRow
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, RelayBrakes{}.Name(), "mint_holds")
		if err != nil || t == "" {
			return err
		}
		if err := queryEach(ctx, tx, holdsAll.on(t), nil, func(rows RowScanner) error {
			if len(out) >= limit {
				return nil
			}
			h, err := scanHold(rows)
			out = append(out, h)
			return err
		}); err != nil {
			return err
		}
		for i := range out {
			if out[i].DepositStatus, err = depositStatus(ctx, tx, out[i].Ref); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

func scanHold(rows RowScanner) (MintHoldRow, error) {
	var h holdRow
	if err := holdTable.scan(rows, &h); err != nil {
		return MintHoldRow{}, err
	}
	ref, err := refOf(h.chainID, h.txHash, h.logIndex)
	return MintHoldRow{Ref: ref, Status: h.status, Amount: h.amount, Reason: h.reason, HeldBy: h.heldBy, HoldNote: h.holdNote,
		HeldChainTime: h.heldChainTime, ReleaseAt: h.releaseAt, ReleasedReason: h.releasedReason, ReleasedBy: h.releasedBy,
		ReleaseNote: h.releaseNote, ReleasedChainTime: h.releasedChainTime}, err
}

// depositStatus is a deposit's status, "" when the log has no such deposit.
func depositStatus(ctx context.Context, tx Tx, ref domain.LogRef) (domain.Status, error) {
	t, err := table(ctx, tx, Deposits{}.Name(), "deposits")
	if err != nil || t == "" {
		return "", err
	}
	var st domain.Status
	err = queryEach(ctx, tx, depositStatusOf.on(t), []any{int64(ref.ChainID), ref.TxHash.Hex(), int64(ref.LogIndex)},
		func(rows RowScanner) error {
			var s string
			err := rows.Scan(&s)
			st = domain.Status(s)
			return err
		})
	return st, err
}

// DepositGovernance reads a deposit's status ("" unknown) and its standing
// hold (nil: none), what an operator's hold or release is checked on.
func (r BridgeReader) DepositGovernance(ctx context.Context, ref domain.LogRef) (domain.Status, *domain.MintHold, error) {
	var st domain.Status
	var hold *domain.MintHold
	err := r.read(ctx, func(tx Tx) error {
		var err error
		if st, err = depositStatus(ctx, tx, ref); err != nil {
			return err
		}
		t, err := table(ctx, tx, RelayBrakes{}.Name(), "mint_holds")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, holdOf.on(t), []any{int64(ref.ChainID), ref.TxHash.Hex(), int64(ref.LogIndex)},
			func(rows RowScanner) error {
				h, err := scanHold(rows)
				hold = h.Hold()
				return err
			})
	})
	return st, hold, err
}

// GovernorQueue reads the confirmed deposits not yet minted (at most
// limit, in the chain's order) with their block times and holds, and the minted
// deposits whose block is at or after since: what the governor decides on.
func (r BridgeReader) GovernorQueue(ctx context.Context, since time.Time, limit int) ([]domain.GovernedMint, []domain.WindowEntry, error) {
	var queue []domain.GovernedMint
	var minted []domain.WindowEntry
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, Deposits{}.Name(), "deposits")
		if err != nil || t == "" {
			return err
		}
		h, err := table(ctx, tx, RelayBrakes{}.Name(), "mint_holds")
		if err != nil {
			return err
		}
		q, scan := depositsConfirmed.on(t), scanGoverned
		if h != "" {
			q, scan = confirmedWithHolds.on(t, h), scanGovernedHeld
		}
		if err := queryEach(ctx, tx, q, []any{string(domain.StatusConfirmed), limit}, func(rows RowScanner) error {
			g, err := scan(rows)
			queue = append(queue, g)
			return err
		}); err != nil {
			return err
		}
		if err := queryEach(ctx, tx, depositsMintedSince.on(t), []any{string(domain.StatusMinted), formatTime(since)}, func(rows RowScanner) error {
			var amount string
			var at sql.NullString
			if err := rows.Scan(&amount, &at); err != nil {
				return err
			}
			w, err := windowEntry(amount, at)
			minted = append(minted, w)
			return err
		}); err != nil {
			return err
		}
		return nil
	})
	return queue, minted, err
}

func scanGoverned(rows RowScanner) (domain.GovernedMint, error) {
	var chainID, logIndex int64
	var txHash, amount string
	var at sql.NullString
	if err := rows.Scan(&chainID, &txHash, &logIndex, &amount, &at); err != nil {
		return domain.GovernedMint{}, err
	}
	return governed(chainID, logIndex, txHash, amount, at)
}

// scanGovernedHeld scans a row of confirmedWithHolds.
func scanGovernedHeld(rows RowScanner) (domain.GovernedMint, error) {
	var chainID, logIndex, releaseAt int64
	var txHash, amount, status, reason string
	var at sql.NullString
	if err := rows.Scan(&chainID, &txHash, &logIndex, &amount, &at, &status, &reason, &releaseAt); err != nil {
		return domain.GovernedMint{}, err
	}
	g, err := governed(chainID, logIndex, txHash, amount, at)
	row := MintHoldRow{Status: status, Reason: reason, ReleaseAt: releaseAt}
	g.Hold, g.Released = row.Hold(), status == MintReleasedStatus
	return g, err
}

func governed(chainID, logIndex int64, txHash, amount string, at sql.NullString) (domain.GovernedMint, error) {
	ref, err := refOf(chainID, txHash, logIndex)
	if err != nil {
		return domain.GovernedMint{}, err
	}
	w, err := windowEntry(amount, at)
	return domain.GovernedMint{Ref: ref, Amount: w.Amount, BlockTime: w.BlockTime}, err
}

func windowEntry(amount string, at sql.NullString) (domain.WindowEntry, error) {
	a, err := domain.ParseAmount(amount)
	if err != nil {
		return domain.WindowEntry{}, err
	}
	if !at.Valid {
		return domain.WindowEntry{}, fmt.Errorf("deposit of %s has no block time", amount)
	}
	bt, err := ParseTime(at.String)
	return domain.WindowEntry{BlockTime: bt, Amount: a}, err
}
