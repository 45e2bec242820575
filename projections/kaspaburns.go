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

func (p WithdrawalsToKaspa) table() string { return Versioned(p.Name(), p.Version()) }

func (p WithdrawalsToKaspa) Tables() []Table {
	return []Table{{
		Name: p.table(),
		Columns: []Column{
			{Name: "chain_id", Type: Integer}, {Name: "tx_hash", Type: Text}, {Name: "log_index", Type: Integer},
			{Name: "stream", Type: Text}, {Name: "nonce", Type: Integer, Nullable: true},
			{Name: "contract", Type: Text}, {Name: "withdrawer", Type: Text},
			{Name: "amount", Type: Text}, {Name: "sompi", Type: Text, Nullable: true}, {Name: "recipient", Type: Text},
			{Name: "block_number", Type: Integer}, {Name: "block_hash", Type: Text}, {Name: "status", Type: Text},
			{Name: "detected_at", Type: Text, Nullable: true}, {Name: "confirmed_at", Type: Text, Nullable: true},
			{Name: "confirmed_block", Type: Integer, Nullable: true}, {Name: "reorged_block_hash", Type: Text, Nullable: true},
			{Name: "error_reason", Type: Text, Nullable: true},
		},
		PrimaryKey: []string{"chain_id", "tx_hash", "log_index"},
		Indexes:    []Index{{Columns: []string{"stream", "nonce"}}, {Columns: []string{"status"}}},
	}}
}

func (p WithdrawalsToKaspa) Apply(ctx context.Context, tx Tx, ev *Event) error {
	switch e := ev.Body.(type) {
	case *domain.WithdrawalToKaspaDetected:
		return p.detected(ctx, tx, ev, e)
	case *domain.WithdrawalToKaspaConfirmed:
		at, err := nullUint(e.AtBlock, "at_block", ev)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE `+p.table()+` SET status = ?, confirmed_at = ?, confirmed_block = ?
			WHERE chain_id = ? AND tx_hash = ? AND log_index = ? AND block_hash = ? AND status = ?`,
			BurnConfirmed, eventTime(ev), at, int64(e.Ref.ChainID), e.Ref.TxHash.Hex(), int64(e.Ref.LogIndex), e.BlockHash.Hex(), BurnDetected)
		return err
	case *domain.WithdrawalToKaspaReorged:
		_, err := tx.Exec(ctx, `UPDATE `+p.table()+` SET status = ?, reorged_block_hash = ?
			WHERE chain_id = ? AND tx_hash = ? AND log_index = ? AND block_hash = ? AND status = ?`,
			BurnReorged, e.BlockHash.Hex(), int64(e.Ref.ChainID), e.Ref.TxHash.Hex(), int64(e.Ref.LogIndex), e.BlockHash.Hex(), BurnDetected)
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
	status, reason := BurnDetected, sql.NullString{}
	var nonce sql.NullInt64
	var sompi sql.NullString
	se, err := e.SigningEvent()
	if err == nil && se.Nonce > math.MaxInt64 {
		err = fmt.Errorf("nonce %d overflows BIGINT", se.Nonce)
	}
	if err != nil {
		status, reason = BurnInvalid, nullText(err.Error())
	} else {
		nonce, sompi = sql.NullInt64{Int64: int64(se.Nonce), Valid: true}, nullText(fmt.Sprint(se.Amount))
	}
	_, err = tx.Exec(ctx, `INSERT INTO `+p.table()+` (chain_id, tx_hash, log_index, stream, nonce, contract, withdrawer, amount, sompi,
		recipient, block_number, block_hash, status, detected_at, error_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (chain_id, tx_hash, log_index) DO UPDATE SET stream = excluded.stream, nonce = excluded.nonce,
		contract = excluded.contract, withdrawer = excluded.withdrawer, amount = excluded.amount, sompi = excluded.sompi,
		recipient = excluded.recipient, block_number = excluded.block_number, block_hash = excluded.block_hash,
		status = excluded.status, detected_at = excluded.detected_at, error_reason = excluded.error_reason,
		confirmed_at = NULL, confirmed_block = NULL`,
		int64(e.Ref.ChainID), e.Ref.TxHash.Hex(), int64(e.Ref.LogIndex), domain.BurnStream(e.Ref.ChainID, e.Contract), nonce,
		e.Contract.Hex(), e.Withdrawer.Hex(), e.Amount.String(), sompi, e.Recipient, block, e.BlockHash.Hex(), status,
		eventTime(ev), reason)
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
		return queryEach(ctx, tx, `SELECT chain_id, tx_hash, log_index, nonce, contract, withdrawer, amount, recipient, block_number, block_hash
			FROM `+t+` WHERE stream = ? AND status = ? AND nonce > ? ORDER BY nonce, block_number, log_index LIMIT ?`,
			[]any{stream, BurnConfirmed, int64(afterNonce), limit}, func(rows RowScanner) error {
				var chainID, logIndex, nonce, block int64
				var txHash, contract, withdrawer, amount, blockHash string
				var d domain.WithdrawalToKaspaDetected
				if err := rows.Scan(&chainID, &txHash, &logIndex, &nonce, &contract, &withdrawer, &amount, &d.Recipient, &block, &blockHash); err != nil {
					return err
				}
				var errs [5]error
				d.Ref, errs[0] = refOf(chainID, txHash, logIndex)
				d.Contract, errs[1] = domain.ParseAddress(contract)
				d.Withdrawer, errs[2] = domain.ParseAddress(withdrawer)
				d.Amount, errs[3] = domain.ParseAmount(amount)
				d.BlockHash, errs[4] = domain.ParseHash32(blockHash)
				if err := errors.Join(errs[:]...); err != nil {
					return fmt.Errorf("%s %s:%d: %w", t, txHash, logIndex, err)
				}
				d.OnChainID, d.BlockNumber = uint64(nonce), uint64(block)
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
