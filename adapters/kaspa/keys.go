package kaspa

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/util"
)

// Key sizes: a payout key is an x-only secp256k1 Schnorr public key, its
// secret the 32-byte scalar, as kaspawallet stores them.
const (
	PublicKeySize = secp256k1.SerializedSchnorrPublicKeySize
	SecretSize    = secp256k1.SerializedPrivateKeySize
)

// MaxGroupKeys is the largest group whose multisig Kaspa nodes relay: the
// mempool refuses to spend a P2SH script with more than 15 signature
// operations (maxStandardP2SHSigOps), and OP_CHECKMULTISIG over N keys
// counts N of them. twophase allows 20 members; on Kaspa 15 is the bound.
const MaxGroupKeys = 15

// ErrKey: a payout key or secret that is malformed, or a group of keys
// that cannot form a standard multisig.
var ErrKey = errors.New("invalid Kaspa payout key")

// NewKeyPair makes a fresh payout key pair from the system's randomness,
// as kaspawallet's CreateKeyPair does: the 32-byte secret and its x-only
// public key.
func NewKeyPair() (secret, public []byte, err error) {
	kp, err := secp256k1.GenerateSchnorrKeyPair()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: generating a key pair: %v", ErrKey, err)
	}
	pub, err := schnorrPublic(kp)
	if err != nil {
		return nil, nil, err
	}
	return kp.SerializePrivateKey()[:], pub, nil
}

// PublicKey derives the x-only public key of a 32-byte secret.
func PublicKey(secret []byte) ([]byte, error) {
	kp, err := keyPair(secret)
	if err != nil {
		return nil, err
	}
	return schnorrPublic(kp)
}

func keyPair(secret []byte) (*secp256k1.SchnorrKeyPair, error) {
	if len(secret) != SecretSize {
		return nil, fmt.Errorf("%w: secret has %d bytes, want %d", ErrKey, len(secret), SecretSize)
	}
	kp, err := secp256k1.DeserializeSchnorrPrivateKeyFromSlice(secret)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return kp, nil
}

func schnorrPublic(kp *secp256k1.SchnorrKeyPair) ([]byte, error) {
	pub, err := kp.SchnorrPublicKey()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	ser, err := pub.Serialize()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return ser[:], nil
}

// parsePublicKey checks that key is a point on the curve, not just 32 bytes.
func parsePublicKey(key []byte) (*secp256k1.SchnorrPublicKey, error) {
	if len(key) != PublicKeySize {
		return nil, fmt.Errorf("%w: public key has %d bytes, want %d", ErrKey, len(key), PublicKeySize)
	}
	pk, err := secp256k1.DeserializeSchnorrPubKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %x is not a secp256k1 x-only key: %v", ErrKey, key, err)
	}
	return pk, nil
}

// GroupScript is the group's M-of-N multisig: the redeem script over the
// members' keys in ascending byte order (OP_M, keys, OP_N,
// OP_CHECKMULTISIG, as kaspawallet builds it) and its P2SH address on the
// network. Sorting makes the address independent of the order in which
// a config lists the members; keys is not modified.
func GroupScript(network string, keys [][]byte, m int) ([]byte, util.Address, error) {
	ms, err := newMultisig(network, keys, m)
	if err != nil {
		return nil, nil, err
	}
	return ms.redeem, ms.address, nil
}

// multisig is a group's M-of-N multisig and what spending from it takes.
type multisig struct {
	keys    [][]byte // sorted: the order OP_CHECKMULTISIG matches signatures in
	m       int
	redeem  []byte
	lock    *externalapi.ScriptPublicKey // P2SH of redeem
	address util.Address
	// sigScript has the exact size of every signature script that spends
	// from the group (M signatures of SignatureSize bytes and the redeem
	// script), with zero signatures: what the mass is computed over
	// before anyone signed, as kaspawallet estimates its fee.
	sigScript []byte
	// sigOps is what the node counts for such an input and requires in
	// its SigOpCount.
	sigOps uint8
}

