package gethproc_test

import (
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/evm/gethproc"
	"github.com/bridgelog/bridgelog/adapters/secrets"
)

// TestDevNodeSealsAKeystoreSignedTransfer: a built geth --dev answers on
// HTTP and WS with chain id 1337, its developer account is funded and
// unlocks from the keystore with the passphrase file StartDev names, a
// transfer it signs is mined in a block of its own within seconds, and
// Stop ends the process.
func TestDevNodeSealsAKeystoreSignedTransfer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := gethproc.Build(ctx, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := bin.StartDev(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("geth:\n%s", dev.OutputTail(30))
		}
		if err := dev.Stop(); err != nil {
			t.Error(err)
		}
	}()
	for _, url := range []string{dev.HTTP, dev.WS} {
		cl, err := ethclient.DialContext(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		id, err := cl.ChainID(ctx)
		cl.Close()
		if err != nil || id.Uint64() != gethproc.ChainID {
			t.Fatalf("%s: chain id %v, %v", url, id, err)
		}
	}
	cl, err := ethclient.DialContext(ctx, dev.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	from := common.Address(dev.Account)
	if bal, err := cl.BalanceAt(ctx, from, nil); err != nil || bal.Sign() <= 0 {
		t.Fatalf("developer account %s holds %v (%v)", from, bal, err)
	}

	w, err := evmwallet.Open(ctx, evmwallet.Spec{Name: "developer", Address: dev.Account, Keystore: dev.Keystore,
		Passphrase: secrets.Passphrase{File: dev.PassphraseFile}}, evmwallet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := cl.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000b0b")
	amount := big.NewInt(1e15)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(gethproc.ChainID), Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Gas: 21000, To: &to, Value: amount})
	signed, err := w.SignTx(ctx, tx, big.NewInt(gethproc.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.SendTransaction(ctx, signed); err != nil {
		t.Fatal(err)
	}
	var r *types.Receipt
	for deadline := time.Now().Add(30 * time.Second); r == nil; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("transfer %s not mined in 30 s", signed.Hash())
		}
		r, _ = cl.TransactionReceipt(ctx, signed.Hash())
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transfer reverted: %+v", r)
	}
	if bal, err := cl.BalanceAt(ctx, to, nil); err != nil || bal.Cmp(amount) != 0 {
		t.Fatalf("recipient holds %v (%v), want %s", bal, err, amount)
	}

	if err := dev.Stop(); err != nil {
		t.Fatal(err)
	}
	if n, err := cl.BlockNumber(ctx); err == nil {
		t.Fatalf("geth still answers after Stop (block %d)", n)
	}
}
