package twophase

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

func vote(voter string, h Hash) Ballot { return Ballot{Voter: PeerID(voter), Hash: h} }
func noVote(voter string) Ballot       { return Ballot{Voter: PeerID(voter), None: true} }

func TestQuorumHash(t *testing.T) {
	h1, h2, h3 := hashByte(1), hashByte(2), hashByte(3)
	cases := []struct {
		name    string
		ballots []Ballot
		quorum  int
		want    Hash
		ok      bool
	}{
		{"no ballots", nil, 1, Hash{}, false},
		{"quorum reached", []Ballot{vote("a", h2), vote("b", h2), vote("c", h2), vote("d", h1), vote("e", h3)}, 3, h2, true},
		{"quorum exactly at the threshold", []Ballot{vote("a", h3), vote("b", h3)}, 2, h3, true},
		{"split, no quorum", []Ballot{vote("a", h1), vote("b", h1), vote("c", h2), vote("d", h2), vote("e", h3)}, 3, Hash{}, false},
		{"no-votes do not count", []Ballot{vote("a", h1), vote("b", h1), noVote("c"), noVote("d"), noVote("e")}, 3, Hash{}, false},
		{"only no-votes", []Ballot{noVote("a"), noVote("b"), noVote("c")}, 1, Hash{}, false},
		{"a repeated voter counts once", []Ballot{vote("a", h1), vote("a", h1), vote("a", h1)}, 2, Hash{}, false},
		{"a repeated voter's first vote counts", []Ballot{vote("a", h1), vote("a", h2), vote("b", h2)}, 2, Hash{}, false},
		{"a repeated voter's first vote reaches quorum", []Ballot{vote("a", h1), vote("b", h1), vote("a", h2)}, 2, h1, true},
		// Several hashes at quorum only happen with a quorum below a
		// majority; the seed's tie-breaks still decide deterministically.
		{"more votes beat a lower hash", []Ballot{vote("a", h1), vote("b", h1), vote("c", h2), vote("d", h2), vote("e", h2)}, 2, h2, true},
		{"equal votes: the lower hash", []Ballot{vote("a", h2), vote("b", h2), vote("c", h1), vote("d", h1)}, 2, h1, true},
		{"equal votes: the lower hash, whatever the proposers", []Ballot{vote("z", h2), vote("y", h2), vote("a", h3), vote("b", h3)}, 2, h2, true},
		{"quorum 1: the lowest of single votes", []Ballot{vote("a", h3), vote("b", h2)}, 1, h2, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := QuorumHash(c.ballots, c.quorum)
			if ok != c.ok || got != c.want {
				t.Fatalf("QuorumHash = %s, %v; want %s, %v", got.Short(), ok, c.want.Short(), c.ok)
			}
		})
	}
}

// With one ballot per voter, the answer depends on the ballots and not on
// their order, and it is the seed's: a hash with at least quorum votes,
// none with more, none with as many and a lower hash. (The seed's third
// tie-break, the lower proposer, orders stats of one hash only, so it never
// decides between two hashes.)
func TestQuorumHashDeterministic(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(rt, "voters")
		quorum := rapid.IntRange(1, n).Draw(rt, "quorum")
		ballots := make([]Ballot, n)
		for i := range ballots {
			voter := fmt.Sprintf("p%02d", i)
			if rapid.IntRange(0, 4).Draw(rt, "none") == 0 {
				ballots[i] = noVote(voter)
				continue
			}
			ballots[i] = vote(voter, hashByte(byte(rapid.IntRange(1, 4).Draw(rt, "hash"))))
		}
		got, ok := QuorumHash(ballots, quorum)

		perm := rapid.Permutation(ballots).Draw(rt, "order")
		if g2, ok2 := QuorumHash(perm, quorum); g2 != got || ok2 != ok {
			rt.Fatalf("order changed the answer: %s/%v then %s/%v", got.Short(), ok, g2.Short(), ok2)
		}

		counts := map[Hash]int{}
		for _, b := range ballots {
			if !b.None {
				counts[b.Hash]++
			}
		}
		if !ok {
			for h, c := range counts {
				if c >= quorum {
					rt.Fatalf("no quorum reported, but %s has %d >= %d votes", h.Short(), c, quorum)
				}
			}
			return
		}
		if counts[got] < quorum {
			rt.Fatalf("%s chosen with %d votes, quorum %d", got.Short(), counts[got], quorum)
		}
		for h, c := range counts {
			if c > counts[got] || (c == counts[got] && h.Less(got)) {
				rt.Fatalf("%s (%d votes) chosen over %s (%d votes)", got.Short(), counts[got], h.Short(), c)
			}
		}
	})
}

