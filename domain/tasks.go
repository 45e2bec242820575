package domain

// Read models the relay's handlers ask the projections for. They are plain
// values so projections can produce them and handlers consume them
// without either package knowing the other's internals.

// Cursor is where a chain indexer stands.
type Cursor struct {
	ScannedTo    uint64 // last block whose logs are on the log
	ToHash       Hash32 // its hash when scanned (zero right after a reorg rewind)
	Tip          uint64 // the tip at that scan
	Reorgs       int64  // how many reorgs moved the cursor back
	RejectedLogs int64  // logs that could not be turned into events
	Found        bool   // false before the first scan
}

// Observed is a detected chain log not yet confirmed.
type Observed struct {
	Ref         LogRef
	Kind        ObservationKind
	BlockNumber uint64
	BlockHash   Hash32
}

// ObservationKind says which bridge log an observation is of.
type ObservationKind uint8

const (
	ObservedDeposit           ObservationKind = iota // DepositLocked
	ObservedWithdrawal                               // WithdrawalBurned
	ObservedWithdrawalToKaspa                        // WithdrawalToKaspa
)

func (k ObservationKind) String() string {
	switch k {
	case ObservedWithdrawal:
		return "withdrawal"
	case ObservedWithdrawalToKaspa:
		return "withdrawal_to_kaspa"
	}
	return "deposit"
}

// Confirmed is the event that confirms o at tip.
func (o Observed) Confirmed(tip uint64) Event {
	depth := tip - o.BlockNumber
	switch o.Kind {
	case ObservedWithdrawal:
		return WithdrawalConfirmed{Ref: o.Ref, AtBlock: tip, Confirmation: depth}
	case ObservedWithdrawalToKaspa:
		return WithdrawalToKaspaConfirmed{Ref: o.Ref, BlockHash: o.BlockHash, AtBlock: tip, Confirmation: depth}
	}
	return DepositConfirmed{Ref: o.Ref, AtBlock: tip, Confirmation: depth}
}

// Reorged is the event that records o's block replaced: the canonical
// block at its height is now newHash (zero: the chain no longer reaches it).
func (o Observed) Reorged(newHash Hash32) Event {
	if o.Kind == ObservedWithdrawalToKaspa {
		return WithdrawalToKaspaReorged{Ref: o.Ref, Block: o.BlockNumber, BlockHash: o.BlockHash, NewHash: newHash}
	}
	return ObservationReorged{Ref: o.Ref, Withdraw: o.Kind == ObservedWithdrawal, Block: o.BlockNumber, BlockHash: o.BlockHash, NewHash: newHash}
}

// MintTask is a confirmed deposit to mint, with its open intents.
type MintTask struct {
	Deposit DepositDetected
	Open    []TxIntent
}

// AnchorTask is the sequence's newest batch, created but not anchored,
// with its open intents and the leaves whose withdrawal already carries
// the batch's withdrawal.batched mark (by leaf index).
type AnchorTask struct {
	Batch  BatchCreated
	Open   []TxIntent
	Marked map[uint32]bool
}
