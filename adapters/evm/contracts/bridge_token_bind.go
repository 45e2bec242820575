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

// BridgeTokenMetaData contains all meta data concerning the BridgeToken contract.
var BridgeTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"name_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"symbol_\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"admin\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"relayer\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AccessControlBadConfirmation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"neededRole\",\"type\":\"bytes32\"}],\"name\":\"AccessControlUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"AmountNotWholeSompi\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"length\",\"type\":\"uint256\"}],\"name\":\"BadKaspaRecipient\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"depositKey\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"DepositMinted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"previousAdminRole\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"newAdminRole\",\"type\":\"bytes32\"}],\"name\":\"RoleAdminChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleGranted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"withdrawer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"WithdrawalBurned\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"withdrawer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"kaspaRecipient\",\"type\":\"string\"}],\"name\":\"WithdrawalToKaspa\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEFAULT_ADMIN_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_KASPA_RECIPIENT_BYTES\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RELAYER_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WEI_PER_SOMPI\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"burn\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"string\",\"name\":\"kaspaRecipient\",\"type\":\"string\"}],\"name\":\"burnToKaspa\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"}],\"name\":\"getRoleAdmin\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"grantRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"hasRole\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"kaspaWithdrawalCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"depositKey\",\"type\":\"bytes32\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"depositKey\",\"type\":\"bytes32\"}],\"name\":\"minted\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"callerConfirmation\",\"type\":\"address\"}],\"name\":\"renounceRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"revokeRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"withdrawalCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "BridgeToken",
	Bin: "0x6080604052346103655761142d8038038061001981610369565b9283398101906080818303126103655780516001600160401b038111610365578261004591830161038e565b602082015190926001600160401b0382116103655761006591830161038e565b61007d6060610076604085016103df565b93016103df565b83519091906001600160401b03811161026b57600354600181811c9116801561035b575b602082101461024d57601f81116102ed575b50602094601f821160011461028a579481929394955f9261027f575b50508160011b915f199060031b1c1916176003555b8051906001600160401b03821161026b57600454600181811c91168015610261575b602082101461024d57601f81116101df575b50602090601f83116001146101735791806101589592610152945f92610168575b50508160011b915f199060031b1c1916176004556103f3565b50610469565b50604051610ed090816104fd8239f35b015190505f80610139565b90601f1983169160045f52815f20925f5b8181106101c75750926001928592610152966101589996106101af575b505050811b016004556103f3565b01515f1960f88460031b161c191690555f80806101a1565b92936020600181928786015181550195019301610184565b828111156101185760045f52601f830160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b60208510610245575b81601f9101920160051c03905f5b828110610238575050610118565b5f8282015560010161022a565b5f915061021c565b634e487b7160e01b5f52602260045260245ffd5b90607f1690610106565b634e487b7160e01b5f52604160045260245ffd5b015190505f806100cf565b601f1982169560035f52805f20915f5b8881106102d5575083600195969798106102bd575b505050811b016003556100e4565b01515f1960f88460031b161c191690555f80806102af565b9192602060018192868501518155019401920161029a565b818111156100b35760035f52601f820160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b60208410610353575b81601f9101920160051c03905f5b8281106103465750506100b3565b5f82820155600101610338565b5f915061032a565b90607f16906100a1565b5f80fd5b6040519190601f01601f191682016001600160401b0381118382101761026b57604052565b81601f82011215610365578051906001600160401b03821161026b576103bd601f8301601f1916602001610369565b928284526020838301011161036557815f9260208093018386015e8301015290565b51906001600160a01b038216820361036557565b6001600160a01b0381165f9081525f51602061140d5f395f51905f52602052604090205460ff16610464576001600160a01b03165f8181525f51602061140d5f395f51905f5260205260408120805460ff191660011790553391905f5160206113cd5f395f51905f528180a4600190565b505f90565b6001600160a01b0381165f9081525f5160206113ed5f395f51905f52602052604090205460ff16610464576001600160a01b03165f8181525f5160206113ed5f395f51905f5260205260408120805460ff191660011790553391907fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc4905f5160206113cd5f395f51905f529080a460019056fe6080806040526004361015610012575f80fd5b5f3560e01c90816301ffc9a714610b315750806306fdde0314610a5f578063095ea7b3146109dd57806318160ddd146109c05780631e458bee1461082057806323b872dd14610741578063248a9ca31461070e5780632f2ff15d146106d0578063313ce567146106b557806336568abe1461067157806370a082311461063a57806371706cbe1461061d57806376a25f60146105fe5780637c41f7dc146105e15780638ccc5f80146105b257806391d1485414610569578063926d7d7f1461052f57806395d89b4114610414578063a217fddf146103fa578063a9059cbb146103c9578063d547741f14610384578063dd62ed3e14610334578063e54014eb14610210578063f38151af146101f55763fcd3533c1461012f575f80fd5b346101f15760403660031901126101f15760043561014b610bc4565b610156821515610bda565b6001600160a01b031680156101bb578161017260209333610e16565b61017d600754610c14565b918260075560405191825283820152817f107bb2869466913e6c4a2dadd4fe6890b56c2112bfa88a1201a1fb1141bdd30c60403393a3604051908152f35b60405162461bcd60e51b815260206004820152600e60248201526d1e995c9bc81c9958da5c1a595b9d60921b6044820152606490fd5b5f80fd5b346101f1575f3660031901126101f157602060405160648152f35b346101f15760403660031901126101f15760043560243567ffffffffffffffff81116101f157366023820112156101f15780600401359167ffffffffffffffff83116101f15736602484840101116101f15761026d811515610bda565b6402540be40081066103225782158015610318575b61030557916024917f0c5077aa4d2ad3a84743796dbbfe844344a779852b98d4ae67ea11c383ea47b2846102b860209633610e16565b836102c4600854610c14565b958694856008556040519384526040898501528260408501520160608301375f606085830101526060813395601f80199101168101030190a3604051908152f35b8263340b571b60e11b5f5260045260245ffd5b5060648311610282565b6398678fa760e01b5f5260045260245ffd5b346101f15760403660031901126101f15761034d610bae565b610355610bc4565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b346101f15760403660031901126101f1576103c76004356103a3610bc4565b906103c26103bd825f526005602052600160405f20015490565b610c22565b610d92565b005b346101f15760403660031901126101f1576103ef6103e5610bae565b6024359033610c5c565b602060405160018152f35b346101f1575f3660031901126101f15760206040515f8152f35b346101f1575f3660031901126101f1576040515f6004548060011c90600181168015610525575b602083108114610511578285529081156104f557506001146104a0575b50819003601f01601f191681019067ffffffffffffffff82118183101761048c5761048882918260405282610b84565b0390f35b634e487b7160e01b5f52604160045260245ffd5b905060045f527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b5f905b8282106104df57506020915082010182610458565b60018160209254838588010152019101906104ca565b90506020925060ff191682840152151560051b82010182610458565b634e487b7160e01b5f52602260045260245ffd5b91607f169161043b565b346101f1575f3660031901126101f15760206040517fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc48152f35b346101f15760403660031901126101f157610582610bc4565b6004355f52600560205260405f209060018060a01b03165f52602052602060ff60405f2054166040519015158152f35b346101f15760203660031901126101f1576004355f526006602052602060ff60405f2054166040519015158152f35b346101f1575f3660031901126101f1576020600854604051908152f35b346101f1575f3660031901126101f15760206040516402540be4008152f35b346101f1575f3660031901126101f1576020600754604051908152f35b346101f15760203660031901126101f1576001600160a01b0361065b610bae565b165f525f602052602060405f2054604051908152f35b346101f15760403660031901126101f15761068a610bc4565b336001600160a01b038216036106a6576103c790600435610d92565b63334bd91960e11b5f5260045ffd5b346101f1575f3660031901126101f157602060405160128152f35b346101f15760403660031901126101f1576103c76004356106ef610bc4565b906107096103bd825f526005602052600160405f20015490565b610d06565b346101f15760203660031901126101f15760206107396004355f526005602052600160405f20015490565b604051908152f35b346101f15760603660031901126101f15761075a610bae565b610762610bc4565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f1981106107a0575b506103ef9350610c5c565b8381106108055784156107f25733156107df576103ef945f52600160205260405f2060018060a01b0333165f526020528360405f209103905584610795565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b346101f15760603660031901126101f157610839610bae565b335f9081527f650b582881666d0aa4858e36be4ebd8137de1fbdd08972b18503fdbaca9f9e4f6020526040902054602435916044359160ff161561098957815f52600660205260ff60405f205416610953575f828152600660205260409020805460ff191660011790556001600160a01b03169182156109405760025481810180911161092c577f0cfe4923db11ce7ab1cb18095532a365e8e21cbdcf56eabf0d8689a9e4fa17bf91602091600255845f525f825260405f20818154019055845f7fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef84604051858152a3604051908152a3005b634e487b7160e01b5f52601160045260245ffd5b63ec442f0560e01b5f525f60045260245ffd5b60405162461bcd60e51b815260206004820152600e60248201526d185b1c9958591e481b5a5b9d195960921b6044820152606490fd5b63e2517d3f60e01b5f52336004527fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc460245260445ffd5b346101f1575f3660031901126101f1576020600254604051908152f35b346101f15760403660031901126101f1576109f6610bae565b6024359033156107f2576001600160a01b03169081156107df57335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b346101f1575f3660031901126101f1576040515f6003548060011c90600181168015610b27575b602083108114610511578285529081156104f55750600114610ad25750819003601f01601f191681019067ffffffffffffffff82118183101761048c5761048882918260405282610b84565b905060035f527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b5f905b828210610b1157506020915082010182610458565b6001816020925483858801015201910190610afc565b91607f1691610a86565b346101f15760203660031901126101f1576004359063ffffffff60e01b82168092036101f157602091637965db0b60e01b8114908115610b73575b5015158152f35b6301ffc9a760e01b14905083610b6c565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b600435906001600160a01b03821682036101f157565b602435906001600160a01b03821682036101f157565b15610be157565b60405162461bcd60e51b815260206004820152600b60248201526a1e995c9bc8185b5bdd5b9d60aa1b6044820152606490fd5b5f19811461092c5760010190565b5f81815260056020908152604080832033845290915290205460ff1615610c465750565b63e2517d3f60e01b5f523360045260245260445ffd5b6001600160a01b0316908115610cf3576001600160a01b031691821561094057815f525f60205260405f2054818110610cda57817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a3565b8263391434e360e21b5f5260045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffd5b5f8181526005602090815260408083206001600160a01b038616845290915290205460ff16610d8c575f8181526005602090815260408083206001600160a01b0395909516808452949091528120805460ff19166001179055339291907f2f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d9080a4600190565b50505f90565b5f8181526005602090815260408083206001600160a01b038616845290915290205460ff1615610d8c575f8181526005602090815260408083206001600160a01b0395909516808452949091528120805460ff19169055339291907ff6391f5c32d9c69d2a47ea670b442974b53935d1edc7fd64eb21e047a839171b9080a4600190565b9091906001600160a01b03168015610cf357805f525f60205260405f2054838110610e80576020845f94957fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef938587528684520360408620558060025403600255604051908152a3565b915063391434e360e21b5f5260045260245260445260645ffdfea26469706673582212208a2db0cd2190ce878243d0938a1c413cec0187cb829cb5b56dbfe56719a2036664736f6c634300082500332f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d650b582881666d0aa4858e36be4ebd8137de1fbdd08972b18503fdbaca9f9e4f05b8ccbb9d4d8fb16ea74ce3c29a41f1b461fbdaff4714a0d9a8eb05499746bc",
}

