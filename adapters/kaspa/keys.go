package kaspa

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/util"
)

// Key sizes: a payout key is an x-only secp256k1 Schnorr public key
// (BIP-340), its secret the 32-byte scalar, as kaspawallet stores them.
const (
	PublicKeySize = schnorr.PubKeyBytesLen
	SecretSize    = btcec.PrivKeyBytesLen
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
	k, err := btcec.NewPrivateKey()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: generating a key pair: %v", ErrKey, err)
	}
	return k.Serialize(), schnorr.SerializePubKey(k.PubKey()), nil
}

// PublicKey derives the x-only public key of a 32-byte secret.
func PublicKey(secret []byte) ([]byte, error) {
	k, err := privateKey(secret)
	if err != nil {
		return nil, err
	}
	return schnorr.SerializePubKey(k.PubKey()), nil
}

// privateKey refuses, as libsecp256k1's keypair_create does, a secret
// that is zero or not below the group order (btcec would reduce it).
func privateKey(secret []byte) (*btcec.PrivateKey, error) {
	if len(secret) != SecretSize {
		return nil, fmt.Errorf("%w: secret has %d bytes, want %d", ErrKey, len(secret), SecretSize)
	}
	var d btcec.ModNScalar
	if overflow := d.SetByteSlice(secret); overflow || d.IsZero() {
		return nil, fmt.Errorf("%w: the secret is zero or not below the secp256k1 group order", ErrKey)
	}
	return btcec.PrivKeyFromScalar(&d), nil
}

// parsePublicKey checks that key is the x coordinate of a point on the
// curve (BIP-340's lift_x), not just 32 bytes.
func parsePublicKey(key []byte) (*btcec.PublicKey, error) {
	if len(key) != PublicKeySize {
		return nil, fmt.Errorf("%w: public key has %d bytes, want %d", ErrKey, len(key), PublicKeySize)
	}
	pk, err := schnorr.ParsePubKey(key)
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
	keys    [][]byte           // sorted: the order OP_CHECKMULTISIG matches signatures in
	pub     []*btcec.PublicKey // keys, parsed
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
	sorted, pub, err := sortedGroupKeys(keys, m)
	if err != nil {
		return multisig{}, err
	}
	ms := multisig{keys: sorted, pub: pub, m: m, redeem: multisigScript(sorted, m)}
	if ms.address, err = util.NewAddressScriptHash(ms.redeem, p.Prefix); err != nil {
		return multisig{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	if ms.lock, err = payToAddrScript(ms.address); err != nil {
		return multisig{}, err
	}
	zero := make([][]byte, m)
	for i := range zero {
		zero[i] = make([]byte, SignatureSize)
	}
	ms.sigScript = signatureScript(zero, ms.redeem)
	ops := multisigSigOps(len(sorted))
	if ops > maxStandardP2SHSigOps || len(ms.sigScript) > maxStandardSignatureScript {
		return multisig{}, fmt.Errorf("%w: a %d-of-%d multisig input has %d sig ops and a %d-byte signature script, over the standard %d and %d",
			ErrKey, m, len(keys), ops, len(ms.sigScript), maxStandardP2SHSigOps, maxStandardSignatureScript)
	}
	ms.sigOps = uint8(ops)
	return ms, nil
}

// sortedGroupKeys validates a group's keys and threshold and returns the
// keys sorted, on a copy, and parsed in that order.
func sortedGroupKeys(keys [][]byte, m int) ([][]byte, []*btcec.PublicKey, error) {
	n := len(keys)
	switch {
	case n < 1 || n > MaxGroupKeys:
		return nil, nil, fmt.Errorf("%w: %d keys, a standard Kaspa multisig has 1..%d", ErrKey, n, MaxGroupKeys)
	case m < 1 || m > n:
		return nil, nil, fmt.Errorf("%w: threshold %d of %d keys", ErrKey, m, n)
	}
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, bytes.Compare)
	pub := make([]*btcec.PublicKey, n)
	for i, k := range sorted {
		var err error
		if pub[i], err = parsePublicKey(k); err != nil {
			return nil, nil, err
		}
		if i > 0 && bytes.Equal(k, sorted[i-1]) {
			return nil, nil, fmt.Errorf("%w: key %x listed twice", ErrKey, k)
		}
	}
	return sorted, pub, nil
}
