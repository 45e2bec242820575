package projections

import (
	"context"

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
func (p RelayBindings) Tables() []Table {
	return []Table{{
		Name: Versioned("relay_bindings", p.Version()),
		Columns: []Column{
			{Name: "chain_id", Type: Integer}, {Name: "distributor", Type: Text},
			{Name: "exec_chain_id", Type: Integer}, {Name: "token", Type: Text},
			{Name: "bound_at", Type: Text, Nullable: true},
		},
		PrimaryKey: []string{"chain_id", "distributor", "exec_chain_id", "token"},
	}}
}

func (p RelayBindings) Apply(ctx context.Context, tx Tx, ev *Event) error {
	e, ok := ev.Body.(*domain.RelayBound)
	if !ok {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO relay_bindings_v1 (chain_id, distributor, exec_chain_id, token, bound_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (chain_id, distributor, exec_chain_id, token) DO NOTHING`,
		int64(e.ChainID), e.Distributor.Hex(), int64(e.ExecChainID), e.Token.Hex(), FormatTime(ev.Envelope.RecordedAt))
	return err
}

// Bindings reads every chain and contract set the log was bound to.
func (r BridgeReader) Bindings(ctx context.Context) ([]domain.RelayBound, error) {
	var out []domain.RelayBound
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, RelayBindings{}.Name(), "relay_bindings")
		if err != nil || t == "" {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT chain_id, distributor, exec_chain_id, token FROM `+t+` ORDER BY bound_at, chain_id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var chain, exec int64
			var distributor, token string
			if err := rows.Scan(&chain, &distributor, &exec, &token); err != nil {
				return err
			}
			b := domain.RelayBound{ChainID: uint64(chain), ExecChainID: uint64(exec)}
			if b.Distributor, err = domain.ParseAddress(distributor); err != nil {
				return err
			}
			if b.Token, err = domain.ParseAddress(token); err != nil {
				return err
			}
			out = append(out, b)
		}
		return rows.Err()
	})
	return out, err
}
