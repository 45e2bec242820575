package kaspanode

import (
	"context"
	"encoding/hex"

	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
	"github.com/kaspanet/kaspad/domain/consensus/utils/transactionhelper"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/domain"
)

// DepositSource is the relay's Kaspa indexer's view of the chain through
// a Client: the virtual chain's change as domain values, each accepted
// transaction marked when it spends from the group (its outputs to the
// group are change or sweeps), and the group's deposit scripts.
type DepositSource struct {
	Client   *Client
	Deposits *kaspa.Deposits
	// MaxAdded bounds the chain blocks one change carries (0: 200).
	MaxAdded int
}

// Network is the group's network.
func (s DepositSource) Network() string { return s.Deposits.Network() }

// Start is where a relay with no cursor starts: the node's pruning point.
func (s DepositSource) Start(ctx context.Context) (domain.Hash32, error) {
	p, err := s.Client.PruningPoint(ctx)
	if err != nil {
		return domain.Hash32{}, err
	}
	h, err := blockHash(p)
	return domain.Hash32(h), err
}

// VirtualDAAScore is the node's virtual DAA score.
func (s DepositSource) VirtualDAAScore(ctx context.Context) (uint64, error) {
	return s.Client.VirtualDAAScore(ctx)
}

// ChangeFrom reads the chain's change since cursor; more: blocks were
// left out past the bound (ask again from the last added).
func (s DepositSource) ChangeFrom(ctx context.Context, cursor domain.Hash32) (domain.KaspaChainChange, bool, error) {
	c, err := s.Client.ChainFrom(ctx, hex.EncodeToString(cursor[:]), s.MaxAdded)
	if err != nil {
		return domain.KaspaChainChange{}, false, err
	}
	var out domain.KaspaChainChange
	for _, r := range c.Removed {
		h, err := blockHash(r)
		if err != nil {
			return domain.KaspaChainChange{}, false, err
		}
		out.Removed = append(out.Removed, domain.Hash32(h))
	}
	for _, b := range c.Added {
		h, err := blockHash(b.Hash)
		if err != nil {
			return domain.KaspaChainChange{}, false, err
		}
		cb := domain.KaspaChainBlock{Hash: domain.Hash32(h), DAAScore: b.DAAScore, Time: b.Time}
		for _, tx := range b.Accepted {
			cb.Accepted = append(cb.Accepted, s.transaction(tx))
		}
		out.Added = append(out.Added, cb)
	}
	return out, c.More > 0, nil
}

// transaction is tx as deposit detection reads it.
func (s DepositSource) transaction(tx *externalapi.DomainTransaction) domain.KaspaTx {
	out := domain.KaspaTx{ID: domain.Hash32(*consensushashing.TransactionID(tx).ByteArray()), Coinbase: transactionhelper.IsCoinBase(tx)}
	for _, in := range tx.Inputs {
		if s.Deposits.SpendsFromGroup(in.SignatureScript) {
			out.GroupSpend = true
			break
		}
	}
	for _, o := range tx.Outputs {
		ko := domain.KaspaTxOutput{Amount: o.Value}
		if o.ScriptPublicKey != nil {
			ko.ScriptVersion, ko.Script = o.ScriptPublicKey.Version, o.ScriptPublicKey.Script
		}
		out.Outputs = append(out.Outputs, ko)
	}
	return out
}

// GroupScript is the script public key of the group's own address.
func (s DepositSource) GroupScript() []byte { return s.Deposits.GroupLockScript() }

// DepositScript is the script public key of recipient's deposit address.
func (s DepositSource) DepositScript(recipient domain.Address) ([]byte, error) {
	_, lock, err := s.Deposits.Address(recipient)
	return lock, err
}
