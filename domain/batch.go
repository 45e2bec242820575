package domain

import (
	"errors"
	"fmt"
	"sort"
	"time"
)

// Event type names of the batch sequence and claims.
const (
	TypeBatchCreated   = "batch.created"
	TypeBatchAnchored  = "batch.anchored"
	TypeBatchFailed    = "batch.anchor_failed"
	TypeClaimRequested = "claim.requested"
)

// Errors of batch planning.
var (
	// ErrPreviousNotAnchored: seed 000's sequencing rule, batch N+1 only
	// after batch N is anchored.
	ErrPreviousNotAnchored = errors.New("previous batch not anchored yet")
	// ErrBatchTooLarge: the policy asks for more leaves than one batch
	// event may carry.
	ErrBatchTooLarge = errors.New("batch size over bound")
	// ErrBatchLost: the chain holds a root for the batch id the sequence
	// would cut next, and no cut of the pending withdrawals gives it. The
	// log lacks that batch (restored from an older copy, or another
	// writer anchored it); a batch cut anew could never be anchored.
	ErrBatchLost = errors.New("batch anchored on chain is missing from the log")
)

// MaxBatchLeaves bounds a batch so that its creation event stays well
// under the envelope size bound (a leaf is about 250 encoded bytes).
const MaxBatchLeaves = 2000

// Settlement names the chain and contract a batch is paid on: the leaf's
// chainId and contract fields.
type Settlement struct {
	ChainID     uint64  `msgpack:"chain_id" json:"chainId"`
	Distributor Address `msgpack:"distributor" json:"distributor"`
}

// SequenceID is the aggregate id of one settlement's batch sequence; every
// batch event of that sequence shares its partition, so one writer decides
// batch N+1.
func (s Settlement) SequenceID() string {
	return fmt.Sprintf("batches:%d:%s", s.ChainID, s.Distributor.Hex())
}

// BatchPolicy bounds batches by size and by how long the oldest confirmed
// withdrawal may wait.
type BatchPolicy struct {
	MaxSize int           // 0 means 128: claims stay under 65k gas up to 128-leaf trees
	MaxWait time.Duration // 0 means 30s
}

// WithDefaults is the policy with every zero field at its default.
func (p BatchPolicy) WithDefaults() BatchPolicy {
	if p.MaxSize <= 0 {
		p.MaxSize = 128
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 30 * time.Second
	}
	return p
}

// Validate says what is wrong with the policy.
func (p BatchPolicy) Validate() error {
	if p.MaxSize > MaxBatchLeaves {
		return fmt.Errorf("%w: max size %d, bound %d", ErrBatchTooLarge, p.MaxSize, MaxBatchLeaves)
	}
	return nil
}

// SequenceState is what the batcher knows of the sequence: the last batch
// id (0: none yet) and whether it is anchored.
type SequenceState struct {
	LastBatchID  uint64
	LastAnchored bool
}

// PendingWithdrawal is a confirmed withdrawal not yet in any batch.
type PendingWithdrawal struct {
	Ref         LogRef
	TxID        uint64  // the burn's on-chain id: unique, monotonic
	Funder      Address // the withdrawer who burned: bound into the leaf
	Recipient   Address
	Amount      Amount
	ConfirmedAt time.Time
}

// BatchLeaf is one withdrawal in a batch.
type BatchLeaf struct {
	Index      uint32  `msgpack:"index" json:"index"`
	Withdrawal LogRef  `msgpack:"withdrawal" json:"withdrawal"`
	TxID       uint64  `msgpack:"tx_id" json:"txId"`
	Funder     Address `msgpack:"funder" json:"funder"`
	Recipient  Address `msgpack:"recipient" json:"recipient"`
	Amount     Amount  `msgpack:"amount" json:"amount"`
	Leaf       Hash32  `msgpack:"leaf" json:"leaf"`
}

// BatchCreated: batch BatchID of a settlement's sequence was computed. Its
// root is a pure function of the leaves, so the same confirmed set always
// gives the same root.
type BatchCreated struct {
	Settlement  Settlement  `msgpack:"settlement" json:"settlement"`
	BatchID     uint64      `msgpack:"batch_id" json:"batchId"`
	Root        Hash32      `msgpack:"root" json:"root"`
	TotalAmount Amount      `msgpack:"total_amount" json:"totalAmount"`
	Leaves      []BatchLeaf `msgpack:"leaves" json:"leaves"`
}

