package merkle_test

import (
	"bytes"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/domain/merkle"
)

// pair is the reference node hash: keccak of the byte-sorted concatenation.
func pair(a, b common.Hash) common.Hash {
	if bytes.Compare(a[:], b[:]) > 0 {
		a, b = b, a
	}
	return crypto.Keccak256Hash(a[:], b[:])
}

func TestThreeLeavesByHand(t *testing.T) {
	leaves := randomLeaves(3, 7)
	s := slices.Clone(leaves)
	slices.SortFunc(s, func(a, b common.Hash) int { return bytes.Compare(a[:], b[:]) })
	// Layout: [root, H(s1,s0), s2, s1, s0].
	inner := pair(s[1], s[0])
	wantRoot := pair(inner, s[2])

	tr, err := merkle.New(leaves)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Root() != wantRoot {
		t.Fatalf("root %s, want %s", tr.Root(), wantRoot)
	}
	want := map[common.Hash][]common.Hash{
		s[0]: {s[1], s[2]},
		s[1]: {s[0], s[2]},
		s[2]: {inner},
	}
	for i, l := range leaves {
		p, err := tr.Proof(i)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p, want[l]) {
			t.Errorf("proof %d = %v, want %v", i, p, want[l])
		}
		if got, _ := tr.Leaf(i); got != l {
			t.Errorf("Leaf(%d) = %s, want %s", i, got, l)
		}
	}
}

func TestEveryProofVerifies(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 1025} {
		leaves := randomLeaves(n, uint64(n))
		tr, err := merkle.New(leaves)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Len() != n {
			t.Fatalf("Len %d, want %d", tr.Len(), n)
		}
		for i, l := range leaves {
			p, err := tr.Proof(i)
			if err != nil {
				t.Fatal(err)
			}
			if !merkle.Verify(tr.Root(), l, p) {
				t.Fatalf("n=%d: proof %d does not verify", n, i)
			}
			byHash, err := tr.ProofFor(l)
			if err != nil || !slices.Equal(byHash, p) {
				t.Fatalf("n=%d: ProofFor(%d) = %v, %v; want %v", n, i, byHash, err, p)
			}
			if len(p) > 0 {
				bad := slices.Clone(p)
				bad[len(bad)-1][0] ^= 1
				if merkle.Verify(tr.Root(), l, bad) {
					t.Fatalf("n=%d: tampered proof %d verifies", n, i)
				}
			}
		}
	}
}

func TestSingleLeaf(t *testing.T) {
	l := randomLeaves(1, 3)[0]
	tr, err := merkle.New([]common.Hash{l})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Root() != l {
		t.Fatalf("single-leaf root %s, want the leaf %s", tr.Root(), l)
	}
	p, err := tr.Proof(0)
	if err != nil || len(p) != 0 {
		t.Fatalf("single-leaf proof %v, %v; want empty", p, err)
	}
	if !merkle.Verify(l, l, nil) {
		t.Fatal("empty proof of the root does not verify")
	}
}

func TestDuplicateLeaves(t *testing.T) {
	// b < c < d < a, so the sorted layout is nodes 8=b 7=c 6=d 5=a(first) 4=a(last): the two
	// copies of a are not siblings and must get different proofs.
	a, b, c, d := common.Hash{0xff}, common.Hash{0x01}, common.Hash{0x02}, common.Hash{0x03}
	leaves := []common.Hash{a, b, c, d, a}
	tr, err := merkle.New(leaves)
	if err != nil {
		t.Fatal(err)
	}
	var proofs [][]common.Hash
	for i := range leaves {
		p, err := tr.Proof(i)
		if err != nil {
			t.Fatal(err)
		}
		if !merkle.Verify(tr.Root(), leaves[i], p) {
			t.Fatalf("leaf %d does not verify", i)
		}
		proofs = append(proofs, p)
	}
	n3, n2 := pair(c, b), pair(d, a)
	if want := []common.Hash{d, pair(n3, a)}; !slices.Equal(proofs[0], want) {
		t.Fatalf("first copy proof %v, want %v", proofs[0], want)
	}
	if want := []common.Hash{n3, n2}; !slices.Equal(proofs[4], want) {
		t.Fatalf("last copy proof %v, want %v", proofs[4], want)
	}
	// By hash, the JS library answers with the last occurrence.
	p, err := tr.ProofFor(a)
	if err != nil || !slices.Equal(p, proofs[4]) {
		t.Fatalf("ProofFor(dup) = %v, %v; want the last occurrence's %v", p, err, proofs[4])
	}
}

