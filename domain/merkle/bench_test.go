package merkle_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/domain/merkle"
)

// randomLeaves returns n pseudo-random leaves from a fixed seed, so runs are comparable.
func randomLeaves(n int, seed uint64) []common.Hash {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]common.Hash, n)
	for i := range out {
		for j := 0; j < 32; j += 8 {
			v := r.Uint64()
			for k := 0; k < 8; k++ {
				out[i][j+k] = byte(v >> (8 * k))
			}
		}
	}
	return out
}

func benchAllProofs(b *testing.B, n int) {
	leaves := randomLeaves(n, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t, err := merkle.New(leaves)
		if err != nil {
			b.Fatal(err)
		}
		_ = t.Root()
		siblings := 0
		for _, p := range t.AllProofs() {
			siblings += len(p)
		}
		if siblings < n {
			b.Fatalf("%d siblings for %d leaves", siblings, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/leaf")
}

// BenchmarkTreeAllProofs1M is the batching budget: build + root + every proof for 1M leaves,
// streamed through AllProofs' reused buffer as a batcher writes them out.
func BenchmarkTreeAllProofs1M(b *testing.B) { benchAllProofs(b, 1_000_000) }

func BenchmarkTreeAllProofs100k(b *testing.B) { benchAllProofs(b, 100_000) }

// BenchmarkTreeBuild1M is the build alone (sort + internal nodes), no proofs.
func BenchmarkTreeBuild1M(b *testing.B) {
	leaves := randomLeaves(1_000_000, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := merkle.New(leaves); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTreeProofsByIndex1M is every proof fetched by input index (random tree positions),
// the access pattern AllProofs avoids.
func BenchmarkTreeProofsByIndex1M(b *testing.B) {
	const n = 1_000_000
	t, err := merkle.New(randomLeaves(n, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var buf []common.Hash
		for i := range n {
			if buf, err = t.AppendProof(buf[:0], i); err != nil {
				b.Fatal(err)
			}
		}
	}
}
