// Package kaspa pays signing events on Kaspa: the group's P2SH multisig,
// payout templates as Kaspa transactions, each member's signature, their
// assembly into a signed transaction, and the ledger rules the protocol
// needs (domain/twophase.LedgerRules), through github.com/kaspanet/kaspad.
// It also makes the group's deposit addresses (deposit.go: the multisig
// behind <recipient> OP_DROP, one address per EVM recipient) and tells
// the group's own spends from deposits.
//
// The package links no libsecp256k1: kaspad's txscript and kaspawallet
// sign and verify through github.com/kaspanet/go-secp256k1, a cgo copy of
// libsecp256k1, and go-ethereum, linked into the same bridgelog binary,
// compiles its own copy, so the binary would not link (duplicate C
// symbols). Keys and BIP-340 Schnorr signatures (Kaspa's Schnorr) are
// therefore github.com/btcsuite/btcd/btcec/v2's, pure Go, and the few
// scripts a payout needs are written byte for byte as txscript writes
// them and checked as its OP_CHECKMULTISIG checks them (script.go,
// checkmultisig.go). The tests, whose binary does not link go-ethereum,
// cross-check every script, signature and signed transaction against
// txscript, its script engine and go-secp256k1.
package kaspa

import (
	"errors"
	"fmt"

	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"
)

// Networks a signer group can be on, as its config names them.
var networks = map[string]*dagconfig.Params{
	"kaspa-mainnet": &dagconfig.MainnetParams,
	"kaspa-testnet": &dagconfig.TestnetParams,
	"kaspa-simnet":  &dagconfig.SimnetParams,
	"kaspa-devnet":  &dagconfig.DevnetParams,
}

// ErrNetwork: a network name this package does not know, or an address
// of another network.
var ErrNetwork = errors.New("unknown or mismatched Kaspa network")

// Params returns the consensus parameters of a network named like
// "kaspa-simnet".
func Params(network string) (*dagconfig.Params, error) {
	p, ok := networks[network]
	if !ok {
		return nil, fmt.Errorf("%w: %q (want kaspa-mainnet, kaspa-testnet, kaspa-simnet or kaspa-devnet)", ErrNetwork, network)
	}
	return p, nil
}

// DecodeAddress parses an address of the given network, refusing one of
// another network (a simnet address on mainnet is a mistake, not a payee).
func DecodeAddress(network, address string) (util.Address, error) {
	p, err := Params(network)
	if err != nil {
		return nil, err
	}
	a, err := util.DecodeAddress(address, p.Prefix)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not a %s address: %v", ErrNetwork, address, network, err)
	}
	return a, nil
}
