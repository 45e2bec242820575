package main

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/kaspanet/kaspad/util"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
)

// The kinds of key `bridgelog keys` makes and imports.
const (
	keyKindEVM      = "evm"      // an EVM wallet, in a keystore directory
	keyKindKaspa    = "kaspa"    // a signer's Kaspa payout key, sealed
	keyKindIdentity = "identity" // a signer's ed25519 identity key, sealed
)

var (
	// ErrKeysUsage: flags that do not say one key and where it goes.
	ErrKeysUsage = errors.New("keys: invalid arguments")
	// ErrEmptyPassphrase: a key about to be stored under an empty
	// passphrase without --allow-empty-passphrase.
	ErrEmptyPassphrase = errors.New("empty passphrase")
	// ErrKeyExists: the file or keystore account already holds the key.
	ErrKeyExists = errors.New("key already stored")
)

func init() { keysCmd.AddCommand(newKeysNewCmd()) }

func newKeysNewCmd() *cobra.Command {
	var f keyStoreFlags
	cmd := &cobra.Command{
		Use:   "new [--kind evm|kaspa|identity] (--keystore DIR | --out FILE) (--passphrase-file F | --passphrase-env VAR)",
		Short: "Make a fresh key, store it encrypted, and print its address or public key",
		Long: `Makes a fresh key from the system's randomness and stores it encrypted under the passphrase:
  --kind evm       an account in the keystore directory --keystore DIR (go-ethereum's scrypt JSON,
                   which geth and clef read; made with mode 700 when missing); prints its address.
  --kind kaspa     a signer's Kaspa payout key, sealed at --out FILE (mode 600, never overwritten);
                   prints its public key, and with --network its address on that network.
  --kind identity  a signer's ed25519 identity key, sealed at --out FILE; prints its public key.
The key itself is never printed. --light-scrypt uses go-ethereum's light scrypt cost (4 MB instead
of 256 MB): for tests and throwaway networks only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			pass, err := f.readPassphrase()
			if err != nil {
				return err
			}
			var secret []byte
			switch f.kind {
			case keyKindEVM:
				return f.storeEVM(cmd.OutOrStdout(), nil, pass)
			case keyKindKaspa:
				if secret, _, err = kaspa.NewKeyPair(); err != nil {
					return err
				}
			case keyKindIdentity:
				_, key, err := ed25519.GenerateKey(rand.Reader)
				if err != nil {
					return err
				}
				secret = key.Seed()
			}
			return f.storeSealed(cmd.OutOrStdout(), secret, pass)
		},
	}
	f.register(cmd)
	return cmd
}

// keyStoreFlags say what key `keys new` and `keys import` store, where,
// and under which passphrase.
type keyStoreFlags struct {
	kind       string
	keystore   string
	out        string
	network    string
	passphrase secrets.Passphrase
	allowEmpty bool
	light      bool
}

func (f *keyStoreFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.kind, "kind", keyKindEVM, "evm (a relay wallet), kaspa (a signer's payout key) or identity (a signer's identity key)")
	fl.StringVar(&f.keystore, "keystore", "", "keystore directory (--kind evm)")
	fl.StringVar(&f.out, "out", "", "sealed key file to write (--kind kaspa or identity); an existing file is never overwritten")
	fl.StringVar(&f.network, "network", "", "Kaspa network of the payout key's address (kaspa-mainnet, -testnet, -simnet, -devnet); only printed")
	fl.StringVar(&f.passphrase.File, "passphrase-file", "", "file holding the passphrase (its first line), readable by its owner only")
	fl.StringVar(&f.passphrase.Env, "passphrase-env", "", "environment variable holding the passphrase")
	fl.BoolVar(&f.allowEmpty, "allow-empty-passphrase", false, "accept an empty passphrase (a dev chain's throwaway key)")
	fl.BoolVar(&f.light, "light-scrypt", false, "go-ethereum's light scrypt cost: for tests and throwaway networks only")
}

// check refuses flags that do not name one kind and its one destination.
func (f *keyStoreFlags) check() error {
	switch f.kind {
	case keyKindEVM:
		if f.keystore == "" || f.out != "" {
			return fmt.Errorf("%w: --kind evm stores into --keystore DIR (not --out)", ErrKeysUsage)
		}
	case keyKindKaspa, keyKindIdentity:
		if f.out == "" || f.keystore != "" {
			return fmt.Errorf("%w: --kind %s writes a sealed file at --out FILE (not --keystore)", ErrKeysUsage, f.kind)
		}
	default:
		return fmt.Errorf("%w: --kind %q, want evm, kaspa or identity", ErrKeysUsage, f.kind)
	}
	if f.network != "" {
		if f.kind != keyKindKaspa {
			return fmt.Errorf("%w: --network is for --kind kaspa", ErrKeysUsage)
		}
		if _, err := kaspa.Params(f.network); err != nil {
			return fmt.Errorf("%w: --network: %w", ErrKeysUsage, err)
		}
	}
	return nil
}

// readPassphrase reads the passphrase the key is stored under, refusing
// an empty one unless it is allowed.
func (f *keyStoreFlags) readPassphrase() (string, error) {
	pass, err := f.passphrase.Read()
	if err != nil {
		return "", fmt.Errorf("%w (--passphrase-file or --passphrase-env)", err)
	}
	if pass == "" && !f.allowEmpty {
		return "", fmt.Errorf("%w: anyone who reads the key's file could use it; give a passphrase, or --allow-empty-passphrase for a throwaway key", ErrEmptyPassphrase)
	}
	return pass, nil
}

func (f *keyStoreFlags) scrypt() secrets.Scrypt {
	if f.light {
		return secrets.LightScrypt
	}
	return secrets.StandardScrypt
}

// sealedKind is the sealed file's key kind for --kind.
func (f *keyStoreFlags) sealedKind() keyKind {
	if f.kind == keyKindKaspa {
		return kaspaPayoutKeyKind
	}
	return identityKeyKind
}

// storeEVM adds key (nil: a fresh one) to the keystore directory, made
// readable by its owner only, and prints the account's address.
func (f *keyStoreFlags) storeEVM(w io.Writer, key *ecdsa.PrivateKey, pass string) error {
	if err := os.MkdirAll(f.keystore, 0o700); err != nil {
		return fmt.Errorf("keystore: %w", err)
	}
	if err := secrets.CheckOwnerOnly("keystore", f.keystore); err != nil {
		return err
	}
	cost := f.scrypt()
	ks := keystore.NewKeyStore(f.keystore, cost.N, cost.P)
	add := func() (string, error) {
		if key == nil {
			a, err := ks.NewAccount(pass)
			return a.Address.Hex(), err
		}
		a, err := ks.ImportECDSA(key, pass)
		return a.Address.Hex(), err
	}
	addr, err := add()
	if errors.Is(err, keystore.ErrAccountAlreadyExists) {
		return fmt.Errorf("%w: keystore %s already holds account %s", ErrKeyExists, f.keystore, addr)
	}
	if err != nil {
		return fmt.Errorf("keystore %s: %w", f.keystore, err)
	}
	fmt.Fprintf(w, "address %s\n", addr)
	return nil
}

// storeSealed seals secret at --out, which must not exist yet, and
// prints its public key (and a Kaspa key's address on --network).
func (f *keyStoreFlags) storeSealed(w io.Writer, secret []byte, pass string) error {
	kind := f.sealedKind()
	public, err := kind.public(secret)
	if err != nil {
		return err
	}
	var address string
	if f.network != "" {
		if address, err = kaspaKeyAddress(f.network, public); err != nil {
			return err
		}
	}
	b, err := secrets.Seal(kind.sealed, secret, public, pass, f.scrypt())
	if err != nil {
		return err
	}
	if err := writeNewFile(f.out, append(b, '\n')); err != nil {
		return err
	}
	fmt.Fprintf(w, "public %x\n", public)
	if address != "" {
		fmt.Fprintf(w, "address %s\n", address)
	}
	return nil
}

// writeNewFile writes a file readable by its owner only, refusing to
// replace one: an existing key file may be the only copy of a key.
func writeNewFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %s exists; choose another --out", ErrKeyExists, path)
	}
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		os.Remove(path)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// kaspaKeyAddress is the pay-to-public-key address of a payout key on
// network: where the key alone receives, not the group's multisig.
func kaspaKeyAddress(network string, public []byte) (string, error) {
	p, err := kaspa.Params(network)
	if err != nil {
		return "", err
	}
	a, err := util.NewAddressPublicKey(public, p.Prefix)
	if err != nil {
		return "", fmt.Errorf("%w: %v", kaspa.ErrKey, err)
	}
	return a.String(), nil
}
