package main

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/cmd/bridgelog/internal/simulate"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signingsource"
)

// The signer process benchmarks run the 2-of-3 group of signer processes
// of signercluster_test.go on loopback, with the devnet's parameters, on a
// kaspad simnet node whose miner makes benchSimnetBlocksPerSecond blocks a
// second, and report the simulator's prediction for the same group and
// delays beside what they measure.
const (
	// benchSimnetBlocksPerSecond is kaspadtest's miner default (an
	// average: kaspaminer mines ten blocks at once every half second).
	benchSimnetBlocksPerSecond = 20
	// benchLoopbackDelay is the simulator's one-way delay for a loopback
	// link.
	benchLoopbackDelay = time.Millisecond
	// benchSpacing is the least time between two burns of the latency
	// benchmark: a payout is accepted and PayoutDepth deep within about a
	// second, so that each burn finds the pool free.
	benchSpacing = 2 * time.Second
	// benchMinerWindow is kaspaminer's cycle at 20 blocks a second: ten
	// blocks about 5 ms apart, then a pause to the end of the half second.
	// Each burn adds a random part of it to benchSpacing, so that the
	// payouts meet the miner at every phase of its cycle, not at one.
	benchMinerWindow = 500 * time.Millisecond
)

// benchPayouts is how many payouts a benchmark run pays:
// BRIDGELOG_BENCH_PAYOUTS, default 20.
func benchPayouts(b *testing.B) int {
	b.Helper()
	v := os.Getenv("BRIDGELOG_BENCH_PAYOUTS")
	if v == "" {
		return 20
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 2 {
		b.Fatalf("BRIDGELOG_BENCH_PAYOUTS=%q: want a count of at least 2", v)
	}
	return n
}

// BenchmarkSignerPayoutLatency burns one payout every benchSpacing and a
// random part of benchMinerWindow, so that each is the pool's only active
// event, and measures each from its
// request on s1's log (s1's source handed the confirmed burn over, or s1
// proved it on its own chain when a peer proposed it first) to the node's
// acceptance of the payout (the first accepted submission on any member's
// log: they share the node and the host's clock), and to the block that
// accepted it (when the node's virtual DAA score reached that block's).
// The simulator's prediction runs from the first signer starting the
// event to the accepting block.
func BenchmarkSignerPayoutLatency(b *testing.B) {
	n := benchPayouts(b)
	b.StopTimer()
	c := newSignerCluster(b, clusterOptions{})
	c.waitFunded()
	daa := c.watchDAA()
	var runs payoutRuns
	for i := 0; i < b.N; i++ {
		first := len(c.kaspa.owed)
		b.StartTimer()
		for k := 0; k < n; k++ {
			if k > 0 {
				time.Sleep(benchSpacing + rand.N(benchMinerWindow))
			}
			c.burn(payoutSompi(k))
		}
		c.waitPaid(time.Duration(n)*(benchSpacing+benchMinerWindow) + 2*time.Minute)
		b.StopTimer()
		runs = append(runs, c.payoutRun(first, daa))
	}
	c.checkOneTemplatePerEvent()
	runs.log(b)
	total := runs.quantiles(func(p payoutTimes) time.Duration { return p.accepted.Sub(p.requested) })
	block := runs.quantiles(func(p payoutTimes) time.Duration { return p.inBlock.Sub(p.requested) })
	b.ReportMetric(float64(total.P50), "p50-ms")
	b.ReportMetric(float64(total.P95), "p95-ms")
	b.ReportMetric(float64(block.P50), "block-p50-ms")
	b.ReportMetric(float64(block.P95), "block-p95-ms")
	b.ReportMetric(float64(runs.quantiles(func(p payoutTimes) time.Duration { return p.committed.Sub(p.requested) }).P50), "request-commit-p50-ms")
	b.ReportMetric(float64(runs.quantiles(func(p payoutTimes) time.Duration { return p.accepted.Sub(p.committed) }).P50), "commit-accept-p50-ms")
	b.ReportMetric(float64(runs.quantiles(func(p payoutTimes) time.Duration { return p.completed.Sub(p.accepted) }).P50), "accept-complete-p50-ms")
	b.ReportMetric(float64(runs.failedRounds()), "failed-rounds")
	b.ReportMetric(runs.perMinute(), "payouts/min")
	// Arrivals a whole number of block intervals apart would all fall on
	// a block; these spread over the interval, as the burns' do.
	every := benchSpacing + time.Second/benchSimnetBlocksPerSecond/time.Duration(n)
	sim := simulatePayouts(b, n, every)
	b.ReportMetric(float64(sim.PayoutLatencyMs.P50), "sim-p50-ms")
	b.ReportMetric(float64(sim.PayoutLatencyMs.P95), "sim-p95-ms")
}

// BenchmarkSignerPayoutThroughput burns every payout while the signers
// are down, starts them, and measures how fast they pay the queue:
// payouts a minute from the first request on s1's log to the last
// acceptance, and the time between two acceptances. Profile A first
// (the 2-of-3 group, one active event per pool), with the simulator's
// rate for the same queue beside it; then, on the same machine in the
// same run, Profile B (3-of-4, f = 1) paying benchSenders senders' burns
// at once, one active event per sender's stream, from a pool of two
// deep outputs per payout (so that concurrent events seldom start from
// the same one); its "x-profile-a" is its rate over the latest Profile
// A run's (with -count, every A run comes first).
func BenchmarkSignerPayoutThroughput(b *testing.B) {
	n := benchPayouts(b)
	var rateA float64
	b.Run("profile-a", func(b *testing.B) {
		runs := benchThroughput(b, clusterOptions{skip: []string{"s1", "s2", "s3"}}, n)
		rateA = runs.perMinute()
		sim := simulatePayouts(b, n, time.Millisecond)
		b.ReportMetric(sim.PayoutsPerMinute, "sim-payouts/min")
	})
	b.Run("profile-b", func(b *testing.B) {
		nb := benchProfileBPayouts * n / 20
		runs := benchThroughput(b, clusterOptions{members: 4, quorum: 3, profile: twophase.ProfileB, faults: 1,
			senders: benchSenders, fund: 2 * nb, skip: []string{"s1", "s2", "s3", "s4"}}, nb)
		if rateA > 0 {
			b.ReportMetric(runs.perMinute()/rateA, "x-profile-a")
		}
	})
}

// Profile B's throughput run: benchProfileBPayouts payouts (for the
// default 20 of Profile A's; scaled with BRIDGELOG_BENCH_PAYOUTS) over
// benchSenders senders, so that each sender's stream holds several
// events in turn and the run lasts seconds, not the instant a single
// wave of concurrent events would.
const (
	benchSenders         = 12
	benchProfileBPayouts = 60
)

// benchThroughput runs the throughput measurement on a cluster of opt
// (its members not started): n payouts burned, round robin over its
// senders, while the signers are down, then the signers started. It
// reports the run's metrics and returns the runs.
func benchThroughput(b *testing.B, opt clusterOptions, n int) payoutRuns {
	b.StopTimer()
	c := newSignerCluster(b, opt)
	c.waitFunded()
	var runs payoutRuns
	for i := 0; i < b.N; i++ {
		for _, m := range c.group.members {
			c.stop(m.id)
		}
		first := len(c.kaspa.owed)
		for k := 0; k < n; k++ {
			c.burnFrom(k%len(c.senders), payoutSompi(k))
		}
		b.StartTimer()
		for _, m := range c.group.members {
			c.start(m.id)
		}
		c.waitPaid(time.Duration(n)*time.Second + time.Minute)
		b.StopTimer()
		runs = append(runs, c.payoutRun(first, nil))
	}
	c.checkOneTemplatePerEvent()
	runs.log(b)
	b.ReportMetric(runs.perMinute(), "payouts/min")
	b.ReportMetric(float64(runs.acceptIntervals().P50), "accept-interval-p50-ms")
	b.ReportMetric(float64(runs.quantiles(func(p payoutTimes) time.Duration { return p.accepted.Sub(p.committed) }).P50), "commit-accept-p50-ms")
	b.ReportMetric(float64(runs.quantiles(func(p payoutTimes) time.Duration { return p.completed.Sub(p.accepted) }).P50), "accept-complete-p50-ms")
	b.ReportMetric(float64(runs.failedRounds()), "failed-rounds")
	return runs
}

// simulatePayouts runs the simulator on the benchmarks' group: three
// signers, 2 of 3, the devnet's parameters, a loopback delay, the simnet
// miner's block rate (evenly spaced), n events every every.
func simulatePayouts(b *testing.B, n int, every time.Duration) simulate.Report {
	b.Helper()
	r, err := simulate.Run(simulate.Config{Signers: 3, Quorum: 2, Events: n, EventEvery: every, Seed: 1,
		Params: devnetSignerParams(), DAAPerSecond: benchSimnetBlocksPerSecond, Faults: simnet.Faults{Delay: benchLoopbackDelay}})
	if err != nil {
		b.Fatal(err)
	}
	if r.Completed != n || !r.InvariantsHeld() {
		b.Fatalf("simulation: %d of %d events completed, invariants held: %v", r.Completed, n, r.InvariantsHeld())
	}
	return r
}

// waitFunded waits until the group's funding is MinInputDepth deep: a
// payout requested before finds no input, and its retry a second later
// would count in its latency.
func (c *signerCluster) waitFunded() {
	c.t.Helper()
	depth := devnetSignerParams().MinInputDepth
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		s, err := c.kaspa.session(ctx)
		if err != nil {
			c.t.Fatal(err)
		}
		virtual, verr := s.VirtualDAAScore(ctx)
		utxos, uerr := s.UTXOs(ctx, c.group.address)
		s.Close()
		if err := errors.Join(verr, uerr); err != nil {
			c.t.Fatal(err)
		}
		if len(utxos) > 0 && utxos[0].DAAScore+depth <= virtual {
			return
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("the group's %d outputs are not %d deep: %v", len(utxos), depth, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// daaWatch is when the node's virtual DAA score first reached each value,
// sampled every 10 ms until the benchmark ends.
type daaWatch struct {
	mu      sync.Mutex
	samples []daaSample
}

type daaSample struct {
	at    time.Time // when the call that saw score was sent
	score uint64
}

func (c *signerCluster) watchDAA() *daaWatch {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.kaspa.session(ctx)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	w := &daaWatch{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.Close()
		for {
			at := time.Now()
			if v, err := s.VirtualDAAScore(ctx); err == nil {
				w.mu.Lock()
				if len(w.samples) == 0 || v > w.samples[len(w.samples)-1].score {
					w.samples = append(w.samples, daaSample{at, v})
				}
				w.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	c.t.Cleanup(func() { cancel(); <-done })
	return w
}

// reached is when the score was first seen at or above score (zero: not
// yet).
func (w *daaWatch) reached(score uint64) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	i, _ := slices.BinarySearchFunc(w.samples, score, func(s daaSample, v uint64) int { return cmp.Compare(s.score, v) })
	if i == len(w.samples) {
		return time.Time{}
	}
	return w.samples[i].at
}

// payoutTimes is when one event's payout passed each step: s1's request,
// s1's commit, the node's acceptance (the first accepted submission of
// any member), the accepting block on the node (with a daaWatch), s1's
// completion (the payout PayoutDepth deep in s1's view).
type payoutTimes struct {
	requested, committed, accepted, inBlock, completed time.Time
	// blockScore is the accepting block's DAA score (s1's Completed).
	blockScore uint64
	// failedRounds counts s1's failed rounds of the event.
	failedRounds int
}

// viaProof names, in an EventRequested, an event the signer proved on
// its own chain when a peer proposed it before its source handed it
// over: its own view of the confirmation too.
const viaProof = "proof"

// payoutRun is one run's payouts, in request order.
type payoutRun []payoutTimes

// payoutRun reads the logs for the payouts owed from index first on,
// until each has every step (s1 records a completion up to a node poll
// after the node has the payout deep), and fails the benchmark when one
// still lacks a step after 30 s.
func (c *signerCluster) payoutRun(first int, daa *daaWatch) payoutRun {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		run, missing := c.readPayoutRun(first, daa)
		if missing < 0 {
			return run
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("payout %d of the run: a step is missing from the logs: %+v", missing, run[missing])
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// readPayoutRun reads the payouts owed from index first on, in request
// order, and the index of one that lacks a step (-1: none).
func (c *signerCluster) readPayoutRun(first int, daa *daaWatch) (payoutRun, int) {
	c.t.Helper()
	byDest := map[string]int{}
	for i, o := range c.kaspa.owed[first:] {
		byDest[o.address.String()] = i
	}
	run := make(payoutRun, len(byDest))
	ids := map[twophase.Hash]int{}
	for _, f := range c.rawFacts("s1", twophase.TypeEventRequested) {
		r := f.(*twophase.EventRequested)
		if i, ok := byDest[r.Event.Destination]; ok && (r.Via == signingsource.ViaSource || r.Via == viaProof) {
			ids[r.ID] = i
			setEarliest(&run[i].requested, r.AtNs)
		}
	}
	at := func(id twophase.Hash) *payoutTimes {
		if i, ok := ids[id]; ok {
			return &run[i]
		}
		return nil
	}
	for _, f := range c.rawFacts("s1", twophase.TypeCommitted) {
		if p := at(f.(*twophase.Committed).EventID); p != nil {
			setEarliest(&p.committed, f.(*twophase.Committed).AtNs)
		}
	}
	for _, f := range c.rawFacts("s1", twophase.TypeCompleted) {
		if p := at(f.(*twophase.Completed).EventID); p != nil {
			setEarliest(&p.completed, f.(*twophase.Completed).AtNs)
			p.blockScore = f.(*twophase.Completed).DAAScore
		}
	}
	for _, f := range c.rawFacts("s1", twophase.TypeRoundFailed) {
		if p := at(f.(*twophase.RoundFailed).EventID); p != nil {
			p.failedRounds++
		}
	}
	for _, m := range c.group.members {
		for _, f := range c.rawFacts(m.id, twophase.TypePayoutOutcome) {
			if o := f.(*twophase.PayoutOutcome); o.Accepted && at(o.EventID) != nil {
				setEarliest(&at(o.EventID).accepted, o.AtNs)
			}
		}
	}
	for i := range run {
		p := &run[i]
		if daa != nil && !p.completed.IsZero() {
			p.inBlock = daa.reached(p.blockScore)
		}
		if p.requested.IsZero() || p.committed.IsZero() || p.accepted.IsZero() || p.completed.IsZero() ||
			(daa != nil && p.inBlock.IsZero()) {
			return run, i
		}
	}
	slices.SortFunc(run, func(a, b payoutTimes) int { return a.requested.Compare(b.requested) })
	return run, -1
}

// setEarliest keeps the earlier of *t and ns (a fact may be recorded
// again, e.g. after a restart).
func setEarliest(t *time.Time, ns int64) {
	if at := time.Unix(0, ns); t.IsZero() || at.Before(*t) {
		*t = at
	}
}

// payoutRuns are the runs of one benchmark.
type payoutRuns []payoutRun

// quantiles is the distribution of part over every payout, in ms.
func (rs payoutRuns) quantiles(part func(payoutTimes) time.Duration) simulate.Latency {
	var ms []int64
	for _, run := range rs {
		for _, p := range run {
			ms = append(ms, part(p).Milliseconds())
		}
	}
	return simulate.LatencyOf(ms)
}

// perMinute is the payouts a minute over the runs' wall time, each from
// its first request on s1's log to its last acceptance.
func (rs payoutRuns) perMinute() float64 {
	var paid int
	var wall time.Duration
	for _, run := range rs {
		last := run[0].accepted
		for _, p := range run {
			if p.accepted.After(last) {
				last = p.accepted
			}
		}
		paid += len(run)
		wall += last.Sub(run[0].requested)
	}
	return float64(paid) / wall.Minutes()
}

// acceptIntervals is the distribution of the time between two successive
// acceptances of a run.
func (rs payoutRuns) acceptIntervals() simulate.Latency {
	var gaps []int64
	for _, run := range rs {
		acc := make([]time.Time, len(run))
		for i, p := range run {
			acc[i] = p.accepted
		}
		slices.SortFunc(acc, time.Time.Compare)
		for i := 1; i < len(acc); i++ {
			gaps = append(gaps, acc[i].Sub(acc[i-1]).Milliseconds())
		}
	}
	return simulate.LatencyOf(gaps)
}

func (rs payoutRuns) failedRounds() int {
	n := 0
	for _, run := range rs {
		for _, p := range run {
			n += p.failedRounds
		}
	}
	return n
}

// log writes each payout's steps (shown with -v), from its request.
func (rs payoutRuns) log(b *testing.B) {
	for r, run := range rs {
		for i, p := range run {
			since := func(t time.Time) int64 {
				if t.IsZero() {
					return -1
				}
				return t.Sub(p.requested).Milliseconds()
			}
			b.Logf("run %d payout %2d: requested at +%5d ms; commit +%4d ms, accepted +%4d ms, in a block +%4d ms, completed +%4d ms, %d failed rounds",
				r, i, p.requested.Sub(run[0].requested).Milliseconds(), since(p.committed), since(p.accepted), since(p.inBlock),
				since(p.completed), p.failedRounds)
		}
	}
}
