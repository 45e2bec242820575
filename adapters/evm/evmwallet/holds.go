package evmwallet

import (
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/domain"
)

// SpecAddress is the address a spec signs as, read without unlocking
// anything: its address, or a plain key's.
func SpecAddress(spec Spec) (domain.Address, error) {
	if spec.Key == "" {
		return spec.Address, nil
	}
	k, err := plainKeyOf(spec)
	if err != nil {
		return domain.Address{}, err
	}
	return domain.Address(crypto.PubkeyToAddress(k.PublicKey)), nil
}

// CheckHeld refuses a keystore spec whose keystore (owner-only) holds no
// account of its address. Nothing is unlocked: no passphrase is needed.
func CheckHeld(spec Spec, opt Options) error {
	if spec.Keystore == "" {
		return nil
	}
	_, _, err := findAccount(spec, resolve(opt.Dir, spec.Keystore))
	return err
}
