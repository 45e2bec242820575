package contracts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/domain"
)

// Deploying onto a live chain: what `bridgelog contracts deploy` does
// through a wallet it does not hold the key of. Each step is one call
// here, so the command can check everything before it sends anything.

var (
	// ErrDeployerFunds: the deployer cannot pay for the deployments.
	ErrDeployerFunds = errors.New("deployer has insufficient funds")
	// ErrBytecode: the code at a deployed address is not what the
	// committed artifacts create.
	ErrBytecode = errors.New("deployed bytecode differs from the artifacts")
	// ErrDeployFailed: a deployment transaction reverted, or a contract
	// lacks a role it was given.
	ErrDeployFailed = errors.New("deployment failed")
)

// LiveChain is what deploying needs of a node (an ethclient.Client).
type LiveChain interface {
	bind.ContractBackend
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
	BlockNumber(ctx context.Context) (uint64, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// Creation is a contract's creation code with its constructor arguments:
// the data of the transaction that deploys it.
type Creation struct {
	Name string
	Code []byte
}

// DistributorCreation creates a BatchDistributor whose admin may grant
// roles and set its limit, whose relayer may anchor roots, and whose
// claims pay at most what claims lets through.
func DistributorCreation(admin, relayer common.Address, claims RateLimit) Creation {
	capacity, rate := claims.args()
	return Creation{Name: "BatchDistributor",
		Code: append(common.FromHex(BatchDistributorMetaData.Bin), NewBatchDistributor().PackConstructor(admin, relayer, capacity, rate)...)}
}

// KaspaBurnRules are what a BridgeToken refuses at burn time because the
// signers could never pay it: an amount under MinSompi, a recipient that
// is not an address of the network whose prefix is Prefix.
type KaspaBurnRules struct {
	// MinSompi is the least burn toward Kaspa in sompi; 0 means
	// domain.MinKaspaPayoutSompi.
	MinSompi uint64
	// Prefix is the Kaspa network's address prefix without the colon:
	// "kaspa", "kaspatest", "kaspadev" or "kaspasim".
	Prefix string
}

// MinWei is the least burn in wei of the token.
func (k KaspaBurnRules) MinWei() *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(k.min()), big.NewInt(domain.WeiPerSompi))
}

func (k KaspaBurnRules) min() uint64 {
	if k.MinSompi == 0 {
		return domain.MinKaspaPayoutSompi
	}
	return k.MinSompi
}

// TokenCreation creates a BridgeToken whose relayer may mint and refund
// at most what mints lets through, refusing burns toward Kaspa that break k.
func TokenCreation(name, symbol string, admin, relayer common.Address, k KaspaBurnRules, mints RateLimit) Creation {
	capacity, rate := mints.args()
	return Creation{Name: "BridgeToken",
		Code: append(common.FromHex(BridgeTokenMetaData.Bin),
			NewBridgeToken().PackConstructor(name, symbol, admin, relayer, new(big.Int).SetUint64(k.min()), k.Prefix, capacity, rate)...)}
}

// DeployCost is the most deploying cs from `from` may cost at today's
// fees: each creation's gas estimate at a fee cap of twice the base fee
// plus the suggested tip, which is what the bindings offer.
func DeployCost(ctx context.Context, c LiveChain, from common.Address, cs ...Creation) (*big.Int, error) {
	feeCap, err := feeCap(ctx, c)
	if err != nil {
		return nil, err
	}
	total := new(big.Int)
	for _, cr := range cs {
		gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, Data: cr.Code})
		if err != nil {
			return nil, fmt.Errorf("estimating the gas of the %s creation: %w", cr.Name, DecodeRevert(err))
		}
		total.Add(total, new(big.Int).Mul(new(big.Int).SetUint64(gas), feeCap))
	}
	return total, nil
}

func feeCap(ctx context.Context, c LiveChain) (*big.Int, error) {
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("latest block header: %w", err)
	}
	if head.BaseFee == nil {
		price, err := c.SuggestGasPrice(ctx)
		if err != nil {
			return nil, fmt.Errorf("gas price: %w", err)
		}
		return price, nil
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, fmt.Errorf("gas tip: %w", err)
	}
	return new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), nil
}

// CheckFunds refuses, before anything is sent, a deployer whose balance
// does not cover DeployCost.
func CheckFunds(ctx context.Context, c LiveChain, from common.Address, cs ...Creation) error {
	need, err := DeployCost(ctx, c, from, cs...)
	if err != nil {
		return err
	}
	have, err := c.BalanceAt(ctx, from, nil)
	if err != nil {
		return fmt.Errorf("balance of %s: %w", from, err)
	}
	if have.Cmp(need) < 0 {
		return fmt.Errorf("%w: %s holds %s wei, deploying needs up to %s wei", ErrDeployerFunds, from, have, need)
	}
	return nil
}