func TestErrors(t *testing.T) {
	if _, err := merkle.New(nil); !errors.Is(err, merkle.ErrNoLeaves) {
		t.Fatalf("New(nil) error %v, want ErrNoLeaves", err)
	}
	tr, err := merkle.New(randomLeaves(5, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, 5} {
		if _, err := tr.Proof(i); !errors.Is(err, merkle.ErrIndexOutOfRange) {
			t.Errorf("Proof(%d) error %v, want ErrIndexOutOfRange", i, err)
		}
		if _, err := tr.AppendProof(nil, i); !errors.Is(err, merkle.ErrIndexOutOfRange) {
			t.Errorf("AppendProof(%d) error %v, want ErrIndexOutOfRange", i, err)
		}
		if _, err := tr.Leaf(i); !errors.Is(err, merkle.ErrIndexOutOfRange) {
			t.Errorf("Leaf(%d) error %v, want ErrIndexOutOfRange", i, err)
		}
	}
	if _, err := tr.ProofFor(common.Hash{1}); !errors.Is(err, merkle.ErrLeafNotFound) {
		t.Fatalf("ProofFor(absent) error %v, want ErrLeafNotFound", err)
	}
}

func TestLeafMatchesABIEncode(t *testing.T) {
	u256, _ := abi.NewType("uint256", "", nil)
	addr, _ := abi.NewType("address", "", nil)
	args := abi.Arguments{{Type: u256}, {Type: addr}, {Type: u256}, {Type: u256}, {Type: addr}, {Type: addr}, {Type: u256}}

	maxU256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	contract := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	funder := common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	recipient := common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
	for _, c := range []struct{ chain, batch, tx, amount *big.Int }{
		{big.NewInt(137), big.NewInt(1), big.NewInt(101), big.NewInt(10_000_000)},
		{big.NewInt(1337), big.NewInt(0), big.NewInt(0), big.NewInt(0)},
		{maxU256, maxU256, maxU256, maxU256},
	} {
		enc, err := args.Pack(c.chain, contract, c.batch, c.tx, funder, recipient, c.amount)
		if err != nil {
			t.Fatal(err)
		}
		got, err := merkle.Leaf(c.chain, contract, c.batch, c.tx, funder, recipient, c.amount)
		if err != nil {
			t.Fatal(err)
		}
		if want := crypto.Keccak256Hash(enc); got != want {
			t.Errorf("Leaf(%v) = %s, want %s", c, got, want)
		}
	}
}

func TestLeafRejectsNonUint256(t *testing.T) {
	one := big.NewInt(1)
	tooBig := new(big.Int).Lsh(one, 256)
	for name, v := range map[string]*big.Int{"nil": nil, "negative": big.NewInt(-1), "257 bits": tooBig} {
		_, err := merkle.Leaf(one, common.Address{}, one, one, common.Address{}, common.Address{}, v)
		if !errors.Is(err, merkle.ErrUint256Range) {
			t.Errorf("%s amount: error %v, want ErrUint256Range", name, err)
		}
	}
}

// refTree is the JS library's algorithm written plainly: stable sort, reversed leaves at the
// end of a 2n-1 array, parents hashed from the back.
func refTree(leaves []common.Hash) (nodes []common.Hash, pos []int) {
	idx := make([]int, len(leaves))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return bytes.Compare(leaves[a][:], leaves[b][:]) })
	nodes = make([]common.Hash, 2*len(leaves)-1)
	pos = make([]int, len(leaves))
	for k, i := range idx {
		nodes[len(nodes)-1-k] = leaves[i]
		pos[i] = len(nodes) - 1 - k
	}
	for i := len(nodes) - 1 - len(leaves); i >= 0; i-- {
		nodes[i] = pair(nodes[2*i+1], nodes[2*i+2])
	}
	return nodes, pos
}

// TestLargeSkewedTreeMatchesReference covers the bucketed sort (n >= 4096) with leaves that
// share prefixes and repeat, where bucketing must not change the order.
func TestLargeSkewedTreeMatchesReference(t *testing.T) {
	leaves := randomLeaves(9000, 5)
	for i := range leaves {
		switch i % 5 {
		case 0: // same first 16 bits: one big bucket
			leaves[i][0], leaves[i][1] = 0xab, 0xcd
		case 1: // same first 8 bytes: the prefix key ties
			copy(leaves[i][:8], []byte{1, 2, 3, 4, 5, 6, 7, 8})
		case 2: // duplicates
			leaves[i] = leaves[i%17]
		}
	}
	nodes, pos := refTree(leaves)
	tr, err := merkle.New(leaves)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Root() != nodes[0] {
		t.Fatalf("root %s, reference %s", tr.Root(), nodes[0])
	}
	seen := make([]bool, len(leaves))
	for i, p := range tr.AllProofs() {
		if seen[i] {
			t.Fatalf("AllProofs yielded %d twice", i)
		}
		seen[i] = true
		var want []common.Hash
		for q := pos[i]; q > 0; q = (q - 1) / 2 {
			if q%2 == 1 {
				want = append(want, nodes[q+1])
			} else {
				want = append(want, nodes[q-1])
			}
		}
		if !slices.Equal(p, want) {
			t.Fatalf("AllProofs proof %d = %v, reference %v", i, p, want)
		}
		if byIndex, _ := tr.Proof(i); !slices.Equal(byIndex, want) {
			t.Fatalf("Proof(%d) = %v, reference %v", i, byIndex, want)
		}
	}
	if slices.Contains(seen, false) {
		t.Fatal("AllProofs skipped a leaf")
	}
}
