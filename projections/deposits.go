package projections

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Deposits is seed 000's deposits table: one row per DepositLocked log,
// DETECTED → CONFIRMED → MINTED (or FAILED with its reason). Times are
// the events' own times (OccurredAt), never the wall clock.
type Deposits struct{}

func (Deposits) Name() string     { return "deposits" }
func (Deposits) Version() int     { return 1 }
func (Deposits) Topics() []string { return []string{topics.TopicBridge} }

func (d Deposits) table() string { return Versioned("deposits", d.Version()) }

// depositCols are the table's column names, in the order rows are built in.
var depositCols = Deposits{}.Tables()[0].ColumnNames()

func (d Deposits) Tables() []Table {
	cols := append(lifecycleKeyColumns(),
		Column{Name: "status", Type: Text},
		Column{Name: "contract", Type: Text, Nullable: true},
		Column{Name: "depositor", Type: Text, Nullable: true},
		Column{Name: "amount", Type: Text, Nullable: true}, // decimal base units
		Column{Name: "recipient", Type: Text, Nullable: true},
		Column{Name: "block_number", Type: Integer, Nullable: true},
		Column{Name: "block_hash", Type: Text, Nullable: true},
		Column{Name: "onchain_id", Type: Integer, Nullable: true},
		Column{Name: "detected_at", Type: Text, Nullable: true},
		Column{Name: "confirmed_at", Type: Text, Nullable: true},
		Column{Name: "confirmed_block", Type: Integer, Nullable: true},
		Column{Name: "minted_at", Type: Text, Nullable: true},
		Column{Name: "mint_tx_hash", Type: Text, Nullable: true},
		Column{Name: "gas_used", Type: Integer, Nullable: true},
		Column{Name: "mint_block_number", Type: Integer, Nullable: true},
		Column{Name: "failed_at", Type: Text, Nullable: true},
		Column{Name: "error_reason", Type: Text, Nullable: true},
		Column{Name: "reorged_block_hash", Type: Text, Nullable: true},
	)
	return []Table{{
		Name:       d.table(),
		Columns:    cols,
		PrimaryKey: []string{"id"},
		Indexes:    lifecycleIndexes(),
	}}
}

type depositRow struct {
	lifecycleBase
	observation
	mintedAt, mintTxHash sql.NullString
	gasUsed, mintBlock   sql.NullInt64
}

func (r *depositRow) args(dst []any) []any {
	return append(dst, r.id.id, r.id.part, r.id.off, int64(r.ref.ChainID), r.ref.TxHash.Hex(), int64(r.ref.LogIndex),
		r.status, r.contract, r.party, r.amount, r.recipient, r.blockNumber, r.blockHash, r.onchainID,
		r.detectedAt, r.confirmedAt, r.confirmedBlock, r.mintedAt, r.mintTxHash, r.gasUsed,
		r.mintBlock, r.failedAt, r.errorReason, r.reorgedBlockHash)
}

func (r *depositRow) base() *lifecycleBase { return &r.lifecycleBase }

func (r *depositRow) scan(sr RowScanner) (domain.LogRef, error) {
	var chainID, logIndex int64
	var txHash string
	if err := sr.Scan(&r.id.id, &r.id.part, &r.id.off, &chainID, &txHash, &logIndex,
		&r.status, &r.contract, &r.party, &r.amount, &r.recipient, &r.blockNumber, &r.blockHash, &r.onchainID,
		&r.detectedAt, &r.confirmedAt, &r.confirmedBlock, &r.mintedAt, &r.mintTxHash, &r.gasUsed,
		&r.mintBlock, &r.failedAt, &r.errorReason, &r.reorgedBlockHash); err != nil {
		return domain.LogRef{}, err
	}
	ref, err := refOf(chainID, txHash, logIndex)
	r.ref = ref
	return ref, err
}

// depositRef returns the deposit an event is about, if it is one.
func depositRef(ev *Event) (domain.LogRef, bool) {
	switch e := ev.Body.(type) {
	case *domain.DepositDetected:
		return e.Ref, true
	case *domain.DepositConfirmed:
		return e.Ref, true
	case *domain.DepositMinted:
		return e.Ref, true
	case *domain.DepositFailed:
		return e.Ref, true
	case *domain.ObservationReorged:
		return e.Ref, !e.Withdraw
	}
	return domain.LogRef{}, false
}

func (d Deposits) Apply(ctx context.Context, tx Tx, ev *Event) error {
	return applyLifecycle[depositRow](ctx, tx, d.table(), depositCols, []*Event{ev}, depositRef)
}

func (d Deposits) NewSession(fromZero bool) Session {
	return newLifecycleFold[depositRow](d.table(), depositCols, depositRef, fromZero)
}

// fold applies one event to the row. Every event sets only its own
// columns and status only moves forward, so the result does not depend on
// the order of events.
func (r *depositRow) fold(ev *Event) error {
	var err error
	switch e := ev.Body.(type) {
	case *domain.DepositDetected:
		return r.detected(ev, e.Contract, e.Depositor, e.Amount, e.Recipient, e.BlockNumber, e.BlockHash, e.OnChainID)
	case *domain.DepositConfirmed:
		return r.confirmed(ev, e.AtBlock)
	case *domain.DepositMinted:
		r.mintedAt = eventTime(ev)
		r.mintTxHash = nullText(e.MintTxHash.Hex())
		if r.gasUsed, err = nullUint(e.GasUsed, "gas_used", ev); err != nil {
			return err
		}
		if r.mintBlock, err = nullUint(e.BlockNumber, "block_number", ev); err != nil {
			return err
		}
		advance(&r.status, domain.StatusMinted)
	case *domain.DepositFailed:
		r.failed(ev, e.Reason)
	case *domain.ObservationReorged:
		r.reorged(e.BlockHash)
	default:
		return fmt.Errorf("deposits: unexpected %T", ev.Body)
	}
	return nil
}
