package kaspa

import (
	"errors"
	"fmt"
	"slices"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/utxo"
)

// ErrTemplate: a transaction that has no template form (an input without
// its UTXO entry), or a template this adapter cannot pay.
var ErrTemplate = errors.New("not a payable Kaspa template")

// Transaction is the unsigned Kaspa transaction of a template: no
// signature scripts, and every input carrying its UTXO entry (amount and
// script; the DAA score and coinbase flag are unknown here and do not
// enter the signature hash), so that it can be signed and its mass
// computed. A new transaction each call: kaspad caches the id in tx.ID.
func Transaction(t twophase.Template) *externalapi.DomainTransaction {
	tx := &externalapi.DomainTransaction{
		Version:      t.Version,
		Inputs:       make([]*externalapi.DomainTransactionInput, len(t.Inputs)),
		Outputs:      make([]*externalapi.DomainTransactionOutput, len(t.Outputs)),
		LockTime:     t.LockTime,
		SubnetworkID: externalapi.DomainSubnetworkID(t.SubnetworkID),
		Gas:          t.Gas,
		Payload:      slices.Clone(t.Payload),
	}
	for i, in := range t.Inputs {
		txID := [externalapi.DomainHashSize]byte(in.Outpoint.TxID)
		tx.Inputs[i] = &externalapi.DomainTransactionInput{
			PreviousOutpoint: externalapi.DomainOutpoint{
				TransactionID: *externalapi.NewDomainTransactionIDFromByteArray(&txID),
				Index:         in.Outpoint.Index,
			},
			Sequence:   in.Sequence,
			SigOpCount: in.SigOpCount,
			UTXOEntry:  utxo.NewUTXOEntry(in.Amount, scriptPublicKey(in.Script), false, 0),
		}
	}
	for i, o := range t.Outputs {
		tx.Outputs[i] = &externalapi.DomainTransactionOutput{Value: o.Amount, ScriptPublicKey: scriptPublicKey(o.Script)}
	}
	return tx
}

// TemplateFromTransaction is the template of an unsigned transaction
// whose inputs carry their UTXO entries; signature scripts are ignored.
func TemplateFromTransaction(tx *externalapi.DomainTransaction) (twophase.Template, error) {
	t := twophase.Template{
		Version:      tx.Version,
		LockTime:     tx.LockTime,
		SubnetworkID: [20]byte(tx.SubnetworkID),
		Gas:          tx.Gas,
		Payload:      slices.Clone(tx.Payload),
	}
	if len(tx.Inputs) > 0 {
		t.Inputs = make([]twophase.TemplateInput, len(tx.Inputs))
	}
	for i, in := range tx.Inputs {
		if in.UTXOEntry == nil {
			return twophase.Template{}, fmt.Errorf("%w: input %d has no UTXO entry", ErrTemplate, i)
		}
		t.Inputs[i] = twophase.TemplateInput{
			Outpoint: twophase.Outpoint{
				TxID:  twophase.Hash(*in.PreviousOutpoint.TransactionID.ByteArray()),
				Index: in.PreviousOutpoint.Index,
			},
			Amount:     in.UTXOEntry.Amount(),
			Script:     templateScript(in.UTXOEntry.ScriptPublicKey()),
			Sequence:   in.Sequence,
			SigOpCount: in.SigOpCount,
		}
	}
	if len(tx.Outputs) > 0 {
		t.Outputs = make([]twophase.TemplateOutput, len(tx.Outputs))
	}
	for i, o := range tx.Outputs {
		t.Outputs[i] = twophase.TemplateOutput{Amount: o.Value, Script: templateScript(o.ScriptPublicKey)}
	}
	return t, nil
}

// transactionID is the id Kaspa gives the transaction: signature scripts
// (and sig-op counts) are left out of it, so it is fixed before signing.
func transactionID(tx *externalapi.DomainTransaction) twophase.Hash {
	return twophase.Hash(*consensushashing.TransactionID(tx).ByteArray())
}

func scriptPublicKey(s twophase.Script) *externalapi.ScriptPublicKey {
	return &externalapi.ScriptPublicKey{Script: slices.Clone(s.Bytes), Version: s.Version}
}

func templateScript(s *externalapi.ScriptPublicKey) twophase.Script {
	return twophase.Script{Version: s.Version, Bytes: slices.Clone(s.Script)}
}
