package projections

import (
	"context"
	"database/sql"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// RelayBindings holds the chains and contracts the log was bound to by
// relays ([domain.RelayBound]): one row each, normally one in all.
type RelayBindings struct{}

func (RelayBindings) Name() string           { return "relay_bindings" }
func (RelayBindings) Version() int           { return 1 }
func (RelayBindings) Topics() []string       { return []string{topics.TopicChain} }
func (RelayBindings) KeepsNothingPastBatch() {} // every value goes to the store in Apply
func (p RelayBindings) Tables() []Table      { return []Table{bindingTable.Table} }

// bindingRow is one row of relay_bindings.
type bindingRow struct {
	chainID, execChainID int64
	distributor, token   string
	boundAt              sql.NullString
}

var bindingTable = declareTable(Versioned("relay_bindings", RelayBindings{}.Version()),
	[]string{"chain_id", "distributor", "exec_chain_id", "token"}, nil,
	i64Col("chain_id", func(r *bindingRow) *int64 { return &r.chainID }),
	strCol("distributor", func(r *bindingRow) *string { return &r.distributor }),
	i64Col("exec_chain_id", func(r *bindingRow) *int64 { return &r.execChainID }),
	strCol("token", func(r *bindingRow) *string { return &r.token }),
	textCol("bound_at", func(r *bindingRow) *sql.NullString { return &r.boundAt }),
)

// insertBinding keeps the first binding of each chain and contract set.
var insertBinding = bindingTable.insertNewSQL()

func (p RelayBindings) Apply(ctx context.Context, tx Tx, ev *Event) error {
	e, ok := ev.Body.(*domain.RelayBound)
	if !ok {
		return nil
	}
	r := bindingRow{chainID: int64(e.ChainID), distributor: e.Distributor.Hex(), execChainID: int64(e.ExecChainID), token: e.Token.Hex()}
	if at := ev.Envelope.RecordedAt; !at.IsZero() {
		r.boundAt = sql.NullString{String: formatTime(at), Valid: true}
	}
	_, err := tx.Exec(ctx, insertBinding, bindingTable.args(&r, nil, false)...)
	return err
}

var bindingOrder = bindingTable.clause("bound_at, chain_id")

// Bindings reads every chain and contract set the log was bound to.
func (r BridgeReader) Bindings(ctx context.Context) ([]domain.RelayBound, error) {
	var out []domain.RelayBound
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, RelayBindings{}.Name(), "relay_bindings")
		if err != nil || t == "" {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+bindingTable.list()+` FROM `+t+` ORDER BY `+bindingOrder)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r bindingRow
			if err := bindingTable.scan(rows, &r); err != nil {
				return err
			}
			b := domain.RelayBound{ChainID: uint64(r.chainID), ExecChainID: uint64(r.execChainID)}
			if b.Distributor, err = domain.ParseAddress(r.distributor); err != nil {
				return err
			}
			if b.Token, err = domain.ParseAddress(r.token); err != nil {
				return err
			}
			out = append(out, b)
		}
		return rows.Err()
	})
	return out, err
}
