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
// Extending it: add the column to Tables, the field to withdrawalRow (and
// to args and scan, in table order), a case to fold
// (and to withdrawalRef), then bump Version so the new table is rebuilt
// beside the old one.
type Withdrawals struct{}

func (Withdrawals) Name() string           { return "withdrawals" }
func (Withdrawals) Version() int           { return 1 }
func (Withdrawals) Topics() []string       { return []string{topics.TopicBridge} }
func (Withdrawals) KeepsNothingPastBatch() {} // held rows copy what they keep

func (w Withdrawals) table() string { return Versioned("withdrawals", w.Version()) }

// withdrawalCols are the table's column names, in the order rows are built in.
var withdrawalCols = Withdrawals{}.Tables()[0].ColumnNames()

func (w Withdrawals) Tables() []Table {
	cols := lifecycleColumns("withdrawer",
		Column{Name: "batched_at", Type: Text, Nullable: true},
		Column{Name: "executed_at", Type: Text, Nullable: true},
		Column{Name: "claim_tx_hash", Type: Text, Nullable: true},
		Column{Name: "gas_used", Type: Integer, Nullable: true},
		Column{Name: "already_done", Type: Integer, Nullable: true},
	)
	// The batch the withdrawal is a leaf of (seed 000's batch_id and
	// cached merkle_proof, a JSON array of 0x-hashes), after the failure
	// and reorg columns.
	cols = append(cols,
		Column{Name: "batch_sequence", Type: Text, Nullable: true},
		Column{Name: "batch_id", Type: Integer, Nullable: true},
		Column{Name: "leaf_index", Type: Integer, Nullable: true},
		Column{Name: "leaf_hash", Type: Text, Nullable: true},
		Column{Name: "merkle_proof", Type: Text, Nullable: true},
	)
	return []Table{{
		Name:       w.table(),
		Columns:    cols,
		PrimaryKey: []string{"id"},
		Indexes:    lifecycleIndexes(),
	}}
}

type withdrawalRow struct {
	lifecycleBase
	observation
	batchedAt, executedAt, claimTxHash sql.NullString
	gasUsed, alreadyDone               sql.NullInt64
	batchSeq                           sql.NullString
	batchID, leafIndex                 sql.NullInt64
	leafHash, merkleProof              sql.NullString
}

func (r *withdrawalRow) args(dst []any, a colArgs) []any {
	dst = lifecycleArgs(dst, a, &r.lifecycleBase, &r.observation,
		a.text(&r.batchedAt), a.text(&r.executedAt), a.text(&r.claimTxHash), a.int(&r.gasUsed), a.int(&r.alreadyDone))
	return append(dst, a.text(&r.batchSeq), a.int(&r.batchID), a.int(&r.leafIndex), a.text(&r.leafHash), a.text(&r.merkleProof))
}

func (r *withdrawalRow) base() *lifecycleBase { return &r.lifecycleBase }

func (r *withdrawalRow) scan(sr RowScanner) (domain.LogRef, error) {
	return scanLifecycle(sr, &r.lifecycleBase, &r.observation,
		[]any{&r.batchedAt, &r.executedAt, &r.claimTxHash, &r.gasUsed, &r.alreadyDone},
		&r.batchSeq, &r.batchID, &r.leafIndex, &r.leafHash, &r.merkleProof)
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
	return applyLifecycle[withdrawalRow](ctx, tx, w.table(), withdrawalCols, []*Event{ev}, withdrawalRef)
}

func (w Withdrawals) NewSession(fromZero bool) Session {
	return newLifecycleFold[withdrawalRow](w.table(), withdrawalCols, withdrawalRef, fromZero)
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
	default:
		return fmt.Errorf("withdrawals: unexpected %T", ev.Body)
	}
	return nil
}
