package simulate

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Issue 33's Profile B schedules: seven signers, two hundred events over
// ten streams, 5 % loss, half the honest nodes seeing an output late for
// 30 % (10 %) of the events, and with two withholding signers and a
// partition. Nodes that see an output a moment apart are the everyday
// case: each schedule completes at least 99 % of its events, abandons
// none, and keeps every safety invariant. (The one-step lock rule
// completed 20 and 85 of 200 of the first two.)
func TestProfileBDivergedViewsComplete(t *testing.T) {
	parts, err := ParsePartitions("3/4@20s+15s")
	if err != nil {
		t.Fatal(err)
	}
	base := Config{Profile: twophase.ProfileB, Signers: 7, Events: 200, Streams: 10, Seed: 41,
		Faults: simnet.Faults{Delay: 20 * time.Millisecond, Loss: 0.05}}
	withhold := base
	withhold.Diverge, withhold.Byzantine, withhold.Behaviour = 0.3, 2, BehaviourWithhold
	withhold.Faults.Partitions = parts
	cases := map[string]Config{"diverge 0.3": withDiverge(base, 0.3), "diverge 0.1": withDiverge(base, 0.1),
		"withhold and partition": withhold}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, cfg)
			if !r.InvariantsHeld() || r.Abandoned != 0 || r.Completed*100 < r.Events*99 {
				t.Fatalf("want >= 99%% completed, none abandoned, invariants held:\n%s", textOf(r))
			}
		})
	}
}

func withDiverge(c Config, p float64) Config {
	c.Diverge = p
	return c
}
