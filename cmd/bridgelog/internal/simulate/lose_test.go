package simulate

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
)

// --lose-payout 0.2: a fifth of the events' first signed payouts never
// land. Dropped ones are sent again; those whose input a conflicting
// transaction spent are voided once that is deep and replaced. Every
// event is still paid, exactly once, and no safety counter moves.
func TestLostPayoutsArePaidOnce(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		r := run(t, Config{Signers: 5, Events: 60, Seed: seed, LosePayout: 0.2, Faults: simnet.Faults{Delay: 20 * time.Millisecond}})
		switch {
		case r.PayoutsDropped == 0 || r.PayoutsConflicted == 0:
			t.Fatalf("seed %d: %d payouts dropped, %d conflicted: the run lost none of one kind", seed, r.PayoutsDropped, r.PayoutsConflicted)
		case r.PayoutsVoided < r.PayoutsConflicted*r.Quorum:
			t.Errorf("seed %d: %d voids for %d conflicted payouts, want a quorum's each", seed, r.PayoutsVoided, r.PayoutsConflicted)
		case r.Completed != r.Events || r.Abandoned != 0 || r.Hanging != 0:
			t.Errorf("seed %d: %d of %d completed, %d abandoned, %d hanging", seed, r.Completed, r.Events, r.Abandoned, r.Hanging)
		case !r.SafetyHeld() || !r.InvariantsHeld():
			t.Errorf("seed %d: invariants broken: %+v", seed, r)
		case r.DoublePayouts != 0 || r.WrongPayouts != 0 || r.DoubleSigns != 0:
			t.Errorf("seed %d: %d double payouts, %d wrong, %d double signs", seed, r.DoublePayouts, r.WrongPayouts, r.DoubleSigns)
		}
	}
}
