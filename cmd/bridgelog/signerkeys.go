package main

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Sealed key files: secrets.Seal's scrypt JSON with the key's kind and
// public key. kaspawallet's own keys file (kaspad
// cmd/kaspawallet/keys.File) is not used for the Kaspa payout key: it
// holds argon2id/XChaCha20-sealed BIP-39 mnemonics with their extended
// public keys, and only its mnemonic path is exported
// (NewFileFromMnemonic, DecryptMnemonics), so a raw 32-byte secret has
// no place in it.

// keyKind is a key the signers keep in a sealed file.
type keyKind struct {
	sealed string // the sealed file's kind
	flag   string // `bridgelog keys --kind`'s name for it
	field  string // the signer config's field naming its file
	what   string // how errors name the key ("the ed25519 seed")
	size   int    // the secret's bytes
	public func(secret []byte) ([]byte, error)
}

var (
	identityKeyKind = keyKind{sealed: "ed25519-identity", flag: keyKindIdentity, field: "identityKeyFile", what: "the ed25519 seed", size: ed25519.SeedSize,
		public: func(seed []byte) ([]byte, error) {
			return ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey), nil
		}}
	kaspaPayoutKeyKind = keyKind{sealed: "kaspa-payout", flag: keyKindKaspa, field: "payoutKeyFile", what: "the 32-byte Kaspa secret", size: kaspa.SecretSize,
		public: kaspa.PublicKey}
)

// decodePlain reads a plain key file's content: the secret in hex.
func (k keyKind) decodePlain(b []byte) ([]byte, error) {
	secret, err := hex.DecodeString(trim0x(string(b)))
	if err != nil || len(secret) != k.size {
		// Not the error's text: it may quote part of the key.
		return nil, fmt.Errorf("want %s as %d hex digits", k.what, 2*k.size)
	}
	return secret, nil
}

// ErrPlainKeyFile: a plain hex key file on a network whose keys must be
// sealed.
var ErrPlainKeyFile = errors.New("plain key file refused")

// plainKeysAllowed reports whether a network's signers may keep plain
// hex key files: the simulated ledger and the Kaspa networks without
// value (simnet, devnet), where keys are made and thrown away by tests
// and devnets.
func plainKeysAllowed(network string) bool {
	switch network {
	case networkSim, "kaspa-simnet", "kaspa-devnet":
		return true
	}
	return false
}

// signerKeys reads one signer's key files: sealed ones (opened with the
// config's passphrase, one for all the signer's keys, read once) on
// every network, plain hex ones only where plainKeysAllowed.
type signerKeys struct {
	self       twophase.PeerID
	network    string
	passphrase secrets.Passphrase
	pass       *string
}

// read returns the secret of kind in the file at path. what names the
// file in errors ("identity key file"), which also name the signer.
func (r *signerKeys) read(what, path string, kind keyKind) ([]byte, error) {
	fail := func(err error) error { return fmt.Errorf("signer %s: %w", r.self, err) }
	b, err := secrets.ReadFile(what, path)
	if err != nil {
		return nil, fail(err)
	}
	sealedKind, _, sealed := secrets.Sealed(b)
	if !sealed {
		if !plainKeysAllowed(r.network) {
			return nil, fail(fmt.Errorf("%w: %s %s holds a plain key, and on %s keys must be sealed: "+
				"bridgelog keys import --kind %s --key-file %s --out SEALED_FILE --passphrase-file FILE, "+
				"then set %s to SEALED_FILE and passphraseFile (or passphraseEnv) in the signer config, and remove the plain file",
				ErrPlainKeyFile, what, path, r.network, kind.flag, path, kind.field))
		}
		secret, err := kind.decodePlain(b)
		if err != nil {
			return nil, fail(fmt.Errorf("%s %s: %w", what, path, err))
		}
		return secret, nil
	}
	if sealedKind != kind.sealed {
		return nil, fail(fmt.Errorf("%w: %s %s holds a sealed key of kind %s, want %s", ErrKeyMismatch, what, path, sealedKind, kind.sealed))
	}
	pass, err := r.passphraseFor(what, path)
	if err != nil {
		return nil, fail(err)
	}
	secret, err := secrets.Open(kind.sealed, b, pass)
	if err != nil {
		return nil, fail(fmt.Errorf("%s %s: %w", what, path, err))
	}
	if len(secret) != kind.size {
		return nil, fail(fmt.Errorf("%s %s: sealed secret has %d bytes, want %d", what, path, len(secret), kind.size))
	}
	return secret, nil
}

// passphraseFor reads the config's passphrase the first time a sealed
// file needs it.
func (r *signerKeys) passphraseFor(what, path string) (string, error) {
	if r.pass != nil {
		return *r.pass, nil
	}
	if r.passphrase.IsZero() {
		return "", fmt.Errorf("%w: %s %s is sealed; set passphraseFile or passphraseEnv in the signer config",
			secrets.ErrNoPassphrase, what, path)
	}
	pass, err := r.passphrase.Read()
	if err != nil {
		return "", fmt.Errorf("%s %s is sealed: %w", what, path, err)
	}
	r.pass = &pass
	return pass, nil
}