func (e BatchCreated) EventType() string { return TypeBatchCreated }
func (e BatchCreated) SourceKey() string {
	return fmt.Sprintf("%s/%d", e.Settlement.SequenceID(), e.BatchID)
}
func (e BatchCreated) AggregateID() string { return e.Settlement.SequenceID() }

// BatchAnchored: the batch root is stored on chain.
type BatchAnchored struct {
	Settlement  Settlement `msgpack:"settlement" json:"settlement"`
	BatchID     uint64     `msgpack:"batch_id" json:"batchId"`
	Root        Hash32     `msgpack:"root" json:"root"`
	TxHash      Hash32     `msgpack:"tx_hash" json:"txHash"`
	GasUsed     uint64     `msgpack:"gas_used" json:"gasUsed"`
	BlockNumber uint64     `msgpack:"block_number" json:"blockNumber"`
}

func (e BatchAnchored) EventType() string { return TypeBatchAnchored }
func (e BatchAnchored) SourceKey() string {
	return fmt.Sprintf("%s/%d/anchored", e.Settlement.SequenceID(), e.BatchID)
}
func (e BatchAnchored) AggregateID() string { return e.Settlement.SequenceID() }

// BatchAnchorFailed: anchoring reverted; the sequence stops here until an
// operator acts (seed 000 alert: "Merkle root anchoring failed").
type BatchAnchorFailed struct {
	Settlement Settlement `msgpack:"settlement" json:"settlement"`
	BatchID    uint64     `msgpack:"batch_id" json:"batchId"`
	Reason     string     `msgpack:"reason" json:"reason"`
	TxHash     Hash32     `msgpack:"tx_hash" json:"txHash"`
}

func (e BatchAnchorFailed) EventType() string { return TypeBatchFailed }
func (e BatchAnchorFailed) SourceKey() string {
	return fmt.Sprintf("%s/%d/anchor-failed/%s", e.Settlement.SequenceID(), e.BatchID, e.TxHash.Hex())
}
func (e BatchAnchorFailed) AggregateID() string { return e.Settlement.SequenceID() }

// ClaimRequested hands one anchored leaf to the claim executors. It lives
// on the claims topic, partitioned by leaf, so one consumer-group member
// owns a leaf at a time.
type ClaimRequested struct {
	Settlement Settlement `msgpack:"settlement" json:"settlement"`
	BatchID    uint64     `msgpack:"batch_id" json:"batchId"`
	Root       Hash32     `msgpack:"root" json:"root"`
	LeafInfo   BatchLeaf  `msgpack:"leaf" json:"leaf"`
	Proof      []Hash32   `msgpack:"proof" json:"proof"`
}

// ClaimID is the aggregate id of one leaf's claim.
func ClaimID(s Settlement, leaf Hash32) string {
	return fmt.Sprintf("claim:%d:%s:%s", s.ChainID, s.Distributor.Hex(), leaf.Hex())
}

func (e ClaimRequested) EventType() string { return TypeClaimRequested }
func (e ClaimRequested) SourceKey() string {
	return ClaimID(e.Settlement, e.LeafInfo.Leaf) + "/requested"
}
func (e ClaimRequested) AggregateID() string { return ClaimID(e.Settlement, e.LeafInfo.Leaf) }

// LeafHasher computes the seed 002 leaf of one withdrawal in a batch.
type LeafHasher func(s Settlement, batchID uint64, w PendingWithdrawal) Hash32

// RootBuilder computes the merkle root of leaves (sorted-pair tree).
type RootBuilder func(leaves []Hash32) (Hash32, error)

