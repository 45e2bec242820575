package kaspadtest

import (
	"bytes"
	"testing"

	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// The harness writes scripts and signatures without kaspad's txscript;
// kaspad's own txscript must agree with them.
func TestScriptsAndSignaturesAreKaspads(t *testing.T) {
	k := NewKey(t)
	ecdsa, err := util.NewAddressPublicKeyECDSA(append([]byte{0x02}, k.Address.ScriptAddress()...), dagconfig.SimnetParams.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	p2sh, err := util.NewAddressScriptHashFromHash(bytes.Repeat([]byte{7}, 32), dagconfig.SimnetParams.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []util.Address{k.Address, ecdsa, p2sh} {
		want, err := txscript.PayToAddrScript(addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := Script(t, addr); got.Version != want.Version || !bytes.Equal(got.Bytes, want.Script) {
			t.Errorf("Script(%T) = %x, kaspad's %x", addr, got.Bytes, want.Script)
		}
	}

	own := Script(t, k.Address)
	ins := []twophase.UTXO{
		{Outpoint: twophase.Outpoint{TxID: twophase.Hash{1}, Index: 0}, Amount: 5_000_000, Script: own, DAAScore: 10, Coinbase: true},
		{Outpoint: twophase.Outpoint{TxID: twophase.Hash{2}, Index: 3}, Amount: 7_000_000, Script: own, DAAScore: 12},
	}
	tx := k.Spend(t, ins, Payment{To: p2sh, Amount: 11_000_000})
	reused := &consensushashing.SighashReusedValues{}
	for i := range tx.Inputs {
		e, err := txscript.NewEngine(&externalapi.ScriptPublicKey{Version: own.Version, Script: own.Bytes}, tx, i,
			txscript.ScriptNoFlags, txscript.NewSigCache(10), txscript.NewSigCacheECDSA(10), reused)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Execute(); err != nil {
			t.Fatalf("kaspad's script engine refuses input %d: %v", i, err)
		}
	}
	tx.Outputs[0].Value-- // what is signed changed: the signatures no longer hold
	e, err := txscript.NewEngine(&externalapi.ScriptPublicKey{Version: own.Version, Script: own.Bytes}, tx, 0,
		txscript.ScriptNoFlags, txscript.NewSigCache(10), txscript.NewSigCacheECDSA(10), &consensushashing.SighashReusedValues{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Execute(); err == nil {
		t.Fatal("kaspad's script engine accepts a signature over other outputs")
	}
}
