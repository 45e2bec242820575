package contracts

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"

	"github.com/bridgelog/bridgelog/domain"
)

// Lengths of the bech32 payload of the Kaspa addresses a payout can go
// to (the token's KASPA_PAYLOAD_SHORT and KASPA_PAYLOAD_LONG).
const (
	kaspaPayloadShort = 61 // version 0 (Schnorr P2PK) or 8 (P2SH) and 32 bytes, with the checksum
	kaspaPayloadLong  = 63 // version 1 (ECDSA P2PK) and 33 bytes
	bech32Charset     = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
)

// Check is the token's burnToKaspa check of amount (wei) and recipient,
// done off chain: nil, or the error the contract's revert decodes to
// (ErrAmountNotWholeSompi, ErrKaspaBelowMinimum, ErrWrongKaspaPrefix,
// ErrBadKaspaRecipient, ErrBadKaspaAddressCharacter). Like the contract it
// checks the form, not the bech32 checksum.
func (k KaspaBurnRules) Check(amount *big.Int, recipient string) error {
	if amount == nil || amount.Sign() <= 0 {
		return ErrZeroAmount
	}
	if new(big.Int).Rem(amount, big.NewInt(domain.WeiPerSompi)).Sign() != 0 {
		return fmt.Errorf("%w: %s wei", ErrAmountNotWholeSompi, amount)
	}
	if amount.Cmp(k.MinWei()) < 0 {
		return fmt.Errorf("%w: %s wei, at least %s", ErrKaspaBelowMinimum, amount, k.MinWei())
	}
	n := len(recipient)
	if n > domain.MaxKaspaRecipientBytes {
		return fmt.Errorf("%w: %d bytes", ErrBadKaspaRecipient, n)
	}
	payload, ok := strings.CutPrefix(recipient, k.Prefix+":")
	if !ok {
		return fmt.Errorf("%w: %q is not a %s: address", ErrWrongKaspaPrefix, recipient, k.Prefix)
	}
	if len(payload) != kaspaPayloadShort && len(payload) != kaspaPayloadLong {
		return fmt.Errorf("%w: payload of %d characters, want %d or %d", ErrBadKaspaRecipient, len(payload),
			kaspaPayloadShort, kaspaPayloadLong)
	}
	if v := payload[0]; v != 'q' && (v != 'p' || len(payload) != kaspaPayloadShort) {
		return fmt.Errorf("%w: at %d (version)", ErrBadKaspaAddressCharacter, len(k.Prefix)+1)
	}
	for i := 1; i < len(payload); i++ {
		if !strings.ContainsRune(bech32Charset, rune(payload[i])) {
			return fmt.Errorf("%w: at %d", ErrBadKaspaAddressCharacter, len(k.Prefix)+1+i)
		}
	}
	return nil
}

// ReadKaspaBurnRules reads a deployed token's minimum and prefix.
func ReadKaspaBurnRules(ctx context.Context, token *bind.BoundContract) (KaspaBurnRules, error) {
	t := NewBridgeToken()
	opts := &bind.CallOpts{Context: ctx}
	min, err := bind.Call(token, opts, t.PackMinKaspaSompi(), t.UnpackMinKaspaSompi)
	if err != nil {
		return KaspaBurnRules{}, fmt.Errorf("reading the token's minKaspaSompi: %w", DecodeRevert(err))
	}
	prefix, err := bind.Call(token, opts, t.PackKaspaPrefix(), t.UnpackKaspaPrefix)
	if err != nil {
		return KaspaBurnRules{}, fmt.Errorf("reading the token's kaspaPrefix: %w", DecodeRevert(err))
	}
	return KaspaBurnRules{MinSompi: min.Uint64(), Prefix: prefix}, nil
}
