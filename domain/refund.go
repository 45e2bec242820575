package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// PurposeRefund: the token's refund call, minting a refused burn back.
const PurposeRefund Purpose = "refund"

// Event type names of refunds. They are part of the log format: never
// rename one.
const (
	TypeRefundRequested           = "refund.requested"
	TypeRefundCompleted           = "refund.completed"
	TypeRefundFailed              = "refund.failed"
	TypeRefundCertificateRefused  = "refund.certificate_refused"
	TypeRefundIntent              = "refund.tx_intent"
	TypeRefundOutcome             = "refund.tx_outcome"
	refundRequestedSuffix         = "/refund/requested"
	refundCertificateRefusedInfix = "/refund/refused/"
)

// ErrCertificateToken: a refusal certificate names a token other than the
// one the relay mints, so it cannot be refunded here.
var ErrCertificateToken = errors.New("refusal certificate names another token")

// ErrCertificateAmount: a refusal certificate with a zero amount or burner.
var ErrCertificateAmount = errors.New("refusal certificate has no amount or no burner")

// CheckRefundable is what a relay checks of a certificate beside its
// signatures: it is about token, with something to give back to someone.
func CheckRefundable(c RefusalCertificate, token Address) error {
	if c.Token != token {
		return errors.Join(ErrCertificateToken, errors.New("certificate token "+c.Token.Hex()+", relay token "+token.Hex()))
	}
	if c.Amount.IsZero() || c.Burner == (Address{}) {
		return ErrCertificateAmount
	}
	return nil
}

// RefundRequested: a verified refusal certificate, to be minted back to
// its burner once. Keyed by the burn: a second copy of a certificate, or
// another signed set of the same verdict, is a duplicate.
type RefundRequested struct {
	Certificate RefusalCertificate `msgpack:"certificate" json:"certificate"`
	// Source says where the relay learned it: the endpoint's URL, or
	// "file:PATH" for `bridgelog refund --certificate`.
	Source string `msgpack:"source" json:"source"`
}

func (e RefundRequested) EventType() string { return TypeRefundRequested }
func (e RefundRequested) SourceKey() string {
	return e.Certificate.Burn.WithdrawalToKaspaID() + refundRequestedSuffix
}
func (e RefundRequested) AggregateID() string { return e.Certificate.Burn.WithdrawalToKaspaID() }

// RefundCompleted: the refund was minted on chain (by us, or found
// already refunded).
type RefundCompleted struct {
	Burn        LogRef `msgpack:"burn" json:"burn"`
	TxHash      Hash32 `msgpack:"tx_hash" json:"txHash"`
	GasUsed     uint64 `msgpack:"gas_used" json:"gasUsed"`
	BlockNumber uint64 `msgpack:"block_number" json:"blockNumber"`
	AlreadyDone bool   `msgpack:"already_done" json:"alreadyDone"`
}

func (e RefundCompleted) EventType() string { return TypeRefundCompleted }
func (e RefundCompleted) SourceKey() string {
	return e.Burn.WithdrawalToKaspaID() + "/refund/completed"
}
func (e RefundCompleted) AggregateID() string { return e.Burn.WithdrawalToKaspaID() }

// RefundFailed: the token refused the refund for a reason that would
// repeat; the reason says which.
type RefundFailed struct {
	Burn   LogRef `msgpack:"burn" json:"burn"`
	Reason string `msgpack:"reason" json:"reason"`
}

func (e RefundFailed) EventType() string   { return TypeRefundFailed }
func (e RefundFailed) SourceKey() string   { return e.Burn.WithdrawalToKaspaID() + "/refund/failed" }
func (e RefundFailed) AggregateID() string { return e.Burn.WithdrawalToKaspaID() }

// RefundCertificateRefused: a certificate the relay will not act on (not
// the configured group's, no quorum, another token); nothing is sent.
// Keyed by the certificate's bytes: the same certificate learned twice is
// one fact.
type RefundCertificateRefused struct {
	Certificate RefusalCertificate `msgpack:"certificate" json:"certificate"`
	Source      string             `msgpack:"source" json:"source"`
	Reason      string             `msgpack:"reason" json:"reason"`
}

func (e RefundCertificateRefused) EventType() string { return TypeRefundCertificateRefused }
func (e RefundCertificateRefused) SourceKey() string {
	return e.Certificate.Burn.WithdrawalToKaspaID() + refundCertificateRefusedInfix + CertificateDigest(e.Certificate)
}
func (e RefundCertificateRefused) AggregateID() string {
	return e.Certificate.Burn.WithdrawalToKaspaID()
}

// CertificateDigest is a hex digest of everything in c, signatures
// included: two certificates with the same digest are the same bytes.
func CertificateDigest(c RefusalCertificate) string {
	h := sha256.New()
	h.Write(c.SigningBytes())
	for _, s := range c.Signatures {
		h.Write([]byte(s.Member))
		h.Write([]byte{0})
		h.Write(s.Signature)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RefundVerdictKey names a certificate's verdict: the burn's id when it
// is requested (one refund per burn, whichever copy), the burn's id and
// the certificate's digest when it is refused (each bad copy its own).
// The refunds projection keys its rows by it.
func RefundVerdictKey(c RefusalCertificate, refused bool) string {
	if refused {
		return c.Burn.WithdrawalToKaspaID() + "#refused/" + CertificateDigest(c)
	}
	return c.Burn.WithdrawalToKaspaID()
}

// RefundTask is a requested refund not yet completed or failed, with its
// open intents.
type RefundTask struct {
	Certificate RefusalCertificate
	Open        []TxIntent
}

// Subject is the aggregate the refund's intents and outcomes belong to.
func (t RefundTask) Subject() string { return t.Certificate.Burn.WithdrawalToKaspaID() }