// Send sends cr's creation transaction; the contract's address follows
// from auth's sender and nonce.
func Send(auth *bind.TransactOpts, c LiveChain, cr Creation) (common.Address, *types.Transaction, error) {
	addr, tx, err := bind.DeployContract(auth, cr.Code, c, nil)
	if err != nil {
		return common.Address{}, nil, fmt.Errorf("sending the %s creation: %w", cr.Name, DecodeRevert(err))
	}
	return addr, tx, nil
}

// Confirmation is how WaitConfirmed waits; the zero value waits for
// domain's default depth, asking every second, each call bounded by 10 s.
type Confirmation struct {
	Depth       uint64 // blocks deep, as the relay's confirmer counts; 0: domain.DefaultConfirmationDepth
	Poll        time.Duration
	CallTimeout time.Duration
}

// WaitConfirmed waits until tx is mined and c.Depth blocks deep (the tip
// at least Depth past its block), and returns its receipt. A reverted
// creation is ErrDeployFailed. ctx bounds the whole wait.
func WaitConfirmed(ctx context.Context, ch LiveChain, tx common.Hash, c Confirmation) (*types.Receipt, error) {
	depth := domain.ConfirmationDepth(c.Depth)
	poll, timeout := c.Poll, c.CallTimeout
	if poll <= 0 {
		poll = time.Second
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	for {
		done, r, err := confirmed(ctx, ch, tx, depth, timeout)
		if done || err != nil {
			return r, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s to be mined and %d blocks deep: %w", tx, depth, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// confirmed asks once whether tx is mined and depth blocks deep.
func confirmed(ctx context.Context, ch LiveChain, tx common.Hash, depth uint64, timeout time.Duration) (bool, *types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := ch.TransactionReceipt(ctx, tx)
	switch {
	case errors.Is(err, ethereum.NotFound):
		return false, nil, nil
	case err != nil:
		return false, nil, fmt.Errorf("receipt of %s: %w", tx, err)
	case r.Status != types.ReceiptStatusSuccessful:
		return true, r, fmt.Errorf("%w: transaction %s reverted (block %d)", ErrDeployFailed, tx, r.BlockNumber)
	}
	tip, err := ch.BlockNumber(ctx)
	if err != nil {
		return false, nil, fmt.Errorf("block number: %w", err)
	}
	return tip >= r.BlockNumber.Uint64()+depth, r, nil
}

// VerifyCode checks that the code at addr is what cr creates: the node
// runs cr's creation code (an eth_call without a recipient, from the
// deployer, at the latest block), and the runtime code it returns must
// equal the code stored at addr. That holds for any constructor
// arguments and immutables, and needs no second copy of the artifacts.
func VerifyCode(ctx context.Context, c LiveChain, from, addr common.Address, cr Creation) error {
	got, err := c.CodeAt(ctx, addr, nil)
	if err != nil {
		return fmt.Errorf("code at %s: %w", addr, err)
	}
	want, err := c.CallContract(ctx, ethereum.CallMsg{From: from, Data: cr.Code}, nil)
	if err != nil {
		return fmt.Errorf("running the %s creation code: %w", cr.Name, DecodeRevert(err))
	}
	if len(want) == 0 {
		return fmt.Errorf("%w: the %s creation code returned no runtime code", ErrBytecode, cr.Name)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%w: %s at %s holds %d bytes of code (keccak %s), the artifacts create %d bytes (keccak %s)",
			ErrBytecode, cr.Name, addr, len(got), crypto.Keccak256Hash(got), len(want), crypto.Keccak256Hash(want))
	}
	return nil
}

// RelayerRole is the role that may anchor roots (distributor) and mint
// (token).
var RelayerRole = crypto.Keccak256Hash([]byte("RELAYER_ROLE"))

// GrantMinter sends the token admin's grant of the relayer role to
// minter: a further wallet the relay mints with.
func GrantMinter(auth *bind.TransactOpts, c LiveChain, token, minter common.Address) (*types.Transaction, error) {
	t := NewBridgeToken()
	tx, err := bind.Transact(t.Instance(c, token), auth, t.PackGrantRole(RelayerRole, minter))
	if err != nil {
		return nil, fmt.Errorf("granting %s the token's relayer role: %w", minter, DecodeRevert(err))
	}
	return tx, nil
}

// HasRelayerRole reports whether who holds the relayer role of contract,
// either of the two: both are OpenZeppelin AccessControl, whose hasRole
// the token's binding packs.
func HasRelayerRole(ctx context.Context, c LiveChain, contract, who common.Address) (bool, error) {
	t := NewBridgeToken()
	has, err := bind.Call(t.Instance(c, contract), &bind.CallOpts{Context: ctx}, t.PackHasRole(RelayerRole, who), t.UnpackHasRole)
	if err != nil {
		return false, fmt.Errorf("hasRole(RELAYER_ROLE, %s) on %s: %w", who, contract, err)
	}
	return has, nil
}