// BridgeToken is an auto generated Go binding around an Ethereum contract.
type BridgeToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *BridgeToken) GetABI() abi.ABI {
	return c.abi
}

// NewBridgeToken creates a new instance of BridgeToken.
func NewBridgeToken() *BridgeToken {
	parsed, err := BridgeTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &BridgeToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *BridgeToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string name_, string symbol_, address admin, address relayer) returns()
func (bridgeToken *BridgeToken) PackConstructor(name_ string, symbol_ string, admin common.Address, relayer common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("", name_, symbol_, admin, relayer)
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
func (bridgeToken *BridgeToken) PackDEFAULTADMINROLE() []byte {
	enc, err := bridgeToken.abi.Pack("DEFAULT_ADMIN_ROLE")
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
func (bridgeToken *BridgeToken) TryPackDEFAULTADMINROLE() ([]byte, error) {
	return bridgeToken.abi.Pack("DEFAULT_ADMIN_ROLE")
}

// UnpackDEFAULTADMINROLE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa217fddf.
//
// Solidity: function DEFAULT_ADMIN_ROLE() view returns(bytes32)
func (bridgeToken *BridgeToken) UnpackDEFAULTADMINROLE(data []byte) ([32]byte, error) {
	out, err := bridgeToken.abi.Unpack("DEFAULT_ADMIN_ROLE", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackMAXKASPARECIPIENTBYTES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf38151af.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_KASPA_RECIPIENT_BYTES() view returns(uint256)
func (bridgeToken *BridgeToken) PackMAXKASPARECIPIENTBYTES() []byte {
	enc, err := bridgeToken.abi.Pack("MAX_KASPA_RECIPIENT_BYTES")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXKASPARECIPIENTBYTES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf38151af.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_KASPA_RECIPIENT_BYTES() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackMAXKASPARECIPIENTBYTES() ([]byte, error) {
	return bridgeToken.abi.Pack("MAX_KASPA_RECIPIENT_BYTES")
}

// UnpackMAXKASPARECIPIENTBYTES is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf38151af.
//
// Solidity: function MAX_KASPA_RECIPIENT_BYTES() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackMAXKASPARECIPIENTBYTES(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("MAX_KASPA_RECIPIENT_BYTES", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRELAYERROLE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x926d7d7f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function RELAYER_ROLE() view returns(bytes32)
func (bridgeToken *BridgeToken) PackRELAYERROLE() []byte {
	enc, err := bridgeToken.abi.Pack("RELAYER_ROLE")
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
func (bridgeToken *BridgeToken) TryPackRELAYERROLE() ([]byte, error) {
	return bridgeToken.abi.Pack("RELAYER_ROLE")
}

// UnpackRELAYERROLE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x926d7d7f.
//
// Solidity: function RELAYER_ROLE() view returns(bytes32)
func (bridgeToken *BridgeToken) UnpackRELAYERROLE(data []byte) ([32]byte, error) {
	out, err := bridgeToken.abi.Unpack("RELAYER_ROLE", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackWEIPERSOMPI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x76a25f60.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function WEI_PER_SOMPI() view returns(uint256)
func (bridgeToken *BridgeToken) PackWEIPERSOMPI() []byte {
	enc, err := bridgeToken.abi.Pack("WEI_PER_SOMPI")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWEIPERSOMPI is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x76a25f60.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function WEI_PER_SOMPI() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackWEIPERSOMPI() ([]byte, error) {
	return bridgeToken.abi.Pack("WEI_PER_SOMPI")
}

// UnpackWEIPERSOMPI is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x76a25f60.
//
// Solidity: function WEI_PER_SOMPI() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackWEIPERSOMPI(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("WEI_PER_SOMPI", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (bridgeToken *BridgeToken) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("allowance", owner, spender)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (bridgeToken *BridgeToken) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (bridgeToken *BridgeToken) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := bridgeToken.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return bridgeToken.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) UnpackApprove(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (bridgeToken *BridgeToken) PackBalanceOf(account common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("balanceOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (bridgeToken *BridgeToken) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (bridgeToken *BridgeToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackBurn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfcd3533c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function burn(uint256 amount, address recipient) returns(uint256 id)
func (bridgeToken *BridgeToken) PackBurn(amount *big.Int, recipient common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("burn", amount, recipient)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBurn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfcd3533c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function burn(uint256 amount, address recipient) returns(uint256 id)
func (bridgeToken *BridgeToken) TryPackBurn(amount *big.Int, recipient common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("burn", amount, recipient)
}

// UnpackBurn is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfcd3533c.
//
// Solidity: function burn(uint256 amount, address recipient) returns(uint256 id)
func (bridgeToken *BridgeToken) UnpackBurn(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("burn", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackBurnToKaspa is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe54014eb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function burnToKaspa(uint256 amount, string kaspaRecipient) returns(uint256 id)
func (bridgeToken *BridgeToken) PackBurnToKaspa(amount *big.Int, kaspaRecipient string) []byte {
	enc, err := bridgeToken.abi.Pack("burnToKaspa", amount, kaspaRecipient)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBurnToKaspa is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe54014eb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function burnToKaspa(uint256 amount, string kaspaRecipient) returns(uint256 id)
func (bridgeToken *BridgeToken) TryPackBurnToKaspa(amount *big.Int, kaspaRecipient string) ([]byte, error) {
	return bridgeToken.abi.Pack("burnToKaspa", amount, kaspaRecipient)
}

// UnpackBurnToKaspa is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe54014eb.
//
// Solidity: function burnToKaspa(uint256 amount, string kaspaRecipient) returns(uint256 id)
func (bridgeToken *BridgeToken) UnpackBurnToKaspa(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("burnToKaspa", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (bridgeToken *BridgeToken) PackDecimals() []byte {
	enc, err := bridgeToken.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (bridgeToken *BridgeToken) TryPackDecimals() ([]byte, error) {
	return bridgeToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (bridgeToken *BridgeToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := bridgeToken.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackGetRoleAdmin is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x248a9ca3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRoleAdmin(bytes32 role) view returns(bytes32)
func (bridgeToken *BridgeToken) PackGetRoleAdmin(role [32]byte) []byte {
	enc, err := bridgeToken.abi.Pack("getRoleAdmin", role)
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
func (bridgeToken *BridgeToken) TryPackGetRoleAdmin(role [32]byte) ([]byte, error) {
	return bridgeToken.abi.Pack("getRoleAdmin", role)
}

// UnpackGetRoleAdmin is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x248a9ca3.
//
// Solidity: function getRoleAdmin(bytes32 role) view returns(bytes32)
func (bridgeToken *BridgeToken) UnpackGetRoleAdmin(data []byte) ([32]byte, error) {
	out, err := bridgeToken.abi.Unpack("getRoleAdmin", data)
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
func (bridgeToken *BridgeToken) PackGrantRole(role [32]byte, account common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("grantRole", role, account)
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
func (bridgeToken *BridgeToken) TryPackGrantRole(role [32]byte, account common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("grantRole", role, account)
}

// PackHasRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x91d14854.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function hasRole(bytes32 role, address account) view returns(bool)
func (bridgeToken *BridgeToken) PackHasRole(role [32]byte, account common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("hasRole", role, account)
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
func (bridgeToken *BridgeToken) TryPackHasRole(role [32]byte, account common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("hasRole", role, account)
}

// UnpackHasRole is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x91d14854.
//
// Solidity: function hasRole(bytes32 role, address account) view returns(bool)
func (bridgeToken *BridgeToken) UnpackHasRole(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("hasRole", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackKaspaWithdrawalCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7c41f7dc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function kaspaWithdrawalCount() view returns(uint256)
func (bridgeToken *BridgeToken) PackKaspaWithdrawalCount() []byte {
	enc, err := bridgeToken.abi.Pack("kaspaWithdrawalCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackKaspaWithdrawalCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7c41f7dc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function kaspaWithdrawalCount() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackKaspaWithdrawalCount() ([]byte, error) {
	return bridgeToken.abi.Pack("kaspaWithdrawalCount")
}

// UnpackKaspaWithdrawalCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7c41f7dc.
//
// Solidity: function kaspaWithdrawalCount() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackKaspaWithdrawalCount(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("kaspaWithdrawalCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e458bee.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 amount, bytes32 depositKey) returns()
func (bridgeToken *BridgeToken) PackMint(to common.Address, amount *big.Int, depositKey [32]byte) []byte {
	enc, err := bridgeToken.abi.Pack("mint", to, amount, depositKey)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e458bee.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 amount, bytes32 depositKey) returns()
func (bridgeToken *BridgeToken) TryPackMint(to common.Address, amount *big.Int, depositKey [32]byte) ([]byte, error) {
	return bridgeToken.abi.Pack("mint", to, amount, depositKey)
}

// PackMinted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8ccc5f80.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function minted(bytes32 depositKey) view returns(bool)
func (bridgeToken *BridgeToken) PackMinted(depositKey [32]byte) []byte {
	enc, err := bridgeToken.abi.Pack("minted", depositKey)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMinted is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8ccc5f80.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function minted(bytes32 depositKey) view returns(bool)
func (bridgeToken *BridgeToken) TryPackMinted(depositKey [32]byte) ([]byte, error) {
	return bridgeToken.abi.Pack("minted", depositKey)
}

// UnpackMinted is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8ccc5f80.
//
// Solidity: function minted(bytes32 depositKey) view returns(bool)
func (bridgeToken *BridgeToken) UnpackMinted(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("minted", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (bridgeToken *BridgeToken) PackName() []byte {
	enc, err := bridgeToken.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (bridgeToken *BridgeToken) TryPackName() ([]byte, error) {
	return bridgeToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (bridgeToken *BridgeToken) UnpackName(data []byte) (string, error) {
	out, err := bridgeToken.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackRenounceRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x36568abe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function renounceRole(bytes32 role, address callerConfirmation) returns()
func (bridgeToken *BridgeToken) PackRenounceRole(role [32]byte, callerConfirmation common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("renounceRole", role, callerConfirmation)
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
func (bridgeToken *BridgeToken) TryPackRenounceRole(role [32]byte, callerConfirmation common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("renounceRole", role, callerConfirmation)
}

// PackRevokeRole is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd547741f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revokeRole(bytes32 role, address account) returns()
func (bridgeToken *BridgeToken) PackRevokeRole(role [32]byte, account common.Address) []byte {
	enc, err := bridgeToken.abi.Pack("revokeRole", role, account)
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
func (bridgeToken *BridgeToken) TryPackRevokeRole(role [32]byte, account common.Address) ([]byte, error) {
	return bridgeToken.abi.Pack("revokeRole", role, account)
}

// PackSupportsInterface is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01ffc9a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (bridgeToken *BridgeToken) PackSupportsInterface(interfaceId [4]byte) []byte {
	enc, err := bridgeToken.abi.Pack("supportsInterface", interfaceId)
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
func (bridgeToken *BridgeToken) TryPackSupportsInterface(interfaceId [4]byte) ([]byte, error) {
	return bridgeToken.abi.Pack("supportsInterface", interfaceId)
}

// UnpackSupportsInterface is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01ffc9a7.
//
// Solidity: function supportsInterface(bytes4 interfaceId) view returns(bool)
func (bridgeToken *BridgeToken) UnpackSupportsInterface(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("supportsInterface", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (bridgeToken *BridgeToken) PackSymbol() []byte {
	enc, err := bridgeToken.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (bridgeToken *BridgeToken) TryPackSymbol() ([]byte, error) {
	return bridgeToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (bridgeToken *BridgeToken) UnpackSymbol(data []byte) (string, error) {
	out, err := bridgeToken.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (bridgeToken *BridgeToken) PackTotalSupply() []byte {
	enc, err := bridgeToken.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackTotalSupply() ([]byte, error) {
	return bridgeToken.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := bridgeToken.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return bridgeToken.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := bridgeToken.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return bridgeToken.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (bridgeToken *BridgeToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackWithdrawalCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x71706cbe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdrawalCount() view returns(uint256)
func (bridgeToken *BridgeToken) PackWithdrawalCount() []byte {
	enc, err := bridgeToken.abi.Pack("withdrawalCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdrawalCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x71706cbe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdrawalCount() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackWithdrawalCount() ([]byte, error) {
	return bridgeToken.abi.Pack("withdrawalCount")
}

// UnpackWithdrawalCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x71706cbe.
//
// Solidity: function withdrawalCount() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackWithdrawalCount(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("withdrawalCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// BridgeTokenApproval represents a Approval event raised by the BridgeToken contract.
type BridgeTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const BridgeTokenApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (BridgeTokenApproval) ContractEventName() string {
	return BridgeTokenApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (bridgeToken *BridgeToken) UnpackApprovalEvent(log *types.Log) (*BridgeTokenApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenApproval)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenDepositMinted represents a DepositMinted event raised by the BridgeToken contract.
type BridgeTokenDepositMinted struct {
	DepositKey [32]byte
	To         common.Address
	Amount     *big.Int
	Raw        *types.Log // Blockchain specific contextual infos
}

const BridgeTokenDepositMintedEventName = "DepositMinted"

// ContractEventName returns the user-defined event name.
func (BridgeTokenDepositMinted) ContractEventName() string {
	return BridgeTokenDepositMintedEventName
}

// UnpackDepositMintedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DepositMinted(bytes32 indexed depositKey, address indexed to, uint256 amount)
func (bridgeToken *BridgeToken) UnpackDepositMintedEvent(log *types.Log) (*BridgeTokenDepositMinted, error) {
	event := "DepositMinted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenDepositMinted)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenRoleAdminChanged represents a RoleAdminChanged event raised by the BridgeToken contract.
type BridgeTokenRoleAdminChanged struct {
	Role              [32]byte
	PreviousAdminRole [32]byte
	NewAdminRole      [32]byte
	Raw               *types.Log // Blockchain specific contextual infos
}

const BridgeTokenRoleAdminChangedEventName = "RoleAdminChanged"

// ContractEventName returns the user-defined event name.
func (BridgeTokenRoleAdminChanged) ContractEventName() string {
	return BridgeTokenRoleAdminChangedEventName
}

// UnpackRoleAdminChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RoleAdminChanged(bytes32 indexed role, bytes32 indexed previousAdminRole, bytes32 indexed newAdminRole)
func (bridgeToken *BridgeToken) UnpackRoleAdminChangedEvent(log *types.Log) (*BridgeTokenRoleAdminChanged, error) {
	event := "RoleAdminChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenRoleAdminChanged)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenRoleGranted represents a RoleGranted event raised by the BridgeToken contract.
type BridgeTokenRoleGranted struct {
	Role    [32]byte
	Account common.Address
	Sender  common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const BridgeTokenRoleGrantedEventName = "RoleGranted"

// ContractEventName returns the user-defined event name.
func (BridgeTokenRoleGranted) ContractEventName() string {
	return BridgeTokenRoleGrantedEventName
}

// UnpackRoleGrantedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)
func (bridgeToken *BridgeToken) UnpackRoleGrantedEvent(log *types.Log) (*BridgeTokenRoleGranted, error) {
	event := "RoleGranted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenRoleGranted)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenRoleRevoked represents a RoleRevoked event raised by the BridgeToken contract.
type BridgeTokenRoleRevoked struct {
	Role    [32]byte
	Account common.Address
	Sender  common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const BridgeTokenRoleRevokedEventName = "RoleRevoked"

// ContractEventName returns the user-defined event name.
func (BridgeTokenRoleRevoked) ContractEventName() string {
	return BridgeTokenRoleRevokedEventName
}

// UnpackRoleRevokedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)
func (bridgeToken *BridgeToken) UnpackRoleRevokedEvent(log *types.Log) (*BridgeTokenRoleRevoked, error) {
	event := "RoleRevoked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenRoleRevoked)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenTransfer represents a Transfer event raised by the BridgeToken contract.
type BridgeTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const BridgeTokenTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (BridgeTokenTransfer) ContractEventName() string {
	return BridgeTokenTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (bridgeToken *BridgeToken) UnpackTransferEvent(log *types.Log) (*BridgeTokenTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenTransfer)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenWithdrawalBurned represents a WithdrawalBurned event raised by the BridgeToken contract.
type BridgeTokenWithdrawalBurned struct {
	Id         *big.Int
	Withdrawer common.Address
	Amount     *big.Int
	Recipient  common.Address
	Raw        *types.Log // Blockchain specific contextual infos
}

const BridgeTokenWithdrawalBurnedEventName = "WithdrawalBurned"

// ContractEventName returns the user-defined event name.
func (BridgeTokenWithdrawalBurned) ContractEventName() string {
	return BridgeTokenWithdrawalBurnedEventName
}

// UnpackWithdrawalBurnedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event WithdrawalBurned(uint256 indexed id, address indexed withdrawer, uint256 amount, address recipient)
func (bridgeToken *BridgeToken) UnpackWithdrawalBurnedEvent(log *types.Log) (*BridgeTokenWithdrawalBurned, error) {
	event := "WithdrawalBurned"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenWithdrawalBurned)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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

// BridgeTokenWithdrawalToKaspa represents a WithdrawalToKaspa event raised by the BridgeToken contract.
type BridgeTokenWithdrawalToKaspa struct {
	Id             *big.Int
	Withdrawer     common.Address
	Amount         *big.Int
	KaspaRecipient string
	Raw            *types.Log // Blockchain specific contextual infos
}

const BridgeTokenWithdrawalToKaspaEventName = "WithdrawalToKaspa"

// ContractEventName returns the user-defined event name.
func (BridgeTokenWithdrawalToKaspa) ContractEventName() string {
	return BridgeTokenWithdrawalToKaspaEventName
}

// UnpackWithdrawalToKaspaEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event WithdrawalToKaspa(uint256 indexed id, address indexed withdrawer, uint256 amount, string kaspaRecipient)
func (bridgeToken *BridgeToken) UnpackWithdrawalToKaspaEvent(log *types.Log) (*BridgeTokenWithdrawalToKaspa, error) {
	event := "WithdrawalToKaspa"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenWithdrawalToKaspa)
	if len(log.Data) > 0 {
		if err := bridgeToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range bridgeToken.abi.Events[event].Inputs {
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
func (bridgeToken *BridgeToken) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["AccessControlBadConfirmation"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackAccessControlBadConfirmationError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["AccessControlUnauthorizedAccount"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackAccessControlUnauthorizedAccountError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["AmountNotWholeSompi"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackAmountNotWholeSompiError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["BadKaspaRecipient"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackBadKaspaRecipientError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackERC20InvalidSpenderError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// BridgeTokenAccessControlBadConfirmation represents a AccessControlBadConfirmation error raised by the BridgeToken contract.
type BridgeTokenAccessControlBadConfirmation struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AccessControlBadConfirmation()
func BridgeTokenAccessControlBadConfirmationErrorID() common.Hash {
	return common.HexToHash("0x6697b23232a647058342c0724fe7c415cab25915b54e5dbc03f233173d37b41c")
}

// UnpackAccessControlBadConfirmationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AccessControlBadConfirmation()
func (bridgeToken *BridgeToken) UnpackAccessControlBadConfirmationError(raw []byte) (*BridgeTokenAccessControlBadConfirmation, error) {
	out := new(BridgeTokenAccessControlBadConfirmation)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "AccessControlBadConfirmation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenAccessControlUnauthorizedAccount represents a AccessControlUnauthorizedAccount error raised by the BridgeToken contract.
type BridgeTokenAccessControlUnauthorizedAccount struct {
	Account    common.Address
	NeededRole [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)
func BridgeTokenAccessControlUnauthorizedAccountErrorID() common.Hash {
	return common.HexToHash("0xe2517d3fbfae6f8515ef5ff1ccedc3933ab0cbbda0b492c06eb54ad10ef03b3e")
}

// UnpackAccessControlUnauthorizedAccountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)
func (bridgeToken *BridgeToken) UnpackAccessControlUnauthorizedAccountError(raw []byte) (*BridgeTokenAccessControlUnauthorizedAccount, error) {
	out := new(BridgeTokenAccessControlUnauthorizedAccount)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "AccessControlUnauthorizedAccount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenAmountNotWholeSompi represents a AmountNotWholeSompi error raised by the BridgeToken contract.
type BridgeTokenAmountNotWholeSompi struct {
	Amount *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AmountNotWholeSompi(uint256 amount)
func BridgeTokenAmountNotWholeSompiErrorID() common.Hash {
	return common.HexToHash("0x98678fa76dfd530e4d4dc25e454c13b3d4dc80267ef54ad78939f99dc1dadc36")
}

// UnpackAmountNotWholeSompiError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AmountNotWholeSompi(uint256 amount)
func (bridgeToken *BridgeToken) UnpackAmountNotWholeSompiError(raw []byte) (*BridgeTokenAmountNotWholeSompi, error) {
	out := new(BridgeTokenAmountNotWholeSompi)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "AmountNotWholeSompi", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenBadKaspaRecipient represents a BadKaspaRecipient error raised by the BridgeToken contract.
type BridgeTokenBadKaspaRecipient struct {
	Length *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadKaspaRecipient(uint256 length)
func BridgeTokenBadKaspaRecipientErrorID() common.Hash {
	return common.HexToHash("0x6816ae365360837cf639b20298da8863ec14c792a5d919abd7472cd820136bcf")
}

// UnpackBadKaspaRecipientError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadKaspaRecipient(uint256 length)
func (bridgeToken *BridgeToken) UnpackBadKaspaRecipientError(raw []byte) (*BridgeTokenBadKaspaRecipient, error) {
	out := new(BridgeTokenBadKaspaRecipient)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "BadKaspaRecipient", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the BridgeToken contract.
type BridgeTokenERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func BridgeTokenERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (bridgeToken *BridgeToken) UnpackERC20InsufficientAllowanceError(raw []byte) (*BridgeTokenERC20InsufficientAllowance, error) {
	out := new(BridgeTokenERC20InsufficientAllowance)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the BridgeToken contract.
type BridgeTokenERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func BridgeTokenERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (bridgeToken *BridgeToken) UnpackERC20InsufficientBalanceError(raw []byte) (*BridgeTokenERC20InsufficientBalance, error) {
	out := new(BridgeTokenERC20InsufficientBalance)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenERC20InvalidApprover represents a ERC20InvalidApprover error raised by the BridgeToken contract.
type BridgeTokenERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func BridgeTokenERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (bridgeToken *BridgeToken) UnpackERC20InvalidApproverError(raw []byte) (*BridgeTokenERC20InvalidApprover, error) {
	out := new(BridgeTokenERC20InvalidApprover)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the BridgeToken contract.
type BridgeTokenERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func BridgeTokenERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (bridgeToken *BridgeToken) UnpackERC20InvalidReceiverError(raw []byte) (*BridgeTokenERC20InvalidReceiver, error) {
	out := new(BridgeTokenERC20InvalidReceiver)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenERC20InvalidSender represents a ERC20InvalidSender error raised by the BridgeToken contract.
type BridgeTokenERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func BridgeTokenERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (bridgeToken *BridgeToken) UnpackERC20InvalidSenderError(raw []byte) (*BridgeTokenERC20InvalidSender, error) {
	out := new(BridgeTokenERC20InvalidSender)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenERC20InvalidSpender represents a ERC20InvalidSpender error raised by the BridgeToken contract.
type BridgeTokenERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func BridgeTokenERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (bridgeToken *BridgeToken) UnpackERC20InvalidSpenderError(raw []byte) (*BridgeTokenERC20InvalidSpender, error) {
	out := new(BridgeTokenERC20InvalidSpender)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}
