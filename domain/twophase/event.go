package twophase

import "fmt"

// SourceRef says where a signing event was observed: a chain ("evm:1337"),
// the transaction and log, and the block (used only to order events of
// different streams the way every signer sees them).
type SourceRef struct {
	Chain    string `msgpack:"chain" json:"chain"`
	TxHash   Hash   `msgpack:"tx_hash" json:"txHash"`
	LogIndex uint32 `msgpack:"log_index" json:"logIndex"`
	Block    uint64 `msgpack:"block" json:"block"`
}

// SigningEvent is a request to pay Amount (in the ledger's base unit,
// sompi) to Destination: the Nonce-th event of Stream.
type SigningEvent struct {
	Stream      string    `msgpack:"stream" json:"stream"`
	Nonce       uint64    `msgpack:"nonce" json:"nonce"`
	Destination string    `msgpack:"destination" json:"destination"`
	Amount      uint64    `msgpack:"amount" json:"amount"`
	Source      SourceRef `msgpack:"source" json:"source"`
}

// FirstNonce is the nonce every stream starts at: a burn contract's first
// id (domain.FirstBurnID).
const FirstNonce uint64 = 1

// Bounds of an event's strings on the wire.
const (
	MaxStreamBytes      = 128
	MaxDestinationBytes = 128
	MaxChainBytes       = 64
)

// ID is the event id: a hash of the stream, nonce, destination and amount.
// Where it was observed is not part of it, so the same request re-injected
// or seen again after a reorg is the same event, and a different payout
// under the same stream and nonce is a different one (which the stream
// refuses, see [Streams]).
func (e SigningEvent) ID() Hash {
	var w writer
	w.str(e.Stream)
	w.u64(e.Nonce)
	w.str(e.Destination)
	w.u64(e.Amount)
	return taggedHash(tagEvent, w.out())
}

// Before orders events of different streams as every signer sees them:
// by source block, log index, then id.
func (e SigningEvent) Before(o SigningEvent) bool {
	if e.Source.Block != o.Source.Block {
		return e.Source.Block < o.Source.Block
	}
	if e.Source.LogIndex != o.Source.LogIndex {
		return e.Source.LogIndex < o.Source.LogIndex
	}
	a, b := e.ID(), o.ID()
	return a.Less(b)
}

func (e SigningEvent) String() string {
	return fmt.Sprintf("%s#%d pay %d to %s", e.Stream, e.Nonce, e.Amount, e.Destination)
}

func (w *writer) event(e SigningEvent) {
	w.str(e.Stream)
	w.u64(e.Nonce)
	w.str(e.Destination)
	w.u64(e.Amount)
	w.str(e.Source.Chain)
	w.hash(e.Source.TxHash)
	w.u32(e.Source.LogIndex)
	w.u64(e.Source.Block)
}

func (r *reader) event() SigningEvent {
	var e SigningEvent
	e.Stream = r.str(MaxStreamBytes, "event stream")
	e.Nonce = r.u64("event nonce")
	e.Destination = r.str(MaxDestinationBytes, "event destination")
	e.Amount = r.u64("event amount")
	e.Source.Chain = r.str(MaxChainBytes, "event source chain")
	e.Source.TxHash = r.hash("event source tx")
	e.Source.LogIndex = r.u32("event source log index")
	e.Source.Block = r.u64("event source block")
	return e
}
