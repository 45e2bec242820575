package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// Event is implemented by every domain event. The three methods are what
// the log needs to place and de-duplicate it; the struct's fields are the
// payload.
type Event interface {
	// EventType is the stable type name, declared in the topics catalog.
	EventType() string
	// SourceKey is the deterministic idempotency key: the same fact always
	// yields the same key, a different fact never does.
	SourceKey() string
	// AggregateID names the entity the event is about; it is also the
	// partition key, so every event of one aggregate is ordered.
	AggregateID() string
}

// Event type names. They are part of the log format: never rename one.
const (
	TypeDepositDetected     = "deposit.detected"
	TypeDepositConfirmed    = "deposit.confirmed"
	TypeDepositMinted       = "deposit.minted"
	TypeDepositFailed       = "deposit.failed"
	TypeWithdrawalDetected  = "withdrawal.detected"
	TypeWithdrawalConfirmed = "withdrawal.confirmed"
	TypeWithdrawalBatched   = "withdrawal.batched"
	TypeWithdrawalExecuted  = "withdrawal.executed"
	TypeWithdrawalFailed    = "withdrawal.failed"
)

// LogRef identifies one contract log on one chain: the seed's
// UNIQUE(chain_id, tx_hash, log_index).
type LogRef struct {
	ChainID  uint64 `msgpack:"chain_id" json:"chainId"`
	TxHash   Hash32 `msgpack:"tx_hash" json:"txHash"`
	LogIndex uint32 `msgpack:"log_index" json:"logIndex"`
}

// Key is the seed's event_source: "chain_id:tx_hash:log_index", prefixed by
// the chain family so other chains can share the log.
func (r LogRef) Key() string {
	return fmt.Sprintf("evm:%d:%s:%d", r.ChainID, r.TxHash.Hex(), r.LogIndex)
}

// DepositID is the aggregate id of the deposit made by log r.
func (r LogRef) DepositID() string { return "deposit:" + r.Key() }

// WithdrawalID is the aggregate id of the withdrawal made by log r.
func (r LogRef) WithdrawalID() string { return "withdrawal:" + r.Key() }

// observationKey is the source key of a log observation: the seed's
// chain_id:tx_hash:log_index plus the block hash. After a reorg the same
// transaction can be mined again in another block; that second sighting
// is a new fact, not a conflicting duplicate of the first.
func observationKey(r LogRef, block Hash32) string { return r.Key() + "@" + block.Hex() }

// DepositDetected: a DepositLocked log was seen on the source chain.
type DepositDetected struct {
	Ref         LogRef  `msgpack:"ref" json:"ref"`
	Contract    Address `msgpack:"contract" json:"contract"`
	BlockNumber uint64  `msgpack:"block_number" json:"blockNumber"`
	BlockHash   Hash32  `msgpack:"block_hash" json:"blockHash"`
	OnChainID   uint64  `msgpack:"onchain_id" json:"onChainId"`
	Depositor   Address `msgpack:"depositor" json:"depositor"`
	Amount      Amount  `msgpack:"amount" json:"amount"`
	Recipient   Address `msgpack:"recipient" json:"recipient"`
}

func (e DepositDetected) EventType() string   { return TypeDepositDetected }
func (e DepositDetected) SourceKey() string   { return observationKey(e.Ref, e.BlockHash) }
func (e DepositDetected) AggregateID() string { return e.Ref.DepositID() }

// DepositConfirmed: the deposit's log is at least the confirmation depth
// deep and its block is still canonical.
type DepositConfirmed struct {
	Ref          LogRef `msgpack:"ref" json:"ref"`
	AtBlock      uint64 `msgpack:"at_block" json:"atBlock"`
	Confirmation uint64 `msgpack:"depth" json:"depth"`
}

func (e DepositConfirmed) EventType() string   { return TypeDepositConfirmed }
func (e DepositConfirmed) SourceKey() string   { return e.Ref.DepositID() + "/confirmed" }
func (e DepositConfirmed) AggregateID() string { return e.Ref.DepositID() }

// DepositMinted: the mint transaction for the deposit succeeded.
type DepositMinted struct {
	Ref         LogRef `msgpack:"ref" json:"ref"`
	MintTxHash  Hash32 `msgpack:"mint_tx_hash" json:"mintTxHash"`
	GasUsed     uint64 `msgpack:"gas_used" json:"gasUsed"`
	BlockNumber uint64 `msgpack:"block_number" json:"blockNumber"`
}

func (e DepositMinted) EventType() string   { return TypeDepositMinted }
func (e DepositMinted) SourceKey() string   { return e.Ref.DepositID() + "/minted" }
func (e DepositMinted) AggregateID() string { return e.Ref.DepositID() }

// DepositFailed: the deposit cannot be minted; never retried blindly.
type DepositFailed struct {
	Ref    LogRef `msgpack:"ref" json:"ref"`
	Reason string `msgpack:"reason" json:"reason"`
}

func (e DepositFailed) EventType() string   { return TypeDepositFailed }
func (e DepositFailed) SourceKey() string   { return e.Ref.DepositID() + "/failed" }
func (e DepositFailed) AggregateID() string { return e.Ref.DepositID() }

