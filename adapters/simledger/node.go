package simledger

import (
	"context"
	"sync"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Node is one signer's node on the simulated ledger: it sees the ledger
// Lag DAA scores behind (a node that lags its peers) and submits to it.
// It implements the signer's ledger interface. Safe for concurrent use
// when every Node of a Ledger shares Mu.
type Node struct {
	Ledger *Ledger
	Lag    func() uint64 // nil: no lag
	Mu     *sync.Mutex   // nil: the caller serialises access (the simulator)
}

func (n Node) lag() uint64 {
	if n.Lag == nil {
		return 0
	}
	return n.Lag()
}

func (n Node) lock() func() {
	if n.Mu == nil {
		return func() {}
	}
	n.Mu.Lock()
	return n.Mu.Unlock
}

// View is the lagging node's view.
func (n Node) View(context.Context) (twophase.LedgerView, error) {
	defer n.lock()()
	return n.Ledger.View(n.lag()), nil
}

// PayoutStatus is what the lagging node knows of a payout.
func (n Node) PayoutStatus(_ context.Context, tx twophase.Hash) (twophase.PayoutStatus, error) {
	defer n.lock()()
	return n.Ledger.Status(tx, n.lag()), nil
}

// Submit hands a signed payout to the ledger.
func (n Node) Submit(_ context.Context, tx []byte) error {
	defer n.lock()()
	_, err := n.Ledger.Submit(tx)
	return err
}

// InputStatus is what the lagging node knows of an outpoint.
func (n Node) InputStatus(_ context.Context, op twophase.Outpoint) (twophase.InputStatus, error) {
	defer n.lock()()
	return n.Ledger.Input(op, n.lag()), nil
}
