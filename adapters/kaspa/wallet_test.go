package kaspa

import (
	"errors"
	"fmt"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"
)

func testWallet(t *testing.T, label string) *Wallet {
	t.Helper()
	w, err := NewWallet(testNetwork, testSecret(label))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// walletOutputs are outputs of w of the given amounts, the first one a
// coinbase output.
func walletOutputs(w *Wallet, amounts ...uint64) []twophase.UTXO {
	var out []twophase.UTXO
	for i, a := range amounts {
		var id twophase.Hash
		id[0], id[31] = byte(i), 0xbb
		out = append(out, twophase.UTXO{Outpoint: twophase.Outpoint{TxID: id, Index: uint32(i)}, Amount: a,
			Script: w.Script(), DAAScore: uint64(100 + i), Coinbase: i == 0})
	}
	return out
}

// checkSpend runs the signed spend through what a node checks offline:
// kaspad's script engine, the sig-op counts it counts, the serialization
// round trip and the fee against the mass at rate.
func checkSpend(t *testing.T, tx *externalapi.DomainTransaction, rate uint64) (fee, mass uint64) {
	t.Helper()
	if err := executeEngine(tx); err != nil {
		t.Fatalf("script engine: %v", err)
	}
	var in, out uint64
	for i, input := range tx.Inputs {
		if ops := txscript.GetPreciseSigOpCount(input.SignatureScript, input.UTXOEntry.ScriptPublicKey(), true); ops != int(input.SigOpCount) {
			t.Errorf("input %d: the node counts %d sig ops, declared %d", i, ops, input.SigOpCount)
		}
		in += input.UTXOEntry.Amount()
	}
	for _, o := range tx.Outputs {
		out += o.Value
	}
	raw, err := serialization.SerializeDomainTransaction(tx)
	if err != nil {
		t.Fatal(err)
	}
	back, err := serialization.DeserializeDomainTransaction(raw)
	if err != nil || !consensushashing.TransactionID(back).Equal(consensushashing.TransactionID(tx)) {
		t.Fatalf("serialization round trip: %v", err)
	}
	mass = massCalculator(&dagconfig.SimnetParams).CalculateTransactionOverallMass(tx)
	if in-out < mass*rate {
		t.Fatalf("fee %d below mass %d × %d", in-out, mass, rate)
	}
	return in - out, mass
}

// TestWalletKeyAddressAndScript: the wallet's address and script are the
// ones go-secp256k1 and txscript make of its secret.
func TestWalletKeyAddressAndScript(t *testing.T) {
	w := testWallet(t, "wallet")
	kp, err := secp256k1.DeserializeSchnorrPrivateKeyFromSlice(testSecret("wallet"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.SchnorrPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	serialized, err := pub.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	want, err := util.NewAddressPublicKey(serialized[:], util.Bech32PrefixKaspaSim)
	if err != nil {
		t.Fatal(err)
	}
	if w.Address().String() != want.String() {
		t.Fatalf("address %s, go-secp256k1 makes %s", w.Address(), want)
	}
	spk, err := txscript.PayToAddrScript(want)
	if err != nil {
		t.Fatal(err)
	}
	if s := w.Script(); s.Version != spk.Version || string(s.Bytes) != string(spk.Script) {
		t.Fatalf("script %x, txscript makes %x", s.Bytes, spk.Script)
	}
	again, err := NewWallet(testNetwork, w.Secret())
	if err != nil || again.Address().String() != w.Address().String() {
		t.Fatalf("wallet of its own secret: %v, %v", again, err)
	}
	fresh, err := NewRandomWallet(testNetwork)
	if err != nil || fresh.Address().String() == w.Address().String() {
		t.Fatalf("random wallet: %v, %v", fresh, err)
	}
	if _, err := NewWallet("kaspa-nowhere", testSecret("wallet")); !errors.Is(err, ErrNetwork) {
		t.Fatalf("unknown network: %v", err)
	}
	if _, err := NewWallet(testNetwork, make([]byte, SecretSize)); !errors.Is(err, ErrKey) {
		t.Fatalf("zero secret: %v", err)
	}
}

// TestWalletSpendPassesScriptEngine: spends with a fixed fee and at fee
// rates, with and without change, pass kaspad's script engine, and the
// fee is what was asked.
func TestWalletSpendPassesScriptEngine(t *testing.T) {
	w := testWallet(t, "payer")
	payee := testWallet(t, "payee").Address()
	g := newTestGroup(t, 3, 2)
	ins := walletOutputs(w, 3*kas, kas, kas/2)

	t.Run("fee", func(t *testing.T) {
		tx, err := w.Spend(ins, []Payment{{To: payee, Amount: 2 * kas}, {To: g.rules.Address(), Amount: kas}}, 5_000)
		if err != nil {
			t.Fatal(err)
		}
		if fee, _ := checkSpend(t, tx, MinimumFeeRate); fee != 5_000 {
			t.Fatalf("fee %d, want 5000", fee)
		}
		if len(tx.Outputs) != 3 || tx.Outputs[2].Value != 3*kas/2-5_000 || !tx.Outputs[2].ScriptPublicKey.Equal(scriptPublicKey(w.Script())) {
			t.Fatalf("outputs %v: want the payments and the change to the wallet", tx.Outputs)
		}
		if !tx.Inputs[0].UTXOEntry.IsCoinbase() || tx.Inputs[1].UTXOEntry.BlockDAAScore() != 101 {
			t.Fatalf("inputs lost their UTXO entries' coinbase flag or DAA score")
		}
	})
	t.Run("dust change goes to the fee", func(t *testing.T) {
		in := ins[1:2]
		tx, err := w.Spend(in, []Payment{{To: payee, Amount: kas - 5_000 - 100}}, 5_000)
		if err != nil {
			t.Fatal(err)
		}
		if fee, _ := checkSpend(t, tx, MinimumFeeRate); fee != 5_100 || len(tx.Outputs) != 1 {
			t.Fatalf("fee %d with %d outputs, want 5100 and no change", fee, len(tx.Outputs))
		}
	})
	for _, c := range []struct {
		rate uint64
		ins  []twophase.UTXO
		pay  uint64
	}{
		{1, ins, 4 * kas},
		{10, ins, kas / 10},
		{1, ins[1:2], kas / 2}, // one input, two outputs: the storage mass counts
		{1, ins[:3], 3 * kas},
	} {
		t.Run(fmt.Sprintf("rate %d, %d inputs, pay %d", c.rate, len(c.ins), c.pay), func(t *testing.T) {
			tx, err := w.SpendAtFeeRate(c.ins, []Payment{{To: payee, Amount: c.pay}}, c.rate)
			if err != nil {
				t.Fatal(err)
			}
			fee, mass := checkSpend(t, tx, c.rate)
			if len(tx.Outputs) == 2 && fee != mass*c.rate {
				t.Fatalf("fee %d with change, want mass %d × %d", fee, mass, c.rate)
			}
		})
	}
}

func TestWalletSpendRefusals(t *testing.T) {
	w := testWallet(t, "payer")
	other := testWallet(t, "other")
	payee := other.Address()
	ins := walletOutputs(w, kas)
	mainnet, err := util.NewAddressPublicKey(payee.ScriptAddress(), util.Bech32PrefixKaspa)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ins  []twophase.UTXO
		pays []Payment
		fee  uint64
		want error
	}{
		{"no inputs", nil, []Payment{{To: payee, Amount: kas}}, 5_000, ErrTemplate},
		{"another address's input", walletOutputs(other, kas), []Payment{{To: payee, Amount: kas / 2}}, 5_000, ErrTemplate},
		{"too little", ins, []Payment{{To: payee, Amount: kas}}, 5_000, ErrFunds},
		{"fee above the inputs", ins, nil, 2 * kas, ErrFunds},
		{"payee on mainnet", ins, []Payment{{To: mainnet, Amount: kas / 2}}, 5_000, ErrNetwork},
		{"no payee", ins, []Payment{{Amount: kas / 2}}, 5_000, ErrNetwork},
		{"dust payment", ins, []Payment{{To: payee, Amount: 100}}, 5_000, ErrNonStandard},
		{"fee below the relay minimum", ins, []Payment{{To: payee, Amount: kas / 2}}, 10, ErrNonStandard},
		{"all to the fee", ins, nil, kas - 100, ErrTemplate},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := w.Spend(c.ins, c.pays, c.fee); !errors.Is(err, c.want) {
				t.Fatalf("Spend: %v, want %v", err, c.want)
			}
		})
	}
	if _, err := w.SpendAtFeeRate(ins, []Payment{{To: payee, Amount: kas / 2}}, 0); !errors.Is(err, ErrNonStandard) {
		t.Fatalf("fee rate 0: %v", err)
	}
	// Without payments, everything less the fee comes back as change.
	tx, err := w.SpendAtFeeRate(ins, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fee, _ := checkSpend(t, tx, 1); len(tx.Outputs) != 1 || tx.Outputs[0].Value != kas-fee {
		t.Fatalf("sweep: %v", tx.Outputs)
	}
}
