package signing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
)

// Errors of a WatchedLedger.
var (
	// ErrLedgerUnavailable: no node is connected yet (the first dial
	// failed: the node is down, or on another network).
	ErrLedgerUnavailable = errors.New("ledger unavailable")
	// ErrLedgerStalled: the node answers but its virtual DAA score has
	// not moved for longer than the stall bound: it is not following the
	// network, and a view from it is stale.
	ErrLedgerStalled = errors.New("ledger stalled")
)

// WatchedLedger is a signer's Ledger that knows whether its node can be
// trusted now. Every view it reads is one round of the node's health
// step: the start and end of an outage become events on the signer's log
// (handlers.StepHealth) and a metric. A node whose virtual DAA score has
// not moved for StallAfter gives no view at all, so the signer never
// proposes or votes on a stale one: it waits until the node follows the
// network again. Until a node is attached (the first dial failed), every
// call fails with ErrLedgerUnavailable and the dial's error.
type WatchedLedger struct {
	Health *handlers.StepHealth
	// Step names the node in the health events and metrics, e.g.
	// "kaspa_node".
	Step string
	// StallAfter bounds how long the virtual DAA score may stay the same
	// (0: never stalled).
	StallAfter time.Duration
	Now        func() time.Time // nil: time.Now

	mu        sync.Mutex
	ledger    Ledger
	dialErr   error
	lastScore uint64
	lastMove  time.Time
}

// Attach sets the connected node's ledger.
func (w *WatchedLedger) Attach(l Ledger) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ledger, w.dialErr = l, nil
}

// DialFailed records why no node could be attached yet: one failed round
// of the health step.
func (w *WatchedLedger) DialFailed(ctx context.Context, err error) {
	w.mu.Lock()
	w.dialErr = err
	w.mu.Unlock()
	w.Health.Track(ctx, w.Step, fmt.Errorf("%w: %w", ErrLedgerUnavailable, err))
}

func (w *WatchedLedger) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// current is the attached ledger, or why there is none.
func (w *WatchedLedger) current() (Ledger, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ledger == nil {
		if w.dialErr != nil {
			return nil, fmt.Errorf("%w: %w", ErrLedgerUnavailable, w.dialErr)
		}
		return nil, ErrLedgerUnavailable
	}
	return w.ledger, nil
}

// View reads the node's view, refusing a stale one, and records the
// round in the node's health.
func (w *WatchedLedger) View(ctx context.Context) (twophase.LedgerView, error) {
	l, err := w.current()
	var v twophase.LedgerView
	if err == nil {
		v, err = l.View(ctx)
	}
	if err == nil {
		err = w.moved(v.VirtualDAAScore)
	}
	if ctx.Err() == nil { // a cancelled call says nothing of the node
		w.Health.Track(ctx, w.Step, err)
	}
	if err != nil {
		return twophase.LedgerView{}, err
	}
	return v, nil
}

// moved notes the score and says whether it stayed the same too long.
func (w *WatchedLedger) moved(score uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if w.lastMove.IsZero() || score != w.lastScore {
		w.lastScore, w.lastMove = score, now
		return nil
	}
	if still := now.Sub(w.lastMove); w.StallAfter > 0 && still > w.StallAfter {
		return fmt.Errorf("%w: virtual DAA score %d has not moved for %s", ErrLedgerStalled, score, still.Round(time.Second))
	}
	return nil
}

// PayoutStatus asks the attached node.
func (w *WatchedLedger) PayoutStatus(ctx context.Context, txID twophase.Hash) (twophase.PayoutStatus, error) {
	l, err := w.current()
	if err != nil {
		return twophase.PayoutStatus{}, err
	}
	return l.PayoutStatus(ctx, txID)
}

// Submit hands tx to the attached node.
func (w *WatchedLedger) Submit(ctx context.Context, tx []byte) error {
	l, err := w.current()
	if err != nil {
		return err
	}
	return l.Submit(ctx, tx)
}

// ErrNoInputStatus: the attached ledger cannot say what became of an
// outpoint; a signed payout is then only sent again, never voided.
var ErrNoInputStatus = errors.New("ledger cannot report an outpoint's status")

// InputStatus asks the attached node what became of an outpoint, when
// its client can say (InputLedger).
func (w *WatchedLedger) InputStatus(ctx context.Context, op twophase.Outpoint) (twophase.InputStatus, error) {
	l, err := w.current()
	if err != nil {
		return twophase.InputStatus{}, err
	}
	il, ok := l.(InputLedger)
	if !ok {
		return twophase.InputStatus{}, ErrNoInputStatus
	}
	return il.InputStatus(ctx, op)
}
