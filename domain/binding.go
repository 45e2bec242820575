package domain

import (
	"errors"
	"fmt"
)

// TypeRelayBound names [RelayBound] events.
const TypeRelayBound = "relay.bound"

// RelayBound records the chains and contracts a log serves. A relay
// appends it the first time it starts on a log; afterwards a relay whose
// config names other ones is refused (see [CheckBinding]): its indexer
// would take the log's cursors for its own chain's blocks, and its batches
// would continue another contract's sequence.
type RelayBound struct {
	ChainID     uint64  `msgpack:"chain_id" json:"chainId"` // the lock side: the distributor's chain
	Distributor Address `msgpack:"distributor" json:"distributor"`
	ExecChainID uint64  `msgpack:"exec_chain_id" json:"execChainId"` // the token's chain; ChainID on one chain
	Token       Address `msgpack:"token" json:"token"`
}

func (e RelayBound) EventType() string { return TypeRelayBound }
func (e RelayBound) SourceKey() string {
	return fmt.Sprintf("relay/bound/%d/%s/%d/%s", e.ChainID, e.Distributor.Hex(), e.ExecChainID, e.Token.Hex())
}
func (e RelayBound) AggregateID() string { return "relay" }

func (e RelayBound) String() string {
	return fmt.Sprintf("chain %d distributor %s, chain %d token %s", e.ChainID, e.Distributor.Hex(), e.ExecChainID, e.Token.Hex())
}

// ErrBoundElsewhere: a relay's config names other chains or contracts
// than the log it was given was used with.
var ErrBoundElsewhere = errors.New("the log was used with other chains or contracts than the relay config names")

// BoundElsewhereError names what the log records and what the config says.
type BoundElsewhereError struct {
	Recorded, Configured RelayBound
}

func (e *BoundElsewhereError) Error() string {
	return fmt.Sprintf("%v: the log records %s; the config names %s", ErrBoundElsewhere, e.Recorded, e.Configured)
}

func (e *BoundElsewhereError) Unwrap() error { return ErrBoundElsewhere }

// CheckBinding decides whether a relay configured for configured may use
// a log whose recorded bindings are recorded: it may if every one is the
// same; on a log that records none it must record its own first (record).
func CheckBinding(recorded []RelayBound, configured RelayBound) (record bool, err error) {
	for _, r := range recorded {
		if r != configured {
			return false, &BoundElsewhereError{Recorded: r, Configured: configured}
		}
	}
	return len(recorded) == 0, nil
}
