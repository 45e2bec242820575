package merkle

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

var (
	// ErrNoLeaves is returned by [New] for an empty leaf set; the JS library throws too.
	ErrNoLeaves = errors.New("merkle: no leaves")
	// ErrTooManyLeaves is returned by [New] above [MaxLeaves].
	ErrTooManyLeaves = errors.New("merkle: too many leaves")
	// ErrIndexOutOfRange is returned for a leaf index outside [0, Len()).
	ErrIndexOutOfRange = errors.New("merkle: leaf index out of range")
	// ErrLeafNotFound is returned by [Tree.ProofFor] for a hash that is not a leaf.
	ErrLeafNotFound = errors.New("merkle: leaf not in tree")
)

// MaxLeaves bounds a tree so node positions fit in 32 bits.
const MaxLeaves = 1 << 30

// Tree is an immutable sorted-pair merkle tree, laid out like OpenZeppelin's
// SimpleMerkleTree.of(leaves) with default options (sortLeaves = true): an array of 2n-1
// nodes, the sorted leaves stored reversed at the end, node[i] = H(node[2i+1], node[2i+2]) with
// H the keccak of the byte-sorted pair. A Tree is safe for concurrent reads.
type Tree struct {
	nodes []common.Hash
	// pos[i] is the node index of input leaf i.
	pos []uint32
	// order[k] is the input index of the k-th smallest leaf, stored at node len(nodes)-1-k.
	order []uint32
}

// New builds the tree over leaves, which are kept in input order for [Tree.Proof]. Duplicate
// leaves are allowed and each gets its own position, as in the JS library.
func New(leaves []common.Hash) (*Tree, error) {
	n := len(leaves)
	switch {
	case n == 0:
		return nil, ErrNoLeaves
	case n > MaxLeaves:
		return nil, fmt.Errorf("%w: %d > %d", ErrTooManyLeaves, n, MaxLeaves)
	}

	order := sortedOrder(leaves)

	total := 2*n - 1
	t := &Tree{nodes: make([]common.Hash, total), pos: make([]uint32, n), order: order}
	for k, idx := range order {
		p := total - 1 - k
		t.nodes[p] = leaves[idx]
		t.pos[idx] = uint32(p)
	}
	h := newPairHasher()
	for i := total - 1 - n; i >= 0; i-- {
		t.nodes[i] = h.hash(&t.nodes[2*i+1], &t.nodes[2*i+2])
	}
	return t, nil
}

// Root is the tree's root; for a single leaf it is the leaf itself.
func (t *Tree) Root() common.Hash { return t.nodes[0] }

// Len is the number of leaves, duplicates included.
func (t *Tree) Len() int { return len(t.pos) }

// Leaf returns input leaf i.
func (t *Tree) Leaf(i int) (common.Hash, error) {
	if i < 0 || i >= len(t.pos) {
		return common.Hash{}, fmt.Errorf("%w: %d of %d", ErrIndexOutOfRange, i, len(t.pos))
	}
	return t.nodes[t.pos[i]], nil
}

// Proof returns the proof for input leaf i, siblings from the leaf up.
func (t *Tree) Proof(i int) ([]common.Hash, error) {
	if i < 0 || i >= len(t.pos) {
		return nil, fmt.Errorf("%w: %d of %d", ErrIndexOutOfRange, i, len(t.pos))
	}
	return t.appendProof(make([]common.Hash, 0, t.depth()), int(t.pos[i])), nil
}

// AppendProof appends the proof for input leaf i to dst, so a caller streaming many proofs can
// reuse one buffer. It is [Tree.Proof] without the allocation.
func (t *Tree) AppendProof(dst []common.Hash, i int) ([]common.Hash, error) {
	if i < 0 || i >= len(t.pos) {
		return dst, fmt.Errorf("%w: %d of %d", ErrIndexOutOfRange, i, len(t.pos))
	}
	return t.appendProof(dst, int(t.pos[i])), nil
}

// ProofFor returns the proof for a leaf given by hash. For a leaf that occurs more than once it
// is the proof of its last occurrence in input order, as SimpleMerkleTree.getProof(leaf) gives.
func (t *Tree) ProofFor(leaf common.Hash) ([]common.Hash, error) {
	n := len(t.pos)
	total := len(t.nodes)
	// Sorted leaf k lives at node total-1-k; find the last k with sorted[k] == leaf.
	k := sort.Search(n, func(k int) bool { return bytes.Compare(t.nodes[total-1-k][:], leaf[:]) > 0 }) - 1
	if k < 0 || t.nodes[total-1-k] != leaf {
		return nil, fmt.Errorf("%w: %s", ErrLeafNotFound, leaf)
	}
	return t.appendProof(make([]common.Hash, 0, t.depth()), total-1-k), nil
}

