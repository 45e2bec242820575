package simulate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

func textOf(r Report) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

// Profile A's documented limit: it assumes no signer equivocates. One
// equivocating signer of five, while half the honest signers' nodes see
// an output late, gets two templates of one event committed by honest
// signers for some seeds; the same views without the equivocator never
// split.
func TestProfileAEquivocationSplitsCommits(t *testing.T) {
	const seeds = 10
	base := Config{Signers: 5, Events: 4, Diverge: 0.5, Faults: simnet.Faults{Delay: 20 * time.Millisecond}}
	var split []uint64
	for seed := uint64(1); seed <= seeds; seed++ {
		honest := base
		honest.Seed = seed
		if r := run(t, honest); !r.InvariantsHeld() {
			t.Fatalf("seed %d without a Byzantine signer:\n%s", seed, textOf(r))
		}
		cfg := honest
		cfg.Byzantine, cfg.Behaviour = 1, BehaviourEquivocate
		r := run(t, cfg)
		if r.SplitCommits > 0 {
			split = append(split, seed)
			if r.InvariantsHeld() || !strings.Contains(textOf(r), "BROKEN") {
				t.Fatalf("seed %d: a split commit reported as held:\n%s", seed, textOf(r))
			}
		}
		if r.DoubleSigns != 0 || r.TheftsSigned != 0 || r.CommitsWithoutQuorum != 0 || r.DoubleSpends != 0 {
			t.Errorf("seed %d: beyond the split, an honest signer broke a rule of its own:\n%s", seed, textOf(r))
		}
	}
	if len(split) == 0 {
		t.Fatalf("no split commit in seeds 1..%d under Profile A with an equivocating signer", seeds)
	}
	t.Logf("Profile A, 5 signers, 1 equivocating, --diverge 0.5: split commits in seeds %v of 1..%d", split, seeds)
}

// Profile B holds with up to f = (N-1)/3 Byzantine signers of every
// behaviour: no split commit, no honest double sign or theft, no commit
// without a quorum of real lock signatures, no outpoint spent or
// reserved twice, whatever the seed, the faults and the diverging views.
func TestProfileBByzantineSafety(t *testing.T) {
	for _, n := range []int{4, 7} {
		for _, b := range Behaviours {
			t.Run(fmt.Sprintf("N=%d/%s", n, b), func(t *testing.T) {
				t.Parallel()
				for seed := uint64(1); seed <= 30; seed++ {
					cfg := profileBConfig(n, b, seed)
					r := run(t, cfg)
					if !r.SafetyHeld() || r.Hanging != 0 {
						t.Fatalf("seed %d (%+v):\n%s", seed, cfg, textOf(r))
					}
				}
			})
		}
	}
}

// profileBConfig is a Profile B run with f = (N-1)/3 Byzantine signers
// and faults drawn from the seed.
func profileBConfig(n int, b Behaviour, seed uint64) Config {
	cfg := Config{Profile: twophase.ProfileB, Signers: n, Byzantine: (n - 1) / 3, Behaviour: b, Events: 6,
		Streams: 1 + int(seed%3), Seed: seed, Diverge: float64(seed%3) / 4, Crash: float64(seed%5) / 20,
		Faults: simnet.Faults{Delay: 20 * time.Millisecond, Jitter: time.Duration(seed%4) * 10 * time.Millisecond,
			Loss: float64(seed%4) / 20, Reorder: 0.1, ReorderBy: 300 * time.Millisecond}}
	if b == BehaviourReserveSpam {
		cfg.Params.ReserveOutputs = 8 // the reserve it spams must be on
	}
	return cfg
}

// With more than f Byzantine signers Profile B's quorum math no longer
// holds, and the simulator finds the split: the property above is not
// vacuous.
func TestProfileBBeyondFaultsSplits(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		r := run(t, Config{Profile: twophase.ProfileB, Signers: 4, Byzantine: 2, Behaviour: BehaviourEquivocate, Events: 4,
			Seed: seed, Diverge: 1, Faults: simnet.Faults{Delay: 20 * time.Millisecond}})
		if r.SplitCommits > 0 {
			return
		}
	}
	t.Fatal("2 equivocating signers of 4 never split a Profile B commit in seeds 1..10")
}

