package simulate

import (
	"bytes"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/bridgelog/bridgelog/adapters/simnet"
)

func run(t testing.TB, cfg Config) Report {
	t.Helper()
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func jsonOf(t *testing.T, r Report) []byte {
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The same configuration and seed give the same run, byte for byte; the
// faults' draws follow the seed.
func TestDeterministicBySeed(t *testing.T) {
	cfg := Config{Signers: 5, Events: 30, Seed: 7, Crash: 0.2, Invalidate: 0.2,
		Faults: simnet.Faults{Delay: 20 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1, Duplicate: 0.1, Reorder: 0.1, ReorderBy: 200 * time.Millisecond}}
	a, b := run(t, cfg), run(t, cfg)
	var ta, tb bytes.Buffer
	a.WriteText(&ta)
	b.WriteText(&tb)
	if !bytes.Equal(jsonOf(t, a), jsonOf(t, b)) || ta.String() != tb.String() {
		t.Fatalf("two runs of seed 7 differ:\n%s\n%s", ta.String(), tb.String())
	}
	cfg.Seed = 8
	if c := run(t, cfg); bytes.Equal(jsonOf(t, a), jsonOf(t, c)) {
		t.Fatal("seeds 7 and 8 gave the same run")
	}
}

// In a calm network (fixed one-way delay D, nothing lost) every signer
// commits one hop after the event starts, and the payout is in a block
// two hops later plus the ledger's next block.
func TestCalmNetworkLatency(t *testing.T) {
	const d = 50 * time.Millisecond
	r := run(t, Config{Signers: 7, Events: 40, Seed: 1, Faults: simnet.Faults{Delay: d}})
	if r.Completed != 40 || !r.InvariantsHeld() {
		t.Fatalf("calm run: %+v", r)
	}
	if p50 := time.Duration(r.CommitLatencyMs.P50) * time.Millisecond; p50 > d*12/10 {
		t.Fatalf("commit latency p50 %v, want at most 1.2 x %v", p50, d)
	}
	if r.RoundsMax != 1 || r.Retries != 0 {
		t.Fatalf("rounds max %d, retries %d in a calm network", r.RoundsMax, r.Retries)
	}
	if max := time.Duration(r.PayoutLatencyMs.Max) * time.Millisecond; max > 2*d+2*time.Second/daaPerSecond {
		t.Fatalf("payout latency max %v, want within two hops and the next block", max)
	}
}

// The ledger's block rate sets how long a payout waits for its block and
// how many payouts one active event per pool lets through: each event
// waits for the one before to be PayoutDepth blocks deep, so a queue is
// paid at less than one event per PayoutDepth blocks, and twice the
// blocks a second pay it about twice as fast.
func TestBlockRate(t *testing.T) {
	const d = time.Millisecond
	rates := map[uint64]Report{}
	for _, daa := range []uint64{10, 20} {
		r := run(t, Config{Signers: 3, Events: 20, EventEvery: time.Millisecond, DAAPerSecond: daa, Seed: 1, Faults: simnet.Faults{Delay: d}})
		if r.Completed != 20 || !r.InvariantsHeld() {
			t.Fatalf("%d blocks/s: %+v", daa, r)
		}
		block := time.Second / time.Duration(daa)
		if max := time.Duration(r.PayoutLatencyMs.Max) * time.Millisecond; max > 2*d+block {
			t.Errorf("%d blocks/s: payout latency max %v, want within two hops and the next block (%v)", daa, max, block)
		}
		depth := float64(r.PayoutsPerMinute) * 10 / (60 * float64(daa)) // events per PayoutDepth (10) blocks
		if depth > 1 || depth < 0.8 {
			t.Errorf("%d blocks/s: %.1f payouts/min is %.2f events per PayoutDepth blocks, want 0.8..1", daa, r.PayoutsPerMinute, depth)
		}
		rates[daa] = r
	}
	if ratio := rates[20].PayoutsPerMinute / rates[10].PayoutsPerMinute; ratio < 1.8 || ratio > 2.2 {
		t.Errorf("20 blocks/s pay %.2f times as fast as 10, want about 2", ratio)
	}
	if _, err := Run(Config{Signers: 3, Events: 1, DAAPerSecond: 5000}); err == nil {
		t.Error("5000 blocks a second accepted")
	}
}

// Every kind of fault, alone and together: the invariants hold, every
// event ends, and with faults that heal every event is paid.
func TestFaults(t *testing.T) {
	base := simnet.Faults{Delay: 20 * time.Millisecond}
	with := func(f func(*Config)) Config {
		c := Config{Signers: 5, Events: 30, Seed: 3, Faults: base}
		f(&c)
		return c
	}
	cases := map[string]Config{
		"loss":       with(func(c *Config) { c.Faults.Loss = 0.3 }),
		"duplicates": with(func(c *Config) { c.Faults.Duplicate = 0.3 }),
		"reordering": with(func(c *Config) {
			c.Faults.Reorder, c.Faults.ReorderBy, c.Faults.Jitter = 0.3, 300*time.Millisecond, 50*time.Millisecond
		}),
		"partition 2/3 heals": with(func(c *Config) {
			c.Faults.Partitions = []simnet.Partition{{Groups: []int{2, 3}, From: time.Second, For: 20 * time.Second}}
		}),
		"crashes":        with(func(c *Config) { c.Crash = 0.3 }),
		"reorged inputs": with(func(c *Config) { c.Invalidate = 0.3 }),
		"lagging nodes":  with(func(c *Config) { c.Lags = map[int]time.Duration{2: 3 * time.Second, 5: time.Second} }),
		"streams":        with(func(c *Config) { c.Streams = 4 }),
		"everything, N=9": {Signers: 9, Events: 40, Streams: 2, Seed: 11, Crash: 0.2, Invalidate: 0.2, Lags: map[int]time.Duration{4: time.Second},
			Faults: simnet.Faults{Delay: 20 * time.Millisecond, Jitter: 40 * time.Millisecond, Loss: 0.2, Duplicate: 0.1, Reorder: 0.1,
				ReorderBy: 300 * time.Millisecond, Partitions: []simnet.Partition{{Groups: []int{4, 5}, From: 5 * time.Second, For: 8 * time.Second}}}},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			r := run(t, cfg)
			if !r.InvariantsHeld() {
				var b bytes.Buffer
				r.WriteText(&b)
				t.Fatalf("invariants broken:\n%s", b.String())
			}
			if r.Completed != r.Events {
				t.Fatalf("%d of %d events paid; faults that heal should not abandon any", r.Completed, r.Events)
			}
		})
	}
}