// AllProofs yields every leaf's input index and proof, in tree order rather than input
// order: walking the tree from its leaf end keeps memory access sequential, which makes
// proving a whole batch several times faster than calling [Tree.Proof] per index. The
// proof slice is reused between iterations; copy it to keep it.
func (t *Tree) AllProofs() iter.Seq2[int, []common.Hash] {
	return func(yield func(int, []common.Hash) bool) {
		buf := make([]common.Hash, 0, t.depth())
		total := len(t.nodes)
		for k, idx := range t.order {
			buf = t.appendProof(buf[:0], total-1-k)
			if !yield(int(idx), buf) {
				return
			}
		}
	}
}

func (t *Tree) appendProof(dst []common.Hash, p int) []common.Hash {
	for p > 0 {
		// Left children are odd, their siblings follow; right children are even.
		sib := p + 1
		if p%2 == 0 {
			sib = p - 1
		}
		dst = append(dst, t.nodes[sib])
		p = (p - 1) / 2
	}
	return dst
}

// depth is the longest proof length, used to size proof slices once.
func (t *Tree) depth() int {
	d := 0
	for p := len(t.nodes) - 1; p > 0; p = (p - 1) / 2 {
		d++
	}
	return d
}

// ProcessProof folds proof into leaf and returns the root it implies, as OpenZeppelin's
// MerkleProof.processProof does.
func ProcessProof(leaf common.Hash, proof []common.Hash) common.Hash {
	h := newPairHasher()
	for i := range proof {
		leaf = h.hash(&leaf, &proof[i])
	}
	return leaf
}

// Verify reports whether proof proves leaf under root, with the semantics of OpenZeppelin's
// MerkleProof.verify (and hence of BatchDistributor.claim).
func Verify(root, leaf common.Hash, proof []common.Hash) bool {
	return ProcessProof(leaf, proof) == root
}

// pairHasher hashes sorted pairs with one keccak state, avoiding the pool and allocation of
// crypto.Keccak256Hash on the tree's hot loop.
type pairHasher struct {
	k   crypto.KeccakState
	buf [64]byte
	out common.Hash // Read through the interface would make a stack result escape
}

func newPairHasher() *pairHasher { return &pairHasher{k: crypto.NewKeccakState()} }

func (h *pairHasher) hash(a, b *common.Hash) common.Hash {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	copy(h.buf[:32], a[:])
	copy(h.buf[32:], b[:])
	h.k.Reset()
	h.k.Write(h.buf[:])
	h.k.Read(h.out[:])
	return h.out
}

// radixMin is the leaf count from which sortedOrder buckets by prefix first: below it a
// comparison sort is as fast and simpler.
const radixMin = 1 << 12

// sortedOrder returns input indices ordered by leaf hash, ties by input index: the JS
// library's stable sort. Large inputs are bucketed by their first 16 bits (a stable counting
// sort, so buckets keep input order) and each bucket, small for hash-like leaves, is then
// sorted by comparison; skewed leaves only make buckets bigger, never the result different.
func sortedOrder(leaves []common.Hash) []uint32 {
	n := len(leaves)
	type entry struct {
		key uint64 // the first 8 bytes, big-endian: settles almost every comparison
		idx uint32
	}
	less := func(a, b entry) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := bytes.Compare(leaves[a.idx][8:], leaves[b.idx][8:]); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	}
	entries := make([]entry, n)
	for i := range leaves {
		entries[i] = entry{binary.BigEndian.Uint64(leaves[i][:8]), uint32(i)}
	}
	if n < radixMin {
		slices.SortFunc(entries, less)
	} else {
		var start [1<<16 + 1]int
		for _, e := range entries {
			start[e.key>>48+1]++
		}
		for b := 1; b < len(start); b++ {
			start[b] += start[b-1]
		}
		bucketed := make([]entry, n)
		next := start
		for _, e := range entries {
			b := e.key >> 48
			bucketed[next[b]] = e
			next[b]++
		}
		for b := 0; b < 1<<16; b++ {
			if lo, hi := start[b], start[b+1]; hi-lo > 1 {
				slices.SortFunc(bucketed[lo:hi], less)
			}
		}
		entries = bucketed
	}
	order := make([]uint32, n)
	for k, e := range entries {
		order[k] = e.idx
	}
	return order
}
