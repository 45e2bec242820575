package twophase_test

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// BenchmarkEventPerSigner pays one event with N signers (direct
// delivery, no loss) and reports the CPU one signer spends on it:
// sealing and checking every envelope, validating N proposals, selecting
// inputs, committing, signing, merging signatures, submitting. The target
// for N = 20 is under 5 ms an event (BENCHMARKS.md).
func BenchmarkEventPerSigner(b *testing.B) {
	for _, n := range []int{5, 20} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			c := newCluster(b, n, n/2+1, func(p *twophase.Params) { p.Retention = 10 * time.Second })
			for i := 0; i < b.N+10; i++ {
				c.ledger.Fund(twophase.Outpoint{TxID: sha256.Sum256([]byte(fmt.Sprint("bench", i)))}, 10_000_000, 100, false)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ev := event(uint64(i))
				c.request(ev)
				c.advance(2 * time.Second)
				if c.phase(c.ids[0], ev) != twophase.PhaseCompleted {
					b.Fatalf("event %d: %s", i, c.phase(c.ids[0], ev))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/signer-event")
		})
	}
}
