package simulate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
)

// checkProjections folds every signer's log through the signer's SQL
// projections (event_phase, event_proposals, signed_templates), as a
// signer process keeps them, into a SQLite store, and counts the events
// whose projected phase, epoch or round differs from the signer's own
// state (for the events it still holds in memory).
func (w *world) checkProjections() (int, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bridgelog-simulate-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	mismatches := 0
	for _, id := range w.ids {
		n := w.nodes[id]
		st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, string(id)+".db"), sqlstore.WithSynchronous("OFF"))
		if err != nil {
			return 0, err
		}
		run, err := projections.NewRunner(ctx, n.log, st, projections.SignerProjections())
		if err == nil {
			_, err = run.CatchUp(ctx)
		}
		if err == nil {
			mismatches, err = w.comparePhases(ctx, n, st, mismatches)
		}
		st.Close()
		if err != nil {
			return 0, fmt.Errorf("%s's projections: %w", id, err)
		}
	}
	return mismatches, nil
}

func (w *world) comparePhases(ctx context.Context, n *node, st projections.Store, mismatches int) (int, error) {
	tx, err := st.Begin(ctx)
	if err != nil {
		return mismatches, err
	}
	defer tx.Rollback()
	for _, ev := range w.events {
		e, ok := n.signer.Event(ev.ID())
		if !ok {
			continue
		}
		var phase string
		var epoch, round int64
		err := tx.QueryRow(ctx, `SELECT phase, epoch, round FROM event_phase_v2 WHERE event_id = ?`, ev.ID().Hex()).Scan(&phase, &epoch, &round)
		if err != nil && e.Phase == twophase.PhaseUnknown {
			continue // known only as a request the projection has not seen yet, or not at all
		}
		if err != nil || phase != e.Phase.String() || uint32(epoch) != e.Epoch || uint32(round) != e.Round {
			mismatches++
		}
	}
	return mismatches, nil
}
