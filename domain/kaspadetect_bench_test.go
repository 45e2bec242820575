package domain

import (
	"encoding/binary"
	"testing"
)

// BenchmarkDetectKaspaDeposits: one poll's worth of chain (200 chain
// blocks, the indexer's bound), each block accepting 20 transactions of 3
// outputs, one output in 20 a deposit, against 10,000 watched addresses.
func BenchmarkDetectKaspaDeposits(b *testing.B) {
	w := KaspaDepositWatch{Recipients: map[string]Address{}, GroupScript: []byte("group"), MinSompi: 1000, Depth: 300}
	script := func(i int) []byte {
		s := make([]byte, 35)
		s[0], s[1], s[34] = 0xaa, 0x20, 0x87
		binary.BigEndian.PutUint64(s[2:], uint64(i))
		return s
	}
	for i := range 10_000 {
		w.Recipients[string(script(i))] = Address{byte(i), byte(i >> 8)}
	}
	var c KaspaChainChange
	n := 0
	for blk := range 200 {
		cb := KaspaChainBlock{Hash: Hash32{byte(blk), byte(blk >> 8)}, DAAScore: uint64(1000 + 2*blk)}
		for tx := range 20 {
			t := KaspaTx{ID: Hash32{byte(blk), byte(blk >> 8), byte(tx)}}
			for range 3 {
				s := script(1_000_000 + n) // not watched
				if n%20 == 0 {
					s = script(n % 10_000)
				}
				t.Outputs = append(t.Outputs, KaspaTxOutput{Amount: 5000, Script: s})
				n++
			}
			cb.Accepted = append(cb.Accepted, t)
		}
		c.Added = append(c.Added, cb)
	}
	c.VirtualDAAScore = 1200
	b.ReportAllocs()
	b.ResetTimer()
	var events int
	for b.Loop() {
		events = len(DetectKaspaDeposits(c, w, nil))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/200, "ns/block")
	if events != 600 { // 600 deposits, none deep yet
		b.Fatalf("%d events, want 600 detections", events)
	}
}