// PlanBatch decides whether to cut the next batch now, and which
// withdrawals go in it. It returns (nil, nil) when there is nothing to do
// yet: no pending withdrawals, or fewer than MaxSize and the oldest has
// waited less than MaxWait. Selection is deterministic: lowest TxID first.
func PlanBatch(s Settlement, seq SequenceState, pending []PendingWithdrawal, pol BatchPolicy, now time.Time,
	leaf LeafHasher, root RootBuilder) (*BatchCreated, error) {
	pol, err := nextInSequence(seq, pol, "create")
	if err != nil {
		return nil, err
	}
	if len(pending) == 0 {
		return nil, nil
	}
	sorted := sortPending(pending)
	if len(sorted) < pol.MaxSize {
		oldest := sorted[0].ConfirmedAt
		for _, w := range sorted[1:] {
			if w.ConfirmedAt.Before(oldest) {
				oldest = w.ConfirmedAt
			}
		}
		if now.Sub(oldest) < pol.MaxWait {
			return nil, nil
		}
	} else {
		sorted = sorted[:pol.MaxSize]
	}
	return cutBatch(s, seq.LastBatchID+1, sorted, leaf, root)
}

// RecoverBatch rebuilds the sequence's next batch from the root the chain
// holds for it, when the log lost the batch (restored from an older
// copy): the first n pending withdrawals in PlanBatch's order, for the n
// whose root is onchain. A batch is cut from the lowest pending TxIDs, so
// a lost batch is such a prefix unless a withdrawal with a lower TxID was
// confirmed after it was cut. No n up to the policy's MaxSize giving the
// root is ErrBatchLost.
func RecoverBatch(s Settlement, seq SequenceState, pending []PendingWithdrawal, pol BatchPolicy, onchain Hash32,
	leaf LeafHasher, root RootBuilder) (*BatchCreated, error) {
	pol, err := nextInSequence(seq, pol, "recover")
	if err != nil {
		return nil, err
	}
	id := seq.LastBatchID + 1
	sorted := sortPending(pending)
	var hashes []Hash32
	for n := 1; n <= len(sorted) && n <= pol.MaxSize; n++ {
		hashes = append(hashes, leaf(s, id, sorted[n-1]))
		r, err := root(hashes)
		if err != nil {
			return nil, fmt.Errorf("batch %d root: %w", id, err)
		}
		if r == onchain {
			return cutBatch(s, id, sorted[:n], leaf, root)
		}
	}
	return nil, fmt.Errorf("%w: batch %d has root %s on chain, which no cut of the %d pending withdrawals gives",
		ErrBatchLost, id, onchain.Hex(), len(sorted))
}

// nextInSequence checks pol and seed 000's sequencing rule for the batch
// after seq (what names the action in the error), and returns pol with
// its defaults.
func nextInSequence(seq SequenceState, pol BatchPolicy, what string) (BatchPolicy, error) {
	if err := pol.Validate(); err != nil {
		return pol, err
	}
	if seq.LastBatchID > 0 && !seq.LastAnchored {
		return pol, fmt.Errorf("%w: batch %d not anchored yet, cannot %s batch %d",
			ErrPreviousNotAnchored, seq.LastBatchID, what, seq.LastBatchID+1)
	}
	return pol.WithDefaults(), nil
}

// sortPending returns pending in the order batches take them: lowest
// TxID first.
func sortPending(pending []PendingWithdrawal) []PendingWithdrawal {
	sorted := append([]PendingWithdrawal(nil), pending...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].TxID != sorted[j].TxID {
			return sorted[i].TxID < sorted[j].TxID
		}
		return sorted[i].Ref.Key() < sorted[j].Ref.Key()
	})
	return sorted
}

// cutBatch makes batch id of the withdrawals ws, in that order.
func cutBatch(s Settlement, id uint64, ws []PendingWithdrawal, leaf LeafHasher, root RootBuilder) (*BatchCreated, error) {
	b := &BatchCreated{Settlement: s, BatchID: id, Leaves: make([]BatchLeaf, len(ws))}
	hashes := make([]Hash32, len(ws))
	for i, w := range ws {
		h := leaf(s, b.BatchID, w)
		hashes[i] = h
		b.Leaves[i] = BatchLeaf{Index: uint32(i), Withdrawal: w.Ref, TxID: w.TxID, Funder: w.Funder, Recipient: w.Recipient, Amount: w.Amount, Leaf: h}
		b.TotalAmount = b.TotalAmount.Add(w.Amount)
	}
	r, err := root(hashes)
	if err != nil {
		return nil, fmt.Errorf("batch %d root: %w", b.BatchID, err)
	}
	b.Root = r
	return b, nil
}
