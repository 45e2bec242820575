package projections_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestWithdrawalReorgedAt: a withdrawal whose block is reorged out keeps
// when that happened (the reorg event's time) beside the replaced block's
// hash; one never reorged has no such time. On every store.
func TestWithdrawalReorgedAt(t *testing.T) {
	forEachEnv(t, func(t *testing.T, e env) {
		lg := e.newLog(t)
		st, _ := e.newStore(t)
		run := newRunner(t, lg, st, builtins())
		seen := func(r domain.LogRef) domain.WithdrawalDetected {
			return domain.WithdrawalDetected{Ref: r, Contract: domain.Address{9}, BlockNumber: 100, BlockHash: domain.Hash32{0xbb},
				OnChainID: 7, Withdrawer: domain.Address{1}, Amount: domain.AmountFromUint64(5), Recipient: domain.Address{2}}
		}
		reorgedRef, keptRef := ref(1), ref(2)
		appendEv(t, lg, t0, seen(reorgedRef), seen(keptRef))
		at := t0.Add(3 * time.Minute)
		appendEv(t, lg, at, domain.ObservationReorged{Ref: reorgedRef, Withdraw: true, Block: 100,
			BlockHash: domain.Hash32{0xbb}, NewHash: domain.Hash32{0xcc}})
		catchUp(t, run)

		table := projections.Withdrawals{}.Tables()[0].Name
		reorgedAt := func(r domain.LogRef) sql.NullString {
			var v sql.NullString
			query(t, st, "SELECT reorged_at FROM "+table+" WHERE tx_hash = ? AND log_index = ?",
				[]any{r.TxHash.Hex(), int64(r.LogIndex)}, &v)
			return v
		}
		want := projections.FormatTime(at)
		if got := reorgedAt(reorgedRef); !got.Valid || got.String != want {
			t.Fatalf("reorged withdrawal: reorged_at %+v, want %v", got, want)
		}
		if got := reorgedAt(keptRef); got.Valid {
			t.Fatalf("withdrawal never reorged: reorged_at %q, want NULL", got.String)
		}
	})
}
