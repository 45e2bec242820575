package simulate

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// One round-jump signer of four (Profile B, f = 1) sends votes for the
// last round and sync answers nobody asked for, while half the honest
// views diverge and messages are lost. Every event completes, within
// its first two rounds (the last is round 3, where the jumps point; a
// diverged member cannot precommit the others' template, so a lost
// prevote or precommit among the other three costs a round), none is
// abandoned, the invariants hold, and the honest signers refused the
// far-ahead votes and the unrequested answers. (Before the fix the same
// run abandoned 84 of 100 events.)
func TestRoundJumpMovesNoRound(t *testing.T) {
	r := run(t, Config{Profile: twophase.ProfileB, Signers: 4, Byzantine: 1, Behaviour: BehaviourRoundJump, Events: 100, Seed: 1,
		Diverge: 0.5, Faults: simnet.Faults{Delay: 20 * time.Millisecond, Loss: 0.1}})
	if !r.InvariantsHeld() || r.Completed != r.Events || r.Abandoned != 0 || r.RoundsMax > 2 {
		t.Fatalf("want every event completed in round 0 or 1, none abandoned:\n%s", textOf(r))
	}
	if r.Byzantine.RoundJumps == 0 || r.RefusedMessages[twophase.ReasonFutureRound] == 0 || r.RefusedMessages[twophase.ReasonUnrequestedSync] == 0 {
		t.Fatalf("no trace of the round-jump signer:\n%s", textOf(r))
	}
}

// One reserve-spam signer of four proposes reserve splits for far nonces
// and for the next nonce while no split is due. No honest signer creates
// a reserve event, the ledger sees no split (as many as in the same run
// without it: none), and every event completes. (Before the fix the
// same run made 454 reserve events and 7 splits.)
func TestReserveSpamForcesNoSplit(t *testing.T) {
	cfg := Config{Profile: twophase.ProfileB, Signers: 4, Byzantine: 1, Behaviour: BehaviourReserveSpam, Events: 30, Seed: 1,
		Faults: simnet.Faults{Delay: 20 * time.Millisecond}}
	cfg.Params.ReserveOutputs = 8
	r := run(t, cfg)
	honest := cfg
	honest.Byzantine = 0
	base := run(t, honest)
	if !r.InvariantsHeld() || r.Completed != r.Events || r.ReserveEvents != base.ReserveEvents || r.ReserveSplits != base.ReserveSplits {
		t.Fatalf("want every event completed and the honest run's reserve (%d events, %d splits):\n%s",
			base.ReserveEvents, base.ReserveSplits, textOf(r))
	}
	if r.Byzantine.ReserveSpam == 0 || r.RefusedMessages[twophase.ReasonReserveNonce] == 0 || r.RefusedMessages[twophase.ReasonReserveNotDue] == 0 {
		t.Fatalf("no trace of the reserve-spam signer:\n%s", textOf(r))
	}
}
