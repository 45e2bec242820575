package evmwallet

import (
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// newKeystore makes a keystore holding one account with passphrase "pw".
func newKeystore(t *testing.T) (dir string, addr domain.Address, pass secrets.Passphrase) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "keystore")
	ks := keystore.NewKeyStore(dir, keystore.LightScryptN, keystore.LightScryptP)
	acct, err := ks.NewAccount("pw")
	if err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(pf, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, domain.Address(acct.Address), secrets.Passphrase{File: pf}
}

func TestKeystoreWalletSigns(t *testing.T) {
	dir, addr, pass := newKeystore(t)
	s, err := Open(context.Background(), Spec{Name: "relayer", Address: addr, Keystore: dir, Passphrase: pass}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	chain := big.NewInt(1337)
	tx, err := s.SignTx(context.Background(), types.NewTx(&types.DynamicFeeTx{ChainID: chain, Nonce: 3, To: &common.Address{1}}), chain)
	if err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(chain), tx)
	if err != nil || domain.Address(from) != addr {
		t.Fatalf("signed by %s (%v), want %s", from, err, addr)
	}
}

func TestOpenRefusals(t *testing.T) {
	dir, addr, pass := newKeystore(t)
	wrong := filepath.Join(t.TempDir(), "wrong")
	if err := os.WriteFile(wrong, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	key, _ := crypto.GenerateKey()
	hexKey := common.Bytes2Hex(crypto.FromECDSA(key))
	for _, c := range []struct {
		name string
		spec Spec
		opt  Options
		want error
	}{
		{"wrong passphrase", Spec{Address: addr, Keystore: dir, Passphrase: secrets.Passphrase{File: wrong}}, Options{}, secrets.ErrWrongPassphrase},
		{"unknown address", Spec{Address: domain.Address{9}, Keystore: dir, Passphrase: pass}, Options{}, ErrUnknownAddress},
		{"missing keystore", Spec{Address: addr, Keystore: dir + "-missing", Passphrase: pass}, Options{}, os.ErrNotExist},
		{"no passphrase", Spec{Address: addr, Keystore: dir}, Options{}, secrets.ErrNoPassphrase},
		{"plain key off a dev chain", Spec{Key: hexKey}, Options{}, ErrPlainKey},
		{"two sources", Spec{Key: hexKey, Keystore: dir}, Options{DevChain: true}, ErrSpec},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.spec.Name = "claim 1"
			_, err := Open(context.Background(), c.spec, c.opt)
			if !errors.Is(err, c.want) || !errors.Is(err, ErrWallet) || !strings.Contains(err.Error(), "claim 1") {
				t.Fatalf("err = %v, want %v naming the wallet", err, c.want)
			}
			if strings.Contains(err.Error(), hexKey) || strings.Contains(err.Error(), "pw") && c.name != "wrong passphrase" {
				t.Fatalf("error quotes a secret: %v", err)
			}
		})
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Spec{Name: "mint 0", Address: addr, Keystore: dir, Passphrase: pass}, Options{}); !errors.Is(err, secrets.ErrFileMode) {
		t.Fatalf("world-readable keystore: err = %v", err)
	}
	s, err := Open(context.Background(), Spec{Key: "0x" + hexKey}, Options{DevChain: true})
	if err != nil || s.Address() != domain.Address(crypto.PubkeyToAddress(key.PublicKey)) {
		t.Fatalf("dev key: %v", err)
	}
}
