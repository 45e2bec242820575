package domain

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// ErrNotRefundable: a refused signing event that names no burn to refund
// (not a burn stream's, or its burner unknown).
var ErrNotRefundable = errors.New("signing event names no refundable burn")

// RefusalFor is the certificate (without signatures) that refuses the
// burn behind ev for reason: ev's stream names the token ([BurnStream])
// and, for a sender's stream, the burner ([BurnSenderStream]); otherwise
// origin, the withdrawer the signer's own source read, does. The amount
// is the burned one in wei: burns are whole sompi, so it is exact.
func RefusalFor(groupID string, ev twophase.SigningEvent, origin string, reason twophase.Reason) (RefusalCertificate, error) {
	var token, burner Address
	chainID, contract, sender, err := ParseBurnSenderStream(ev.Stream)
	if err == nil {
		token, burner = contract, sender
	} else if chainID, token, err = ParseBurnStream(ev.Stream); err == nil {
		if burner, err = ParseAddress(origin); err != nil {
			return RefusalCertificate{}, fmt.Errorf("%w: burner %q of %s: %w", ErrNotRefundable, origin, ev, err)
		}
	} else {
		return RefusalCertificate{}, fmt.Errorf("%w: %w", ErrNotRefundable, err)
	}
	if c, ok := strings.CutPrefix(ev.Source.Chain, "evm:"); !ok || c != strconv.FormatUint(chainID, 10) {
		return RefusalCertificate{}, fmt.Errorf("%w: source chain %q is not the stream's", ErrNotRefundable, ev.Source.Chain)
	}
	wei, err := NewAmount(new(big.Int).Mul(new(big.Int).SetUint64(ev.Amount), big.NewInt(WeiPerSompi)))
	if err != nil {
		return RefusalCertificate{}, fmt.Errorf("%w: %w", ErrNotRefundable, err)
	}
	return RefusalCertificate{
		GroupID: groupID,
		Burn:    LogRef{ChainID: chainID, TxHash: Hash32(ev.Source.TxHash), LogIndex: ev.Source.LogIndex},
		Token:   token, Burner: burner, Amount: wei, Reason: string(reason),
	}, nil
}

// RefusalSubject is the signers' [twophase.RefusalSubject] of burn
// streams: the SigningBytes of [RefusalFor]'s certificate.
func RefusalSubject(groupID string) twophase.RefusalSubject {
	return func(ev twophase.SigningEvent, origin string, reason twophase.Reason) ([]byte, bool) {
		c, err := RefusalFor(groupID, ev, origin, reason)
		if err != nil {
			return nil, false
		}
		return c.SigningBytes(), true
	}
}