func newMultisig(network string, keys [][]byte, m int) (multisig, error) {
	p, err := Params(network)
	if err != nil {
		return multisig{}, err
	}
	sorted, err := sortedGroupKeys(keys, m)
	if err != nil {
		return multisig{}, err
	}
	ms := multisig{keys: sorted, m: m}
	if ms.redeem, err = multisigScript(sorted, m); err != nil {
		return multisig{}, err
	}
	if ms.address, err = util.NewAddressScriptHash(ms.redeem, p.Prefix); err != nil {
		return multisig{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	if ms.lock, err = p2sh(ms.redeem); err != nil {
		return multisig{}, err
	}
	zero := make([][]byte, m)
	for i := range zero {
		zero[i] = make([]byte, SignatureSize)
	}
	if ms.sigScript, err = signatureScript(zero, ms.redeem); err != nil {
		return multisig{}, err
	}
	// Counted as the node counts it rather than assumed to be N.
	ops := txscript.GetPreciseSigOpCount(ms.sigScript, ms.lock, true)
	if ops > maxStandardP2SHSigOps || len(ms.sigScript) > maxStandardSignatureScript {
		return multisig{}, fmt.Errorf("%w: a %d-of-%d multisig input has %d sig ops and a %d-byte signature script, over the standard %d and %d",
			ErrKey, m, len(keys), ops, len(ms.sigScript), maxStandardP2SHSigOps, maxStandardSignatureScript)
	}
	ms.sigOps = uint8(ops)
	return ms, nil
}

// signatureScript spends a P2SH multisig: the signatures, in the order of
// the keys they belong to in the redeem script, then the redeem script
// (as kaspawallet's ExtractTransaction builds it).
func signatureScript(sigs [][]byte, redeem []byte) ([]byte, error) {
	b := txscript.NewScriptBuilder()
	for _, s := range sigs {
		b.AddData(s)
	}
	script, err := b.AddData(redeem).Script()
	if err != nil {
		return nil, fmt.Errorf("%w: signature script: %v", ErrKey, err)
	}
	return script, nil
}

// sortedGroupKeys validates a group's keys and threshold and returns the
// keys sorted, on a copy.
func sortedGroupKeys(keys [][]byte, m int) ([][]byte, error) {
	n := len(keys)
	switch {
	case n < 1 || n > MaxGroupKeys:
		return nil, fmt.Errorf("%w: %d keys, a standard Kaspa multisig has 1..%d", ErrKey, n, MaxGroupKeys)
	case m < 1 || m > n:
		return nil, fmt.Errorf("%w: threshold %d of %d keys", ErrKey, m, n)
	}
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, bytes.Compare)
	for i, k := range sorted {
		if _, err := parsePublicKey(k); err != nil {
			return nil, err
		}
		if i > 0 && bytes.Equal(k, sorted[i-1]) {
			return nil, fmt.Errorf("%w: key %x listed twice", ErrKey, k)
		}
	}
	return sorted, nil
}

// multisigScript builds the redeem script over keys in the order given.
func multisigScript(keys [][]byte, m int) ([]byte, error) {
	b := txscript.NewScriptBuilder().AddInt64(int64(m))
	for _, k := range keys {
		b.AddData(k)
	}
	script, err := b.AddInt64(int64(len(keys))).AddOp(txscript.OpCheckMultiSig).Script()
	if err != nil {
		return nil, fmt.Errorf("%w: redeem script: %v", ErrKey, err)
	}
	return script, nil
}

// p2sh is the locking script of a redeem script's P2SH address.
func p2sh(redeem []byte) (*externalapi.ScriptPublicKey, error) {
	script, err := txscript.PayToScriptHashScript(redeem)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return &externalapi.ScriptPublicKey{Script: script, Version: 0}, nil
}
