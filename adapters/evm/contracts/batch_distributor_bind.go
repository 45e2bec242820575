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
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"admin\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"relayer\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AccessControlBadConfirmation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"neededRole\",\"type\":\"bytes32\"}],\"name\":\"AccessControlUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"got\",\"type\":\"uint256\"}],\"name\":\"BatchOutOfSequence\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyRoot\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"txId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"leaf\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Claimed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"depositor\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"DepositLocked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"previousAdminRole\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"newAdminRole\",\"type\":\"bytes32\"}],\"name\":\"RoleAdminChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleGranted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"}],\"name\":\"RootAnchored\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEFAULT_ADMIN_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RELAYER_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"}],\"name\":\"anchor\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"txId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"funder\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32[]\",\"name\":\"proof\",\"type\":\"bytes32[]\"}],\"name\":\"claim\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"depositCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"}],\"name\":\"getRoleAdmin\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"grantRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"hasRole\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"lastBatchId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"txId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"funder\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"leafOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"leaf\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"lock\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"leaf\",\"type\":\"bytes32\"}],\"name\":\"processedLeaves\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"callerConfirmation\",\"type\":\"address\"}],\"name\":\"renounceRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"revokeRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"batchId\",\"type\":\"uint256\"}],\"name\":\"roots\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"root\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalLocked\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "BatchDistributor",
	Bin: "0x60803461007557601f610c4338819003918201601f19168301916001600160401b03831184841017610079578084926040948552833981010312610075578061005f61005960206100526100659561008d565b930161008d565b916100a1565b50610117565b50604051610a3890816101ab8239f35b5f80fd5b634e487b7160e01b5f52604160045260245ffd5b51906001600160a01b038216820361007557565b6001600160a01b0381165f9081525f516020610c035f395f51905f52602052604090205460ff16610112576001600160a01b03165f8181525f516020610c035f395f51905f5260205260408120805460ff191660011790553391905f516020610be35f395f51905f528180a4600190565b505f90565b6001600160a01b0381165f9081525f516020610c235f395f51905f52602052604090205460ff16610112576001600160a01b03165f8181525f516020610c235f395f51905f5260205260408120805460ff191660011790553391907fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc4905f516020610be35f395f51905f529080a460019056fe6080806040526004361015610012575f80fd5b5f3560e01c90816301ffc9a71461082357508063124e2d25146107f4578063248a9ca3146107c95780632dfdf0b5146107ad5780632f2ff15d1461076f57806336568abe1461072b57806356891412146107105780635b5eee88146106f357806391d14854146106aa578063926d7d7f14610670578063a07de193146103cc578063a0ca2d08146102c6578063a217fddf146102ac578063c2b40ae414610282578063caae6b9c14610219578063d547741f146101d45763f435f5a7146100d7575f80fd5b60203660031901126101d0576004356001600160a01b038116908190036101d057341561019d578015610167575f54905f1982146101535760016020920190815f556040519034825283820152817fc9e2202bd5d8e4d2bec28bfccd69a1232175759067baf8810c94e0839c3187fa60403393a3604051908152f35b634e487b7160e01b5f52601160045260245ffd5b60405162461bcd60e51b815260206004820152600e60248201526d1e995c9bc81c9958da5c1a595b9d60921b6044820152606490fd5b60405162461bcd60e51b815260206004820152600b60248201526a1e995c9bc8185b5bdd5b9d60aa1b6044820152606490fd5b5f80fd5b346101d05760403660031901126101d0576102176004356101f3610876565b9061021261020d825f526001602052600160405f20015490565b6108b8565b61097e565b005b346101d05760a03660031901126101d057602061027a61023761088c565b61023f6108a2565b6084359160243560043592909160e094926040519446865230602087015260408601526060850152608084015260a083015260c08201522090565b604051908152f35b346101d05760203660031901126101d0576004355f526003602052602060405f2054604051908152f35b346101d0575f3660031901126101d05760206040515f8152f35b346101d05760403660031901126101d057335f9081527f9b7fc797995519db25593326970d3304279d74cdaa6b7cc1a414e3eb0491de536020526040902054600435906024359060ff161561039557600254600181018091116101535780830361037e5750801561036f5760207fcc391fab6dab87e8e17244276fa0a6b263c0e609ede4fae46c0da6bb9f06ce2791835f52600382528060405f205583600255604051908152a2005b6329e7276760e11b5f5260045ffd5b90506323ac97b360e21b5f5260045260245260445ffd5b63e2517d3f60e01b5f52336004527fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc460245260445ffd5b346101d05760c03660031901126101d0576024356004356103eb61088c565b916103f46108a2565b6084359060a4359267ffffffffffffffff84116101d057366023850112156101d05783600401359467ffffffffffffffff86116101d0573660248760051b870101116101d057805f52600360205260405f205496871561063b57848461048792858592909160e094926040519446865230602087015260408601526060850152608084015260a083015260c08201522090565b805f52600460205260ff60405f205416610602575f97815b888a10156104e05760248a60051b89010135908181105f146104cf575f52602052600160405f205b99019861049f565b905f52602052600160405f206104c7565b036105cd576060817facf75996012261f0932fd642452f7d46ae3c2a710e4acbd9a7d9419fb638be88925f52600460205260405f20600160ff1982541617905560405190815260018060a01b0386166020820152866040820152a3814710610588575f80809381935af11561055157005b60405162461bcd60e51b815260206004820152600f60248201526e1d1c985b9cd9995c8819985a5b1959608a1b6044820152606490fd5b60405162461bcd60e51b815260206004820152601b60248201527f696e73756666696369656e74206c6f636b65642062616c616e636500000000006044820152606490fd5b60405162461bcd60e51b815260206004820152600d60248201526c34b73b30b634b210383937b7b360991b6044820152606490fd5b60405162461bcd60e51b8152602060048201526011602482015270185b1c9958591e481c1c9bd8d95cdcd959607a1b6044820152606490fd5b60405162461bcd60e51b815260206004820152600d60248201526c0eadcd6dcdeeedc40c4c2e8c6d609b1b6044820152606490fd5b346101d0575f3660031901126101d05760206040517fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc48152f35b346101d05760403660031901126101d0576106c3610876565b6004355f52600160205260405f209060018060a01b03165f52602052602060ff60405f2054166040519015158152f35b346101d0575f3660031901126101d0576020600254604051908152f35b346101d0575f3660031901126101d057602047604051908152f35b346101d05760403660031901126101d057610744610876565b336001600160a01b03821603610760576102179060043561097e565b63334bd91960e11b5f5260045ffd5b346101d05760403660031901126101d05761021760043561078e610876565b906107a861020d825f526001602052600160405f20015490565b6108f2565b346101d0575f3660031901126101d05760205f54604051908152f35b346101d05760203660031901126101d057602061027a6004355f526001602052600160405f20015490565b346101d05760203660031901126101d0576004355f526004602052602060ff60405f2054166040519015158152f35b346101d05760203660031901126101d0576004359063ffffffff60e01b82168092036101d057602091637965db0b60e01b8114908115610865575b5015158152f35b6301ffc9a760e01b1490508361085e565b602435906001600160a01b03821682036101d057565b604435906001600160a01b03821682036101d057565b606435906001600160a01b03821682036101d057565b5f81815260016020908152604080832033845290915290205460ff16156108dc5750565b63e2517d3f60e01b5f523360045260245260445ffd5b5f8181526001602090815260408083206001600160a01b038616845290915290205460ff16610978575f8181526001602081815260408084206001600160a01b0396909616808552959091528220805460ff19169091179055339291907f2f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d9080a4600190565b50505f90565b5f8181526001602090815260408083206001600160a01b038616845290915290205460ff1615610978575f8181526001602090815260408083206001600160a01b0395909516808452949091528120805460ff19169055339291907ff6391f5c32d9c69d2a47ea670b442974b53935d1edc7fd64eb21e047a839171b9080a460019056fea2646970667358221220828bbc9559af4a0afc174ed8d801d79fff64b048f651d1f4478631c9f81fa0c364736f6c634300082500332f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0da6eef7e35abe7026729641147f7915573c7e97b47efa546f5f6e3230263bcb499b7fc797995519db25593326970d3304279d74cdaa6b7cc1a414e3eb0491de53",
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
// Solidity: constructor(address admin, address relayer) returns()
func (batchDistributor *BatchDistributor) PackConstructor(admin common.Address, relayer common.Address) []byte {
	enc, err := batchDistributor.abi.Pack("", admin, relayer)
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
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["BatchOutOfSequence"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackBatchOutOfSequenceError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchDistributor.abi.Errors["EmptyRoot"].ID.Bytes()[:4]) {
		return batchDistributor.UnpackEmptyRootError(raw[4:])
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
