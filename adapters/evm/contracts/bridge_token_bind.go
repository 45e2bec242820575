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
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"name_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"symbol_\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"admin\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"relayer\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"minKaspaSompi_\",\"type\":\"uint256\"},{\"internalType\":\"string\",\"name\":\"kaspaPrefix_\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"mintCapacity\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"mintRatePerSecond\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AccessControlBadConfirmation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"neededRole\",\"type\":\"bytes32\"}],\"name\":\"AccessControlUnauthorizedAccount\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"AmountNotWholeSompi\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"position\",\"type\":\"uint256\"}],\"name\":\"BadKaspaAddressCharacter\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"length\",\"type\":\"uint256\"}],\"name\":\"BadKaspaRecipient\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"ratePerSecond\",\"type\":\"uint256\"}],\"name\":\"BadRateLimit\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"minimum\",\"type\":\"uint256\"}],\"name\":\"KaspaAmountBelowMinimum\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requested\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"}],\"name\":\"RateLimitOverCapacity\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requested\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"available\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"waitSeconds\",\"type\":\"uint256\"}],\"name\":\"RateLimited\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"recipient\",\"type\":\"string\"}],\"name\":\"WrongKaspaPrefix\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"depositKey\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"DepositMinted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"ratePerSecond\",\"type\":\"uint256\"}],\"name\":\"RateLimitSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"refundKey\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"burner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Refunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"previousAdminRole\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"newAdminRole\",\"type\":\"bytes32\"}],\"name\":\"RoleAdminChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleGranted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"RoleRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"withdrawer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"WithdrawalBurned\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"withdrawer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"kaspaRecipient\",\"type\":\"string\"}],\"name\":\"WithdrawalToKaspa\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEFAULT_ADMIN_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"KASPA_PAYLOAD_LONG\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"KASPA_PAYLOAD_SHORT\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_KASPA_RECIPIENT_BYTES\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RELAYER_ROLE\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WEI_PER_SOMPI\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"recipient\",\"type\":\"address\"}],\"name\":\"burn\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"string\",\"name\":\"kaspaRecipient\",\"type\":\"string\"}],\"name\":\"burnToKaspa\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"id\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"}],\"name\":\"getRoleAdmin\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"grantRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"hasRole\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"kaspaPrefix\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"kaspaWithdrawalCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"minKaspaSompi\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"depositKey\",\"type\":\"bytes32\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"depositKey\",\"type\":\"bytes32\"}],\"name\":\"minted\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rateLimitAvailable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rateLimitCapacity\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rateLimitPerSecond\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"burner\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"refundKey\",\"type\":\"bytes32\"}],\"name\":\"refund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"refundKey\",\"type\":\"bytes32\"}],\"name\":\"refunded\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"callerConfirmation\",\"type\":\"address\"}],\"name\":\"renounceRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"role\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"revokeRole\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"capacity\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"ratePerSecond\",\"type\":\"uint256\"}],\"name\":\"setRateLimit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes4\",\"name\":\"interfaceId\",\"type\":\"bytes4\"}],\"name\":\"supportsInterface\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"withdrawalCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "BridgeToken",
	Bin: "0x60a06040523461070f576121378038038061001981610713565b9283398101906101008183031261070f5780516001600160401b03811161070f5782610046918301610738565b60208201519092906001600160401b03811161070f5781610068918401610738565b9061007560408401610789565b9361008260608501610789565b9360808101519260a08201519060018060401b03821161070f576100a7918301610738565b9360e060c08301519201519280519060018060401b0382116103cb5760035490600182811c92168015610705575b60208310146103ad5781601f84931161068f575b50602090601f8311600114610629575f9261061e575b50508160011b915f199060031b1c1916176003555b8051906001600160401b0382116103cb5760045490600182811c92168015610614575b60208310146103ad5781601f84931161059e575b50602090601f8311600114610538575f9261052d575b50508160011b915f199060031b1c1916176004555b80158015610525575b8015610515575b8015610505575b6104f057600654608081901c6001600160401b0316908161048d575050805f5160206121175f395f51905f52926040925b82811015610486575b600680546001600160c01b0319166001600160801b039283161742608090811b600160801b600160c01b03169190911790915582901b6001600160801b0319169083161760075582519182526020820152a18151811561044c578015159081610417575b50156103df576080528051906001600160401b0382116103cb57600b54600181811c911680156103c1575b60208210146103ad57601f811161033f575b50602090601f83116001146102d35791806102a895926102a2945f926102c8575b50508160011b915f199060031b1c191617600b5561079d565b50610813565b5060405161181090816108a782396080518181816102eb0152610cf70152f35b015190505f80610289565b90601f19831691600b5f52815f20925f5b81811061032757509260019285926102a2966102a899961061030f575b505050811b01600b5561079d565b01515f1960f88460031b161c191690555f8080610301565b929360206001819287860151815501950193016102e4565b8281111561026857600b5f52601f830160051c7f0175b7a638427703f0dbe7bb9bbf987a2551717b34e79f33b5b1008d1fa01db9602085106103a5575b81601f9101920160051c03905f5b828110610398575050610268565b5f8282015560010161038a565b5f915061037c565b634e487b7160e01b5f52602260045260245ffd5b90607f1690610256565b634e487b7160e01b5f52604160045260245ffd5b60405162461bcd60e51b815260206004820152601060248201526f0c4c2c840d6c2e6e0c240e0e4caccd2f60831b6044820152606490fd5b6001810191508181116104385760400180911161043857606410155f61022b565b634e487b7160e01b5f52601160045260245ffd5b60405162461bcd60e51b81526020600482015260126024820152717a65726f206b61737061206d696e696d756d60701b6044820152606490fd5b50816101c7565b6007546001600160801b03918216949181169392428181039260801c90831161043857808302928304149042141715610438578401809411610438575f5160206121175f395f51905f5293604093808210156104e957506101be565b90506101be565b631182ed7560e11b5f5260045260245260445ffd5b506001600160801b03821161018d565b506001600160801b038111610186565b50811561017f565b015190505f80610161565b60045f9081528281209350601f198516905b818110610586575090846001959493921061056e575b505050811b01600455610176565b01515f1960f88460031b161c191690555f8080610560565b9293602060018192878601518155019501930161054a565b8281111561014b5760045f52909150601f830160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b6020851061060c575b849392601f0160051c82900391015f5b8281106105fc57505061014b565b5f818301558594506001016105ee565b5f91506105de565b91607f1691610137565b015190505f806100ff565b60035f9081528281209350601f198516905b818110610677575090846001959493921061065f575b505050811b01600355610114565b01515f1960f88460031b161c191690555f8080610651565b9293602060018192878601518155019501930161063b565b828111156100e95760035f52909150601f830160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b602085106106fd575b849392601f0160051c82900391015f5b8281106106ed5750506100e9565b5f818301558594506001016106df565b5f91506106cf565b91607f16916100d5565b5f80fd5b6040519190601f01601f191682016001600160401b038111838210176103cb57604052565b81601f8201121561070f578051906001600160401b0382116103cb57610767601f8301601f1916602001610713565b928284526020838301011161070f57815f9260208093018386015e8301015290565b51906001600160a01b038216820361070f57565b6001600160a01b0381165f9081525f5160206120f75f395f51905f52602052604090205460ff1661080e576001600160a01b03165f8181525f5160206120f75f395f51905f5260205260408120805460ff191660011790553391905f5160206120b75f395f51905f528180a4600190565b505f90565b6001600160a01b0381165f9081525f5160206120d75f395f51905f52602052604090205460ff1661080e576001600160a01b03165f8181525f5160206120d75f395f51905f5260205260408120805460ff191660011790553391907fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc4905f5160206120b75f395f51905f529080a460019056fe6080806040526004361015610012575f80fd5b5f3560e01c90816301ffc9a7146111205750806306fdde031461107b578063095ea7b314610ff95780630e66ac1214610f1e57806311e356ff14610f0357806318160ddd14610ee65780631e458bee14610e2457806323b872dd14610d45578063248a9ca314610d1a578063271bef1e14610ce05780632f2ff15d14610ca2578063313ce56714610c8757806336568abe14610c4357806342501e0114610c2357806370a0823114610bec57806371706cbe14610bcf57806376a25f6014610bb05780637c41f7dc14610b935780638ccc5f8014610b6457806391d1485414610b1b578063926d7d7f14610ae157806395d89b4114610a3c578063a217fddf14610a22578063a3b507d514610a00578063a9059cbb146109cf578063ac90aabb146108f5578063b53f52271461074f578063b6d828fc14610729578063c692b40b1461070e578063d547741f146106c9578063dd62ed3e14610679578063e54014eb1461027c578063f05e0f7e1461024d578063f38151af146102325763fcd3533c1461019d575f80fd5b3461022e57604036600319011261022e5760206004356101bb6111b3565b6101c682151561124d565b6001600160a01b0316906101db821515611287565b6101e5813361171e565b6101f06009546112c4565b918260095560405191825283820152817f107bb2869466913e6c4a2dadd4fe6890b56c2112bfa88a1201a1fb1141bdd30c60403393a3604051908152f35b5f80fd5b3461022e575f36600319011261022e57602060405160648152f35b3461022e57602036600319011261022e576004355f52600c602052602060ff60405f2054166040519015158152f35b3461022e57604036600319011261022e5760043560243567ffffffffffffffff811161022e573660238201121561022e57806004013567ffffffffffffffff811161022e576024820191366024838301011161022e576102dd84151561124d565b6402540be4008406610666577f00000000000000000000000000000000000000000000000000000000000000006402540be4008102908082046402540be40014901517156104ae5780851061065057506064821161063d57604051600b5491905f81610348856111f3565b9182825260208201956001811690815f1461062157506001146105c2575b6103729250038261122b565b8051928385119283159361059d575b8315610527575b5050506104fe576103998183611704565b5f1981019081116104ae57603d8114159081806104f3575b6104e1575060018201908183116104ae576001600160f81b03196103d68386886116e4565b351690607160f81b82141591826104c2575b505061049c5750600281018091116104ae575b81811061046b5750826104106020943361171e565b7f0c5077aa4d2ad3a84743796dbbfe844344a779852b98d4ae67ea11c383ea47b261043c600a546112c4565b93849283600a556104606040519283928352604089840152339660408401916112d2565b0390a3604051908152f35b60016f07ff7dfa0000000003fd0000000000006104898385876116e4565b3560f81c1c161561049c576001016103fb565b63a3c8352160e01b5f5260045260245ffd5b634e487b7160e01b5f52601160045260245ffd5b600760fc1b14801592506104d9575b5086806103e8565b9050866104d1565b63340b571b60e11b5f5260045260245ffd5b50603f8114156103b1565b506105236040519283926304269e7d60e41b84526020600485015260248401916112d2565b0390fd5b9091925084841161022e5767ffffffffffffffff841161058957604051610558601f8601601f19166020018261122b565b8481526020810191602486369201011161022e57848783375f60208683010152519020915190201415858080610388565b634e487b7160e01b5f52604160045260245ffd5b9250601d60f91b6001600160f81b03196105b886888a6116e4565b3516141592610381565b5090600b5f527f0175b7a638427703f0dbe7bb9bbf987a2551717b34e79f33b5b1008d1fa01db9905f915b81831061060557505090602061037292820101610366565b60209193508060019154838588010152019101909183926105ed565b60ff191687525061037292151560051b82016020019050610366565b5063340b571b60e11b5f5260045260245ffd5b84633df758d160e01b5f5260045260245260445ffd5b836398678fa760e01b5f5260045260245ffd5b3461022e57604036600319011261022e5761069261119d565b61069a6111b3565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b3461022e57604036600319011261022e5761070c6004356106e86111b3565b90610707610702825f526005602052600160405f20015490565b611361565b61162f565b005b3461022e575f36600319011261022e576020604051603f8152f35b3461022e575f36600319011261022e5760206001600160801b0360075416604051908152f35b3461022e57604036600319011261022e57335f9081527f05b8ccbb9d4d8fb16ea74ce3c29a41f1b461fbdaff4714a0d9a8eb05499746bc6020526040902054602435906004359060ff16156108de57801580156108d6575b80156108c6575b80156108b6575b6108a1576040907f120d3d0ec313528ff2b46390b335f973cae83e92345e3431ded6795864543c169267ffffffffffffffff60065460801c16155f1461089457815b82811015610882576001600160801b03610829915b166001600160801b03166001600160801b03196006541617600655565b6006805467ffffffffffffffff60801b19164260801b67ffffffffffffffff60801b16179055608081901b6fffffffffffffffffffffffffffffffff19166001600160801b0383161760075582519182526020820152a1005b506108296001600160801b038361080c565b61089c6116b3565b6107f7565b631182ed7560e11b5f5260045260245260445ffd5b506001600160801b0382116107b5565b506001600160801b0381116107ae565b5081156107a7565b63e2517d3f60e01b5f52336004525f60245260445ffd5b3461022e575f36600319011261022e576040515f600b54610915816111f3565b80845290600181169081156109ab575060011461094d575b6109498361093d8185038261122b565b60405191829182611173565b0390f35b600b5f9081527f0175b7a638427703f0dbe7bb9bbf987a2551717b34e79f33b5b1008d1fa01db9939250905b8082106109915750909150810160200161093d61092d565b919260018160209254838588010152019101909291610979565b60ff191660208086019190915291151560051b8401909101915061093d905061092d565b3461022e57604036600319011261022e576109f56109eb61119d565b60243590336114f9565b602060405160018152f35b3461022e575f36600319011261022e576020610a1a6116b3565b604051908152f35b3461022e575f36600319011261022e5760206040515f8152f35b3461022e575f36600319011261022e576040515f600454610a5c816111f3565b80845290600181169081156109ab5750600114610a83576109498361093d8185038261122b565b60045f9081527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b939250905b808210610ac75750909150810160200161093d61092d565b919260018160209254838588010152019101909291610aaf565b3461022e575f36600319011261022e5760206040517fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc48152f35b3461022e57604036600319011261022e57610b346111b3565b6004355f52600560205260405f209060018060a01b03165f52602052602060ff60405f2054166040519015158152f35b3461022e57602036600319011261022e576004355f526008602052602060ff60405f2054166040519015158152f35b3461022e575f36600319011261022e576020600a54604051908152f35b3461022e575f36600319011261022e5760206040516402540be4008152f35b3461022e575f36600319011261022e576020600954604051908152f35b3461022e57602036600319011261022e576001600160a01b03610c0d61119d565b165f525f602052602060405f2054604051908152f35b3461022e575f36600319011261022e57602060075460801c604051908152f35b3461022e57604036600319011261022e57610c5c6111b3565b336001600160a01b03821603610c785761070c9060043561162f565b63334bd91960e11b5f5260045ffd5b3461022e575f36600319011261022e57602060405160128152f35b3461022e57604036600319011261022e5761070c600435610cc16111b3565b90610cdb610702825f526005602052600160405f20015490565b6115a3565b3461022e575f36600319011261022e5760206040517f00000000000000000000000000000000000000000000000000000000000000008152f35b3461022e57602036600319011261022e576020610a1a6004355f526005602052600160405f20015490565b3461022e57606036600319011261022e57610d5e61119d565b610d666111b3565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f198110610da4575b506109f593506114f9565b838110610e09578415610df6573315610de3576109f5945f52600160205260405f2060018060a01b0333165f526020528360405f209103905584610d99565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b3461022e57610e32366111c9565b9091610e3c6112f2565b815f52600860205260ff60405f205416610eb05760207f0cfe4923db11ce7ab1cb18095532a365e8e21cbdcf56eabf0d8689a9e4fa17bf91835f526008825260405f20600160ff19825416179055610e938561139b565b610e9d8582611489565b6040519485526001600160a01b031693a3005b60405162461bcd60e51b815260206004820152600e60248201526d185b1c9958591e481b5a5b9d195960921b6044820152606490fd5b3461022e575f36600319011261022e576020600254604051908152f35b3461022e575f36600319011261022e576020604051603d8152f35b3461022e57610f2c366111c9565b90610f356112f2565b815f52600c60205260ff60405f205416610fc157602081610f787ff552ca82e113ac3c539c3d617f29fcd19c172a0c75dad017555c9e109f7fe18393151561124d565b6001600160a01b03851694610fb8908290610f94881515611287565b865f52600c855260405f20600160ff19825416179055610fb38261139b565b611489565b604051908152a3005b60405162461bcd60e51b815260206004820152601060248201526f185b1c9958591e481c99599d5b99195960821b6044820152606490fd5b3461022e57604036600319011261022e5761101261119d565b602435903315610df6576001600160a01b0316908115610de357335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b3461022e575f36600319011261022e576040515f60035461109b816111f3565b80845290600181169081156109ab57506001146110c2576109498361093d8185038261122b565b60035f9081527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b939250905b8082106111065750909150810160200161093d61092d565b9192600181602092548385880101520191019092916110ee565b3461022e57602036600319011261022e576004359063ffffffff60e01b821680920361022e57602091637965db0b60e01b8114908115611162575b5015158152f35b6301ffc9a760e01b1490508361115b565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b600435906001600160a01b038216820361022e57565b602435906001600160a01b038216820361022e57565b606090600319011261022e576004356001600160a01b038116810361022e57906024359060443590565b90600182811c92168015611221575b602083101461120d57565b634e487b7160e01b5f52602260045260245ffd5b91607f1691611202565b90601f8019910116810190811067ffffffffffffffff82111761058957604052565b1561125457565b60405162461bcd60e51b815260206004820152600b60248201526a1e995c9bc8185b5bdd5b9d60aa1b6044820152606490fd5b1561128e57565b60405162461bcd60e51b815260206004820152600e60248201526d1e995c9bc81c9958da5c1a595b9d60921b6044820152606490fd5b5f1981146104ae5760010190565b908060209392818452848401375f828201840152601f01601f1916010190565b335f9081527f650b582881666d0aa4858e36be4ebd8137de1fbdd08972b18503fdbaca9f9e4f602052604090205460ff161561132a57565b63e2517d3f60e01b5f52336004527fe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc460245260445ffd5b5f81815260056020908152604080832033845290915290205460ff16156113855750565b63e2517d3f60e01b5f523360045260245260445ffd5b6007546001600160801b0381169060801c6113d160065482846001600160801b0367ffffffffffffffff8460801c1693166117a2565b91808411611473575081831161141f575061080c6113f7926001600160801b0392611704565b6006805467ffffffffffffffff60801b19164260801b67ffffffffffffffff60801b16179055565b92506114348361142f8385611704565b611711565b5f198101929083116104ae57831561145f5763540aee4d60e11b5f526004526024520460445260645ffd5b634e487b7160e01b5f52601260045260245ffd5b83633a4794cf60e11b5f5260045260245260445ffd5b6001600160a01b03169081156114e6577fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef6020826114ca5f94600254611711565b60025584845283825260408420818154019055604051908152a3565b63ec442f0560e01b5f525f60045260245ffd5b6001600160a01b0316908115611590576001600160a01b03169182156114e657815f525f60205260405f205481811061157757817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a3565b8263391434e360e21b5f5260045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffd5b5f8181526005602090815260408083206001600160a01b038616845290915290205460ff16611629575f8181526005602090815260408083206001600160a01b0395909516808452949091528120805460ff19166001179055339291907f2f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d9080a4600190565b50505f90565b5f8181526005602090815260408083206001600160a01b038616845290915290205460ff1615611629575f8181526005602090815260408083206001600160a01b0395909516808452949091528120805460ff19169055339291907ff6391f5c32d9c69d2a47ea670b442974b53935d1edc7fd64eb21e047a839171b9080a4600190565b6116e160065460075467ffffffffffffffff8260801c16916001600160801b03808360801c931691166117a2565b90565b908210156116f0570190565b634e487b7160e01b5f52603260045260245ffd5b919082039182116104ae57565b919082018092116104ae57565b9091906001600160a01b0316801561159057805f525f60205260405f2054838110611788576020845f94957fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef938587528684520360408620558060025403600255604051908152a3565b915063391434e360e21b5f5260045260245260445260645ffd5b9190926117af9042611704565b8181029181830414901517156104ae576117c891611711565b90808210156117d5575090565b90509056fea2646970667358221220693b297a9563a42942d6f80b9d76b46cf2b125ee29c6424c82d61dfb40e9e60f64736f6c634300082500332f8788117e7eff1d82e926ec794901d17c78024a50270940304540a733656f0d650b582881666d0aa4858e36be4ebd8137de1fbdd08972b18503fdbaca9f9e4f05b8ccbb9d4d8fb16ea74ce3c29a41f1b461fbdaff4714a0d9a8eb05499746bc120d3d0ec313528ff2b46390b335f973cae83e92345e3431ded6795864543c16",
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
// Solidity: constructor(string name_, string symbol_, address admin, address relayer, uint256 minKaspaSompi_, string kaspaPrefix_, uint256 mintCapacity, uint256 mintRatePerSecond) returns()
func (bridgeToken *BridgeToken) PackConstructor(name_ string, symbol_ string, admin common.Address, relayer common.Address, minKaspaSompi_ *big.Int, kaspaPrefix_ string, mintCapacity *big.Int, mintRatePerSecond *big.Int) []byte {
	enc, err := bridgeToken.abi.Pack("", name_, symbol_, admin, relayer, minKaspaSompi_, kaspaPrefix_, mintCapacity, mintRatePerSecond)
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

// PackKASPAPAYLOADLONG is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc692b40b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function KASPA_PAYLOAD_LONG() view returns(uint256)
func (bridgeToken *BridgeToken) PackKASPAPAYLOADLONG() []byte {
	enc, err := bridgeToken.abi.Pack("KASPA_PAYLOAD_LONG")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackKASPAPAYLOADLONG is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc692b40b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function KASPA_PAYLOAD_LONG() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackKASPAPAYLOADLONG() ([]byte, error) {
	return bridgeToken.abi.Pack("KASPA_PAYLOAD_LONG")
}

// UnpackKASPAPAYLOADLONG is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc692b40b.
//
// Solidity: function KASPA_PAYLOAD_LONG() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackKASPAPAYLOADLONG(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("KASPA_PAYLOAD_LONG", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackKASPAPAYLOADSHORT is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x11e356ff.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function KASPA_PAYLOAD_SHORT() view returns(uint256)
func (bridgeToken *BridgeToken) PackKASPAPAYLOADSHORT() []byte {
	enc, err := bridgeToken.abi.Pack("KASPA_PAYLOAD_SHORT")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackKASPAPAYLOADSHORT is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x11e356ff.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function KASPA_PAYLOAD_SHORT() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackKASPAPAYLOADSHORT() ([]byte, error) {
	return bridgeToken.abi.Pack("KASPA_PAYLOAD_SHORT")
}

// UnpackKASPAPAYLOADSHORT is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x11e356ff.
//
// Solidity: function KASPA_PAYLOAD_SHORT() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackKASPAPAYLOADSHORT(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("KASPA_PAYLOAD_SHORT", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
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

// PackKaspaPrefix is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xac90aabb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function kaspaPrefix() view returns(string)
func (bridgeToken *BridgeToken) PackKaspaPrefix() []byte {
	enc, err := bridgeToken.abi.Pack("kaspaPrefix")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackKaspaPrefix is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xac90aabb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function kaspaPrefix() view returns(string)
func (bridgeToken *BridgeToken) TryPackKaspaPrefix() ([]byte, error) {
	return bridgeToken.abi.Pack("kaspaPrefix")
}

// UnpackKaspaPrefix is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xac90aabb.
//
// Solidity: function kaspaPrefix() view returns(string)
func (bridgeToken *BridgeToken) UnpackKaspaPrefix(data []byte) (string, error) {
	out, err := bridgeToken.abi.Unpack("kaspaPrefix", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
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

// PackMinKaspaSompi is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x271bef1e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function minKaspaSompi() view returns(uint256)
func (bridgeToken *BridgeToken) PackMinKaspaSompi() []byte {
	enc, err := bridgeToken.abi.Pack("minKaspaSompi")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMinKaspaSompi is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x271bef1e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function minKaspaSompi() view returns(uint256)
func (bridgeToken *BridgeToken) TryPackMinKaspaSompi() ([]byte, error) {
	return bridgeToken.abi.Pack("minKaspaSompi")
}

// UnpackMinKaspaSompi is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x271bef1e.
//
// Solidity: function minKaspaSompi() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackMinKaspaSompi(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("minKaspaSompi", data)
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

// PackRateLimitAvailable is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa3b507d5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rateLimitAvailable() view returns(uint256)
func (bridgeToken *BridgeToken) PackRateLimitAvailable() []byte {
	enc, err := bridgeToken.abi.Pack("rateLimitAvailable")
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
func (bridgeToken *BridgeToken) TryPackRateLimitAvailable() ([]byte, error) {
	return bridgeToken.abi.Pack("rateLimitAvailable")
}

// UnpackRateLimitAvailable is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa3b507d5.
//
// Solidity: function rateLimitAvailable() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackRateLimitAvailable(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("rateLimitAvailable", data)
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
func (bridgeToken *BridgeToken) PackRateLimitCapacity() []byte {
	enc, err := bridgeToken.abi.Pack("rateLimitCapacity")
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
func (bridgeToken *BridgeToken) TryPackRateLimitCapacity() ([]byte, error) {
	return bridgeToken.abi.Pack("rateLimitCapacity")
}

// UnpackRateLimitCapacity is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6d828fc.
//
// Solidity: function rateLimitCapacity() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackRateLimitCapacity(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("rateLimitCapacity", data)
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
func (bridgeToken *BridgeToken) PackRateLimitPerSecond() []byte {
	enc, err := bridgeToken.abi.Pack("rateLimitPerSecond")
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
func (bridgeToken *BridgeToken) TryPackRateLimitPerSecond() ([]byte, error) {
	return bridgeToken.abi.Pack("rateLimitPerSecond")
}

// UnpackRateLimitPerSecond is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42501e01.
//
// Solidity: function rateLimitPerSecond() view returns(uint256)
func (bridgeToken *BridgeToken) UnpackRateLimitPerSecond(data []byte) (*big.Int, error) {
	out, err := bridgeToken.abi.Unpack("rateLimitPerSecond", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e66ac12.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refund(address burner, uint256 amount, bytes32 refundKey) returns()
func (bridgeToken *BridgeToken) PackRefund(burner common.Address, amount *big.Int, refundKey [32]byte) []byte {
	enc, err := bridgeToken.abi.Pack("refund", burner, amount, refundKey)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e66ac12.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refund(address burner, uint256 amount, bytes32 refundKey) returns()
func (bridgeToken *BridgeToken) TryPackRefund(burner common.Address, amount *big.Int, refundKey [32]byte) ([]byte, error) {
	return bridgeToken.abi.Pack("refund", burner, amount, refundKey)
}

// PackRefunded is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf05e0f7e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refunded(bytes32 refundKey) view returns(bool)
func (bridgeToken *BridgeToken) PackRefunded(refundKey [32]byte) []byte {
	enc, err := bridgeToken.abi.Pack("refunded", refundKey)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefunded is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf05e0f7e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refunded(bytes32 refundKey) view returns(bool)
func (bridgeToken *BridgeToken) TryPackRefunded(refundKey [32]byte) ([]byte, error) {
	return bridgeToken.abi.Pack("refunded", refundKey)
}

// UnpackRefunded is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf05e0f7e.
//
// Solidity: function refunded(bytes32 refundKey) view returns(bool)
func (bridgeToken *BridgeToken) UnpackRefunded(data []byte) (bool, error) {
	out, err := bridgeToken.abi.Unpack("refunded", data)
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

// PackSetRateLimit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb53f5227.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setRateLimit(uint256 capacity, uint256 ratePerSecond) returns()
func (bridgeToken *BridgeToken) PackSetRateLimit(capacity *big.Int, ratePerSecond *big.Int) []byte {
	enc, err := bridgeToken.abi.Pack("setRateLimit", capacity, ratePerSecond)
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
func (bridgeToken *BridgeToken) TryPackSetRateLimit(capacity *big.Int, ratePerSecond *big.Int) ([]byte, error) {
	return bridgeToken.abi.Pack("setRateLimit", capacity, ratePerSecond)
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

// BridgeTokenRateLimitSet represents a RateLimitSet event raised by the BridgeToken contract.
type BridgeTokenRateLimitSet struct {
	Capacity      *big.Int
	RatePerSecond *big.Int
	Raw           *types.Log // Blockchain specific contextual infos
}

const BridgeTokenRateLimitSetEventName = "RateLimitSet"

// ContractEventName returns the user-defined event name.
func (BridgeTokenRateLimitSet) ContractEventName() string {
	return BridgeTokenRateLimitSetEventName
}

// UnpackRateLimitSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RateLimitSet(uint256 capacity, uint256 ratePerSecond)
func (bridgeToken *BridgeToken) UnpackRateLimitSetEvent(log *types.Log) (*BridgeTokenRateLimitSet, error) {
	event := "RateLimitSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenRateLimitSet)
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

// BridgeTokenRefunded represents a Refunded event raised by the BridgeToken contract.
type BridgeTokenRefunded struct {
	RefundKey [32]byte
	Burner    common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const BridgeTokenRefundedEventName = "Refunded"

// ContractEventName returns the user-defined event name.
func (BridgeTokenRefunded) ContractEventName() string {
	return BridgeTokenRefundedEventName
}

// UnpackRefundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Refunded(bytes32 indexed refundKey, address indexed burner, uint256 amount)
func (bridgeToken *BridgeToken) UnpackRefundedEvent(log *types.Log) (*BridgeTokenRefunded, error) {
	event := "Refunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != bridgeToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BridgeTokenRefunded)
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
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["BadKaspaAddressCharacter"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackBadKaspaAddressCharacterError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["BadKaspaRecipient"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackBadKaspaRecipientError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["BadRateLimit"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackBadRateLimitError(raw[4:])
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
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["KaspaAmountBelowMinimum"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackKaspaAmountBelowMinimumError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["RateLimitOverCapacity"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackRateLimitOverCapacityError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["RateLimited"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackRateLimitedError(raw[4:])
	}
	if bytes.Equal(raw[:4], bridgeToken.abi.Errors["WrongKaspaPrefix"].ID.Bytes()[:4]) {
		return bridgeToken.UnpackWrongKaspaPrefixError(raw[4:])
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

// BridgeTokenBadKaspaAddressCharacter represents a BadKaspaAddressCharacter error raised by the BridgeToken contract.
type BridgeTokenBadKaspaAddressCharacter struct {
	Position *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadKaspaAddressCharacter(uint256 position)
func BridgeTokenBadKaspaAddressCharacterErrorID() common.Hash {
	return common.HexToHash("0xa3c83521854d86641501b06726d16c43a079e072b74051b79cd4cf8fbec737ae")
}

// UnpackBadKaspaAddressCharacterError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadKaspaAddressCharacter(uint256 position)
func (bridgeToken *BridgeToken) UnpackBadKaspaAddressCharacterError(raw []byte) (*BridgeTokenBadKaspaAddressCharacter, error) {
	out := new(BridgeTokenBadKaspaAddressCharacter)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "BadKaspaAddressCharacter", raw); err != nil {
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

// BridgeTokenBadRateLimit represents a BadRateLimit error raised by the BridgeToken contract.
type BridgeTokenBadRateLimit struct {
	Capacity      *big.Int
	RatePerSecond *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadRateLimit(uint256 capacity, uint256 ratePerSecond)
func BridgeTokenBadRateLimitErrorID() common.Hash {
	return common.HexToHash("0x2305daea579aa83c1b2c46f568690e4e8faf12eb9f959ec625670a1a67c8866c")
}

// UnpackBadRateLimitError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadRateLimit(uint256 capacity, uint256 ratePerSecond)
func (bridgeToken *BridgeToken) UnpackBadRateLimitError(raw []byte) (*BridgeTokenBadRateLimit, error) {
	out := new(BridgeTokenBadRateLimit)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "BadRateLimit", raw); err != nil {
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

// BridgeTokenKaspaAmountBelowMinimum represents a KaspaAmountBelowMinimum error raised by the BridgeToken contract.
type BridgeTokenKaspaAmountBelowMinimum struct {
	Amount  *big.Int
	Minimum *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error KaspaAmountBelowMinimum(uint256 amount, uint256 minimum)
func BridgeTokenKaspaAmountBelowMinimumErrorID() common.Hash {
	return common.HexToHash("0x3df758d19a42420c07552f5ec8708075f25df10cf5899b65cd1a0700be00d4a0")
}

// UnpackKaspaAmountBelowMinimumError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error KaspaAmountBelowMinimum(uint256 amount, uint256 minimum)
func (bridgeToken *BridgeToken) UnpackKaspaAmountBelowMinimumError(raw []byte) (*BridgeTokenKaspaAmountBelowMinimum, error) {
	out := new(BridgeTokenKaspaAmountBelowMinimum)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "KaspaAmountBelowMinimum", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenRateLimitOverCapacity represents a RateLimitOverCapacity error raised by the BridgeToken contract.
type BridgeTokenRateLimitOverCapacity struct {
	Requested *big.Int
	Capacity  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RateLimitOverCapacity(uint256 requested, uint256 capacity)
func BridgeTokenRateLimitOverCapacityErrorID() common.Hash {
	return common.HexToHash("0x748f299e60af1cb0e79aed57276bffe21de8bc6f543f1930194b80b74601f4f9")
}

// UnpackRateLimitOverCapacityError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RateLimitOverCapacity(uint256 requested, uint256 capacity)
func (bridgeToken *BridgeToken) UnpackRateLimitOverCapacityError(raw []byte) (*BridgeTokenRateLimitOverCapacity, error) {
	out := new(BridgeTokenRateLimitOverCapacity)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "RateLimitOverCapacity", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenRateLimited represents a RateLimited error raised by the BridgeToken contract.
type BridgeTokenRateLimited struct {
	Requested   *big.Int
	Available   *big.Int
	WaitSeconds *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RateLimited(uint256 requested, uint256 available, uint256 waitSeconds)
func BridgeTokenRateLimitedErrorID() common.Hash {
	return common.HexToHash("0xa815dc9ab4cc3f72866c5f06808b4ae765626589490a8010bee55f80f3eece9a")
}

// UnpackRateLimitedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RateLimited(uint256 requested, uint256 available, uint256 waitSeconds)
func (bridgeToken *BridgeToken) UnpackRateLimitedError(raw []byte) (*BridgeTokenRateLimited, error) {
	out := new(BridgeTokenRateLimited)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "RateLimited", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BridgeTokenWrongKaspaPrefix represents a WrongKaspaPrefix error raised by the BridgeToken contract.
type BridgeTokenWrongKaspaPrefix struct {
	Recipient string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongKaspaPrefix(string recipient)
func BridgeTokenWrongKaspaPrefixErrorID() common.Hash {
	return common.HexToHash("0x4269e7d0b2bddcb6ce7a0abd53fa1d7e34ace7cf8d1b4443eaa813d0398aee62")
}

// UnpackWrongKaspaPrefixError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongKaspaPrefix(string recipient)
func (bridgeToken *BridgeToken) UnpackWrongKaspaPrefixError(raw []byte) (*BridgeTokenWrongKaspaPrefix, error) {
	out := new(BridgeTokenWrongKaspaPrefix)
	if err := bridgeToken.abi.UnpackIntoInterface(out, "WrongKaspaPrefix", raw); err != nil {
		return nil, err
	}
	return out, nil
}
