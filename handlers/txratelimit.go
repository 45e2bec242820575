package handlers

import (
	"context"
	"log/slog"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// rateLimited follows a subject's wait on a contract's rate limit
// (RateLimiter.sol) from the revert reason of its latest estimate ("" for
// one that passed, or a reason that is not the limit's). The item is not
// failed: the driver defers it (ErrCallDeferred) and it is sent once the
// bucket refills. Every deferral is counted; the wait is one warning line
// when it starts and one line when it ends.
func (d *TxDriver) rateLimited(req TxRequest, reason string) {
	limited := domain.IsRateLimited(reason)
	since, waiting := d.limited[req.Subject]
	switch {
	case limited:
		kind := "rate_limited"
		if !domain.IsRateLimitedRefilling(reason) {
			kind = "over_capacity"
		}
		metricsOr(d.Metrics).RateLimited(string(req.Purpose), kind)
		if waiting {
			return
		}
		if d.limited == nil {
			d.limited = map[string]time.Time{}
		}
		d.limited[req.Subject] = d.now()
		level := slog.LevelWarn
		if kind == "over_capacity" {
			level = slog.LevelError // waits for the admin to raise the capacity
		}
		d.logger().Log(context.Background(), level, "waiting for the contract's rate limit", "subject", req.Subject,
			"purpose", req.Purpose, "reason", reason, "wallet", d.Chain.From().Hex())
	case waiting:
		delete(d.limited, req.Subject)
		d.logger().Info("rate limit wait over", "subject", req.Subject, "purpose", req.Purpose, "waited", d.now().Sub(since))
	}
}
