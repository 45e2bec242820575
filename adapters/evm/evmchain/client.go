// Package evmchain is the relayer's edge to an EVM chain: bounded JSON-RPC
// reads, decoding of bridge contract logs into domain events, and building,
// sending and observing the relayer's transactions. Every remote call runs
// under its own timeout.
package evmchain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/domain"
)

// Errors of the chain edge.
var (
	ErrChainIDMismatch = errors.New("chain id mismatch")
	ErrUnderpriced     = errors.New("replacement transaction underpriced")
	ErrRPC             = errors.New("rpc error")
)

// Config configures a [Client]. URL is required.
type Config struct {
	URL         string
	ChainID     uint64        // if set, Dial refuses a node on another chain
	CallTimeout time.Duration // per RPC call; default 10s
}

// Client is a bounded JSON-RPC client for one chain.
type Client struct {
	eth     *ethclient.Client
	chainID uint64
	timeout time.Duration
}

// Dial connects and checks the chain id.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 10 * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.CallTimeout)
	defer cancel()
	eth, err := ethclient.DialContext(cctx, cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: dial %s: %v", ErrRPC, cfg.URL, err)
	}
	id, err := eth.ChainID(cctx)
	if err != nil {
		eth.Close()
		return nil, fmt.Errorf("%w: chain id of %s: %v", ErrRPC, cfg.URL, err)
	}
	if cfg.ChainID != 0 && id.Uint64() != cfg.ChainID {
		eth.Close()
		return nil, fmt.Errorf("%w: %s serves chain %d, configured %d", ErrChainIDMismatch, cfg.URL, id, cfg.ChainID)
	}
	return &Client{eth: eth, chainID: id.Uint64(), timeout: cfg.CallTimeout}, nil
}

// Close closes the connection.
func (c *Client) Close() { c.eth.Close() }

// ChainID is the chain's id, read at Dial.
func (c *Client) ChainID() uint64 { return c.chainID }

func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

func rpcErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %s: %w", ErrRPC, op, err)
}

// Tip is the latest block number.
func (c *Client) Tip(ctx context.Context) (uint64, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	n, err := c.eth.BlockNumber(ctx)
	return n, rpcErr("block number", err)
}

// HashAt is the canonical block hash at height n, or zero if the chain does
// not reach n.
func (c *Client) HashAt(ctx context.Context, n uint64) (domain.Hash32, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	h, err := c.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if errors.Is(err, ethereum.NotFound) {
		return domain.Hash32{}, nil
	}
	if err != nil {
		return domain.Hash32{}, rpcErr(fmt.Sprintf("header %d", n), err)
	}
	return domain.Hash32(h.Hash()), nil
}

// BlockTime is the timestamp of block n (the event's occurred-at).
func (c *Client) BlockTime(ctx context.Context, n uint64) (time.Time, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	h, err := c.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return time.Time{}, rpcErr(fmt.Sprintf("header %d", n), err)
	}
	return time.Unix(int64(h.Time), 0).UTC(), nil
}

// Logs returns the logs of the given contracts in blocks [from, to].
func (c *Client) Logs(ctx context.Context, from, to uint64, addrs []domain.Address) ([]types.Log, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	q := ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to)}
	for _, a := range addrs {
		q.Addresses = append(q.Addresses, common.Address(a))
	}
	logs, err := c.eth.FilterLogs(ctx, q)
	return logs, rpcErr(fmt.Sprintf("logs %d..%d", from, to), err)
}

// Call is a contract call the relayer wants mined.
type Call = domain.ContractCall

// Fees returns a fee cap and tip for a new transaction: the suggested tip
// and twice the latest base fee plus the tip, so it survives a few blocks
// of rising base fee.
func (c *Client) Fees(ctx context.Context) (feeCap, tipCap *big.Int, err error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	tip, err := c.eth.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, rpcErr("suggest tip", err)
	}
	h, err := c.eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, rpcErr("latest header", err)
	}
	base := h.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return feeCap, tip, nil
}

// Estimate returns the gas a call needs. A call that would revert returns
// a *domain.CallReverted with the decoded reason, so the relayer learns
// "already processed" without paying for a send.
func (c *Client) Estimate(ctx context.Context, from domain.Address, call Call) (uint64, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	to := common.Address(call.To)
	gas, err := c.eth.EstimateGas(ctx, ethereum.CallMsg{From: common.Address(from), To: &to, Data: call.Data})
	if err != nil {
		var re *contracts.RevertError
		if errors.As(contracts.DecodeRevert(err), &re) {
			reason := re.Reason
			if errors.Is(re, contracts.ErrRateLimited) {
				// Its arguments say how long the item waits.
				reason = strings.TrimPrefix(re.Error(), "execution reverted: ")
			}
			return 0, &domain.CallReverted{Reason: reason}
		}
		return 0, rpcErr("estimate gas", err)
	}
	return gas, nil
}

// CallView runs a read-only call at the latest block.
func (c *Client) CallView(ctx context.Context, call Call) ([]byte, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	to := common.Address(call.To)
	out, err := c.eth.CallContract(ctx, ethereum.CallMsg{To: &to, Data: call.Data}, nil)
	return out, rpcErr("call", err)
}

