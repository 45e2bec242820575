package projections_test

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

// TestRelayBrakes: the pause is the latest pause or resume; the governor's
// queue holds the confirmed deposits in log order with their holds and
// block times, and the window the minted deposits whose block is recent;
// an operator's hold of a released deposit holds it again. On SQLite and
// PostgreSQL.
func TestRelayBrakes(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { relayBrakes(t, sqliteStore) })
	t.Run("postgres", func(t *testing.T) { relayBrakes(t, postgresStore(pgtest.Start(t))) })
}

func relayBrakes(t *testing.T, newStore func(t *testing.T) (projections.Store, func() projections.Store)) {
	ctx := ctxT(t)
	lg := embeddedLog(t)
	st, _ := newStore(t)
	run := newRunner(t, lg, st, projections.RelayProjections())
	rd := projections.BridgeReader{Store: st}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	act := func(id string) domain.OperatorAction {
		return domain.OperatorAction{Operator: "alice", Reason: "r" + id, RequestID: id, At: t0.UnixNano()}
	}
	dep := func(i byte, amount uint64) domain.DepositDetected {
		return domain.DepositDetected{Ref: domain.LogRef{ChainID: 1, TxHash: domain.Hash32{i}}, Amount: domain.AmountFromUint64(amount),
			BlockNumber: uint64(i), BlockHash: domain.Hash32{0xb, i}}
	}
	d1, d2, d3 := dep(1, 10), dep(2, 20), dep(3, 30)
	for i, d := range []domain.DepositDetected{d1, d2, d3} {
		appendEv(t, lg, t0.Add(time.Duration(i)*time.Hour), d)
		appendEv(t, lg, t0, domain.DepositConfirmed{Ref: d.Ref, AtBlock: 9, Confirmation: 5})
	}
	appendEv(t, lg, t0, domain.DepositMinted{Ref: d1.Ref}, domain.RelayPaused{OperatorAction: act("p1")},
		domain.MintHeld{Ref: d2.Ref, Amount: d2.Amount, Reason: domain.HoldOverLimit, ChainTime: 5, ReleaseAt: 99},
		domain.MintHeld{Ref: d3.Ref, Amount: d3.Amount, Reason: domain.HoldLarge, ReleaseAt: 77},
		domain.MintReleased{Ref: d3.Ref, Reason: domain.ReleaseDelay})
	catchUp(t, run)

	p, err := rd.PauseState(ctx)
	if err != nil || !p.Paused || p.Operator != "alice" || p.Reason != "rp1" || !p.Since.Equal(t0) {
		t.Fatalf("pause %+v %v", p, err)
	}
	queue, minted, err := rd.GovernorQueue(ctx, t0.Add(-time.Minute), 100)
	if err != nil || len(queue) != 2 || len(minted) != 1 || !minted[0].BlockTime.Equal(t0) {
		t.Fatalf("queue %+v minted %+v: %v", queue, minted, err)
	}
	if q := queue[0]; q.Ref != d2.Ref || q.Hold == nil || q.Hold.Reason != domain.HoldOverLimit || q.Hold.ReleaseAt.Unix() != 99 ||
		!q.BlockTime.Equal(t0.Add(time.Hour)) || q.Amount.Cmp(d2.Amount) != 0 {
		t.Fatalf("held deposit %+v", q)
	}
	if q := queue[1]; q.Ref != d3.Ref || q.Hold != nil || !q.Released {
		t.Fatalf("released deposit %+v", q)
	}
	if _, minted, _ := rd.GovernorQueue(ctx, t0.Add(time.Minute), 100); len(minted) != 0 {
		t.Fatalf("a deposit whose block is before the window counted: %+v", minted)
	}

	appendEv(t, lg, t0, domain.RelayResumed{OperatorAction: act("r1")},
		domain.MintHeld{Ref: d3.Ref, Reason: domain.HoldOperator, Action: act("h1")})
	catchUp(t, run)
	if p, _ := rd.PauseState(ctx); p.Paused {
		t.Fatalf("resumed, still paused: %+v", p)
	}
	status, hold, err := rd.DepositGovernance(ctx, d3.Ref)
	if err != nil || status != domain.StatusConfirmed || hold == nil || hold.Reason != domain.HoldOperator {
		t.Fatalf("d3 after the operator's hold: %s %+v %v", status, hold, err)
	}
	if status, hold, _ := rd.DepositGovernance(ctx, domain.LogRef{ChainID: 1, TxHash: domain.Hash32{9}}); status != "" || hold != nil {
		t.Fatalf("unknown deposit: %s %+v", status, hold)
	}
	holds, err := rd.MintHolds(ctx, 10)
	if err != nil || len(holds) != 2 {
		t.Fatalf("holds %+v %v", holds, err)
	}
	for _, h := range holds {
		if h.Ref == d3.Ref && (h.HeldBy != "alice" || h.HoldNote != "rh1" || h.DepositStatus != domain.StatusConfirmed) {
			t.Fatalf("the operator's hold %+v", h)
		}
	}
}
