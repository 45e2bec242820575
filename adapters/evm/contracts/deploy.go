package contracts

import (
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// DeployDistributor sends the creation transaction of a BatchDistributor whose admin may grant
// roles and whose relayer may anchor roots, its claims limited by claims. The caller waits for it to be mined
// (bind.WaitDeployed on a live chain, Commit on a simulated one).
func DeployDistributor(auth *bind.TransactOpts, backend bind.ContractBackend, admin, relayer common.Address, claims RateLimit) (common.Address, *types.Transaction, error) {
	return bind.DeployContract(auth, DistributorCreation(admin, relayer, claims).Code, backend, nil)
}

// DeployToken sends the creation transaction of a BridgeToken whose relayer may mint and
// refund within mints, refusing burns toward Kaspa that break k.
func DeployToken(auth *bind.TransactOpts, backend bind.ContractBackend, name, symbol string, admin, relayer common.Address,
	k KaspaBurnRules, mints RateLimit) (common.Address, *types.Transaction, error) {
	return bind.DeployContract(auth, TokenCreation(name, symbol, admin, relayer, k, mints).Code, backend, nil)
}