// Sign builds an EIP-1559 transaction and has w sign it; nothing is sent.
func (c *Client) Sign(ctx context.Context, w evmwallet.TxSigner, call Call, nonce, gas uint64, feeCap, tipCap *big.Int) (*types.Transaction, []byte, error) {
	to := common.Address(call.To)
	chain := new(big.Int).SetUint64(c.chainID)
	tx, err := w.SignTx(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: chain, Nonce: nonce, GasTipCap: tipCap, GasFeeCap: feeCap, Gas: gas, To: &to, Data: call.Data,
	}), chain)
	if err != nil {
		return nil, nil, fmt.Errorf("sign tx nonce %d: %w", nonce, err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, nil, fmt.Errorf("encode tx: %w", err)
	}
	return tx, raw, nil
}

// SendRaw broadcasts a signed transaction. A node that already has it is
// not an error (rebroadcast after a restart); a nonce already used gives
// domain.ErrNonceTooLow, an underpriced replacement ErrUnderpriced.
func (c *Client) SendRaw(ctx context.Context, raw []byte) error {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return fmt.Errorf("decode raw tx: %w", err)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	err := c.eth.SendTransaction(ctx, &tx)
	if err == nil {
		return nil
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "already known"):
		return nil
	case strings.Contains(msg, "nonce too low"):
		return fmt.Errorf("%w: tx %s: %v", domain.ErrNonceTooLow, tx.Hash(), err)
	case strings.Contains(msg, "underpriced"):
		return fmt.Errorf("%w: tx %s: %v", ErrUnderpriced, tx.Hash(), err)
	}
	return rpcErr("send "+tx.Hash().Hex(), err)
}

// Nonces returns the wallet's nonce in the latest block (every lower nonce
// is mined) and in the pending pool.
func (c *Client) Nonces(ctx context.Context, a domain.Address) (confirmed, pending uint64, err error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	confirmed, err = c.eth.NonceAt(ctx, common.Address(a), nil)
	if err != nil {
		return 0, 0, rpcErr("nonce", err)
	}
	pending, err = c.eth.PendingNonceAt(ctx, common.Address(a))
	return confirmed, pending, rpcErr("pending nonce", err)
}

// Observe reports what the chain says of a sent transaction: its receipt
// (with the revert reason, learned by re-running the call at its block)
// and the sender's confirmed nonce.
func (c *Client) Observe(ctx context.Context, in domain.TxIntent) (domain.Observation, error) {
	var obs domain.Observation
	confirmed, _, err := c.Nonces(ctx, in.From)
	if err != nil {
		return obs, err
	}
	obs.ConfirmedNonce = confirmed
	rc, err := c.Receipt(ctx, in.TxHash)
	if err != nil || rc == nil {
		return obs, err // not known yet: the send loop looks again
	}
	obs.Mined, obs.Success = true, rc.Status == types.ReceiptStatusSuccessful
	obs.GasUsed, obs.BlockNumber = rc.GasUsed, rc.BlockNumber.Uint64()
	if !obs.Success {
		obs.RevertReason = c.revertReason(ctx, in, rc.BlockNumber)
	}
	return obs, nil
}

// Receipt is a transaction's receipt, or nil when the node knows of no
// mined transaction with that hash (yet: right after a block the node may
// still be indexing it).
func (c *Client) Receipt(ctx context.Context, tx domain.Hash32) (*types.Receipt, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	rc, err := c.eth.TransactionReceipt(ctx, common.Hash(tx))
	if errors.Is(err, ethereum.NotFound) || err != nil && strings.Contains(err.Error(), "indexing is in progress") {
		return nil, nil
	}
	if err != nil {
		return nil, rpcErr("receipt "+tx.Hex(), err)
	}
	return rc, nil
}

// revertReason re-runs a mined, reverted transaction as a call on the state
// at the end of its block: mined reverts carry no reason in the receipt, and
// the end-of-block state shows a leaf processed by a rival transaction in
// the same block as "already processed".
func (c *Client) revertReason(ctx context.Context, in domain.TxIntent, block *big.Int) string {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(in.RawTx); err != nil {
		return "reverted (raw tx undecodable: " + err.Error() + ")"
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	_, err := c.eth.CallContract(ctx, ethereum.CallMsg{From: common.Address(in.From), To: tx.To(), Data: tx.Data(), Gas: tx.Gas()},
		block)
	var re *contracts.RevertError
	if errors.As(contracts.DecodeRevert(err), &re) {
		return re.Reason
	}
	if err != nil {
		return "reverted: " + err.Error()
	}
	return "reverted (reason not reproducible)"
}

// Signer is a client bound to one wallet: what the transaction driver uses.
type Signer struct {
	*Client
	Wallet evmwallet.TxSigner
}

// From is the wallet's address.
func (s Signer) From() domain.Address { return s.Wallet.Address() }

// SignCall signs call with the wallet and returns its hash and raw bytes.
func (s Signer) SignCall(ctx context.Context, call Call, nonce, gas uint64, feeCap, tipCap *big.Int) (domain.Hash32, []byte, error) {
	tx, raw, err := s.Sign(ctx, s.Wallet, call, nonce, gas, feeCap, tipCap)
	if err != nil {
		return domain.Hash32{}, nil, err
	}
	return domain.Hash32(tx.Hash()), raw, nil
}

// WalletNonces are the wallet's confirmed and pending nonces.
func (s Signer) WalletNonces(ctx context.Context) (confirmed, pending uint64, err error) {
	return s.Nonces(ctx, s.Wallet.Address())
}
