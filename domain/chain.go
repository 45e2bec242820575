package domain

import "fmt"

// Event type names of the indexer.
const (
	TypeChainScanned      = "chain.scanned"
	TypeChainReorged      = "chain.reorged"
	TypeChainLogRejected  = "chain.log_rejected"
	TypeDepositReorged    = "deposit.reorged"
	TypeWithdrawalReorged = "withdrawal.reorged"
)

// TypeChainReorgBeyondWindow names a reorg deeper than the indexer's
// reorg window.
const TypeChainReorgBeyondWindow = "chain.reorg_beyond_window"

// ChainStreamID is the aggregate id of one chain's indexer cursor.
func ChainStreamID(chainID uint64) string { return fmt.Sprintf("chain:%d", chainID) }

// ChainScanned: the indexer read every bridge log of blocks [From, To]
// while the tip was Tip. The cursor is the latest To; Tip-To is the lag.
// The hashes of the scanned blocks within the reorg window of the tip are
// kept to find where a later reorg forks (see [FindForkPoint]).
type ChainScanned struct {
	ChainID uint64 `msgpack:"chain_id" json:"chainId"`
	From    uint64 `msgpack:"from" json:"from"`
	To      uint64 `msgpack:"to" json:"to"`
	ToHash  Hash32 `msgpack:"to_hash" json:"toHash"`
	Tip     uint64 `msgpack:"tip" json:"tip"`
	Logs    int    `msgpack:"logs" json:"logs"`
	// PriorHashes are the hashes of blocks To-len(PriorHashes) .. To-1,
	// oldest first (ToHash is To's).
	PriorHashes []Hash32 `msgpack:"prior_hashes,omitempty" json:"priorHashes,omitempty"`
	// Window is the indexer's reorg window: the hashes of blocks
	// To-Window .. To are kept. Scans recorded before scans carried it
	// have 0 (see [ChainScanned.KeepFrom]).
	Window uint64 `msgpack:"window,omitempty" json:"window,omitempty"`
}

func (e ChainScanned) EventType() string { return TypeChainScanned }
func (e ChainScanned) SourceKey() string {
	return fmt.Sprintf("%s/scanned/%d-%d/%s", ChainStreamID(e.ChainID), e.From, e.To, e.ToHash.Hex())
}
func (e ChainScanned) AggregateID() string { return ChainStreamID(e.ChainID) }

// ChainReorged: the block the cursor stood on is no longer canonical. The
// cursor moves back to RewindTo, the fork point, so the replaced blocks
// are scanned again.
type ChainReorged struct {
	ChainID  uint64 `msgpack:"chain_id" json:"chainId"`
	Block    uint64 `msgpack:"block" json:"block"`
	OldHash  Hash32 `msgpack:"old_hash" json:"oldHash"`
	NewHash  Hash32 `msgpack:"new_hash" json:"newHash"`
	RewindTo uint64 `msgpack:"rewind_to" json:"rewindTo"`
	// RewindHash is RewindTo's hash, still canonical when the reorg was
	// found: the cursor's hash to check next. Zero when no scanned block
	// stayed canonical (and in reorgs recorded before it existed).
	RewindHash Hash32 `msgpack:"rewind_hash,omitempty" json:"rewindHash,omitempty"`
}

func (e ChainReorged) EventType() string { return TypeChainReorged }
func (e ChainReorged) SourceKey() string {
	return fmt.Sprintf("%s/reorg/%d/%s", ChainStreamID(e.ChainID), e.Block, e.OldHash.Hex())
}
func (e ChainReorged) AggregateID() string { return ChainStreamID(e.ChainID) }

// ChainReorgBeyondWindow: the block under the cursor was replaced and so
// was every block the indexer kept, down to OldestKept: the chain
// reorganised deeper than the reorg window (its confirmation depth),
// past what the relay holds final. Observations confirmed in the replaced
// blocks may have been acted on. The indexer stops advancing this chain
// until an operator asks for a rescan ([ChainRescanRequested]) from below
// the fork, or the chain returns to the blocks it scanned.
type ChainReorgBeyondWindow struct {
	ChainID    uint64 `msgpack:"chain_id" json:"chainId"`
	Block      uint64 `msgpack:"block" json:"block"`
	OldHash    Hash32 `msgpack:"old_hash" json:"oldHash"`
	NewHash    Hash32 `msgpack:"new_hash" json:"newHash"`
	OldestKept uint64 `msgpack:"oldest_kept" json:"oldestKept"`
	Window     uint64 `msgpack:"window" json:"window"`
}

