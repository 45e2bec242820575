package kaspa

import (
	"errors"
	"fmt"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
)

// SignatureSize is one input's signature as OP_CHECKMULTISIG takes it:
// the 64-byte BIP-340 Schnorr signature and the sighash type
// (SigHashAll).
//
// A member's payout signature of a template is its inputs' signatures
// concatenated in input order: exactly SignatureSize × len(inputs) bytes.
const SignatureSize = schnorr.SignatureSize + 1

// Errors of payout signatures.
var (
	ErrSignature        = errors.New("invalid Kaspa payout signature")
	ErrTooFewSignatures = errors.New("fewer valid payout signatures than the multisig needs")
)

// Signer signs payout templates with one member's payout key.
type Signer struct {
	key    *btcec.PrivateKey
	public []byte
}

var _ twophase.PayoutSigner = (*Signer)(nil)

// NewSigner holds a 32-byte payout secret.
func NewSigner(secret []byte) (*Signer, error) {
	k, err := privateKey(secret)
	if err != nil {
		return nil, err
	}
	return &Signer{key: k, public: schnorr.SerializePubKey(k.PubKey())}, nil
}

// PublicKey is the member's payout key.
func (s *Signer) PublicKey() []byte { return s.public }

// SignPayout signs every input of t with SigHashAll (see SignatureSize
// for the format), as txscript.RawTxInSignature does: BIP-340 over the
// input's Schnorr signature hash. It signs what it is given: validating
// the template is the protocol's work, before.
func (s *Signer) SignPayout(t twophase.Template) ([]byte, error) {
	tx := Transaction(t)
	reused := &consensushashing.SighashReusedValues{}
	out := make([]byte, 0, SignatureSize*len(tx.Inputs))
	for i := range tx.Inputs {
		hash, err := consensushashing.CalculateSignatureHashSchnorr(tx, i, consensushashing.SigHashAll, reused)
		if err != nil {
			return nil, fmt.Errorf("signing input %d: %w", i, err)
		}
		sig, err := schnorr.Sign(s.key, hash.ByteSlice())
		if err != nil {
			return nil, fmt.Errorf("signing input %d: %w", i, err)
		}
		out = append(append(out, sig.Serialize()...), byte(consensushashing.SigHashAll))
	}
	return out, nil
}

// Scheme is Kaspa's [twophase.PayoutScheme]. The zero value is ready.
type Scheme struct{}

var _ twophase.PayoutScheme = Scheme{}

// VerifySignature checks member's signature of every input of t against
// its payout key.
func (Scheme) VerifySignature(t twophase.Template, member twophase.Member, sig []byte) error {
	key, err := parsePublicKey(member.PayoutKey)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrSignature, member.ID, err)
	}
	return verifyInputs(Transaction(t), &consensushashing.SighashReusedValues{}, key, string(member.ID), sig)
}

func verifyInputs(tx *externalapi.DomainTransaction, reused *consensushashing.SighashReusedValues,
	key *btcec.PublicKey, who string, sig []byte) error {
	if len(sig) != SignatureSize*len(tx.Inputs) {
		return fmt.Errorf("%w: %s: %d bytes for %d inputs, want %d", ErrSignature, who, len(sig), len(tx.Inputs), SignatureSize*len(tx.Inputs))
	}
	for i := range tx.Inputs {
		one := sig[i*SignatureSize : (i+1)*SignatureSize]
		if consensushashing.SigHashType(one[SignatureSize-1]) != consensushashing.SigHashAll {
			return fmt.Errorf("%w: %s: input %d has sighash type %#x, want SigHashAll", ErrSignature, who, i, one[SignatureSize-1])
		}
		hash, err := consensushashing.CalculateSignatureHashSchnorr(tx, i, consensushashing.SigHashAll, reused)
		if err != nil {
			return fmt.Errorf("%w: %s: input %d: %v", ErrSignature, who, i, err)
		}
		if err := verifySchnorr(key, hash, one[:SignatureSize-1]); err != nil {
			return fmt.Errorf("%w: %s: input %d: %v", ErrSignature, who, i, err)
		}
	}
	return nil
}

// Assemble verifies the signatures, builds every input's signature script
// (the first M valid signatures in the redeem script's key order, then
// the redeem script), checks every input as the node's OP_CHECKMULTISIG
// would (checkMultisig), and returns the signed transaction serialized by
// kaspawallet's serialization.SerializeDomainTransaction (a protobuf
// TransactionMessage; UTXO entries are not part of it). Any signature
// that does not verify, of a non-member or twice from one member is
// refused, not skipped.
func (Scheme) Assemble(t twophase.Template, g twophase.Group, sigs []twophase.MemberSignature) ([]byte, error) {
	ms, err := newMultisig(g.Network, payoutKeys(g), g.Quorum)
	if err != nil {
		return nil, err
	}
	tx := Transaction(t)
	reused := &consensushashing.SighashReusedValues{}
	byKey, err := verifiedSignatures(tx, reused, g, sigs)
	if err != nil {
		return nil, err
	}
	if len(byKey) < ms.m {
		return nil, fmt.Errorf("%w: %d of %d", ErrTooFewSignatures, len(byKey), ms.m)
	}
	for i, in := range tx.Inputs {
		if !in.UTXOEntry.ScriptPublicKey().Equal(ms.lock) {
			return nil, fmt.Errorf("%w: input %d does not spend the group's multisig", ErrTemplate, i)
		}
		chosen := make([][]byte, 0, ms.m)
		for _, k := range ms.keys {
			if sig, ok := byKey[string(k)]; ok && len(chosen) < ms.m {
				chosen = append(chosen, sig[i*SignatureSize:(i+1)*SignatureSize])
			}
		}
		if err := ms.checkMultisig(tx, i, reused, chosen); err != nil {
			return nil, fmt.Errorf("%w: input %d: %v", ErrSignature, i, err)
		}
		in.SignatureScript = signatureScript(chosen, ms.redeem)
	}
	out, err := serialization.SerializeDomainTransaction(tx)
	if err != nil {
		return nil, fmt.Errorf("serializing the signed payout: %w", err)
	}
	return out, nil
}

// verifiedSignatures maps each signer's payout key to its verified
// signature.
func verifiedSignatures(tx *externalapi.DomainTransaction, reused *consensushashing.SighashReusedValues,
	g twophase.Group, sigs []twophase.MemberSignature) (map[string][]byte, error) {
	members := make(map[twophase.PeerID]twophase.Member, len(g.Members))
	for _, m := range g.Members {
		members[m.ID] = m
	}
	byKey := make(map[string][]byte, len(sigs))
	for _, s := range sigs {
		m, ok := members[s.Signer]
		if !ok {
			return nil, fmt.Errorf("%w: %s is not a member of the group", ErrSignature, s.Signer)
		}
		if _, dup := byKey[string(m.PayoutKey)]; dup {
			return nil, fmt.Errorf("%w: %s signed twice", ErrSignature, s.Signer)
		}
		key, err := parsePublicKey(m.PayoutKey)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrSignature, m.ID, err)
		}
		if err := verifyInputs(tx, reused, key, string(m.ID), s.Signature); err != nil {
			return nil, err
		}
		byKey[string(m.PayoutKey)] = s.Signature
	}
	return byKey, nil
}
