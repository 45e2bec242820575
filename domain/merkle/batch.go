package merkle

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/domain"
)

// BatchLeaf is seed 002's leaf for a withdrawal in a batch: [Leaf] over the
// settlement, the batch id and the withdrawal.
func BatchLeaf(s domain.Settlement, batchID uint64, w domain.PendingWithdrawal) domain.Hash32 {
	h, err := Leaf(new(big.Int).SetUint64(s.ChainID), common.Address(s.Distributor), new(big.Int).SetUint64(batchID),
		new(big.Int).SetUint64(w.TxID), common.Address(w.Funder), common.Address(w.Recipient), w.Amount.Big())
	if err != nil {
		// Every input is at most 256 bits by construction (uint64 ids,
		// Amount bounded to 78 digits is checked at parse time).
		panic(fmt.Sprintf("batch leaf: %v", err))
	}
	return domain.Hash32(h)
}

// BatchRoot is the sorted-pair merkle root of a batch's leaves.
func BatchRoot(leaves []domain.Hash32) (domain.Hash32, error) {
	t, err := batchTree(leaves)
	if err != nil {
		return domain.Hash32{}, err
	}
	return domain.Hash32(t.Root()), nil
}

func batchTree(leaves []domain.Hash32) (*Tree, error) {
	hs := make([]common.Hash, len(leaves))
	for i, l := range leaves {
		hs[i] = common.Hash(l)
	}
	return New(hs)
}

// BatchProofs rebuilds a batch's tree, checks it gives the batch's root,
// and returns every leaf's proof in leaf order.
func BatchProofs(b domain.BatchCreated) ([][]domain.Hash32, error) {
	leaves := make([]domain.Hash32, len(b.Leaves))
	for i, l := range b.Leaves {
		leaves[i] = l.Leaf
	}
	t, err := batchTree(leaves)
	if err != nil {
		return nil, fmt.Errorf("batch %d tree: %w", b.BatchID, err)
	}
	if domain.Hash32(t.Root()) != b.Root {
		return nil, fmt.Errorf("batch %d: leaves give root %s, event says %s", b.BatchID, t.Root().Hex(), b.Root.Hex())
	}
	out := make([][]domain.Hash32, len(b.Leaves))
	for i := range b.Leaves {
		p, err := t.Proof(i)
		if err != nil {
			return nil, err
		}
		out[i] = make([]domain.Hash32, len(p))
		for j, h := range p {
			out[i][j] = domain.Hash32(h)
		}
	}
	return out, nil
}

// VerifyClaim reports whether a claim's leaf is the one its withdrawal
// gives and its proof leads to its root, as BatchDistributor.claim checks.
func VerifyClaim(r domain.ClaimRequested) bool {
	proof := make([]common.Hash, len(r.Proof))
	for i, p := range r.Proof {
		proof[i] = common.Hash(p)
	}
	leaf := BatchLeaf(r.Settlement, r.BatchID, domain.PendingWithdrawal{TxID: r.LeafInfo.TxID, Funder: r.LeafInfo.Funder,
		Recipient: r.LeafInfo.Recipient, Amount: r.LeafInfo.Amount})
	return leaf == r.LeafInfo.Leaf && Verify(common.Hash(r.Root), common.Hash(leaf), proof)
}
