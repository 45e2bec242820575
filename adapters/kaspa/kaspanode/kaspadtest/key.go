package kaspadtest

import (
	"testing"

	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Key is a single Schnorr key with its simnet pay-to-public-key address:
// a wallet to mine to and to spend the mined outputs from.
type Key struct {
	Wallet  *kaspa.Wallet
	Address util.Address
}

// NewKey makes a fresh random key.
func NewKey(t testing.TB) *Key {
	t.Helper()
	w, err := kaspa.NewRandomWallet(Network)
	if err != nil {
		t.Fatalf("kaspadtest: key: %v", err)
	}
	return &Key{Wallet: w, Address: w.Address()}
}

// Payment is an output of a spend.
type Payment = kaspa.Payment

// Spend builds a transaction spending ins (outputs of k's address, as a
// ledger view lists them) to pays, each input signed by k (SIGHASH_ALL).
// What the inputs hold beyond the payments is the fee.
func (k *Key) Spend(t testing.TB, ins []twophase.UTXO, pays ...Payment) *externalapi.DomainTransaction {
	t.Helper()
	var in, out uint64
	for _, u := range ins {
		in += u.Amount
	}
	for _, p := range pays {
		out += p.Amount
	}
	if out > in {
		t.Fatalf("kaspadtest: spend of %d sompi pays %d", in, out)
	}
	tx, err := k.Wallet.Spend(ins, pays, in-out)
	if err != nil {
		t.Fatalf("kaspadtest: %v", err)
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