func TestLockFor(t *testing.T) {
	h1, h2 := hashByte(1), hashByte(2)
	none := func(Hash) bool { return false }
	deadSet := func(hs ...Hash) func(Hash) bool {
		return func(h Hash) bool {
			for _, d := range hs {
				if d == h {
					return true
				}
			}
			return false
		}
	}
	allNone := []Ballot{noVote("a"), noVote("b"), noVote("c"), noVote("d"), noVote("e")}
	// The proof sketch's split (section 4.4 with a voter unseen): N=5, M=3,
	// two votes for H1, two for H2, e's vote unknown. Either hash could
	// have been committed by a signer that saw e vote for it.
	split := []Ballot{vote("a", h1), vote("b", h1), vote("c", h2), vote("d", h2)}
	cases := []struct {
		name   string
		rounds map[uint32][]Ballot
		round  uint32
		n, m   int
		dead   func(Hash) bool
		want   Lock
	}{
		{"round 0 is always free", map[uint32][]Ballot{0: split}, 0, 5, 3, none, Lock{Kind: LockFree}},
		{"every earlier vote a no-vote", map[uint32][]Ballot{0: allNone}, 1, 5, 3, none, Lock{Kind: LockFree}},
		{"a quorum seen", map[uint32][]Ballot{0: {vote("a", h1), vote("b", h1), vote("c", h1), vote("d", h2), vote("e", h2)}}, 1, 5, 3, none, Lock{Kind: LockHash, Hash: h1}},
		{"proof sketch: 2 H1, 2 H2, 1 unseen", map[uint32][]Ballot{0: split}, 1, 5, 3, none, Lock{Kind: LockAmbiguous}},
		{"proof sketch with H2 dead", map[uint32][]Ballot{0: split}, 1, 5, 3, deadSet(h2), Lock{Kind: LockHash, Hash: h1}},
		{"proof sketch with both dead", map[uint32][]Ballot{0: split}, 1, 5, 3, deadSet(h1, h2), Lock{Kind: LockFree}},
		{"all known, 2 H1 2 H2 1 none: neither possible", map[uint32][]Ballot{0: append(split[:4:4], noVote("e"))}, 1, 5, 3, none, Lock{Kind: LockFree}},
		{"an unseen voter completes H1", map[uint32][]Ballot{0: {vote("a", h1), vote("b", h1), noVote("c"), noVote("d")}}, 1, 5, 3, none, Lock{Kind: LockHash, Hash: h1}},
		{"two unseen voters complete H1", map[uint32][]Ballot{0: {vote("a", h1), noVote("c"), noVote("d")}}, 1, 5, 3, none, Lock{Kind: LockHash, Hash: h1}},
		{"one unseen voter does not complete H1", map[uint32][]Ballot{0: {vote("a", h1), noVote("b"), noVote("c"), noVote("d")}}, 1, 5, 3, none, Lock{Kind: LockFree}},
		{"unseen voters alone could form a quorum on an unknown hash", map[uint32][]Ballot{0: {vote("a", h1), noVote("b")}}, 1, 5, 3, none, Lock{Kind: LockAmbiguous}},
		{"an earlier round not known at all", map[uint32][]Ballot{0: allNone}, 2, 5, 3, none, Lock{Kind: LockAmbiguous}},
		{"N=3, M=2, one vote known", map[uint32][]Ballot{0: {vote("a", h1)}}, 1, 3, 2, none, Lock{Kind: LockAmbiguous}},
		{"a repeated voter counts once", map[uint32][]Ballot{0: {vote("a", h1), vote("a", h2), vote("b", h1), noVote("c"), noVote("d")}}, 1, 5, 3, none, Lock{Kind: LockHash, Hash: h1}},
		{"the same hash possible in two rounds", map[uint32][]Ballot{
			0: {vote("a", h1), vote("b", h1), vote("c", h1), noVote("d"), noVote("e")},
			1: {vote("a", h1), vote("b", h1), noVote("c"), noVote("d")}}, 2, 5, 3, none, Lock{Kind: LockHash, Hash: h1}},
		{"different hashes possible in two rounds", map[uint32][]Ballot{
			0: {vote("a", h1), vote("b", h1), vote("c", h1), noVote("d"), noVote("e")},
			1: {vote("a", h2), vote("b", h2), vote("c", h2), noVote("d"), noVote("e")}}, 2, 5, 3, none, Lock{Kind: LockAmbiguous}},
		{"the current and later rounds do not count", map[uint32][]Ballot{0: allNone, 1: split, 2: {vote("a", h2)}}, 1, 5, 3, none, Lock{Kind: LockFree}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := LockFor(c.rounds, c.round, c.n, c.m, c.dead); got != c.want {
				t.Fatalf("LockFor = %+v, want %+v", got, c.want)
			}
		})
	}
}