// A partition that outlives every retry leaves the minority unable to
// commit, yet nothing is split or paid twice; the majority pays.
func TestMinorityPartitionCannotCommit(t *testing.T) {
	r := run(t, Config{Signers: 5, Events: 5, Seed: 2, Faults: simnet.Faults{Delay: 20 * time.Millisecond,
		Partitions: []simnet.Partition{{Groups: []int{2, 3}, From: 0, For: time.Hour}}}})
	if !r.InvariantsHeld() || r.Completed != 5 {
		t.Fatalf("%+v", r)
	}
}

// TestRandomFaultConfigs draws groups and fault mixes: whatever the draw,
// no invariant breaks and every event is paid or given up.
func TestRandomFaultConfigs(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(3, 9).Draw(rt, "signers")
		cfg := Config{Signers: n, Quorum: rapid.IntRange(n/2+1, n).Draw(rt, "quorum"),
			Events: rapid.IntRange(1, 15).Draw(rt, "events"), Streams: rapid.IntRange(1, 3).Draw(rt, "streams"),
			Seed: rapid.Uint64().Draw(rt, "seed"), Crash: rapid.Float64Range(0, 0.5).Draw(rt, "crash"),
			Invalidate: rapid.Float64Range(0, 0.5).Draw(rt, "invalidate")}
		cfg.Faults = simnet.Faults{
			Delay:     time.Duration(rapid.IntRange(1, 200).Draw(rt, "delay-ms")) * time.Millisecond,
			Jitter:    time.Duration(rapid.IntRange(0, 200).Draw(rt, "jitter-ms")) * time.Millisecond,
			Loss:      rapid.Float64Range(0, 0.5).Draw(rt, "loss"),
			Duplicate: rapid.Float64Range(0, 0.3).Draw(rt, "duplicate"),
			Reorder:   rapid.Float64Range(0, 0.3).Draw(rt, "reorder"), ReorderBy: time.Second,
		}
		if rapid.Bool().Draw(rt, "partition") {
			a := rapid.IntRange(1, n-1).Draw(rt, "split")
			cfg.Faults.Partitions = []simnet.Partition{{Groups: []int{a, n - a},
				From: time.Duration(rapid.IntRange(0, 20).Draw(rt, "from-s")) * time.Second,
				For:  time.Duration(rapid.IntRange(1, 60).Draw(rt, "for-s")) * time.Second}}
		}
		if rapid.Bool().Draw(rt, "lag") {
			cfg.Lags = map[int]time.Duration{rapid.IntRange(1, n).Draw(rt, "lagging"): time.Duration(rapid.IntRange(1, 5).Draw(rt, "lag-s")) * time.Second}
		}
		r, err := Run(cfg)
		if err != nil {
			rt.Fatal(err)
		}
		if !r.InvariantsHeld() {
			var b bytes.Buffer
			r.WriteText(&b)
			rt.Fatalf("invariants broken:\n%s", b.String())
		}
	})
}

func TestParseSpecs(t *testing.T) {
	p, err := ParsePartitions("2/3@10s+30s, 1/4@1m+5s")
	if err != nil || len(p) != 2 || p[0].Groups[0] != 2 || p[0].Groups[1] != 3 || p[0].From != 10*time.Second ||
		p[0].For != 30*time.Second || p[1].From != time.Minute {
		t.Fatalf("%+v %v", p, err)
	}
	for _, bad := range []string{"2/3", "2/x@1s+1s", "2/3@1s", "0/5@1s+1s", "2/3@x+1s"} {
		if _, err := ParsePartitions(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	l, err := ParseLags("3=2s,5=500ms")
	if err != nil || l[3] != 2*time.Second || l[5] != 500*time.Millisecond {
		t.Fatalf("%v %v", l, err)
	}
	for _, bad := range []string{"3", "x=1s", "3=-1s", "3=soon"} {
		if _, err := ParseLags(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := Run(Config{Signers: 4, Quorum: 2, Events: 1}); err == nil {
		t.Error("a quorum that is not a strict majority was accepted")
	}
	if _, err := Run(Config{Signers: 5, Events: 1, Faults: simnet.Faults{Partitions: []simnet.Partition{{Groups: []int{2, 2}}}}}); err == nil {
		t.Error("a partition of 4 of 5 signers was accepted")
	}
}

// The signers' SQL projections, folded from the logs a faulty run left,
// agree with every signer's own state.
func TestProjectionsAgreeWithSigners(t *testing.T) {
	r := run(t, Config{Signers: 5, Events: 25, Streams: 2, Seed: 5, Crash: 0.3, Invalidate: 0.3, CheckProjections: true,
		Faults: simnet.Faults{Delay: 20 * time.Millisecond, Loss: 0.2, Duplicate: 0.1}})
	if !r.ProjectionsChecked || r.ProjectionMismatches != 0 || !r.InvariantsHeld() {
		t.Fatalf("%+v", r)
	}
}
