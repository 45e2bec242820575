package gethproc

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
)

// ErrFund: a transfer from the developer account that failed.
var ErrFund = errors.New("funding from the developer account")

// callTimeout bounds each RPC call Fund makes.
const callTimeout = 10 * time.Second

// Fund sends value from the developer account to each of tos, signed
// with its keystore key, and waits until every transfer is mined (a
// block a second; ctx bounds the wait).
func (d *Dev) Fund(ctx context.Context, value *big.Int, tos ...common.Address) error {
	w, err := evmwallet.Open(ctx, evmwallet.Spec{Name: "developer", Address: d.Account, Keystore: d.Keystore,
		Passphrase: secrets.Passphrase{File: d.PassphraseFile}}, evmwallet.Options{})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFund, err)
	}
	cl, err := ethclient.DialContext(ctx, d.HTTP)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFund, err)
	}
	defer cl.Close()
	sent, err := sendTransfers(ctx, cl, w, value, tos)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFund, err)
	}
	for _, h := range sent {
		if err := waitMined(ctx, cl, h); err != nil {
			return fmt.Errorf("%w: %w", ErrFund, err)
		}
	}
	return nil
}

func sendTransfers(ctx context.Context, cl *ethclient.Client, w evmwallet.TxSigner, value *big.Int, tos []common.Address) ([]common.Hash, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	nonce, err := cl.PendingNonceAt(ctx, common.Address(w.Address()))
	if err != nil {
		return nil, err
	}
	tip, err := cl.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	var sent []common.Hash
	for i, to := range tos {
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(ChainID), Nonce: nonce + uint64(i),
			GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &to, Value: value})
		signed, err := w.SignTx(ctx, tx, big.NewInt(ChainID))
		if err != nil {
			return nil, err
		}
		if err := cl.SendTransaction(ctx, signed); err != nil {
			return nil, fmt.Errorf("transfer to %s: %w", to, err)
		}
		sent = append(sent, signed.Hash())
	}
	return sent, nil
}

func waitMined(ctx context.Context, cl *ethclient.Client, h common.Hash) error {
	for {
		rctx, cancel := context.WithTimeout(ctx, callTimeout)
		r, err := cl.TransactionReceipt(rctx, h)
		cancel()
		switch {
		case err == nil && r.Status != types.ReceiptStatusSuccessful:
			return fmt.Errorf("transfer %s failed", h)
		case err == nil:
			return nil
		case !errors.Is(err, ethereum.NotFound):
			return fmt.Errorf("receipt of %s: %w", h, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("transfer %s not mined: %w", h, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
