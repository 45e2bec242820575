// Package evmwallet holds the relay's EVM wallets: a signer per address
// that signs transactions without handing its key to the caller. A
// wallet is an account of an encrypted keystore (go-ethereum's scrypt
// JSON files, which geth and clef read), an external signer speaking the
// clef protocol, or, on a dev chain only, a plain hex key.
package evmwallet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// TxSigner signs one wallet's transactions.
type TxSigner interface {
	Address() domain.Address
	SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

var (
	// ErrWallet wraps every error opening or using a wallet; the message
	// names the wallet.
	ErrWallet = errors.New("wallet")
	// ErrUnknownAddress: the keystore holds no account of that address.
	ErrUnknownAddress = errors.New("address not in the keystore")
	// ErrPlainKey: a plain hex key for a chain not marked as a dev chain.
	ErrPlainKey = errors.New("plain key refused")
	// ErrSpec: a wallet spec that names no key source, or more than one.
	ErrSpec = errors.New("wallet spec")
)

// Spec says where one wallet's key is: exactly one of Key (dev chains
// only), Keystore or External.
type Spec struct {
	// Name is the wallet's role in messages ("relayer", "claim 2").
	Name    string         `json:"-"`
	Address domain.Address `json:"address"`
	// Key is a plain hex secp256k1 key, accepted on dev chains only.
	Key string `json:"key,omitempty"`
	// Keystore is a directory of encrypted keystore files.
	Keystore string `json:"keystore,omitempty"`
	// External is a clef-protocol JSON-RPC endpoint (http://, ipc path).
	External string `json:"external,omitempty"`
	// Timeout bounds each call to the external signer (a Go duration;
	// default DefaultExternalTimeout): a clef that asks an operator to
	// approve each transaction needs longer than one that applies rules.
	Timeout string `json:"timeout,omitempty"`
	secrets.Passphrase
	// Retiring marks a wallet being rotated out (bridgelog keys rotate):
	// the relay gives it no new transactions, sees its open ones through,
	// records it retired and stops using it. Open ignores it.
	Retiring bool `json:"retiring,omitempty"`
}

// Options govern Open.
type Options struct {
	// DevChain allows plain hex keys.
	DevChain bool
	// Dir resolves relative keystore and passphrase paths (the config's
	// directory).
	Dir string
	// ExternalTimeout bounds each call to an external signer; default
	// DefaultExternalTimeout.
	ExternalTimeout time.Duration
}

// Check refuses a spec Open would refuse without looking at any file or
// signer: a spec naming no key source or more than one, a plain key off a
// dev chain. A config loader checks every wallet with it before it dials.
func (spec Spec) Check(opt Options) error {
	sources := 0
	for _, s := range []string{spec.Key, spec.Keystore, spec.External} {
		if s != "" {
			sources++
		}
	}
	if sources != 1 {
		return fmt.Errorf("%w %s: %w: give exactly one of key, keystore or external", ErrWallet, spec.Name, ErrSpec)
	}
	if _, err := spec.externalTimeout(opt); err != nil {
		return err
	}
	if spec.Key != "" && !opt.DevChain {
		return fmt.Errorf("%w %s: %w: plain hex keys are for dev chains only; import it into a keystore "+
			"(bridgelog keys import --keystore DIR --passphrase-file FILE) and name its address and keystore in the config",
			ErrWallet, spec.Name, ErrPlainKey)
	}
	return nil
}

// Open unlocks the wallet spec names.
func Open(ctx context.Context, spec Spec, opt Options) (TxSigner, error) {
	if err := spec.Check(opt); err != nil {
		return nil, err
	}
	spec.Keystore = resolve(opt.Dir, spec.Keystore)
	spec.Passphrase.File = resolve(opt.Dir, spec.Passphrase.File)
	switch {
	case spec.Key != "":
		return plainKey(spec)
	case spec.Keystore != "":
		return openKeystore(spec)
	}
	return openExternal(ctx, spec, opt)
}

func resolve(dir, p string) string {
	if p == "" || dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// KeySigner signs with a key held in memory: dev chains, tests.
type KeySigner struct{ key *ecdsa.PrivateKey }

// NewKeySigner wraps key.
func NewKeySigner(key *ecdsa.PrivateKey) KeySigner { return KeySigner{key: key} }

func (k KeySigner) Address() domain.Address {
	return domain.Address(crypto.PubkeyToAddress(k.key.PublicKey))
}

func (k KeySigner) SignTx(_ context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), k.key)
}

