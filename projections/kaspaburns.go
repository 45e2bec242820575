package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Statuses of a withdrawals_to_kaspa row.
const (
	BurnDetected  = "DETECTED"
	BurnConfirmed = "CONFIRMED"
	BurnReorged   = "REORGED"
	// BurnInvalid: the log makes no signing event (the indexer records
	// none such; kept, with the reason, rather than stalling the fold).
	BurnInvalid = "INVALID"
)

// WithdrawalsToKaspa is withdrawals_to_kaspa, one row per WithdrawalToKaspa
// log (chain, transaction, log index) with the signing event it makes
// (stream, nonce, sompi): DETECTED, then CONFIRMED, or REORGED when the
// block it was seen in was replaced. A sighting in another block (the
// transaction mined again after a reorg) makes the row DETECTED in that
// block, and a confirmation or reorg counts only for the block the row
// holds. A row's events share the burn's partition, so they fold in log
// order.
//
// It is what a signer's source hands over ([BridgeReader.ConfirmedBurns])
// and what its confirmer waits on ([BridgeReader.Unconfirmed]).
type WithdrawalsToKaspa struct{}

func (WithdrawalsToKaspa) Name() string           { return "withdrawals_to_kaspa" }
func (WithdrawalsToKaspa) Version() int           { return 1 }
func (WithdrawalsToKaspa) Topics() []string       { return []string{topics.TopicBridge} }
func (WithdrawalsToKaspa) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p WithdrawalsToKaspa) Tables() []Table { return []Table{burnTable.Table} }

// burnRow is one row of withdrawals_to_kaspa.
type burnRow struct {
	chainID, logIndex, blockNumber                                     int64
	txHash, stream, contract, withdrawer, amount, recipient, blockHash string
	status                                                             string
	nonce, confirmedBlock                                              sql.NullInt64
	sompi, detectedAt, confirmedAt, reorgedBlockHash, errorReason      sql.NullString
}

var burnTable = declareTable(Versioned(WithdrawalsToKaspa{}.Name(), WithdrawalsToKaspa{}.Version()),
	[]string{"chain_id", "tx_hash", "log_index"}, []Index{{Columns: []string{"stream", "nonce"}}, {Columns: []string{"status"}}},
	i64Col("chain_id", func(r *burnRow) *int64 { return &r.chainID }),
	strCol("tx_hash", func(r *burnRow) *string { return &r.txHash }),
	i64Col("log_index", func(r *burnRow) *int64 { return &r.logIndex }),
	strCol("stream", func(r *burnRow) *string { return &r.stream }),
	intCol("nonce", func(r *burnRow) *sql.NullInt64 { return &r.nonce }),
	strCol("contract", func(r *burnRow) *string { return &r.contract }),
	strCol("withdrawer", func(r *burnRow) *string { return &r.withdrawer }),
	strCol("amount", func(r *burnRow) *string { return &r.amount }),
	textCol("sompi", func(r *burnRow) *sql.NullString { return &r.sompi }),
	strCol("recipient", func(r *burnRow) *string { return &r.recipient }),
	i64Col("block_number", func(r *burnRow) *int64 { return &r.blockNumber }),
	strCol("block_hash", func(r *burnRow) *string { return &r.blockHash }),
	strCol("status", func(r *burnRow) *string { return &r.status }),
	textCol("detected_at", func(r *burnRow) *sql.NullString { return &r.detectedAt }),
	textCol("confirmed_at", func(r *burnRow) *sql.NullString { return &r.confirmedAt }),
	intCol("confirmed_block", func(r *burnRow) *sql.NullInt64 { return &r.confirmedBlock }),
	textCol("reorged_block_hash", func(r *burnRow) *sql.NullString { return &r.reorgedBlockHash }),
	textCol("error_reason", func(r *burnRow) *sql.NullString { return &r.errorReason }),
)

// burnInBlock matches a row by its log while it is DETECTED in a block:
// a confirmation or reorg counts only for the block the row holds.
const burnInBlock = "chain_id = ? AND tx_hash = ? AND log_index = ? AND block_hash = ? AND status = ?"

var (
	// A sighting starts the row over in its block: everything but the
	// hash of a block it was reorged out of before.
	burnDetected = burnTable.upsertSQL([]string{"stream", "nonce", "contract", "withdrawer", "amount", "sompi", "recipient",
		"block_number", "block_hash", "status", "detected_at", "error_reason", "confirmed_at", "confirmed_block"})
	burnConfirmed   = burnTable.updateWhereSQL(burnInBlock, "status", "confirmed_at", "confirmed_block")
	burnReorged     = burnTable.updateWhereSQL(burnInBlock, "status", "reorged_block_hash")
	confirmedFilter = burnTable.clause("stream = ? AND status = ? AND nonce > ? ORDER BY nonce, block_number, log_index LIMIT ?")
)

