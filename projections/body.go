package projections

import (
	"encoding/json"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// NewBody returns a zero payload of an event type, or nil for a type the
// projections do not decode up front. Adding a domain event that
// projections fold: add its case here, then its Apply can switch on
// ev.Body.(type). A signer's facts come from [twophase.NewFact].
func NewBody(typ string) domain.Event {
	switch typ {
	case domain.TypeDepositDetected:
		return new(domain.DepositDetected)
	case domain.TypeDepositConfirmed:
		return new(domain.DepositConfirmed)
	case domain.TypeDepositMinted:
		return new(domain.DepositMinted)
	case domain.TypeDepositFailed:
		return new(domain.DepositFailed)
	case domain.TypeWithdrawalDetected:
		return new(domain.WithdrawalDetected)
	case domain.TypeWithdrawalConfirmed:
		return new(domain.WithdrawalConfirmed)
	case domain.TypeWithdrawalBatched:
		return new(domain.WithdrawalBatched)
	case domain.TypeWithdrawalExecuted:
		return new(domain.WithdrawalExecuted)
	case domain.TypeWithdrawalFailed:
		return new(domain.WithdrawalFailed)
	case domain.TypeDepositReorged, domain.TypeWithdrawalReorged:
		return new(domain.ObservationReorged)
	case domain.TypeWithdrawalToKaspaDetected:
		return new(domain.WithdrawalToKaspaDetected)
	case domain.TypeWithdrawalToKaspaConfirmed:
		return new(domain.WithdrawalToKaspaConfirmed)
	case domain.TypeWithdrawalToKaspaReorged:
		return new(domain.WithdrawalToKaspaReorged)
	case domain.TypeKaspaDepositDetected:
		return new(domain.KaspaDepositDetected)
	case domain.TypeKaspaDepositConfirmed:
		return new(domain.KaspaDepositConfirmed)
	case domain.TypeKaspaDepositRefused:
		return new(domain.KaspaDepositRefused)
	case domain.TypeKaspaDepositReorged:
		return new(domain.KaspaDepositReorged)
	case domain.TypeKaspaDepositAddressIssued:
		return new(domain.KaspaDepositAddressIssued)
	case domain.TypeKaspaChainScanned:
		return new(domain.KaspaChainScanned)
	case domain.TypeChainScanned:
		return new(domain.ChainScanned)
	case domain.TypeChainReorged:
		return new(domain.ChainReorged)
	case domain.TypeChainReorgBeyondWindow:
		return new(domain.ChainReorgBeyondWindow)
	case domain.TypeChainLogRejected:
		return new(domain.ChainLogRejected)
	case domain.TypeChainRescanRequested:
		return new(domain.ChainRescanRequested)
	case domain.TypeSigningRequestRefused:
		return new(domain.SigningRequestRefused)
	case domain.TypeRelayStepFailed:
		return new(domain.RelayStepFailed)
	case domain.TypeRelayStepRecovered:
		return new(domain.RelayStepRecovered)
	case domain.TypeRelayBound:
		return new(domain.RelayBound)
	case domain.TypeRelayPaused:
		return new(domain.RelayPaused)
	case domain.TypeRelayResumed:
		return new(domain.RelayResumed)
	case domain.TypeMintHeld:
		return new(domain.MintHeld)
	case domain.TypeMintReleased:
		return new(domain.MintReleased)
	case domain.TypeWalletRetired:
		return new(domain.WalletRetired)
	case domain.TypeBatchCreated:
		return new(domain.BatchCreated)
	case domain.TypeBatchAnchored:
		return new(domain.BatchAnchored)
	case domain.TypeBatchFailed:
		return new(domain.BatchAnchorFailed)
	case domain.TypeClaimRequested:
		return new(domain.ClaimRequested)
	case domain.TypeMintIntent, domain.TypeAnchorIntent, domain.TypeClaimIntent, domain.TypeRefundIntent:
		return new(domain.TxIntent)
	case domain.TypeMintOutcome, domain.TypeAnchorOutcome, domain.TypeClaimOutcome, domain.TypeRefundOutcome:
		return new(domain.TxOutcome)
	case domain.TypeRefundRequested:
		return new(domain.RefundRequested)
	case domain.TypeRefundCompleted:
		return new(domain.RefundCompleted)
	case domain.TypeRefundFailed:
		return new(domain.RefundFailed)
	case domain.TypeRefundCertificateRefused:
		return new(domain.RefundCertificateRefused)
	}
	if f := twophase.NewFact(typ); f != nil {
		return f
	}
	return nil
}

// DecodeBody decodes an envelope's payload into its domain event (a
// pointer), or returns nil, nil for a type it does not know.
func DecodeBody(env *topics.Envelope) (domain.Event, error) {
	b := NewBody(env.Type)
	if b == nil {
		return nil, nil
	}
	if err := topics.DecodePayload(env.Payload, b); err != nil {
		return nil, fmt.Errorf("event %s type %s: %w", env.ID, env.Type, err)
	}
	return b, nil
}

// PayloadJSON renders an envelope's payload as JSON: through its domain
// type when the catalog accepts the envelope and [DecodeBody] knows the
// type, generically (msgpack to JSON) otherwise, so unknown and newer
// events can still be read. It is what `log inspect --json` prints and
// what the analytics sink stores.
func PayloadJSON(cat *topics.Catalog, env *topics.Envelope) (json.RawMessage, error) {
	js, _, err := PayloadJSONAndBody(cat, env)
	return js, err
}

// PayloadJSONAndBody is [PayloadJSON] that also returns the decoded domain
// event (nil for a type this binary does not know), for a caller that
// needs both without decoding twice.
func PayloadJSONAndBody(cat *topics.Catalog, env *topics.Envelope) (json.RawMessage, domain.Event, error) {
	if err := cat.Check(env); err == nil {
		if body, err := DecodeBody(env); err != nil {
			return nil, nil, err
		} else if body != nil {
			js, err := json.Marshal(body)
			return js, body, err
		}
	}
	var v any
	if err := msgpack.Unmarshal(env.Payload, &v); err != nil {
		return nil, nil, fmt.Errorf("%w: payload: %v", topics.ErrMalformed, err)
	}
	js, err := json.Marshal(jsonSafe(v))
	return js, nil, err
}

// jsonSafe turns msgpack's generic maps (map[any]any) into JSON-encodable ones.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonSafe(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonSafe(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonSafe(e)
		}
		return x
	case []byte:
		return fmt.Sprintf("0x%x", x)
	}
	return v
}
