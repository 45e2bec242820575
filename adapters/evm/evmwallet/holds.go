package evmwallet

import (
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// SpecAddress is the address a spec signs as, read without unlocking
// anything: its address, or a plain key's.
func SpecAddress(spec Spec) (domain.Address, error) {
	if spec.Key == "" {
		return spec.Address, nil
	}
	k, err := crypto.HexToECDSA(trim0x(spec.Key))
	if err != nil {
		return domain.Address{}, fmt.Errorf("%w %s: key is not a hex secp256k1 private key", ErrWallet, spec.Name)
	}
	return domain.Address(crypto.PubkeyToAddress(k.PublicKey)), nil
}

// CheckHeld refuses a keystore spec whose keystore (owner-only) holds no
// account of its address. Nothing is unlocked: no passphrase is needed.
func CheckHeld(spec Spec, opt Options) error {
	if spec.Keystore == "" {
		return nil
	}
	dir := resolve(opt.Dir, spec.Keystore)
	if err := secrets.CheckOwnerOnly("keystore", dir); err != nil {
		return fmt.Errorf("%w %s: %w", ErrWallet, spec.Name, err)
	}
	ks := keystore.NewKeyStore(dir, keystore.StandardScryptN, keystore.StandardScryptP)
	if !ks.HasAddress(common.Address(spec.Address)) {
		return fmt.Errorf("%w %s: %w: %s holds no account %s", ErrWallet, spec.Name, ErrUnknownAddress, dir, spec.Address)
	}
	return nil
}