func (p WithdrawalsToKaspa) Apply(ctx context.Context, tx Tx, ev *Event) error {
	switch e := ev.Body.(type) {
	case *domain.WithdrawalToKaspaDetected:
		return p.detected(ctx, tx, ev, e)
	case *domain.WithdrawalToKaspaConfirmed:
		at, err := nullUint(e.AtBlock, "at_block", ev)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, burnConfirmed, BurnConfirmed, eventTime(ev), at,
			int64(e.Ref.ChainID), e.Ref.TxHash.Hex(), int64(e.Ref.LogIndex), e.BlockHash.Hex(), BurnDetected)
		return err
	case *domain.WithdrawalToKaspaReorged:
		_, err := tx.Exec(ctx, burnReorged, BurnReorged, e.BlockHash.Hex(),
			int64(e.Ref.ChainID), e.Ref.TxHash.Hex(), int64(e.Ref.LogIndex), e.BlockHash.Hex(), BurnDetected)
		return err
	}
	return nil
}

// detected writes a sighting: a new row, or the row of the same log seen
// again in another block, which starts over there.
func (p WithdrawalsToKaspa) detected(ctx context.Context, tx Tx, ev *Event, e *domain.WithdrawalToKaspaDetected) error {
	block, err := nullUint(e.BlockNumber, "block_number", ev)
	if err != nil {
		return err
	}
	r := burnRow{chainID: int64(e.Ref.ChainID), txHash: e.Ref.TxHash.Hex(), logIndex: int64(e.Ref.LogIndex),
		stream: domain.BurnStream(e.Ref.ChainID, e.Contract), contract: e.Contract.Hex(), withdrawer: e.Withdrawer.Hex(),
		amount: e.Amount.String(), recipient: e.Recipient, blockNumber: block.Int64, blockHash: e.BlockHash.Hex(),
		status: BurnDetected, detectedAt: eventTime(ev)}
	se, err := e.SigningEvent()
	if err == nil && se.Nonce > math.MaxInt64 {
		err = fmt.Errorf("nonce %d overflows BIGINT", se.Nonce)
	}
	if err != nil {
		r.status, r.errorReason = BurnInvalid, nullText(err.Error())
	} else {
		r.nonce, r.sompi = sql.NullInt64{Int64: int64(se.Nonce), Valid: true}, nullText(fmt.Sprint(se.Amount))
	}
	_, err = tx.Exec(ctx, burnDetected, burnTable.args(&r, nil, false)...)
	return err
}

// ConfirmedBurns lists stream's confirmed burns toward Kaspa with a nonce
// above afterNonce, at most limit, by nonce (and, for the same nonce seen
// in two places, by block and log).
func (r BridgeReader) ConfirmedBurns(ctx context.Context, stream string, afterNonce uint64, limit int) ([]domain.WithdrawalToKaspaDetected, error) {
	var out []domain.WithdrawalToKaspaDetected
	if afterNonce > math.MaxInt64 {
		return nil, nil // no stored nonce is that high
	}
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, WithdrawalsToKaspa{}.Name(), WithdrawalsToKaspa{}.Name())
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, `SELECT `+burnTable.list()+` FROM `+t+` WHERE `+confirmedFilter,
			[]any{stream, BurnConfirmed, int64(afterNonce), limit}, func(rows RowScanner) error {
				var b burnRow
				if err := burnTable.scan(rows, &b); err != nil {
					return err
				}
				d := domain.WithdrawalToKaspaDetected{Recipient: b.recipient}
				var errs [5]error
				d.Ref, errs[0] = refOf(b.chainID, b.txHash, b.logIndex)
				d.Contract, errs[1] = domain.ParseAddress(b.contract)
				d.Withdrawer, errs[2] = domain.ParseAddress(b.withdrawer)
				d.Amount, errs[3] = domain.ParseAmount(b.amount)
				d.BlockHash, errs[4] = domain.ParseHash32(b.blockHash)
				if err := errors.Join(errs[:]...); err != nil {
					return fmt.Errorf("%s %s:%d: %w", t, b.txHash, b.logIndex, err)
				}
				d.OnChainID, d.BlockNumber = uint64(b.nonce.Int64), uint64(b.blockNumber)
				out = append(out, d)
				return nil
			})
	})
	return out, err
}

// BurnSourceProjections are what a signer's own indexer and confirmer of
// burns toward Kaspa read: the indexer's cursor and the burns. A signer's
// runner folds them beside [SignerProjections].
func BurnSourceProjections() []Projection {
	return []Projection{ChainCursors{}, WithdrawalsToKaspa{}}
}
