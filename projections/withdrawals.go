package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Withdrawals is seed 000's withdrawals table: one row per
// WithdrawalBurned log, DETECTED → CONFIRMED → (BATCHED) → EXECUTED, or
// FAILED with its reason. batch_id and merkle_proof come with the batch
// flow (a later version); batched_at is kept NULL until then.
//
// Version 2 adds reorged_at, when the block the withdrawal was seen in
// was reorged out (beside reorged_block_hash); version 1 had the same rows
// without it.
//
// Extending it: add the column to withdrawalTable (a new column goes
// last) and the field to withdrawalRow, set it in fold, then bump Version
// so the new table is rebuilt beside the old one.
type Withdrawals struct{}

func (Withdrawals) Name() string           { return "withdrawals" }
func (Withdrawals) Version() int           { return 2 }
func (Withdrawals) Topics() []string       { return []string{topics.TopicBridge} }
func (Withdrawals) KeepsNothingPastBatch() {} // held rows copy what they keep

func (w Withdrawals) Tables() []Table { return []Table{withdrawalTable.Table} }

// withdrawalTable declares the table: the lifecycle columns with the
// withdrawal's own, and then the batch the withdrawal is a leaf of (seed
// 000's batch_id and cached merkle_proof, a JSON array of 0x-hashes).
var withdrawalTable = lifecycleTable(Versioned("withdrawals", Withdrawals{}.Version()), "withdrawer",
	[]rowColumn[withdrawalRow]{
		textCol("batched_at", func(r *withdrawalRow) *sql.NullString { return &r.batchedAt }),
		textCol("executed_at", func(r *withdrawalRow) *sql.NullString { return &r.executedAt }),
		textCol("claim_tx_hash", func(r *withdrawalRow) *sql.NullString { return &r.claimTxHash }),
		intCol("gas_used", func(r *withdrawalRow) *sql.NullInt64 { return &r.gasUsed }),
		intCol("already_done", func(r *withdrawalRow) *sql.NullInt64 { return &r.alreadyDone }),
	},
	textCol("batch_sequence", func(r *withdrawalRow) *sql.NullString { return &r.batchSeq }),
	intCol("batch_id", func(r *withdrawalRow) *sql.NullInt64 { return &r.batchID }),
	intCol("leaf_index", func(r *withdrawalRow) *sql.NullInt64 { return &r.leafIndex }),
	textCol("leaf_hash", func(r *withdrawalRow) *sql.NullString { return &r.leafHash }),
	textCol("merkle_proof", func(r *withdrawalRow) *sql.NullString { return &r.merkleProof }),
	textCol("reorged_at", func(r *withdrawalRow) *sql.NullString { return &r.reorgedAt }),
)

type withdrawalRow struct {
	lifecycleBase
	observation
	batchedAt, executedAt, claimTxHash sql.NullString
	gasUsed, alreadyDone               sql.NullInt64
	batchSeq                           sql.NullString
	batchID, leafIndex                 sql.NullInt64
	leafHash, merkleProof              sql.NullString
	reorgedAt                          sql.NullString
}

// withdrawalRef returns the withdrawal an event is about, if it is one.
func withdrawalRef(ev *Event) (domain.LogRef, bool) {
	switch e := ev.Body.(type) {
	case *domain.WithdrawalDetected:
		return e.Ref, true
	case *domain.WithdrawalConfirmed:
		return e.Ref, true
	case *domain.WithdrawalBatched:
		return e.Ref, true
	case *domain.WithdrawalExecuted:
		return e.Ref, true
	case *domain.WithdrawalFailed:
		return e.Ref, true
	case *domain.ObservationReorged:
		return e.Ref, e.Withdraw
	}
	return domain.LogRef{}, false
}

func (w Withdrawals) Apply(ctx context.Context, tx Tx, ev *Event) error {
	return applyLifecycle[withdrawalRow](ctx, tx, &withdrawalTable, []*Event{ev}, withdrawalRef)
}

func (w Withdrawals) NewSession(fromZero bool) Session {
	return newLifecycleFold[withdrawalRow](&withdrawalTable, withdrawalRef, fromZero)
}

// fold applies one event; see [depositRow.fold] for why order does not matter.
func (r *withdrawalRow) fold(ev *Event) error {
	var err error
	switch e := ev.Body.(type) {
	case *domain.WithdrawalDetected:
		return r.detected(ev, e.Contract, e.Withdrawer, e.Amount, e.Recipient, e.BlockNumber, e.BlockHash, e.OnChainID)
	case *domain.WithdrawalConfirmed:
		return r.confirmed(ev, e.AtBlock)
	case *domain.WithdrawalBatched:
		r.batchedAt = eventTime(ev)
		r.batchSeq = nullText(e.SequenceID)
		if r.batchID, err = nullUint(e.BatchID, "batch_id", ev); err != nil {
			return err
		}
		r.leafIndex = sql.NullInt64{Int64: int64(e.LeafIndex), Valid: true}
		r.leafHash = nullText(e.Leaf.Hex())
		proof, err := json.Marshal(e.MerkleProof)
		if err != nil {
			return err
		}
		r.merkleProof = nullText(string(proof))
		advance(&r.status, domain.StatusBatched)
	case *domain.WithdrawalExecuted:
		r.executedAt = eventTime(ev)
		r.claimTxHash = nullText(e.ClaimTxHash.Hex())
		if r.gasUsed, err = nullUint(e.GasUsed, "gas_used", ev); err != nil {
			return err
		}
		r.alreadyDone = sql.NullInt64{Valid: true}
		if e.AlreadyDone {
			r.alreadyDone.Int64 = 1
		}
		advance(&r.status, domain.StatusExecuted)
	case *domain.WithdrawalFailed:
		r.failed(ev, e.Reason)
	case *domain.ObservationReorged:
		r.reorged(e.BlockHash)
		r.reorgedAt = eventTime(ev)
	default:
		return fmt.Errorf("withdrawals: unexpected %T", ev.Body)
	}
	return nil
}
