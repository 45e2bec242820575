package simulate

import (
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// With a fifth of the burns unpayable, every event is paid or refused,
// none abandoned, no stream stalls, and every refusal has a certificate
// that verifies; under faults (loss, duplicates, crashes) as in calm,
// and in Profile B.
func TestUnpayableBurnsAreRefused(t *testing.T) {
	faults := simnet.Faults{Delay: 20 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1, Duplicate: 0.1}
	for name, cfg := range map[string]Config{
		"calm":      {Signers: 5, Events: 100, Streams: 3, Seed: 7, Unpayable: 0.2},
		"faults":    {Signers: 5, Events: 80, Streams: 2, Seed: 11, Unpayable: 0.2, Crash: 0.1, Faults: faults},
		"profile b": {Signers: 4, Events: 60, Streams: 3, Seed: 5, Unpayable: 0.2, Profile: twophase.ProfileB},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, cfg)
			if r.Refused == 0 || r.Completed+r.Refused != r.Events || r.Abandoned != 0 || r.Hanging != 0 {
				t.Fatalf("%d events: %d completed, %d refused, %d abandoned, %d hanging", r.Events, r.Completed, r.Refused, r.Abandoned, r.Hanging)
			}
			if r.Refunds != r.Refused || r.StalledStreams != 0 {
				t.Fatalf("%d refunds for %d refused, %d streams stalled", r.Refunds, r.Refused, r.StalledStreams)
			}
			if !r.SafetyHeld() || !r.InvariantsHeld() {
				t.Fatalf("invariants: %+v", r)
			}
		})
	}
}

// Without --unpayable the events are those of the seed, as before.
func TestUnpayableOffLeavesEventsAlone(t *testing.T) {
	r := run(t, Config{Signers: 3, Events: 30, Seed: 7})
	if r.Refused != 0 || r.Refunds != 0 || r.Completed != 30 {
		t.Fatalf("%+v", r)
	}
}
