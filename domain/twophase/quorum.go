package twophase

import "slices"

// Ballot is one member's vote in one round: a template hash, or no vote.
type Ballot struct {
	Voter PeerID
	Hash  Hash
	None  bool
}

// voteStats are the seed's HashVoteStats.
type voteStats struct {
	hash   Hash
	count  int
	lowest PeerID
}

// QuorumHash is the seed's quorum_hash (section 4.1): the hash with at
// least quorum votes, and among several such (impossible with M > N/2 and
// one vote per member, kept for the seed's determinism) the one with most
// votes, then the lower hash, then the lower proposer. ok is false when no
// hash has a quorum: there is never a commit without one.
func QuorumHash(ballots []Ballot, quorum int) (h Hash, ok bool) {
	stats := tally(ballots)
	var best *voteStats
	for i := range stats {
		s := &stats[i]
		if s.count < quorum {
			continue
		}
		if best == nil || s.count > best.count ||
			(s.count == best.count && (s.hash.Less(best.hash) || (s.hash == best.hash && s.lowest < best.lowest))) {
			best = s
		}
	}
	if best == nil {
		return Hash{}, false
	}
	return best.hash, true
}

// tally counts votes per hash, no-votes and repeated voters left out, in
// hash order.
func tally(ballots []Ballot) []voteStats {
	var out []voteStats
	seen := map[PeerID]bool{}
	for _, b := range ballots {
		if seen[b.Voter] {
			continue // one ballot per member: its first
		}
		seen[b.Voter] = true
		if b.None {
			continue
		}
		i, found := slices.BinarySearchFunc(out, b.Hash, func(s voteStats, h Hash) int {
			switch {
			case s.hash.Less(h):
				return -1
			case h.Less(s.hash):
				return 1
			}
			return 0
		})
		if !found {
			out = slices.Insert(out, i, voteStats{hash: b.Hash, lowest: b.Voter})
		}
		out[i].count++
		if b.Voter < out[i].lowest {
			out[i].lowest = b.Voter
		}
	}
	return out
}

// LockKind says what earlier rounds allow a signer to vote for.
type LockKind uint8

const (
	// LockFree: no hash can have been committed in an earlier round; vote
	// for a template built from the current view.
	LockFree LockKind = iota
	// LockHash: exactly one hash can have been committed earlier; vote for
	// it again, or abstain.
	LockHash
	// LockAmbiguous: several hashes, or one the signer has never seen,
	// could have been committed earlier; abstain until more votes of those
	// rounds are known.
	LockAmbiguous
)

// Lock is the vote constraint of a round (see [LockFor]).
type Lock struct {
	Kind LockKind
	Hash Hash // with LockHash
}

// LockFor decides what a signer may vote for in round `round`, from the
// votes it knows of the earlier rounds: n members, commit quorum m. In an
// earlier round r, a hash X could have been committed by someone iff the
// votes seen for X plus the members whose round-r vote is unknown reach m
// (each member votes at most once per round). If X could have been, no
// later quorum may form on anything else, so every signer votes X or
// abstains: since a committed X was voted by a quorum, every signer counts
// it possible, and no other hash can gather a quorum after it. Dead hashes
// (see [Dead]) can never be paid and constrain nothing.
func LockFor(rounds map[uint32][]Ballot, round uint32, n, m int, dead func(Hash) bool) Lock {
	var candidate *Hash
	for r := uint32(0); r < round; r++ {
		ballots := rounds[r]
		stats := tally(ballots)
		known := map[PeerID]bool{}
		for _, b := range ballots {
			known[b.Voter] = true
		}
		unseen := n - len(known)
		if unseen >= m {
			return Lock{Kind: LockAmbiguous} // a hash never seen could have gathered a quorum
		}
		for _, s := range stats {
			if s.count+unseen < m || dead(s.hash) {
				continue
			}
			if candidate != nil && *candidate != s.hash {
				return Lock{Kind: LockAmbiguous}
			}
			h := s.hash
			candidate = &h
		}
	}
	if candidate == nil {
		return Lock{Kind: LockFree}
	}
	return Lock{Kind: LockHash, Hash: *candidate}
}
