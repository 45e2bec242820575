package handlers

import (
	"context"
	"log/slog"

	"github.com/bridgelog/bridgelog/domain"
)

// RefundQueue lists requested refunds not yet completed or failed.
type RefundQueue interface {
	RefundPending(ctx context.Context, limit int) ([]domain.RefundTask, error)
}

// RefundCalls packs the token's refund call (evmchain.Calls).
type RefundCalls interface {
	Refund(c domain.RefusalCertificate) domain.ContractCall
}

// RefundMetrics receives the refunds' metrics.
type RefundMetrics interface {
	RefundCompleted(gasUsed uint64)
	RefundFailed()
	CertificateRefused(reason string)
}

// nopRefundMetrics discards every refund metric.
type nopRefundMetrics struct{}

func (nopRefundMetrics) RefundCompleted(uint64)    {}
func (nopRefundMetrics) RefundFailed()             {}
func (nopRefundMetrics) CertificateRefused(string) {}

func refundMetricsOr(m RefundMetrics) RefundMetrics {
	if m == nil {
		return nopRefundMetrics{}
	}
	return m
}

// Refunder mints refused burns back, as the Minter mints deposits: only
// requested refunds (a verified certificate on the log) are taken, every
// refund goes through an intent, a refund the token already made (its
// per-key guard, "already refunded") completes it, and only the token's
// own revert fails it. What the relayer caused never fails a refund.
type Refunder struct {
	Queue   RefundQueue
	Calls   RefundCalls
	Driver  *TxDriver
	Batch   int // refunds per poll, default 20
	Metrics RefundMetrics
	Logger  *slog.Logger
}

// Poll refunds what is pending and returns how many refunds it finished.
func (rf *Refunder) Poll(ctx context.Context) (int, error) {
	n := rf.Batch
	if n <= 0 {
		n = 20
	}
	tasks, err := rf.Queue.RefundPending(ctx, n)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, t := range tasks {
		ok, err := rf.refund(ctx, t)
		if isRateLimitDeferral(err) {
			return done, nil // the token's bucket is short: the rest wait with this one
		}
		if err != nil {
			return done, err
		}
		if ok {
			done++
		}
	}
	return done, nil
}

// refund sees one refund through; ok says it is final.
func (rf *Refunder) refund(ctx context.Context, t domain.RefundTask) (bool, error) {
	m, log := refundMetricsOr(rf.Metrics), loggerOr(rf.Logger)
	c, subject := t.Certificate, t.Subject()
	log.Log(ctx, attemptLevel(rf.Driver, domain.PurposeRefund, subject), "refunding a refused burn", "burn_id", subject, "burner", c.Burner.Hex(), "amount", c.Amount.String(),
		"reason", c.Reason, "wallet", rf.Driver.Chain.From().Hex())
	cause := Cause{CorrelationID: subject}
	out, err := rf.Driver.Drive(ctx, TxRequest{Purpose: domain.PurposeRefund, Subject: subject, Call: rf.Calls.Refund(c),
		Open: t.Open, Cause: cause})
	if err != nil {
		return false, err
	}
	var ev domain.Event
	switch out.Status {
	case domain.TxSucceeded, domain.TxAlreadyProcessed:
		done := out.Status == domain.TxAlreadyProcessed
		ev = domain.RefundCompleted{Burn: c.Burn, TxHash: out.TxHash, GasUsed: out.GasUsed, BlockNumber: out.BlockNumber, AlreadyDone: done}
		m.RefundCompleted(out.GasUsed)
		log.Info("refund completed", "burn_id", subject, "tx_hash", out.TxHash.Hex(), "gas_used", out.GasUsed, "already_done", done)
	case domain.TxReverted:
		ev = domain.RefundFailed{Burn: c.Burn, Reason: string(out.Status) + ": " + out.Reason}
		m.RefundFailed()
		log.Error("refund failed", "burn_id", subject, "error", out.Reason)
	default:
		// Nothing final (replaced, abandoned, out of gas at the cap,
		// deferred, dry-run): the next poll drives it again; the token's
		// per-key guard keeps a late-mined attempt from minting twice.
		return false, nil
	}
	if _, err := rf.Driver.Appender.Append(ctx, cause, ev); err != nil {
		return false, err
	}
	return true, nil
}