func (e ChainReorgBeyondWindow) EventType() string { return TypeChainReorgBeyondWindow }
func (e ChainReorgBeyondWindow) SourceKey() string {
	return fmt.Sprintf("%s/reorg-beyond-window/%d/%s/%s", ChainStreamID(e.ChainID), e.Block, e.OldHash.Hex(), e.NewHash.Hex())
}
func (e ChainReorgBeyondWindow) AggregateID() string { return ChainStreamID(e.ChainID) }

// ChainLogRejected: a log the indexer cannot turn into a bridge event
// (malformed, or from a contract it does not watch). Nothing acts on it;
// it is kept for the audit trail and counted for alerts.
type ChainLogRejected struct {
	Ref      LogRef  `msgpack:"ref" json:"ref"`
	Contract Address `msgpack:"contract" json:"contract"`
	Block    uint64  `msgpack:"block" json:"block"`
	Reason   string  `msgpack:"reason" json:"reason"`
}

func (e ChainLogRejected) EventType() string   { return TypeChainLogRejected }
func (e ChainLogRejected) SourceKey() string   { return e.Ref.Key() + "/rejected" }
func (e ChainLogRejected) AggregateID() string { return ChainStreamID(e.Ref.ChainID) }

// ObservationReorged: a deposit's or withdrawal's log was seen in a block
// that is no longer canonical; that observation is never acted on. If the
// transaction is mined again, a new detection (in the new block) follows.
type ObservationReorged struct {
	Ref       LogRef `msgpack:"ref" json:"ref"`
	Withdraw  bool   `msgpack:"withdrawal" json:"withdrawal"`
	Block     uint64 `msgpack:"block" json:"block"`
	BlockHash Hash32 `msgpack:"block_hash" json:"blockHash"`
	NewHash   Hash32 `msgpack:"new_hash" json:"newHash"`
}

func (e ObservationReorged) EventType() string {
	if e.Withdraw {
		return TypeWithdrawalReorged
	}
	return TypeDepositReorged
}
func (e ObservationReorged) SourceKey() string {
	return e.AggregateID() + "/reorged/" + e.BlockHash.Hex()
}
func (e ObservationReorged) AggregateID() string {
	if e.Withdraw {
		return e.Ref.WithdrawalID()
	}
	return e.Ref.DepositID()
}

// TypeChainRescanRequested names an operator's request to scan again.
const TypeChainRescanRequested = "chain.rescan_requested"

// ChainRescanRequested: an operator asks the indexer to scan a chain again
// from block From. Everything it finds again is a duplicate and changes
// nothing; what it missed (a lost RPC response, a deep reorg) is found.
type ChainRescanRequested struct {
	ChainID     uint64 `msgpack:"chain_id" json:"chainId"`
	From        uint64 `msgpack:"from" json:"from"`
	Reason      string `msgpack:"reason" json:"reason"`
	RequestedBy string `msgpack:"requested_by" json:"requestedBy"`
	RequestID   string `msgpack:"request_id" json:"requestId"` // makes each request a new fact
}

func (e ChainRescanRequested) EventType() string { return TypeChainRescanRequested }
func (e ChainRescanRequested) SourceKey() string {
	return fmt.Sprintf("%s/rescan/%s", ChainStreamID(e.ChainID), e.RequestID)
}
func (e ChainRescanRequested) AggregateID() string { return ChainStreamID(e.ChainID) }

// Event type names of the relay's own health.
const (
	TypeRelayStepFailed    = "relay.step_failed"
	TypeRelayStepRecovered = "relay.step_recovered"
)

// RelayStepFailed: a relay step (index:<chain id>, confirm:<chain id>,
// mint, batch, anchor) started failing, e.g. its RPC endpoint is down or
// times out. Nothing was sent for the failed attempt; the step is retried
// every round. Appended once per failure streak, not per retry.
type RelayStepFailed struct {
	Step   string `msgpack:"step" json:"step"`
	Reason string `msgpack:"reason" json:"reason"`
	Since  int64  `msgpack:"since" json:"since"` // unix nanos of the first failure of the streak
}

func (e RelayStepFailed) EventType() string { return TypeRelayStepFailed }
func (e RelayStepFailed) SourceKey() string {
	return fmt.Sprintf("relay:%s/failed/%d", e.Step, e.Since)
}
func (e RelayStepFailed) AggregateID() string { return "relay:" + e.Step }

// RelayStepRecovered: the step works again after Failures failed rounds.
type RelayStepRecovered struct {
	Step     string `msgpack:"step" json:"step"`
	Since    int64  `msgpack:"since" json:"since"` // the streak's first failure
	Failures int    `msgpack:"failures" json:"failures"`
}

func (e RelayStepRecovered) EventType() string { return TypeRelayStepRecovered }
func (e RelayStepRecovered) SourceKey() string {
	return fmt.Sprintf("relay:%s/recovered/%d", e.Step, e.Since)
}
func (e RelayStepRecovered) AggregateID() string { return "relay:" + e.Step }