// plainKeyOf parses a plain spec's key.
func plainKeyOf(spec Spec) (*ecdsa.PrivateKey, error) {
	k, err := crypto.HexToECDSA(trim0x(spec.Key))
	if err != nil {
		// The parse error may quote the key: say only that it is not one.
		return nil, fmt.Errorf("%w %s: key is not a hex secp256k1 private key", ErrWallet, spec.Name)
	}
	return k, nil
}

func plainKey(spec Spec) (TxSigner, error) {
	k, err := plainKeyOf(spec)
	if err != nil {
		return nil, err
	}
	s := NewKeySigner(k)
	if spec.Address != (domain.Address{}) && spec.Address != s.Address() {
		return nil, fmt.Errorf("%w %s: key is the key of %s, not of address %s", ErrWallet, spec.Name, s.Address(), spec.Address)
	}
	return s, nil
}

// keystoreSigner signs with an unlocked keystore account.
type keystoreSigner struct {
	ks      *keystore.KeyStore
	account accounts.Account
}

func (k keystoreSigner) Address() domain.Address { return domain.Address(k.account.Address) }

func (k keystoreSigner) SignTx(_ context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return k.ks.SignTx(k.account, tx, chainID)
}

func openKeystore(spec Spec) (TxSigner, error) {
	if spec.Address == (domain.Address{}) {
		return nil, fmt.Errorf("%w %s: %w: a keystore wallet needs its address", ErrWallet, spec.Name, ErrSpec)
	}
	ks, acct, err := findAccount(spec, spec.Keystore)
	if err != nil {
		return nil, err
	}
	if err := secrets.CheckOwnerOnly("keystore file", acct.URL.Path); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrWallet, spec.Name, err)
	}
	pass, err := spec.Passphrase.Read()
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrWallet, spec.Name, err)
	}
	if err := ks.Unlock(acct, pass); err != nil {
		if errors.Is(err, keystore.ErrDecrypt) {
			err = secrets.ErrWrongPassphrase
		}
		return nil, fmt.Errorf("%w %s: unlock %s: %w", ErrWallet, spec.Name, spec.Address, err)
	}
	return keystoreSigner{ks: ks, account: acct}, nil
}

// findAccount finds spec's address in the keystore directory dir, which
// must be readable by its owner only. Nothing is unlocked.
func findAccount(spec Spec, dir string) (*keystore.KeyStore, accounts.Account, error) {
	if err := secrets.CheckOwnerOnly("keystore", dir); err != nil {
		return nil, accounts.Account{}, fmt.Errorf("%w %s: %w", ErrWallet, spec.Name, err)
	}
	ks := keystore.NewKeyStore(dir, keystore.StandardScryptN, keystore.StandardScryptP)
	acct, err := ks.Find(accounts.Account{Address: common.Address(spec.Address)})
	if err != nil {
		return nil, accounts.Account{}, fmt.Errorf("%w %s: %w: %s holds no account %s", ErrWallet, spec.Name, ErrUnknownAddress, dir, spec.Address)
	}
	return ks, acct, nil
}

// TransactOpts lets go-ethereum's contract bindings send through s.
func TransactOpts(ctx context.Context, s TxSigner, chainID *big.Int) *bind.TransactOpts {
	from := common.Address(s.Address())
	return &bind.TransactOpts{From: from, Context: ctx,
		Signer: func(addr common.Address, tx *types.Transaction) (*types.Transaction, error) {
			if addr != from {
				return nil, bind.ErrNotAuthorized
			}
			return s.SignTx(ctx, tx, chainID)
		}}
}

func trim0x(s string) string {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}
