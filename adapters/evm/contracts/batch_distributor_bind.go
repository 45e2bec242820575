// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// BatchDistributorMetaData contains all meta data concerning the BatchDistributor contract.
var BatchDistributorMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"admin\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"relayer\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"claimCapacity\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"claimRatePerSecond\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AccessControlBadConfirmation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"neededRole\",\"type\":\"bytes32\"}],\"name\":\"AccessControlUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"ratePerSecond\",\"type\":\"uint256\"}],\"name\":\"BadRateLimit\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"got\",\"type\":\"uint256\"}],\"name\":\"BatchOutOfSequence\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyRoot\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requested\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"}],\"name\":\"RateLimitOverCapacity\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requested\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"available\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"waitSeconds\",\"type\":\"uint256\"}],\"name\":\"RateLimited\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"txId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"leaf\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Claimed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"DepositLocked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"ratePerSecond\",\"type\":\"uint256\"}],\"name\":\"RateLimitSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"previousAdminRole\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"newAdminRole\",\"type\":\"bytes32\"}],\"name\":\"RoleAdminChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleGranted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"}],\"name\":\"RootAnchored\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEFAULT_ADMIN_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RELAYER_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"}],\"name\":\"anchor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"txId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"funder\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32[]\",\"name\":\"proof\",\"type\":\"bytes32[]\"}],\"name\":\"claim\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"depositCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"}],\"name\":\"getRoleAdmin\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"grantRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"hasRole\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"lastBatchId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"txId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"funder\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"leafOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"leaf\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"lock\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"leaf\",\"type\":\"bytes32\"}],\"name\":\"processedLeaves\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rateLimitAvailable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rateLimitCapacity\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rateLimitPerSecond\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"callerConfirmation\",\"type\":\"address\"}],\"name\":\"renounceRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"revokeRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"}],\"name\":\"roots\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"ratePerSecond\",\"type\":\"uint256\"}],\"name\":\"setRateLimit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalLocked\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "BatchDistributor",
	Bin: "0x6080346101e957601f61117938819003918201601f19168301916001600160401b038311848410176101ed578084926080946040528339810103126101e95761004781610201565b61005360208301610201565b9060606040840151930151831580156101e1575b80156101d1575b80156101c1575b6101ab57600454608081901c6001600160401b0316908161012a575050905f5160206111595f395f51905f5260408561010d94610113975b82811015610123575b600480546001600160c01b0319166001600160801b039283161742608090811b600160801b600160c01b03169190911790915582901b6001600160801b0319169083161760055582519182526020820152a1610215565b5061028b565b50604051610dda908161031f8239f35b50816100b6565b6005549293926001600160801b039182169291811691428181039260801c90831161019757808302928304149042141715610197578201809211610197576101139561010d945f5160206111595f395f51905f52936040938082101561019057506100ad565b90506100ad565b634e487b7160e01b5f52601160045260245ffd5b83631182ed7560e11b5f5260045260245260445ffd5b506001600160801b038111610075565b506001600160801b03841161006e565b508015610067565b5f80fd5b634e487b7160e01b5f52604160045260245ffd5b51906001600160a01b03821682036101e957565b6001600160a01b0381165f9081525f5160206111195f395f51905f52602052604090205460ff16610286576001600160a01b03165f8181525f5160206111195f395f51905f5260205260408120805460ff191660011790553391905f5160206110f95f395f51905f528180a4600190565b505f90565b6001600160a01b0381165f9081525f5160206111395f395f51905f52602052604090205460ff16610286576001600160a01b03165f8181525f5160206111395f395f51905f5260205260408120805460ff191660011790553391907fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc4905f5160206110f95f395f51905f529080a460019056fe6080806040526004361015610012575f80fd5b5f3560e01c90816301ffc9a714610b4257508063124e2d2514610b13578063248a9ca314610ae85780632dfdf0b514610acc5780632f2ff15d14610a8e57806336568abe14610a4a57806342501e0114610a2a5780635689141214610a0f5780635b5eee88146109f257806391d14854146109a9578063926d7d7f1461096f578063a07de193146105de578063a0ca2d08146104d8578063a217fddf146104be578063a3b507d5146104a4578063b53f5227146102fe578063b6d828fc146102d8578063c2b40ae4146102ae578063caae6b9c14610245578063d547741f146102005763f435f5a714610103575f80fd5b60203660031901126101fc576004356001600160a01b038116908190036101fc5734156101c9578015610193575f54905f19821461017f5760016020920190815f556040519034825283820152817fc9e2202bd5d8e4d2bec28bfccd69a1232175759067baf8810c94e0839c3187fa60403393a3604051908152f35b634e487b7160e01b5f52601160045260245ffd5b60405162461bcd60e51b815260206004820152600e60248201526d1e995c9bc81c9958da5c1a595b9d60921b6044820152606490fd5b60405162461bcd60e51b815260206004820152600b60248201526a1e995c9bc8185b5bdd5b9d60aa1b6044820152606490fd5b5f80fd5b346101fc5760403660031901126101fc5761024360043561021f610b95565b9061023e610239825f526001602052600160405f20015490565b610be4565b610caa565b005b346101fc5760a03660031901126101fc5760206102a6610263610bab565b61026b610bc1565b6084359160243560043592909160e094926040519446865230602087015260408601526060850152608084015260a083015260c08201522090565b604051908152f35b346101fc5760203660031901126101fc576004355f526003602052602060405f2054604051908152f35b346101fc575f3660031901126101fc5760206001600160801b0360055416604051908152f35b346101fc5760403660031901126101fc57335f9081527fa6eef7e35abe7026729641147f7915573c7e97b47efa546f5f6e3230263bcb496020526040902054602435906004359060ff161561048d5780158015610485575b8015610475575b8015610465575b610450576040907f120d3d0ec313528ff2b46390b335f973cae83e92345e3431ded6795864543c169267ffffffffffffffff60045460801c16155f1461044357815b82811015610431576001600160801b036103d8915b166001600160801b03166001600160801b03196004541617600455565b6004805467ffffffffffffffff60801b19164260801b67ffffffffffffffff60801b16179055608081901b6fffffffffffffffffffffffffffffffff19166001600160801b0383161760055582519182526020820152a1005b506103d86001600160801b03836103bb565b61044b610d2e565b6103a6565b631182ed7560e11b5f5260045260245260445ffd5b506001600160801b038211610364565b506001600160801b03811161035d565b508115610356565b63e2517d3f60e01b5f52336004525f60245260445ffd5b346101fc575f3660031901126101fc5760206102a6610d2e565b346101fc575f3660031901126101fc5760206040515f8152f35b346101fc5760403660031901126101fc57335f9081527f9b7fc797995519db25593326970d3304279d74cdaa6b7cc1a414e3eb0491de536020526040902054600435906024359060ff16156105a7576002546001810180911161017f57808303610590575080156105815760207fcc391fab6dab87e8e17244276fa0a6b263c0e609ede4fae46c0da6bb9f06ce2791835f52600382528060405f205583600255604051908152a2005b6329e7276760e11b5f5260045ffd5b90506323ac97b360e21b5f5260045260245260445ffd5b63e2517d3f60e01b5f52336004527fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc460245260445ffd5b346101fc5760c03660031901126101fc576024356004356105fd610bab565b91610606610bc1565b6084359060a4359267ffffffffffffffff84116101fc57366023850112156101fc5783600401359467ffffffffffffffff86116101fc573660248760051b870101116101fc57805f52600360205260405f205496871561093a57848461069992858592909160e094926040519446865230602087015260408601526060850152608084015260a083015260c08201522090565b805f52600660205260ff60405f205416610901575f97815b888a10156106f25760248a60051b89010135908181105f146106e1575f52602052600160405f205b9901986106b1565b905f52602052600160405f206106d9565b036108cc57805f52600660205260405f20600160ff198254161790556005546001600160801b0381169060801c61074460045482846001600160801b0367ffffffffffffffff8460801c169316610d6c565b918088116108b6575081871161086257507facf75996012261f0932fd642452f7d46ae3c2a710e4acbd9a7d9419fb638be889161078e6001600160801b036103bb89606095610d5f565b6004805467ffffffffffffffff60801b19164260801b67ffffffffffffffff60801b16179055604080519182526001600160a01b03871660208301528101879052a381471061081d575f80809381935af1156107e657005b60405162461bcd60e51b815260206004820152600f60248201526e1d1c985b9cd9995c8819985a5b1959608a1b6044820152606490fd5b60405162461bcd60e51b815260206004820152601b60248201527f696e73756666696369656e74206c6f636b65642062616c616e636500000000006044820152606490fd5b8682610877836108728385610d5f565b610bd7565b5f1981019290831161017f5783156108a25763540aee4d60e11b5f526004526024520460445260645ffd5b634e487b7160e01b5f52601260045260245ffd5b87633a4794cf60e11b5f5260045260245260445ffd5b60405162461bcd60e51b815260206004820152600d60248201526c34b73b30b634b210383937b7b360991b6044820152606490fd5b60405162461bcd60e51b8152602060048201526011602482015270185b1c9958591e481c1c9bd8d95cdcd959607a1b6044820152606490fd5b60405162461bcd60e51b815260206004820152600d60248201526c0eadcd6dcdeeedc40c4c2e8c6d609b1b6044820152606490fd5b346101fc575f3660031901126101fc5760206040517fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc48152f35b346101fc5760403660031901126101fc576109c2610b95565b6004355f52600160205260405f209060018060a01b03165f52602052602060ff60405f2054166040519015158152f35b346101fc575f3660031901126101fc576020600254604051908152f35b346101fc575f3660031901126101fc57602047604051908152f35b346101fc575f3660031901126101fc57602060055460801c604051908152f35b346101fc5760403660031901126101fc57610a63610b95565b336001600160a01b03821603610a7f5761024390600435610caa565b63334bd91960e11b5f5260045ffd5b346101fc5760403660031901126101fc57610243600435610aad610b95565b90610ac7610239825f526001602052600160405f20015490565b610c1e565b346101fc575f3660031901126101fc5760205f54604051908152f35b346101fc5760203660031901126101fc5760206102a66004355f526001602052600160405f20015490565b346101fc5760203660031901126101fc576004355f526006602052602060ff60405f2054166040519015158152f35b346101fc5760203660031901126101fc576004359063ffffffff60e01b82168092036101fc57602091637965db0b60e01b8114908115610b84575b5015158152f35b6301ffc9a760e01b14905083610b7d565b602435906001600160a01b03821682036101fc57565b604435906001600160a01b03821682036101fc57565b606435906001600160a01b03821682036101fc57565b9190820180921161017f57565b5f81815260016020908152604080832033845290915290205460ff1615610c085750565b63e2517d3f60e01b5f523360045260245260445ffd5b5f8181526001602090815260408083206001600160a01b038616845290915290205460ff16610ca4575f8181526001602081815260408084206001600160a01b0396909616808552959091528220805460ff19169091179055339291907f2f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d9080a4600190565b50505f90565b5f8181526001602090815260408083206001600160a01b038616845290915290205460ff1615610ca4575f8181526001602090815260408083206001600160a01b0395909516808452949091528120805460ff19169055339291907ff6391f5c32d9c69d2a47ea670b442974b53935d1edc7fd64eb21e047a839171b9080a4600190565b610d5c60045460055467ffffffffffffffff8260801c16916001600160801b03808360801c93169116610d6c565b90565b9190820391821161017f57565b919092610d799042610d5f565b81810291818304149015171561017f57610d9291610bd7565b9080821015610d9f575090565b90509056fea2646970667358221220960407e78ceb3debc2048c1dd655e8abae5c5e9507808b0cf4d37b955168bf3964736f6c634300082500332f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0da6eef7e35abe7026729641147f7915573c7e97b47efa546f5f6e3230263bcb499b7fc797995519db25593326970d3304279d74cdaa6b7cc1a414e3eb0491de53120d3d0ec313528ff2b46390b335f973cae83e92345e3431ded6795864543c16",
}

