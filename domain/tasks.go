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

// Observed is a detected deposit or withdrawal not yet confirmed.
type Observed struct {
	Ref         LogRef
	Withdrawal  bool
	BlockNumber uint64
	BlockHash   Hash32
}

// MintTask is a confirmed deposit to mint, with its open intents.
type MintTask struct {
	Deposit DepositDetected
	Open    []TxIntent
}

// AnchorTask is the sequence's newest batch, created but not anchored,
// with its open intents.
type AnchorTask struct {
	Batch BatchCreated
	Open  []TxIntent
}
