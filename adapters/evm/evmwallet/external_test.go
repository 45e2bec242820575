package evmwallet

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet/cleftest"
	"github.com/bridgelog/bridgelog/domain"
)

func startSigner(t *testing.T) (*cleftest.Server, domain.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := cleftest.Start(key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, domain.Address(crypto.PubkeyToAddress(key.PublicKey))
}

func unsignedTx(chain *big.Int) *types.Transaction {
	return types.NewTx(&types.DynamicFeeTx{ChainID: chain, Nonce: 7, Gas: 50_000, GasFeeCap: big.NewInt(2e9),
		GasTipCap: big.NewInt(1e9), To: &common.Address{1}, Data: []byte{0xde, 0xad}})
}

// TestExternalSignerSigns: the external wallet's transactions are signed
// by the signer, as the wallet's address, and are the transactions asked.
func TestExternalSignerSigns(t *testing.T) {
	srv, addr := startSigner(t)
	ctx := context.Background()
	w, err := Open(ctx, Spec{Name: "claim 0", Address: addr, External: srv.URL()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	chain := big.NewInt(1337)
	tx := unsignedTx(chain)
	signed, err := w.SignTx(ctx, tx, chain)
	if err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(chain), signed)
	if err != nil || domain.Address(from) != addr || signed.Nonce() != 7 || signed.To() == nil || *signed.To() != (common.Address{1}) {
		t.Fatalf("signed %+v by %s (%v), want nonce 7 to 0x01.. by %s", signed, from, err, addr)
	}
	if srv.Signed(common.Address(addr)) != 1 {
		t.Fatalf("signer signed %d, want 1", srv.Signed(common.Address(addr)))
	}
}

// TestExternalSignerFailures: a refusal, a signer that does not answer in
// time, one that cannot be reached and one that signs as another address
// are typed errors naming the wallet.
func TestExternalSignerFailures(t *testing.T) {
	srv, addr := startSigner(t)
	ctx := context.Background()
	chain := big.NewInt(1337)
	w, err := Open(ctx, Spec{Name: "mint 2", Address: addr, External: srv.URL()}, Options{ExternalTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) || !errors.Is(err, ErrExternal) || !errors.Is(err, ErrWallet) || !strings.Contains(err.Error(), "wallet mint 2") {
			t.Errorf("%s: err = %v, want %v naming the wallet", what, err, want)
		}
	}
	srv.SetMode(cleftest.Refuse)
	_, err = w.SignTx(ctx, unsignedTx(chain), chain)
	check("refused", err, ErrExternalRefused)
	srv.SetMode(cleftest.Hang)
	_, err = w.SignTx(ctx, unsignedTx(chain), chain)
	check("hanging", err, ErrExternalUnavailable)
	srv.SetMode(cleftest.Forge)
	_, err = w.SignTx(ctx, unsignedTx(chain), chain)
	check("signed by another key", err, ErrExternalRefused)
	srv.SetMode(cleftest.Sign)
	other, err := Open(ctx, Spec{Name: "mint 2", Address: domain.Address{7}, External: srv.URL()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.SignTx(ctx, unsignedTx(chain), chain)
	check("an address the signer does not hold", err, ErrExternalRefused)
	if _, err := w.SignTx(ctx, unsignedTx(chain), chain); err != nil {
		t.Fatalf("signer back: %v", err)
	}
	if srv.Signed(common.Address(addr)) != 1 {
		t.Fatalf("signed %d transactions, want only the last one", srv.Signed(common.Address(addr)))
	}
	srv.Close()
	_, err = w.SignTx(ctx, unsignedTx(chain), chain)
	check("closed signer", err, ErrExternalUnavailable)
	_, err = Open(ctx, Spec{Name: "mint 2", Address: addr, External: srv.URL()}, Options{ExternalTimeout: time.Second})
	check("opening a closed signer", err, ErrExternalUnavailable)
	_, err = Open(ctx, Spec{Name: "mint 2", External: srv.URL()}, Options{})
	if !errors.Is(err, ErrSpec) {
		t.Errorf("external wallet without an address: %v", err)
	}
}

// TestExternalSignerTimeoutFromSpec: a wallet's own timeout bounds its
// calls over the options' (here an hour: a signer left hanging would hold
// the test until go test's own timeout), and one that is not a positive
// duration is refused before anything is dialled.
func TestExternalSignerTimeoutFromSpec(t *testing.T) {
	srv, addr := startSigner(t)
	ctx := context.Background()
	chain := big.NewInt(1337)
	w, err := Open(ctx, Spec{Name: "claim 0", Address: addr, External: srv.URL(), Timeout: "200ms"}, Options{ExternalTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetMode(cleftest.Hang)
	if _, err := w.SignTx(ctx, unsignedTx(chain), chain); !errors.Is(err, ErrExternalUnavailable) {
		t.Fatalf("hanging signer with a 200ms wallet timeout: err = %v", err)
	}
	for _, bad := range []string{"soon", "-1s", "0s"} {
		spec := Spec{Name: "claim 0", Address: addr, External: srv.URL(), Timeout: bad}
		if err := spec.Check(Options{}); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "claim 0") {
			t.Errorf("timeout %q: err = %v, want ErrSpec naming the wallet", bad, err)
		}
	}
}
