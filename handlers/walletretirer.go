package handlers

import (
	"context"
	"log/slog"
	"sync"

	"github.com/bridgelog/bridgelog/domain"
)

// SenderIntents counts a sender's intents without an outcome
// (projections.BridgeReader).
type SenderIntents interface {
	OpenIntentsFrom(ctx context.Context, chainID uint64, sender domain.Address) (int, error)
}

// WalletRetirer hands retiring wallets over (bridgelog keys rotate): a
// retiring wallet's driver takes no new request (the minter and the claim
// executors use it only for the intents it has open), and once none of
// its intents is open and the chain holds nothing of it pending, the
// retirer records the wallet retired and the relay uses it no more.
type WalletRetirer struct {
	Wallets  []*TxDriver // the retiring wallets, one driver per wallet and chain
	Intents  SenderIntents
	Appender *Appender
	Logger   *slog.Logger

	mu      sync.Mutex
	retired map[*TxDriver]bool
}

// Retired reports whether d's wallet was recorded retired.
func (r *WalletRetirer) Retired(d *TxDriver) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retired[d]
}

// Poll retires every retiring wallet that has nothing left in flight and
// returns how many it retired.
func (r *WalletRetirer) Poll(ctx context.Context) (int, error) {
	n := 0
	for _, d := range r.Wallets {
		if r.Retired(d) {
			continue
		}
		ok, err := r.retire(ctx, d)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

func (r *WalletRetirer) retire(ctx context.Context, d *TxDriver) (bool, error) {
	chainID, addr := d.Chain.ChainID(), d.Chain.From()
	open, err := r.Intents.OpenIntentsFrom(ctx, chainID, addr)
	if err != nil || open > 0 {
		return false, err
	}
	// Serialized with the driver's sends: no intent of it can be under
	// way while its nonces are read. A driver at work is asked next round.
	if !d.mu.TryLock() {
		return false, nil
	}
	defer d.mu.Unlock()
	confirmed, pending, err := d.Chain.WalletNonces(ctx)
	if err != nil || pending > confirmed {
		return false, err
	}
	ev := domain.WalletRetired{ChainID: chainID, Address: addr, NextNonce: confirmed}
	if _, err := r.Appender.Append(ctx, Cause{CorrelationID: ev.AggregateID()}, ev); err != nil {
		return false, err
	}
	r.mu.Lock()
	if r.retired == nil {
		r.retired = map[*TxDriver]bool{}
	}
	r.retired[d] = true
	r.mu.Unlock()
	loggerOr(r.Logger).Info("wallet retired", "chain_id", chainID, "wallet", addr.Hex(), "next_nonce", confirmed)
	return true, nil
}

// driverOf is the driver among ds whose wallet signed open, if any.
func driverOf(ds []*TxDriver, open []domain.TxIntent) *TxDriver {
	if len(open) == 0 {
		return nil
	}
	for _, d := range ds {
		if d.Chain.From() == open[0].From && d.Chain.ChainID() == open[0].ChainID {
			return d
		}
	}
	return nil
}
