package secrets

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/keystore"
)

// ErrWrongPassphrase: a sealed secret the passphrase does not open.
var ErrWrongPassphrase = errors.New("wrong passphrase")

// Scrypt cost of a sealed secret: go-ethereum's standard (256 MB, about a
// second), or its light one for tests and throwaway networks.
type Scrypt struct{ N, P int }

var (
	StandardScrypt = Scrypt{N: keystore.StandardScryptN, P: keystore.StandardScryptP}
	LightScrypt    = Scrypt{N: keystore.LightScryptN, P: keystore.LightScryptP}
)

// sealedFile is a sealed secret on disk: the keystore's "crypto" object
// (cipher, KDF, MAC) and what the secret is, so a Kaspa key is never
// opened as an identity key.
type sealedFile struct {
	Kind    string              `json:"kind"`
	Public  string              `json:"public,omitempty"` // the public key, hex: listed without the passphrase
	Crypto  keystore.CryptoJSON `json:"crypto"`
	Version int                 `json:"version"`
}

// Seal encrypts secret under passphrase as JSON that Open reads back.
// kind names the secret ("kaspa-payout", "ed25519-identity"); public is
// shown by `bridgelog keys list` without the passphrase.
func Seal(kind string, secret []byte, public []byte, passphrase string, cost Scrypt) ([]byte, error) {
	c, err := keystore.EncryptDataV3(secret, []byte(passphrase), cost.N, cost.P)
	if err != nil {
		return nil, fmt.Errorf("seal %s: %w", kind, err)
	}
	return json.MarshalIndent(sealedFile{Kind: kind, Public: fmt.Sprintf("%x", public), Crypto: c, Version: 3}, "", "  ")
}

// Sealed reports whether b is a sealed secret (rather than a plain hex
// key file), and its kind and public key.
func Sealed(b []byte) (kind, public string, ok bool) {
	var f sealedFile
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &f) != nil || f.Kind == "" {
		return "", "", false
	}
	return f.Kind, f.Public, true
}

// Open decrypts a sealed secret of the given kind.
func Open(kind string, b []byte, passphrase string) ([]byte, error) {
	var f sealedFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("not a sealed secret: %w", err)
	}
	if f.Kind != kind {
		return nil, fmt.Errorf("sealed secret holds a %q key, want %q", f.Kind, kind)
	}
	secret, err := keystore.DecryptDataV3(f.Crypto, passphrase)
	if errors.Is(err, keystore.ErrDecrypt) {
		return nil, ErrWrongPassphrase
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", kind, err)
	}
	return secret, nil
}
