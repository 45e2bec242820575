package handlers

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bridgelog/bridgelog/domain"
)

// RateLimitStep is the step a TxDriver follows an item's wait on a
// contract's rate limit as: its streak is one relay.step_failed when the
// wait starts and one relay.step_recovered when the item goes through.
func RateLimitStep(purpose domain.Purpose, subject string) string {
	return "rate_limit:" + string(purpose) + ":" + subject
}

// rateLimited follows a subject's wait on a contract's rate limit
// (RateLimiter.sol) from the revert reason of its latest attempt ("" for
// an estimate that passed). The item is not failed: the driver defers it
// (ErrCallDeferred) and it is sent once the bucket refills. Every
// deferral is counted (relay_rate_limited_total); the wait is one line
// and one event when it starts and when it ends (RateLimits).
func (d *TxDriver) rateLimited(ctx context.Context, req TxRequest, reason string) {
	limited := domain.IsRateLimited(reason)
	if limited {
		kind := "rate_limited"
		if !domain.IsRateLimitedRefilling(reason) {
			kind = "over_capacity" // waits for the admin to raise the capacity
		}
		metricsOr(d.Metrics).RateLimited(string(req.Purpose), kind)
	}
	h := d.RateLimits
	if h == nil {
		if d.ownLimits == nil {
			d.ownLimits = &StepHealth{Logger: d.logger()}
		}
		h = d.ownLimits
	}
	step := RateLimitStep(req.Purpose, req.Subject)
	if !limited && !h.Failing(step) {
		return
	}
	var err error
	if limited {
		err = &domain.CallReverted{Reason: reason}
	}
	h.Track(ctx, step, err)
}

// WaitingOnRateLimit reports whether the driver's last attempt at subject
// was deferred by a contract's rate limit: callers log its retries at
// debug level, the wait having been logged once.
func (d *TxDriver) WaitingOnRateLimit(purpose domain.Purpose, subject string) bool {
	h := d.RateLimits
	if h == nil {
		h = d.ownLimits
	}
	return h != nil && h.Failing(RateLimitStep(purpose, subject))
}

// isRateLimitDeferral reports whether err is a call deferred by a
// contract's rate limit: the item waits for the bucket, which refills.
func isRateLimitDeferral(err error) bool {
	return errors.Is(err, domain.ErrCallDeferred) && domain.IsRateLimited(err.Error())
}

// attemptLevel is the level of the line an attempt at subject starts with:
// debug while it waits on the rate limit.
func attemptLevel(d *TxDriver, purpose domain.Purpose, subject string) slog.Level {
	if d.WaitingOnRateLimit(purpose, subject) {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}
