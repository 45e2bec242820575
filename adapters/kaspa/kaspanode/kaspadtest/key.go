package kaspadtest

import (
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/constants"
	"github.com/kaspanet/kaspad/domain/consensus/utils/subnetworks"
	"github.com/kaspanet/kaspad/domain/consensus/utils/utxo"
	"github.com/kaspanet/kaspad/domain/dagconfig"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Keys are signed in pure Go (btcec's BIP-340 Schnorr, what kaspad
// verifies), not through kaspad's txscript and go-secp256k1: that cgo
// libsecp256k1 clashes at link time with go-ethereum's, so a test binary
// holding both (a signer's tests) would not link.

// Key is a single Schnorr key with its simnet pay-to-public-key address:
// a wallet to mine to and to spend the mined outputs from.
type Key struct {
	priv    *btcec.PrivateKey
	Address util.Address
}

// NewKey makes a fresh random key.
func NewKey(t testing.TB) *Key {
	t.Helper()
	priv, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatalf("kaspadtest: key: %v", err)
	}
	addr, err := util.NewAddressPublicKey(schnorr.SerializePubKey(priv.PubKey()), dagconfig.SimnetParams.Prefix)
	if err != nil {
		t.Fatalf("kaspadtest: address: %v", err)
	}
	return &Key{priv: priv, Address: addr}
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
		s := Script(t, p.To)
		tx.Outputs = append(tx.Outputs, &externalapi.DomainTransactionOutput{Value: p.Amount,
			ScriptPublicKey: &externalapi.ScriptPublicKey{Version: s.Version, Script: s.Bytes}})
	}
	reused := &consensushashing.SighashReusedValues{}
	for i := range tx.Inputs {
		hash, err := consensushashing.CalculateSignatureHashSchnorr(tx, i, consensushashing.SigHashAll, reused)
		if err != nil {
			t.Fatalf("kaspadtest: signature hash of input %d: %v", i, err)
		}
		sig, err := schnorr.Sign(k.priv, hash.ByteSlice())
		if err != nil {
			t.Fatalf("kaspadtest: signing input %d: %v", i, err)
		}
		// The signature script pushes the 64-byte signature and the hash
		// type: OP_DATA_65 <signature || SIGHASH_ALL>.
		tx.Inputs[i].SignatureScript = append(append([]byte{0x41}, sig.Serialize()...), byte(consensushashing.SigHashAll))
	}
	return tx
}

// Script is the locking script paying to addr: a Schnorr or ECDSA public
// key (OP_DATA_32 <key> OP_CHECKSIG, OP_DATA_33 <key> OP_CHECKSIGECDSA) or
// a script hash (OP_BLAKE2B OP_DATA_32 <hash> OP_EQUAL), as kaspad's
// txscript.PayToAddrScript writes them.
func Script(t testing.TB, addr util.Address) twophase.Script {
	t.Helper()
	key := addr.ScriptAddress()
	switch addr.(type) {
	case *util.AddressPublicKey:
		return twophase.Script{Bytes: append(append([]byte{0x20}, key...), 0xac)}
	case *util.AddressPublicKeyECDSA:
		return twophase.Script{Bytes: append(append([]byte{0x21}, key...), 0xab)}
	case *util.AddressScriptHash:
		return twophase.Script{Bytes: append(append([]byte{0xaa, 0x20}, key...), 0x87)}
	}
	t.Fatalf("kaspadtest: no script for address %s (%T)", addr, addr)
	return twophase.Script{}
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
