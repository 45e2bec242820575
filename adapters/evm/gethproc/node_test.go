package gethproc_test

import (
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/evm/gethproc"
)

// TestDevNodeSealsAKeystoreSignedTransfer: a built geth --dev answers on
// HTTP and WS with chain id 1337, its developer account is funded, and
// Fund's transfer, signed with the account's keystore key (the passphrase
// file StartDev names), is mined within seconds; Stop ends the process.
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

	to := common.HexToAddress("0x00000000000000000000000000000000000b0b")
	amount := big.NewInt(1e15)
	if err := dev.Fund(ctx, amount, to); err != nil {
		t.Fatal(err)
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
