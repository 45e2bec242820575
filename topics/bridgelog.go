package topics

import (
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// bridgelogTypes declares every event type this binary writes or reads.
// Adding a type: add it here with its topic and version 1; changing a
// payload incompatibly: bump its version and keep decoding the old one.
var bridgelogTypes = []EventType{
	{domain.TypeDepositDetected, TopicBridge, 1},
	{domain.TypeDepositConfirmed, TopicBridge, 1},
	{domain.TypeDepositMinted, TopicBridge, 1},
	{domain.TypeDepositFailed, TopicBridge, 1},
	{domain.TypeWithdrawalDetected, TopicBridge, 1},
	{domain.TypeWithdrawalConfirmed, TopicBridge, 1},
	{domain.TypeWithdrawalBatched, TopicBridge, 1},
	{domain.TypeWithdrawalExecuted, TopicBridge, 1},
	{domain.TypeWithdrawalFailed, TopicBridge, 1},
	{domain.TypeDepositReorged, TopicBridge, 1},
	{domain.TypeWithdrawalReorged, TopicBridge, 1},
	{domain.TypeWithdrawalToKaspaDetected, TopicBridge, 1},
	{domain.TypeWithdrawalToKaspaConfirmed, TopicBridge, 1},
	{domain.TypeWithdrawalToKaspaReorged, TopicBridge, 1},
	{domain.TypeChainScanned, TopicChain, 1},
	{domain.TypeChainReorged, TopicChain, 1},
	{domain.TypeChainReorgBeyondWindow, TopicChain, 1},
	{domain.TypeChainLogRejected, TopicChain, 1},
	{domain.TypeChainRescanRequested, TopicChain, 1},
	{domain.TypeSigningRequestRefused, TopicChain, 1},
	{domain.TypeRelayStepFailed, TopicChain, 1},
	{domain.TypeRelayStepRecovered, TopicChain, 1},
	{domain.TypeRelayBound, TopicChain, 1},
	{domain.TypeRelayPaused, TopicChain, 1},
	{domain.TypeRelayResumed, TopicChain, 1},
	{domain.TypeMintHeld, TopicBridge, 1},
	{domain.TypeMintReleased, TopicBridge, 1},
	{domain.TypeWalletRetired, TopicChain, 1},
	{domain.TypeMintIntent, TopicBridge, 1},
	{domain.TypeMintOutcome, TopicBridge, 1},
	{domain.TypeBatchCreated, TopicBatches, 1},
	{domain.TypeBatchAnchored, TopicBatches, 1},
	{domain.TypeBatchFailed, TopicBatches, 1},
	{domain.TypeAnchorIntent, TopicBatches, 1},
	{domain.TypeAnchorOutcome, TopicBatches, 1},
	{domain.TypeClaimRequested, TopicClaims, 1},
	{domain.TypeClaimIntent, TopicClaims, 1},
	{domain.TypeClaimOutcome, TopicClaims, 1},
	{domain.TypeRefundRequested, TopicBridge, 1},
	{domain.TypeRefundCompleted, TopicBridge, 1},
	{domain.TypeRefundFailed, TopicBridge, 1},
	{domain.TypeRefundCertificateRefused, TopicBridge, 1},
	{domain.TypeRefundIntent, TopicBridge, 1},
	{domain.TypeRefundOutcome, TopicBridge, 1},
	{domain.TypeKaspaDepositDetected, TopicBridge, 1},
	{domain.TypeKaspaDepositConfirmed, TopicBridge, 1},
	{domain.TypeKaspaDepositRefused, TopicBridge, 1},
	{domain.TypeKaspaDepositReorged, TopicBridge, 1},
	{domain.TypeKaspaDepositAddressIssued, TopicChain, 1},
	{domain.TypeKaspaChainScanned, TopicChain, 1},
}

// signingTypes are the facts of a signer's log (domain/twophase), all on
// the signing topic, partitioned by signing event.
func signingTypes() []EventType {
	out := make([]EventType, len(twophase.FactTypes))
	for i, t := range twophase.FactTypes {
		out[i] = EventType{t, TopicSigning, 1}
	}
	return out
}

// DefaultCatalog returns the catalog of every bridgelog event type.
func DefaultCatalog() *Catalog {
	c, err := NewCatalog(append(append([]EventType(nil), bridgelogTypes...), signingTypes()...)...)
	if err != nil {
		// The declarations above are constants; a duplicate is a
		// programming error caught by the package's tests.
		panic(err)
	}
	return c
}

// Meta is what the appender knows about an event beyond its payload.
type Meta struct {
	ID            string    // empty: a fresh NewID()
	CausationID   string    // the event this one reacts to
	CorrelationID string    // the flow it belongs to; empty: the aggregate id
	OccurredAt    time.Time // chain block time or sender time
	RecordedAt    time.Time // when appended
}

// Wrap turns a domain event into an envelope, encoding its payload and
// taking topic and schema version from the catalog.
func (c *Catalog) Wrap(ev domain.Event, m Meta) (Envelope, string, error) {
	t, ok := c.types[ev.EventType()]
	if !ok {
		return Envelope{}, "", fmt.Errorf("%w: %q", ErrUnknownType, ev.EventType())
	}
	payload, err := EncodePayload(ev)
	if err != nil {
		return Envelope{}, "", err
	}
	if m.ID == "" {
		m.ID = NewID()
	}
	if m.CorrelationID == "" {
		m.CorrelationID = ev.AggregateID()
	}
	return Envelope{
		ID:            m.ID,
		Type:          t.Name,
		SchemaVersion: t.Version,
		SourceKey:     ev.SourceKey(),
		AggregateID:   ev.AggregateID(),
		PartitionKey:  ev.AggregateID(),
		CausationID:   m.CausationID,
		CorrelationID: m.CorrelationID,
		OccurredAt:    m.OccurredAt,
		RecordedAt:    m.RecordedAt,
		Payload:       payload,
	}, t.Topic, nil
}

// Message encodes e for appending: keyed by its partition key.
func (e *Envelope) Message(lim Limits) (Message, error) {
	b, err := EncodeEnvelope(e, lim)
	if err != nil {
		return Message{}, err
	}
	return Message{Key: []byte(e.PartitionKey), Value: b}, nil
}
