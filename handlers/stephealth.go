package handlers

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// StepHealth follows the failure streaks of a process's recurring steps
// (a chain's indexer, a signer's node): a streak's start and end become
// events (relay.step_failed, relay.step_recovered), so an outage is one
// line in the audit trail and in the log, not one per retry; every failed
// round is counted (relay_step_failures_total{step}). Safe for concurrent
// use; the zero value works (no events without an Appender).
type StepHealth struct {
	Appender *Appender
	Logger   *slog.Logger
	Metrics  StepMetrics
	Now      func() time.Time

	mu      sync.Mutex
	streaks map[string]*streak // failing steps
}

// streak is a step's run of consecutive failed rounds.
type streak struct {
	since    time.Time
	failures int
	last     error
}

// StepOutage is a failing step's streak so far.
type StepOutage struct {
	Since    time.Time
	Failures int
	LastErr  error // the latest failed round's
}

// Track records one round of step: err nil means it worked.
func (h *StepHealth) Track(ctx context.Context, step string, err error) {
	ev := h.transition(step, err)
	if ev != nil && h.Appender != nil {
		if _, aerr := h.Appender.Append(ctx, Cause{}, ev); aerr != nil {
			loggerOr(h.Logger).Warn("recording step health failed", "step", step, "error", aerr)
		}
	}
}

// Failing reports whether step's last round failed.
func (h *StepHealth) Failing(step string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streaks[step] != nil
}

// Outage is step's current failure streak, false while it works.
func (h *StepHealth) Outage(step string) (StepOutage, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.streaks[step]
	if st == nil {
		return StepOutage{}, false
	}
	return StepOutage{Since: st.since, Failures: st.failures, LastErr: st.last}, true
}

// transition updates step's streak and returns the event of a streak that
// starts or ends.
func (h *StepHealth) transition(step string, err error) domain.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streaks == nil {
		h.streaks = map[string]*streak{}
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	st := h.streaks[step]
	var ev domain.Event
	switch {
	case err != nil && st == nil:
		st = &streak{since: now()}
		h.streaks[step] = st
		ev = domain.RelayStepFailed{Step: step, Reason: err.Error(), Since: st.since.UnixNano()}
		loggerOr(h.Logger).Error("step failing", "step", step, "error", err)
	case err == nil && st != nil:
		delete(h.streaks, step)
		ev = domain.RelayStepRecovered{Step: step, Since: st.since.UnixNano(), Failures: st.failures}
		loggerOr(h.Logger).Info("step recovered", "step", step, "failures", st.failures, "down_for", now().Sub(st.since))
	}
	if err != nil {
		st.failures++
		st.last = err
		metricsOr(h.Metrics).StepFailed(step)
	}
	return ev
}
