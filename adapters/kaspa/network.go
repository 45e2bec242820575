// Package kaspa pays signing events on Kaspa: the group's P2SH multisig,
// payout templates as Kaspa transactions, each member's signature, their
// assembly into a signed transaction, and the ledger rules the protocol
// needs (domain/twophase.LedgerRules), through github.com/kaspanet/kaspad.
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
