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

func (Deposits) Name() string           { return "deposits" }
func (Deposits) Version() int           { return 1 }
func (Deposits) Topics() []string       { return []string{topics.TopicBridge} }
func (Deposits) KeepsNothingPastBatch() {} // held rows copy what they keep

func (d Deposits) Tables() []Table { return []Table{depositTable.Table} }

var depositTable = lifecycleTable(Versioned("deposits", Deposits{}.Version()), "depositor",
	[]rowColumn[depositRow]{
		textCol("minted_at", func(r *depositRow) *sql.NullString { return &r.mintedAt }),
		textCol("mint_tx_hash", func(r *depositRow) *sql.NullString { return &r.mintTxHash }),
		intCol("gas_used", func(r *depositRow) *sql.NullInt64 { return &r.gasUsed }),
		intCol("mint_block_number", func(r *depositRow) *sql.NullInt64 { return &r.mintBlock }),
	})

type depositRow struct {
	lifecycleBase
	observation
	mintedAt, mintTxHash sql.NullString
	gasUsed, mintBlock   sql.NullInt64
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
	return applyLifecycle[depositRow](ctx, tx, &depositTable, []*Event{ev}, depositRef)
}

func (d Deposits) NewSession(fromZero bool) Session {
	return newLifecycleFold[depositRow](&depositTable, depositRef, fromZero)
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
