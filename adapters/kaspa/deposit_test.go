package kaspa

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/constants"
	"github.com/kaspanet/kaspad/domain/consensus/utils/subnetworks"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/domain/consensus/utils/utxo"
	"github.com/kaspanet/kaspad/util"
)

func testRecipient(b byte) (r [RecipientSize]byte) {
	for i := range r {
		r[i] = b + byte(i)
	}
	return r
}

// TestDepositScriptMatchesTxscript: the deposit redeem script is
// txscript's <recipient> OP_DROP followed by the group's multisig, its
// address the P2SH of that, a class the node knows, and one per recipient.
func TestDepositScriptMatchesTxscript(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	d, err := DepositsForGroup(g.group)
	if err != nil {
		t.Fatal(err)
	}
	if d.GroupAddress().String() != g.rules.Address().String() {
		t.Fatalf("group address %s, rules %s", d.GroupAddress(), g.rules.Address())
	}
	seen := map[string]bool{d.GroupAddress().String(): true}
	for _, b := range []byte{1, 0x40, 0xee} {
		r := testRecipient(b)
		redeem, err := d.RedeemScript(r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := txscript.NewScriptBuilder().AddData(r[:]).AddOp(txscript.OpDrop).Script()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, g.rules.group.redeem...)
		if !bytes.Equal(redeem, want) {
			t.Fatalf("redeem %x, txscript %x", redeem, want)
		}
		addr, lock, err := d.Address(r)
		if err != nil {
			t.Fatal(err)
		}
		p2sh, err := txscript.PayToScriptHashScript(want)
		if err != nil || !bytes.Equal(lock, p2sh) || txscript.GetScriptClass(lock) != txscript.ScriptHashTy {
			t.Fatalf("lock %x, txscript %x (%v)", lock, p2sh, err)
		}
		back, err := util.DecodeAddress(addr.String(), util.Bech32PrefixKaspaSim)
		if err != nil || back.String() != addr.String() {
			t.Fatalf("address %s does not decode (%v)", addr, err)
		}
		if seen[addr.String()] {
			t.Fatalf("address %s twice", addr)
		}
		seen[addr.String()] = true
	}
	if _, _, err := d.Address([RecipientSize]byte{}); !errors.Is(err, ErrRecipient) {
		t.Fatalf("zero recipient: %v, want ErrRecipient", err)
	}
}

// TestDepositSpendableByGroup: an output to a deposit address is spent
// with M members' signatures in key order and the deposit redeem script,
// which kaspad's script engine accepts; fewer signatures fail. The
// spending script is recognised as the group's, a look-alike is not.
func TestDepositSpendableByGroup(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	d, err := DepositsForGroup(g.group)
	if err != nil {
		t.Fatal(err)
	}
	r := testRecipient(7)
	redeem, _ := d.RedeemScript(r)
	_, lock, _ := d.Address(r)
	tx := sweepTx(lock, 5*kas, g.rules.ChangeScript().Bytes)

	reused := &consensushashing.SighashReusedValues{}
	hash, err := consensushashing.CalculateSignatureHashSchnorr(tx, 0, consensushashing.SigHashAll, reused)
	if err != nil {
		t.Fatal(err)
	}
	// Sign with members 2 and 0, ordered as their keys are in the script.
	var sigs [][]byte
	for _, k := range d.group.keys {
		for _, i := range []int{2, 0} {
			if pk, _ := PublicKey(g.secrets[i]); bytes.Equal(pk, k) {
				key, _ := privateKey(g.secrets[i])
				s, err := schnorr.Sign(key, hash.ByteSlice())
				if err != nil {
					t.Fatal(err)
				}
				sigs = append(sigs, append(s.Serialize(), byte(consensushashing.SigHashAll)))
			}
		}
	}
	tx.Inputs[0].SignatureScript = signatureScript(sigs, redeem)
	if err := executeEngine(tx); err != nil {
		t.Fatalf("script engine refused the group's sweep of a deposit: %v", err)
	}
	if ops := txscript.GetPreciseSigOpCount(tx.Inputs[0].SignatureScript, tx.Inputs[0].UTXOEntry.ScriptPublicKey(), true); ops != 3 {
		t.Fatalf("the node counts %d sig ops, want 3", ops)
	}
	if !d.SpendsFromGroup(tx.Inputs[0].SignatureScript) || !d.SpendsFromGroup(signatureScript(sigs, d.group.redeem)) {
		t.Fatal("the group's spending script is not recognised")
	}
	tx.Inputs[0].SignatureScript = signatureScript(sigs[:1], redeem)
	if err := executeEngine(tx); err == nil {
		t.Fatal("one signature of a 2-of-3 deposit passed the script engine")
	}
	// An anyone-can-spend redeem script that pushes the deposit's
	// spending script ends with the same bytes: not the group's.
	lookalike := pushData(nil, signatureScript(sigs, redeem))
	for _, s := range [][]byte{signatureScript(sigs, lookalike), nil, {opCheckSig}, {opPushData1}, slices.Concat(pushData(nil, redeem), []byte{opCheckSig})} {
		if d.SpendsFromGroup(s) {
			t.Fatalf("script %x taken for the group's", s)
		}
	}
}

// sweepTx spends one output of amount under lock to the script to.
func sweepTx(lock []byte, amount uint64, to []byte) *externalapi.DomainTransaction {
	spk := &externalapi.ScriptPublicKey{Script: lock, Version: 0}
	return &externalapi.DomainTransaction{
		Version: constants.MaxTransactionVersion,
		Inputs: []*externalapi.DomainTransactionInput{{
			PreviousOutpoint: externalapi.DomainOutpoint{TransactionID: *externalapi.NewDomainTransactionIDFromByteArray(&[externalapi.DomainHashSize]byte{1}), Index: 0},
			SigOpCount:       3,
			UTXOEntry:        utxo.NewUTXOEntry(amount, spk, false, 0),
		}},
		Outputs:      []*externalapi.DomainTransactionOutput{{Value: amount - 10_000, ScriptPublicKey: &externalapi.ScriptPublicKey{Script: to}}},
		SubnetworkID: subnetworks.SubnetworkIDNative,
	}
}
