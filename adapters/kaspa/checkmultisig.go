package kaspa

import (
	"errors"
	"fmt"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
)

// checkMultisig decides what kaspad's OP_CHECKMULTISIG (txscript's
// opcodeCheckMultiSig, Schnorr) decides when input idx of tx spends the
// group's redeem script with sigs pushed in that order: nil exactly when
// the node's script engine succeeds.
//
// The redeem script takes M signatures: any other number fails (too few,
// or items left over against the engine's clean-stack rule). A signature
// carries its sighash type, which must be a standard one, and signs the
// input's hash of that type; an empty or malformed signature can match no
// key. The engine walks keys and signatures from the last pushed down: a
// key that does not verify the current signature is passed over for good,
// so the signatures must follow the keys' order, and it fails as soon as
// fewer keys than signatures are left.
func (ms multisig) checkMultisig(tx *externalapi.DomainTransaction, idx int,
	reused *consensushashing.SighashReusedValues, sigs [][]byte) error {
	if len(sigs) != ms.m {
		return fmt.Errorf("%d signatures for a %d-of-%d multisig", len(sigs), ms.m, len(ms.pub))
	}
	parsed := make([]*schnorr.Signature, len(sigs))
	hashes := make([]*externalapi.DomainHash, len(sigs))
	byType := map[consensushashing.SigHashType]*externalapi.DomainHash{}
	for i, raw := range sigs {
		if len(raw) != SignatureSize {
			return fmt.Errorf("signature %d has %d bytes, want %d", i, len(raw), SignatureSize)
		}
		hashType := consensushashing.SigHashType(raw[SignatureSize-1])
		if !hashType.IsStandardSigHashType() {
			return fmt.Errorf("signature %d has the non-standard sighash type %#x", i, raw[SignatureSize-1])
		}
		var err error
		if parsed[i], err = parseSignature(raw[:SignatureSize-1]); err != nil {
			return fmt.Errorf("signature %d: %w", i, err)
		}
		if byType[hashType] == nil {
			if byType[hashType], err = consensushashing.CalculateSignatureHashSchnorr(tx, idx, hashType, reused); err != nil {
				return fmt.Errorf("signature %d: %w", i, err)
			}
		}
		hashes[i] = byType[hashType]
	}
	s := len(sigs) - 1
	for k := len(ms.pub) - 1; s >= 0; k-- {
		if s > k {
			return fmt.Errorf("signature %d verifies under none of the keys left in order", s)
		}
		if parsed[s].Verify(hashes[s].ByteSlice(), ms.pub[k]) {
			s--
		}
	}
	return nil
}

// verifySchnorr is BIP-340 verification of a 64-byte signature of hash.
func verifySchnorr(key *btcec.PublicKey, hash *externalapi.DomainHash, sig []byte) error {
	s, err := parseSignature(sig)
	if err != nil {
		return err
	}
	if !s.Verify(hash.ByteSlice(), key) {
		return errors.New("the signature does not verify")
	}
	return nil
}

// parseSignature takes a 64-byte BIP-340 signature (r, s) and refuses,
// as BIP-340 and libsecp256k1 do, r not below the field prime and s not
// below the group order. btcec's ParseSignature checks r but reduces s
// modulo the order: s+n would verify here and fail on the node.
func parseSignature(sig []byte) (*schnorr.Signature, error) {
	if len(sig) != schnorr.SignatureSize {
		return nil, fmt.Errorf("signature has %d bytes, want %d", len(sig), schnorr.SignatureSize)
	}
	var s btcec.ModNScalar
	if overflow := s.SetByteSlice(sig[32:]); overflow {
		return nil, errors.New("signature s is not below the secp256k1 group order")
	}
	return schnorr.ParseSignature(sig)
}
