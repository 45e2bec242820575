package main

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/accounts/keystore"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// Where devnet keeps the relay's wallets, in its data directory: an
// encrypted keystore, as a production relay's, and the passphrase that
// unlocks it.
const (
	devnetKeystoreDir  = "keystore"
	devnetPassphrase   = "keystore.passphrase"
	devnetKeystoreMode = 0o700
)

// writeDevnetWallets imports the relayer's and the claim executors' dev
// keys into a keystore in dataDir (light scrypt: devnet's keys guard
// nothing, and a devnet starts in a moment), under a fresh random
// passphrase written beside it (mode 600), and returns the specs that
// name them. The claim wallets mint too.
func writeDevnetWallets(dataDir string, executors int) (*relayWallets, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("devnet: keystore: %w", err)
	}
	dir, passFile := filepath.Join(abs, devnetKeystoreDir), filepath.Join(abs, devnetPassphrase)
	if err := os.MkdirAll(dir, devnetKeystoreMode); err != nil {
		return nil, fmt.Errorf("devnet: keystore: %w", err)
	}
	if err := os.Chmod(dir, devnetKeystoreMode); err != nil {
		return nil, fmt.Errorf("devnet: keystore: %w", err)
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("devnet: passphrase: %w", err)
	}
	passphrase := hex.EncodeToString(raw)
	if err := os.WriteFile(passFile, []byte(passphrase+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("devnet: passphrase: %w", err)
	}
	ks := keystore.NewKeyStore(dir, keystore.LightScryptN, keystore.LightScryptP)
	pass := secrets.Passphrase{File: passFile}
	spec := func(name string, key *ecdsa.PrivateKey) (evmwallet.Spec, error) {
		acct, err := ks.ImportECDSA(key, passphrase)
		if err != nil {
			return evmwallet.Spec{}, fmt.Errorf("devnet: keystore: import the %s wallet: %w", name, err)
		}
		return evmwallet.Spec{Name: name, Address: domain.Address(acct.Address), Keystore: dir, Passphrase: pass}, nil
	}
	w := &relayWallets{}
	if w.Relayer, err = spec("relayer", devchain.DevKey(devRelayer)); err != nil {
		return nil, err
	}
	for i := 0; i < executors; i++ {
		s, err := spec(fmt.Sprintf("claim %d", i), devchain.DevKey(devClaim0+i))
		if err != nil {
			return nil, err
		}
		w.Claim = append(w.Claim, s)
	}
	w.Mint = w.Claim
	return w, nil
}

// devnetClaimWallets is how many claim wallets a relay config names
// (wallets.claim or, in the older form, claimKeys): a devnet's users are
// the dev accounts after them.
func devnetClaimWallets(cfg relayConfig) int {
	n := len(cfg.ClaimKeys)
	if cfg.Wallets != nil {
		n += len(cfg.Wallets.Claim)
	}
	return n
}