// WithdrawalDetected: a WithdrawalBurned log was seen on the execution chain.
type WithdrawalDetected struct {
	Ref         LogRef  `msgpack:"ref" json:"ref"`
	Contract    Address `msgpack:"contract" json:"contract"`
	BlockNumber uint64  `msgpack:"block_number" json:"blockNumber"`
	BlockHash   Hash32  `msgpack:"block_hash" json:"blockHash"`
	OnChainID   uint64  `msgpack:"onchain_id" json:"onChainId"`
	Withdrawer  Address `msgpack:"withdrawer" json:"withdrawer"`
	Amount      Amount  `msgpack:"amount" json:"amount"`
	Recipient   Address `msgpack:"recipient" json:"recipient"`
}

func (e WithdrawalDetected) EventType() string   { return TypeWithdrawalDetected }
func (e WithdrawalDetected) SourceKey() string   { return observationKey(e.Ref, e.BlockHash) }
func (e WithdrawalDetected) AggregateID() string { return e.Ref.WithdrawalID() }

// WithdrawalConfirmed: the burn log is deep enough and still canonical.
type WithdrawalConfirmed struct {
	Ref          LogRef `msgpack:"ref" json:"ref"`
	AtBlock      uint64 `msgpack:"at_block" json:"atBlock"`
	Confirmation uint64 `msgpack:"depth" json:"depth"`
}

func (e WithdrawalConfirmed) EventType() string   { return TypeWithdrawalConfirmed }
func (e WithdrawalConfirmed) SourceKey() string   { return e.Ref.WithdrawalID() + "/confirmed" }
func (e WithdrawalConfirmed) AggregateID() string { return e.Ref.WithdrawalID() }

// WithdrawalBatched: the withdrawal is leaf LeafIndex of batch BatchID.
// It lives in the withdrawal's own partition (the batch itself is on the
// batches topic), so every status change of a withdrawal is ordered.
type WithdrawalBatched struct {
	Ref         LogRef   `msgpack:"ref" json:"ref"`
	SequenceID  string   `msgpack:"sequence_id" json:"sequenceId"`
	BatchID     uint64   `msgpack:"batch_id" json:"batchId"`
	LeafIndex   uint32   `msgpack:"leaf_index" json:"leafIndex"`
	Leaf        Hash32   `msgpack:"leaf" json:"leaf"`
	MerkleProof []Hash32 `msgpack:"proof" json:"merkleProof"`
}

func (e WithdrawalBatched) EventType() string { return TypeWithdrawalBatched }
func (e WithdrawalBatched) SourceKey() string {
	return fmt.Sprintf("%s/batched/%s/%d", e.Ref.WithdrawalID(), e.SequenceID, e.BatchID)
}
func (e WithdrawalBatched) AggregateID() string { return e.Ref.WithdrawalID() }

// WithdrawalExecuted: the withdrawal's leaf was claimed on chain (by us, or
// found already processed: self-healing).
type WithdrawalExecuted struct {
	Ref         LogRef `msgpack:"ref" json:"ref"`
	BatchID     uint64 `msgpack:"batch_id" json:"batchId"`
	ClaimTxHash Hash32 `msgpack:"claim_tx_hash" json:"claimTxHash"`
	GasUsed     uint64 `msgpack:"gas_used" json:"gasUsed"`
	AlreadyDone bool   `msgpack:"already_done" json:"alreadyDone"`
}

func (e WithdrawalExecuted) EventType() string   { return TypeWithdrawalExecuted }
func (e WithdrawalExecuted) SourceKey() string   { return e.Ref.WithdrawalID() + "/executed" }
func (e WithdrawalExecuted) AggregateID() string { return e.Ref.WithdrawalID() }

// WithdrawalFailed: the withdrawal cannot be paid; the reason says why.
type WithdrawalFailed struct {
	Ref    LogRef `msgpack:"ref" json:"ref"`
	Reason string `msgpack:"reason" json:"reason"`
}

func (e WithdrawalFailed) EventType() string   { return TypeWithdrawalFailed }
func (e WithdrawalFailed) SourceKey() string   { return e.Ref.WithdrawalID() + "/failed" }
func (e WithdrawalFailed) AggregateID() string { return e.Ref.WithdrawalID() }

// ParseLogRef parses the form [LogRef.Key] writes: evm:<chain>:<tx>:<index>.
func ParseLogRef(s string) (LogRef, error) {
	var r LogRef
	var tx string
	parts := strings.Split(s, ":")
	if len(parts) != 4 || parts[0] != "evm" {
		return r, fmt.Errorf("%w: log reference %q: want evm:<chain>:<tx>:<index>", ErrInvalidValue, s)
	}
	chain, err1 := strconv.ParseUint(parts[1], 10, 64)
	idx, err2 := strconv.ParseUint(parts[3], 10, 32)
	tx = parts[2]
	h, err3 := ParseHash32(tx)
	if err1 != nil || err2 != nil || err3 != nil {
		return r, fmt.Errorf("%w: log reference %q", ErrInvalidValue, s)
	}
	return LogRef{ChainID: chain, TxHash: h, LogIndex: uint32(idx)}, nil
}