// BatchDistributor is an auto generated Go binding around an Ethereum contract.
type BatchDistributor struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *BatchDistributor) GetABI() abi.ABI {
	return c.abi
}

// NewBatchDistributor creates a new instance of BatchDistributor.
func NewBatchDistributor() *BatchDistributor {
	parsed, err := BatchDistributorMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &BatchDistributor{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *BatchDistributor) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address admin, address relayer, uint256 claimCapacity, uint256 claimRatePerSecond) returns()
func (batchDistributor *BatchDistributor) PackConstructor(admin common.Address, relayer common.Address, claimCapacity *big.Int, claimRatePerSecond *big.Int) []byte {
	enc, err := batchDistributor.abi.Pack("", admin, relayer, claimCapacity, claimRatePerSecond)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDEFAULTADMINROLE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa217fddf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DEFAULT_ADMIN_ROLE() view returns(bytes32)
func (batchDistributor *BatchDistributor) PackDEFAULTADMINROLE() []byte {
	enc, err := batchDistributor.abi.Pack("DEFAULT_ADMIN_ROLE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDEFAULTADMINROLE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa217fddf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DEFAULT_ADMIN_ROLE() view returns(bytes32)
func (batchDistributor *BatchDistributor) TryPackDEFAULTADMINROLE() ([]byte, error) {
	return batchDistributor.abi.Pack("DEFAULT_ADMIN_ROLE")
}

// UnpackDEFAULTADMINROLE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa217fddf.
//
// Solidity: function DEFAULT_ADMIN_ROLE() view returns(bytes32)
func (batchDistributor *BatchDistributor) UnpackDEFAULTADMINROLE(data []byte) ([32]byte, error) {
	out, err := batchDistributor.abi.Unpack("DEFAULT_ADMIN_ROLE", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackRELAYERROLE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x926d7d7f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function RELAYER_ROLE() view returns(bytes32)
func (batchDistributor *BatchDistributor) PackRELAYERROLE() []byte {
	enc, err := batchDistributor.abi.Pack("RELAYER_ROLE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRELAYERROLE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x926d7d7f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function RELAYER_ROLE() view returns(bytes32)
func (batchDistributor *BatchDistributor) TryPackRELAYERROLE() ([]byte, error) {
	return batchDistributor.abi.Pack("RELAYER_ROLE")
}

// UnpackRELAYERROLE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x926d7d7f.
//
// Solidity: function RELAYER_ROLE() view returns(bytes32)
func (batchDistributor *BatchDistributor) UnpackRELAYERROLE(data []byte) ([32]byte, error) {
	out, err := batchDistributor.abi.Unpack("RELAYER_ROLE", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0ca2d08.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function anchor(uint256 batchId, bytes32 root) returns()
func (batchDistributor *BatchDistributor) PackAnchor(batchId *big.Int, root [32]byte) []byte {
	enc, err := batchDistributor.abi.Pack("anchor", batchId, root)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnchor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0ca2d08.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function anchor(uint256 batchId, bytes32 root) returns()
func (batchDistributor *BatchDistributor) TryPackAnchor(batchId *big.Int, root [32]byte) ([]byte, error) {
	return batchDistributor.abi.Pack("anchor", batchId, root)
}

// PackClaim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa07de193.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function claim(uint256 batchId, uint256 txId, address funder, address recipient, uint256 amount, bytes32[] proof) returns()
func (batchDistributor *BatchDistributor) PackClaim(batchId *big.Int, txId *big.Int, funder common.Address, recipient common.Address, amount *big.Int, proof [][32]byte) []byte {
	enc, err := batchDistributor.abi.Pack("claim", batchId, txId, funder, recipient, amount, proof)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClaim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa07de193.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function claim(uint256 batchId, uint256 txId, address funder, address recipient, uint256 amount, bytes32[] proof) returns()
func (batchDistributor *BatchDistributor) TryPackClaim(batchId *big.Int, txId *big.Int, funder common.Address, recipient common.Address, amount *big.Int, proof [][32]byte) ([]byte, error) {
	return batchDistributor.abi.Pack("claim", batchId, txId, funder, recipient, amount, proof)
}

// PackDepositCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2dfdf0b5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function depositCount() view returns(uint256)
func (batchDistributor *BatchDistributor) PackDepositCount() []byte {
	enc, err := batchDistributor.abi.Pack("depositCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDepositCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2dfdf0b5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function depositCount() view returns(uint256)
func (batchDistributor *BatchDistributor) TryPackDepositCount() ([]byte, error) {
	return batchDistributor.abi.Pack("depositCount")
}

// UnpackDepositCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2dfdf0b5.
//
// Solidity: function depositCount() view returns(uint256)
func (batchDistributor *BatchDistributor) UnpackDepositCount(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("depositCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGetRoleAdmin is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x248a9ca3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRoleAdmin(bytes32 role) view returns(bytes32)
func (batchDistributor *BatchDistributor) PackGetRoleAdmin(role [32]byte) []byte {
	enc, err := batchDistributor.abi.Pack("getRoleAdmin", role)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRoleAdmin is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x248a9ca3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRoleAdmin(bytes32 role) view returns(bytes32)
func (batchDistributor *BatchDistributor) TryPackGetRoleAdmin(role [32]byte) ([]byte, error) {
	return batchDistributor.abi.Pack("getRoleAdmin", role)
}

// UnpackGetRoleAdmin is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x248a9ca3.
//
// Solidity: function getRoleAdmin(bytes32 role) view returns(bytes32)
func (batchDistributor *BatchDistributor) UnpackGetRoleAdmin(data []byte) ([32]byte, error) {
	out, err := batchDistributor.abi.Unpack("getRoleAdmin", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGrantRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f2ff15d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function grantRole(bytes32 role, address account) returns()
func (batchDistributor *BatchDistributor) PackGrantRole(role [32]byte, account common.Address) []byte {
	enc, err := batchDistributor.abi.Pack("grantRole", role, account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGrantRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f2ff15d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function grantRole(bytes32 role, address account) returns()
func (batchDistributor *BatchDistributor) TryPackGrantRole(role [32]byte, account common.Address) ([]byte, error) {
	return batchDistributor.abi.Pack("grantRole", role, account)
}

// PackHasRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x91d14854.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hasRole(bytes32 role, address account) view returns(bool)
func (batchDistributor *BatchDistributor) PackHasRole(role [32]byte, account common.Address) []byte {
	enc, err := batchDistributor.abi.Pack("hasRole", role, account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHasRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x91d14854.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function hasRole(bytes32 role, address account) view returns(bool)
func (batchDistributor *BatchDistributor) TryPackHasRole(role [32]byte, account common.Address) ([]byte, error) {
	return batchDistributor.abi.Pack("hasRole", role, account)
}

// UnpackHasRole is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x91d14854.
//
// Solidity: function hasRole(bytes32 role, address account) view returns(bool)
func (batchDistributor *BatchDistributor) UnpackHasRole(data []byte) (bool, error) {
	out, err := batchDistributor.abi.Unpack("hasRole", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackLastBatchId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5b5eee88.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function lastBatchId() view returns(uint256)
func (batchDistributor *BatchDistributor) PackLastBatchId() []byte {
	enc, err := batchDistributor.abi.Pack("lastBatchId")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLastBatchId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5b5eee88.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function lastBatchId() view returns(uint256)
func (batchDistributor *BatchDistributor) TryPackLastBatchId() ([]byte, error) {
	return batchDistributor.abi.Pack("lastBatchId")
}

// UnpackLastBatchId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5b5eee88.
//
// Solidity: function lastBatchId() view returns(uint256)
func (batchDistributor *BatchDistributor) UnpackLastBatchId(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("lastBatchId", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackLeafOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcaae6b9c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function leafOf(uint256 batchId, uint256 txId, address funder, address recipient, uint256 amount) view returns(bytes32 leaf)
func (batchDistributor *BatchDistributor) PackLeafOf(batchId *big.Int, txId *big.Int, funder common.Address, recipient common.Address, amount *big.Int) []byte {
	enc, err := batchDistributor.abi.Pack("leafOf", batchId, txId, funder, recipient, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLeafOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcaae6b9c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function leafOf(uint256 batchId, uint256 txId, address funder, address recipient, uint256 amount) view returns(bytes32 leaf)
func (batchDistributor *BatchDistributor) TryPackLeafOf(batchId *big.Int, txId *big.Int, funder common.Address, recipient common.Address, amount *big.Int) ([]byte, error) {
	return batchDistributor.abi.Pack("leafOf", batchId, txId, funder, recipient, amount)
}

// UnpackLeafOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcaae6b9c.
//
// Solidity: function leafOf(uint256 batchId, uint256 txId, address funder, address recipient, uint256 amount) view returns(bytes32 leaf)
func (batchDistributor *BatchDistributor) UnpackLeafOf(data []byte) ([32]byte, error) {
	out, err := batchDistributor.abi.Unpack("leafOf", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackLock is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf435f5a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function lock(address recipient) payable returns(uint256 id)
func (batchDistributor *BatchDistributor) PackLock(recipient common.Address) []byte {
	enc, err := batchDistributor.abi.Pack("lock", recipient)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLock is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf435f5a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function lock(address recipient) payable returns(uint256 id)
func (batchDistributor *BatchDistributor) TryPackLock(recipient common.Address) ([]byte, error) {
	return batchDistributor.abi.Pack("lock", recipient)
}

// UnpackLock is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf435f5a7.
//
// Solidity: function lock(address recipient) payable returns(uint256 id)
func (batchDistributor *BatchDistributor) UnpackLock(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("lock", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackProcessedLeaves is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x124e2d25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function processedLeaves(bytes32 leaf) view returns(bool)
func (batchDistributor *BatchDistributor) PackProcessedLeaves(leaf [32]byte) []byte {
	enc, err := batchDistributor.abi.Pack("processedLeaves", leaf)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackProcessedLeaves is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x124e2d25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function processedLeaves(bytes32 leaf) view returns(bool)
func (batchDistributor *BatchDistributor) TryPackProcessedLeaves(leaf [32]byte) ([]byte, error) {
	return batchDistributor.abi.Pack("processedLeaves", leaf)
}

// UnpackProcessedLeaves is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x124e2d25.
//
// Solidity: function processedLeaves(bytes32 leaf) view returns(bool)
func (batchDistributor *BatchDistributor) UnpackProcessedLeaves(data []byte) (bool, error) {
	out, err := batchDistributor.abi.Unpack("processedLeaves", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackRateLimitAvailable is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa3b507d5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rateLimitAvailable() view returns(uint256)
func (batchDistributor *BatchDistributor) PackRateLimitAvailable() []byte {
	enc, err := batchDistributor.abi.Pack("rateLimitAvailable")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRateLimitAvailable is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa3b507d5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rateLimitAvailable() view returns(uint256)
func (batchDistributor *BatchDistributor) TryPackRateLimitAvailable() ([]byte, error) {
	return batchDistributor.abi.Pack("rateLimitAvailable")
}

// UnpackRateLimitAvailable is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa3b507d5.
//
// Solidity: function rateLimitAvailable() view returns(uint256)
func (batchDistributor *BatchDistributor) UnpackRateLimitAvailable(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("rateLimitAvailable", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRateLimitCapacity is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6d828fc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rateLimitCapacity() view returns(uint256)
func (batchDistributor *BatchDistributor) PackRateLimitCapacity() []byte {
	enc, err := batchDistributor.abi.Pack("rateLimitCapacity")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRateLimitCapacity is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6d828fc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rateLimitCapacity() view returns(uint256)
func (batchDistributor *BatchDistributor) TryPackRateLimitCapacity() ([]byte, error) {
	return batchDistributor.abi.Pack("rateLimitCapacity")
}

// UnpackRateLimitCapacity is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6d828fc.
//
// Solidity: function rateLimitCapacity() view returns(uint256)
func (batchDistributor *BatchDistributor) UnpackRateLimitCapacity(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("rateLimitCapacity", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRateLimitPerSecond is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42501e01.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rateLimitPerSecond() view returns(uint256)
func (batchDistributor *BatchDistributor) PackRateLimitPerSecond() []byte {
	enc, err := batchDistributor.abi.Pack("rateLimitPerSecond")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRateLimitPerSecond is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42501e01.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rateLimitPerSecond() view returns(uint256)
func (batchDistributor *BatchDistributor) TryPackRateLimitPerSecond() ([]byte, error) {
	return batchDistributor.abi.Pack("rateLimitPerSecond")
}

// UnpackRateLimitPerSecond is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42501e01.
//
// Solidity: function rateLimitPerSecond() view returns(uint256)
func (batchDistributor *BatchDistributor) UnpackRateLimitPerSecond(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("rateLimitPerSecond", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRenounceRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x36568abe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceRole(bytes32 role, address callerConfirmation) returns()
func (batchDistributor *BatchDistributor) PackRenounceRole(role [32]byte, callerConfirmation common.Address) []byte {
	enc, err := batchDistributor.abi.Pack("renounceRole", role, callerConfirmation)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRenounceRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x36568abe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function renounceRole(bytes32 role, address callerConfirmation) returns()
func (batchDistributor *BatchDistributor) TryPackRenounceRole(role [32]byte, callerConfirmation common.Address) ([]byte, error) {
	return batchDistributor.abi.Pack("renounceRole", role, callerConfirmation)
}

// PackRevokeRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd547741f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revokeRole(bytes32 role, address account) returns()
func (batchDistributor *BatchDistributor) PackRevokeRole(role [32]byte, account common.Address) []byte {
	enc, err := batchDistributor.abi.Pack("revokeRole", role, account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevokeRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd547741f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revokeRole(bytes32 role, address account) returns()
func (batchDistributor *BatchDistributor) TryPackRevokeRole(role [32]byte, account common.Address) ([]byte, error) {
	return batchDistributor.abi.Pack("revokeRole", role, account)
}

// PackRoots is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc2b40ae4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function roots(uint256 batchId) view returns(bytes32 root)
func (batchDistributor *BatchDistributor) PackRoots(batchId *big.Int) []byte {
	enc, err := batchDistributor.abi.Pack("roots", batchId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRoots is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc2b40ae4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function roots(uint256 batchId) view returns(bytes32 root)
func (batchDistributor *BatchDistributor) TryPackRoots(batchId *big.Int) ([]byte, error) {
	return batchDistributor.abi.Pack("roots", batchId)
}

// UnpackRoots is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc2b40ae4.
//
// Solidity: function roots(uint256 batchId) view returns(bytes32 root)
func (batchDistributor *BatchDistributor) UnpackRoots(data []byte) ([32]byte, error) {
	out, err := batchDistributor.abi.Unpack("roots", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackSetRateLimit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb53f5227.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setRateLimit(uint256 capacity, uint256 ratePerSecond) returns()
func (batchDistributor *BatchDistributor) PackSetRateLimit(capacity *big.Int, ratePerSecond *big.Int) []byte {
	enc, err := batchDistributor.abi.Pack("setRateLimit", capacity, ratePerSecond)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetRateLimit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb53f5227.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setRateLimit(uint256 capacity, uint256 ratePerSecond) returns()
func (batchDistributor *BatchDistributor) TryPackSetRateLimit(capacity *big.Int, ratePerSecond *big.Int) ([]byte, error) {
	return batchDistributor.abi.Pack("setRateLimit", capacity, ratePerSecond)
}

// PackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (batchDistributor *BatchDistributor) PackSupportsInterface(interfaceId [4]byte) []byte {
	enc, err := batchDistributor.abi.Pack("supportsInterface", interfaceId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (batchDistributor *BatchDistributor) TryPackSupportsInterface(interfaceId [4]byte) ([]byte, error) {
	return batchDistributor.abi.Pack("supportsInterface", interfaceId)
}

// UnpackSupportsInterface is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (batchDistributor *BatchDistributor) UnpackSupportsInterface(data []byte) (bool, error) {
	out, err := batchDistributor.abi.Unpack("supportsInterface", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTotalLocked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x56891412.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalLocked() view returns(uint256)
func (batchDistributor *BatchDistributor) PackTotalLocked() []byte {
	enc, err := batchDistributor.abi.Pack("totalLocked")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalLocked is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x56891412.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalLocked() view returns(uint256)
func (batchDistributor *BatchDistributor) TryPackTotalLocked() ([]byte, error) {
	return batchDistributor.abi.Pack("totalLocked")
}

// UnpackTotalLocked is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x56891412.
//
// Solidity: function totalLocked() view returns(uint256)
func (batchDistributor *BatchDistributor) UnpackTotalLocked(data []byte) (*big.Int, error) {
	out, err := batchDistributor.abi.Unpack("totalLocked", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// BatchDistributorClaimed represents a Claimed event raised by the BatchDistributor contract.
type BatchDistributorClaimed struct {
	BatchId   *big.Int
	TxId      *big.Int
	Leaf      [32]byte
	Recipient common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const BatchDistributorClaimedEventName = "Claimed"

// ContractEventName returns the user-defined event name.
func (BatchDistributorClaimed) ContractEventName() string {
	return BatchDistributorClaimedEventName
}

// UnpackClaimedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Claimed(uint256 indexed batchId, uint256 indexed txId, bytes32 leaf, address recipient, uint256 amount)
func (batchDistributor *BatchDistributor) UnpackClaimedEvent(log *types.Log) (*BatchDistributorClaimed, error) {
	event := "Claimed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorClaimed)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchDistributorDepositLocked represents a DepositLocked event raised by the BatchDistributor contract.
type BatchDistributorDepositLocked struct {
	Id        *big.Int
	Depositor common.Address
	Amount    *big.Int
	Recipient common.Address
	Raw       *types.Log // Blockchain specific contextual infos
}

const BatchDistributorDepositLockedEventName = "DepositLocked"

// ContractEventName returns the user-defined event name.
func (BatchDistributorDepositLocked) ContractEventName() string {
	return BatchDistributorDepositLockedEventName
}

// UnpackDepositLockedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DepositLocked(uint256 indexed id, address indexed depositor, uint256 amount, address recipient)
func (batchDistributor *BatchDistributor) UnpackDepositLockedEvent(log *types.Log) (*BatchDistributorDepositLocked, error) {
	event := "DepositLocked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorDepositLocked)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchDistributorRateLimitSet represents a RateLimitSet event raised by the BatchDistributor contract.
type BatchDistributorRateLimitSet struct {
	Capacity      *big.Int
	RatePerSecond *big.Int
	Raw           *types.Log // Blockchain specific contextual infos
}

const BatchDistributorRateLimitSetEventName = "RateLimitSet"

// ContractEventName returns the user-defined event name.
func (BatchDistributorRateLimitSet) ContractEventName() string {
	return BatchDistributorRateLimitSetEventName
}

// UnpackRateLimitSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RateLimitSet(uint256 capacity, uint256 ratePerSecond)
func (batchDistributor *BatchDistributor) UnpackRateLimitSetEvent(log *types.Log) (*BatchDistributorRateLimitSet, error) {
	event := "RateLimitSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorRateLimitSet)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchDistributorRoleAdminChanged represents a RoleAdminChanged event raised by the BatchDistributor contract.
type BatchDistributorRoleAdminChanged struct {
	Role              [32]byte
	PreviousAdminRole [32]byte
	NewAdminRole      [32]byte
	Raw               *types.Log // Blockchain specific contextual infos
}

const BatchDistributorRoleAdminChangedEventName = "RoleAdminChanged"

// ContractEventName returns the user-defined event name.
func (BatchDistributorRoleAdminChanged) ContractEventName() string {
	return BatchDistributorRoleAdminChangedEventName
}

// UnpackRoleAdminChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RoleAdminChanged(bytes32 indexed role, bytes32 indexed previousAdminRole, bytes32 indexed newAdminRole)
func (batchDistributor *BatchDistributor) UnpackRoleAdminChangedEvent(log *types.Log) (*BatchDistributorRoleAdminChanged, error) {
	event := "RoleAdminChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorRoleAdminChanged)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchDistributorRoleGranted represents a RoleGranted event raised by the BatchDistributor contract.
type BatchDistributorRoleGranted struct {
	Role    [32]byte
	Account common.Address
	Sender  common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const BatchDistributorRoleGrantedEventName = "RoleGranted"

// ContractEventName returns the user-defined event name.
func (BatchDistributorRoleGranted) ContractEventName() string {
	return BatchDistributorRoleGrantedEventName
}

// UnpackRoleGrantedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)
func (batchDistributor *BatchDistributor) UnpackRoleGrantedEvent(log *types.Log) (*BatchDistributorRoleGranted, error) {
	event := "RoleGranted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorRoleGranted)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchDistributorRoleRevoked represents a RoleRevoked event raised by the BatchDistributor contract.
type BatchDistributorRoleRevoked struct {
	Role    [32]byte
	Account common.Address
	Sender  common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const BatchDistributorRoleRevokedEventName = "RoleRevoked"

// ContractEventName returns the user-defined event name.
func (BatchDistributorRoleRevoked) ContractEventName() string {
	return BatchDistributorRoleRevokedEventName
}

// UnpackRoleRevokedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)
func (batchDistributor *BatchDistributor) UnpackRoleRevokedEvent(log *types.Log) (*BatchDistributorRoleRevoked, error) {
	event := "RoleRevoked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorRoleRevoked)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchDistributorRootAnchored represents a RootAnchored event raised by the BatchDistributor contract.
type BatchDistributorRootAnchored struct {
	BatchId *big.Int
	Root    [32]byte
	Raw     *types.Log // Blockchain specific contextual infos
}

const BatchDistributorRootAnchoredEventName = "RootAnchored"

// ContractEventName returns the user-defined event name.
func (BatchDistributorRootAnchored) ContractEventName() string {
	return BatchDistributorRootAnchoredEventName
}

// UnpackRootAnchoredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RootAnchored(uint256 indexed batchId, bytes32 root)
func (batchDistributor *BatchDistributor) UnpackRootAnchoredEvent(log *types.Log) (*BatchDistributorRootAnchored, error) {
	event := "RootAnchored"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchDistributor.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchDistributorRootAnchored)
	if len(log.Data) > 0 {
		if err := batchDistributor.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchDistributor.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (batchDistributor *BatchDistributor) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["AccessControlBadConfirmation"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackAccessControlBadConfirmationError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["AccessControlUnauthorizedAccount"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackAccessControlUnauthorizedAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["BadRateLimit"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackBadRateLimitError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["BatchOutOfSequence"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackBatchOutOfSequenceError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["EmptyRoot"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackEmptyRootError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["RateLimitOverCapacity"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackRateLimitOverCapacityError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["RateLimited"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackRateLimitedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// BatchDistributorAccessControlBadConfirmation represents a AccessControlBadConfirmation error raised by the BatchDistributor contract.
type BatchDistributorAccessControlBadConfirmation struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AccessControlBadConfirmation()
func BatchDistributorAccessControlBadConfirmationErrorID() common.Hash {
	return common.HexToHash("0x6697b23232a647058342c0724fe7c415cab25915b54e5dbc03f233173d37b41c")
}

// UnpackAccessControlBadConfirmationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AccessControlBadConfirmation()
func (batchDistributor *BatchDistributor) UnpackAccessControlBadConfirmationError(raw []byte) (*BatchDistributorAccessControlBadConfirmation, error) {
	out := new(BatchDistributorAccessControlBadConfirmation)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "AccessControlBadConfirmation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDistributorAccessControlUnauthorizedAccount represents a AccessControlUnauthorizedAccount error raised by the BatchDistributor contract.
type BatchDistributorAccessControlUnauthorizedAccount struct {
	Account    common.Address
	NeededRole [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)
func BatchDistributorAccessControlUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0xe2517d3fbfae6f8515ef5ff1ccedc3933ab0cbbda0b492c06eb54ad10ef03b3e")
}

// UnpackAccessControlUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)
func (batchDistributor *BatchDistributor) UnpackAccessControlUnauthorizedAccountError(raw []byte) (*BatchDistributorAccessControlUnauthorizedAccount, error) {
	out := new(BatchDistributorAccessControlUnauthorizedAccount)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "AccessControlUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDistributorBadRateLimit represents a BadRateLimit error raised by the BatchDistributor contract.
type BatchDistributorBadRateLimit struct {
	Capacity      *big.Int
	RatePerSecond *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadRateLimit(uint256 capacity, uint256 ratePerSecond)
func BatchDistributorBadRateLimitErrorID() common.Hash {
	return common.HexToHash("0x2305daea579aa83c1b2c46f568690e4e8faf12eb9f959ec625670a1a67c8866c")
}

// UnpackBadRateLimitError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadRateLimit(uint256 capacity, uint256 ratePerSecond)
func (batchDistributor *BatchDistributor) UnpackBadRateLimitError(raw []byte) (*BatchDistributorBadRateLimit, error) {
	out := new(BatchDistributorBadRateLimit)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "BadRateLimit", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDistributorBatchOutOfSequence represents a BatchOutOfSequence error raised by the BatchDistributor contract.
type BatchDistributorBatchOutOfSequence struct {
	Expected *big.Int
	Got      *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BatchOutOfSequence(uint256 expected, uint256 got)
func BatchDistributorBatchOutOfSequenceErrorID() common.Hash {
	return common.HexToHash("0x8eb25ecc0c3dc9407b0d83fd0d7e95f4bb08537bb40fd85bc80e2de64a04d945")
}

// UnpackBatchOutOfSequenceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BatchOutOfSequence(uint256 expected, uint256 got)
func (batchDistributor *BatchDistributor) UnpackBatchOutOfSequenceError(raw []byte) (*BatchDistributorBatchOutOfSequence, error) {
	out := new(BatchDistributorBatchOutOfSequence)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "BatchOutOfSequence", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDistributorEmptyRoot represents a EmptyRoot error raised by the BatchDistributor contract.
type BatchDistributorEmptyRoot struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyRoot()
func BatchDistributorEmptyRootErrorID() common.Hash {
	return common.HexToHash("0x53ce4ece66102bfdfb7e2dd6215b88dbc54b76fd92f4bed53b69b1166a744a63")
}

// UnpackEmptyRootError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyRoot()
func (batchDistributor *BatchDistributor) UnpackEmptyRootError(raw []byte) (*BatchDistributorEmptyRoot, error) {
	out := new(BatchDistributorEmptyRoot)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "EmptyRoot", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDistributorRateLimitOverCapacity represents a RateLimitOverCapacity error raised by the BatchDistributor contract.
type BatchDistributorRateLimitOverCapacity struct {
	Requested *big.Int
	Capacity  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RateLimitOverCapacity(uint256 requested, uint256 capacity)
func BatchDistributorRateLimitOverCapacityErrorID() common.Hash {
	return common.HexToHash("0x748f299e60af1cb0e79aed57276bffe21de8bc6f543f1930194b80b74601f4f9")
}

// UnpackRateLimitOverCapacityError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RateLimitOverCapacity(uint256 requested, uint256 capacity)
func (batchDistributor *BatchDistributor) UnpackRateLimitOverCapacityError(raw []byte) (*BatchDistributorRateLimitOverCapacity, error) {
	out := new(BatchDistributorRateLimitOverCapacity)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "RateLimitOverCapacity", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchDistributorRateLimited represents a RateLimited error raised by the BatchDistributor contract.
type BatchDistributorRateLimited struct {
	Requested   *big.Int
	Available   *big.Int
	WaitSeconds *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RateLimited(uint256 requested, uint256 available, uint256 waitSeconds)
func BatchDistributorRateLimitedErrorID() common.Hash {
	return common.HexToHash("0xa815dc9ab4cc3f72866c5f06808b4ae765626589490a8010bee55f80f3eece9a")
}

// UnpackRateLimitedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RateLimited(uint256 requested, uint256 available, uint256 waitSeconds)
func (batchDistributor *BatchDistributor) UnpackRateLimitedError(raw []byte) (*BatchDistributorRateLimited, error) {
	out := new(BatchDistributorRateLimited)
	if err := batchDistributor.abi.UnpackIntoInterface(out, "RateLimited", raw); err != nil {
		return nil, err
	}
	return out, nil
}
