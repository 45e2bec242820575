package evmchain

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/domain"
)

// Calls packs the relayer's contract calls.
type Calls struct {
	w           Contracts
	distributor *contracts.BatchDistributor
	token       *contracts.BridgeToken
}

// NewCalls packs calls to the given contracts.
func NewCalls(w Contracts) *Calls {
	return &Calls{w: w, distributor: contracts.NewBatchDistributor(), token: contracts.NewBridgeToken()}
}

// DepositKey is the token's per-deposit mint guard: the hash of the
// deposit's log reference, so a deposit can be minted once, ever.
func DepositKey(ref domain.LogRef) [32]byte {
	return crypto.Keccak256Hash([]byte(ref.Key()))
}

// Mint mints a confirmed deposit's amount to its recipient.
func (c *Calls) Mint(d domain.DepositDetected) Call {
	return Call{To: c.w.Token, Data: c.token.PackMint(common.Address(d.Recipient), d.Amount.Big(), DepositKey(d.Ref))}
}

// Refund mints a refused burn's amount back to its burner, once per the
// certificate's refund key.
func (c *Calls) Refund(cert domain.RefusalCertificate) Call {
	return Call{To: c.w.Token, Data: c.token.PackRefund(common.Address(cert.Burner), cert.Amount.Big(), cert.RefundKey())}
}

// Minted asks the token whether a deposit was minted.
func (c *Calls) Minted(ref domain.LogRef) Call {
	return Call{To: c.w.Token, Data: c.token.PackMinted(DepositKey(ref))}
}

// Anchor stores a batch root.
func (c *Calls) Anchor(b domain.BatchCreated) Call {
	return Call{To: c.w.Distributor, Data: c.distributor.PackAnchor(new(big.Int).SetUint64(b.BatchID), b.Root)}
}

// Root reads the anchored root of a batch (zero if none).
func (c *Calls) Root(batchID uint64) Call {
	return Call{To: c.w.Distributor, Data: c.distributor.PackRoots(new(big.Int).SetUint64(batchID))}
}

// UnpackRoot decodes the result of [Calls.Root].
func (c *Calls) UnpackRoot(out []byte) (domain.Hash32, error) {
	r, err := c.distributor.UnpackRoots(out)
	if err != nil {
		return domain.Hash32{}, fmt.Errorf("roots(): %w", err)
	}
	return domain.Hash32(r), nil
}

// Claim pays one leaf with its proof.
func (c *Calls) Claim(r domain.ClaimRequested) Call {
	proof := make([][32]byte, len(r.Proof))
	for i, p := range r.Proof {
		proof[i] = p
	}
	l := r.LeafInfo
	return Call{To: c.w.Distributor, Data: c.distributor.PackClaim(new(big.Int).SetUint64(r.BatchID), new(big.Int).SetUint64(l.TxID),
		common.Address(l.Funder), common.Address(l.Recipient), l.Amount.Big(), proof)}
}

// Processed asks the distributor whether a leaf was paid.
func (c *Calls) Processed(leaf domain.Hash32) Call {
	return Call{To: c.w.Distributor, Data: c.distributor.PackProcessedLeaves(leaf)}
}

// UnpackBool decodes a bool view result (minted, processedLeaves).
func (c *Calls) UnpackBool(out []byte) (bool, error) {
	v, err := c.distributor.UnpackProcessedLeaves(out)
	if err != nil {
		return false, fmt.Errorf("bool view: %w", err)
	}
	return v, nil
}

// Anchors reads and packs anchoring on one distributor (handlers.AnchorChain).
type Anchors struct {
	Client *Client
	Calls  *Calls
}

// Anchor packs the anchoring of a batch.
func (a Anchors) Anchor(b domain.BatchCreated) Call { return a.Calls.Anchor(b) }

// AnchoredRoot is the root stored on chain for a batch id (zero if none).
func (a Anchors) AnchoredRoot(ctx context.Context, batchID uint64) (domain.Hash32, error) {
	out, err := a.Client.CallView(ctx, a.Calls.Root(batchID))
	if err != nil {
		return domain.Hash32{}, err
	}
	return a.Calls.UnpackRoot(out)
}
