// Package topics holds the contract of the log: topic names and partition
// keys, the event envelope and its msgpack codec, schema versions, and the
// [Log] interface that both log engines implement.
package topics

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Envelope is one immutable domain event as it sits on the log.
//
// Idempotency comes from SourceKey: the first envelope with a given key in
// log order wins; later identical ones are no-ops and later different ones
// are recorded as conflicts (see the processed_events projection).
// PartitionKey must be a function of SourceKey (normally the aggregate id),
// so that every envelope carrying one key lands in one partition and "first
// in log order" is well defined.
type Envelope struct {
	ID            string    // unique per append (hex, 16 random bytes)
	Type          string    // event type name, see [Catalog]
	SchemaVersion uint16    // version of Payload's schema for Type
	SourceKey     string    // deterministic idempotency key, e.g. evm:338:0xabc…:3
	AggregateID   string    // the entity the event is about
	PartitionKey  string    // routes the event to a partition, see [PartitionFor]
	CausationID   string    // id of the event that caused this one, if any
	CorrelationID string    // id shared by every event of one flow
	OccurredAt    time.Time // from the chain or the sender
	RecordedAt    time.Time // when bridgelog appended it
	Payload       []byte    // msgpack-encoded event body
}

// NewID returns a fresh random envelope id.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand never fails on Linux; a failure here means the
		// process cannot produce safe ids at all.
		panic("topics: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}
