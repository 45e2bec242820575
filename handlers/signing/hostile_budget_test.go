package signing_test

import (
	"math"
	"testing"
)

// hostileEvents is how many events each phase pays.
const hostileEvents = 30

// A member's flood (each attack of memberAttacks, its real key on its
// own link) while the group pays: every event is paid once, each honest
// log grows by at most 1 MB more than it did paying as many events
// quietly, and the source proofs the member's made-up events cost stay
// within its budget (16, then one a second, at each honest signer). The
// timings (payment rate, longest tick) and RSS are figures of
// BenchmarkHostileMember, not asserted here.
func TestHostileMemberBudgets(t *testing.T) {
	for _, a := range memberAttacks {
		t.Run(a.name, func(t *testing.T) {
			hr := newHostileRun(t)
			quiet := hr.phase(t, hostileEvents, nil)
			loud := hr.phase(t, hostileEvents, &a)
			hr.r.stop()
			hr.r.checkSafety(nil)
			t.Logf("quiet: %.2f events/s, log +%d B, tick max %v; under %d envelopes: %.2f events/s, log +%d B, tick max %v, RSS %+d MB, %d proofs",
				quiet.rate(), quiet.logBytes, quiet.tickMax, loud.sent, loud.rate(), loud.logBytes, loud.tickMax, loud.rssGrowth>>20, loud.proofs)
			if loud.sent == 0 {
				t.Fatal("the member sent nothing")
			}
			if grew := loud.logBytes - quiet.logBytes; grew > 1<<20 {
				t.Errorf("the flood grew an honest log by %d bytes, want at most 1 MB", grew)
			}
			budget := int64(len(hr.honest)) * (16 + int64(math.Ceil(loud.elapsed.Seconds())) + 1)
			if loud.proofs > budget {
				t.Errorf("%d source proofs under the flood, budget %d", loud.proofs, budget)
			}
		})
	}
}

// BenchmarkHostileMember reports, for each attack, what the member's
// flood cost the honest signers against a quiet phase of the same run:
// payment rate ratio, the longest hold of the lock by a tick,
// RSS growth, log bytes grown more than quietly; each phase pays
// 3*hostileEvents events. One run per iteration; use -benchtime=1x.
func BenchmarkHostileMember(b *testing.B) {
	for _, a := range memberAttacks {
		b.Run(a.name, func(b *testing.B) {
			var ratio, tickMs, rssMB, logKB float64
			for range b.N {
				hr := newHostileRun(b)
				quiet := hr.phase(b, 3*hostileEvents, nil)
				loud := hr.phase(b, 3*hostileEvents, &a)
				hr.r.stop()
				ratio = min(ratio, loud.rate()/quiet.rate())
				if ratio == 0 {
					ratio = loud.rate() / quiet.rate()
				}
				tickMs = max(tickMs, float64(loud.tickMax.Microseconds())/1000)
				rssMB = max(rssMB, float64(loud.rssGrowth)/(1<<20))
				logKB = max(logKB, float64(loud.logBytes-quiet.logBytes)/1024)
			}
			b.ReportMetric(ratio, "rate-vs-quiet")
			b.ReportMetric(tickMs, "tick-max-ms")
			b.ReportMetric(rssMB, "rss-growth-MB")
			b.ReportMetric(logKB, "log-extra-KB")
		})
	}
}