// Each behaviour leaves its mark on the honest signers' records.
func TestByzantineBehavioursAreSeen(t *testing.T) {
	cases := []struct {
		profile   twophase.Profile
		behaviour Behaviour
		seen      func(Report) bool
	}{
		{twophase.ProfileA, BehaviourEquivocate, func(r Report) bool { return r.Byzantine.Equivocated > 0 && r.SplitCommits > 0 }},
		{twophase.ProfileA, BehaviourWithhold, func(r Report) bool { return r.Byzantine.Withheld > 0 }},
		{twophase.ProfileA, BehaviourForgeEvidence, func(r Report) bool { return r.Byzantine.ForgedCommit > 0 && r.InvalidRejected > 0 }},
		{twophase.ProfileB, BehaviourEquivocate, func(r Report) bool { return r.Byzantine.Equivocated > 0 }},
		{twophase.ProfileB, BehaviourWithhold, func(r Report) bool { return r.Byzantine.Withheld > 0 }},
		{twophase.ProfileB, BehaviourForgeEvidence, func(r Report) bool { return r.Byzantine.ForgedCommit > 0 && r.InvalidRejected > 0 }},
		{twophase.ProfileB, BehaviourConflictingLocks, func(r Report) bool { return r.Byzantine.Equivocated > 0 && r.LockConflicts > 0 }},
	}
	for _, c := range cases {
		t.Run(string(c.profile)+"/"+string(c.behaviour), func(t *testing.T) {
			n := 4
			if c.profile == twophase.ProfileA {
				n = 5
			}
			var last Report
			for seed := uint64(1); seed <= 5; seed++ {
				last = run(t, Config{Profile: c.profile, Signers: n, Byzantine: 1, Behaviour: c.behaviour, Events: 6, Streams: 3,
					Seed: seed, Diverge: 0.5, Faults: simnet.Faults{Delay: 20 * time.Millisecond, Jitter: 20 * time.Millisecond}})
				if c.seen(last) {
					return
				}
			}
			t.Fatalf("no trace of %s in seeds 1..5:\n%s", c.behaviour, textOf(last))
		})
	}
}

// A signer that withholds its messages from some or all of its peers is
// at worst a crashed one: when the honest signers agree, they pay every
// event without it.
func TestWithholdingSignerIsNotNeeded(t *testing.T) {
	for _, p := range []twophase.Profile{twophase.ProfileA, twophase.ProfileB} {
		r := run(t, Config{Profile: p, Signers: 4, Quorum: 3, Byzantine: 1, Behaviour: BehaviourWithhold, Events: 10, Seed: 4,
			Faults: simnet.Faults{Delay: 20 * time.Millisecond}})
		if !r.InvariantsHeld() || r.Completed != r.Events {
			t.Fatalf("profile %s:\n%s", p, textOf(r))
		}
	}
}

// Byzantine runs are deterministic by seed too, and the report names the
// profile, the Byzantine signers and the lock conflicts.
func TestByzantineRunDeterministic(t *testing.T) {
	cfg := profileBConfig(7, BehaviourMixed, 3)
	a, b := run(t, cfg), run(t, cfg)
	if !bytes.Equal(jsonOf(t, a), jsonOf(t, b)) {
		t.Fatalf("two runs differ:\n%s\n%s", textOf(a), textOf(b))
	}
	js := string(jsonOf(t, a))
	for _, want := range []string{`"profile":"b"`, `"byzantine":{"count":2,"behaviour":"mixed",`, `"lock_conflicts":`, `"double_spend_attempts":`} {
		if !strings.Contains(js, want) {
			t.Errorf("report lacks %s: %s", want, js)
		}
	}
	if a.Quorum != 5 {
		t.Errorf("Profile B with 7 signers: quorum %d, want 2f+1 = 5", a.Quorum)
	}
}

func TestByzantineConfigRefused(t *testing.T) {
	for name, cfg := range map[string]Config{
		"all byzantine":             {Signers: 4, Byzantine: 4, Events: 1},
		"unknown behaviour":         {Signers: 4, Byzantine: 1, Behaviour: "lie", Events: 1},
		"unknown profile":           {Signers: 4, Profile: "c", Events: 1},
		"profile b, 3 signer":       {Signers: 3, Profile: twophase.ProfileB, Events: 1},
		"profile b, quorum 2":       {Signers: 4, Quorum: 2, Profile: twophase.ProfileB, Events: 1},
		"diverge over 1":            {Signers: 4, Diverge: 1.5, Events: 1},
		"reserve-spam, reserve off": {Signers: 4, Byzantine: 1, Behaviour: BehaviourReserveSpam, Events: 1},
	} {
		if _, err := Run(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
