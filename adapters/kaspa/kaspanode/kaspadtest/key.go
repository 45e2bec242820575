package kaspadtest

import (
	"testing"

	"github.com/kaspanet/go-secp256k1"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/constants"
	"github.com/kaspanet/kaspad/domain/consensus/utils/subnetworks"
	"github.com/kaspanet/kaspad/domain/consensus/utils/txscript"
	"github.com/kaspanet/kaspad/domain/consensus/utils/utxo"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Key is a single Schnorr key with its simnet pay-to-public-key address:
// a wallet to mine to and to spend the mined outputs from.
type Key struct {
	pair    *secp256k1.SchnorrKeyPair
	Address util.Address
}

// NewKey makes a fresh random key.
func NewKey(t testing.TB) *Key {
	t.Helper()
	pair, err := secp256k1.GenerateSchnorrKeyPair()
	if err != nil {
		t.Fatalf("kaspadtest: key: %v", err)
	}
	pub, err := pair.SchnorrPublicKey()
	if err != nil {
		t.Fatalf("kaspadtest: key: %v", err)
	}
	serialized, err := pub.Serialize()
	if err != nil {
		t.Fatalf("kaspadtest: key: %v", err)
	}
	addr, err := util.NewAddressPublicKey(serialized[:], dagconfig.SimnetParams.Prefix)
	if err != nil {
		t.Fatalf("kaspadtest: address: %v", err)
	}
	return &Key{pair: pair, Address: addr}
}

// Payment is an output of a spend.
type Payment struct {
	To     util.Address
	Amount uint64
}

// Spend builds a transaction spending ins (outputs of k's address, as a
// ledger view lists them) to pays, each input signed by k (SIGHASH_ALL).
// What the inputs hold beyond the payments is the fee.
func (k *Key) Spend(t testing.TB, ins []twophase.UTXO, pays ...Payment) *externalapi.DomainTransaction {
	t.Helper()
	tx := &externalapi.DomainTransaction{Version: constants.MaxTransactionVersion, SubnetworkID: subnetworks.SubnetworkIDNative}
	for _, in := range ins {
		id := externalapi.DomainTransactionID(*externalapi.NewDomainHashFromByteArray((*[32]byte)(&in.Outpoint.TxID)))
		tx.Inputs = append(tx.Inputs, &externalapi.DomainTransactionInput{
			PreviousOutpoint: externalapi.DomainOutpoint{TransactionID: id, Index: in.Outpoint.Index},
			SigOpCount:       1,
			UTXOEntry: utxo.NewUTXOEntry(in.Amount, &externalapi.ScriptPublicKey{Version: in.Script.Version, Script: in.Script.Bytes},
				in.Coinbase, in.DAAScore),
		})
	}
	for _, p := range pays {
		script, err := txscript.PayToAddrScript(p.To)
		if err != nil {
			t.Fatalf("kaspadtest: script of %s: %v", p.To, err)
		}
		tx.Outputs = append(tx.Outputs, &externalapi.DomainTransactionOutput{Value: p.Amount, ScriptPublicKey: script})
	}
	reused := &consensushashing.SighashReusedValues{}
	for i := range tx.Inputs {
		sig, err := txscript.SignatureScript(tx, i, consensushashing.SigHashAll, k.pair, reused)
		if err != nil {
			t.Fatalf("kaspadtest: signing input %d: %v", i, err)
		}
		tx.Inputs[i].SignatureScript = sig
	}
	return tx
}

// Serialize encodes tx as the ledger's Submit takes it.
func Serialize(t testing.TB, tx *externalapi.DomainTransaction) []byte {
	t.Helper()
	b, err := serialization.SerializeDomainTransaction(tx)
	if err != nil {
		t.Fatalf("kaspadtest: serializing a transaction: %v", err)
	}
	return b
}

// TxID is a transaction's id as the ledger names it.
func TxID(tx *externalapi.DomainTransaction) twophase.Hash {
	return twophase.Hash(*consensushashing.TransactionID(tx).ByteArray())
}
