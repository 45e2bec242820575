// Package handlers holds bridgelog's process managers: glue that reads
// projections, asks domain for a decision, appends the resulting events
// and calls adapters. Side effects go through intents: an intent event is
// appended before a transaction is sent and an outcome event after.
package handlers

import (
	"context"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Appender turns domain events into envelopes and appends them.
type Appender struct {
	Log     topics.Log
	Catalog *topics.Catalog
	Limits  topics.Limits
	Now     func() time.Time // recorded-at clock; nil means time.Now
	NewID   func() string    // envelope ids; nil means topics.NewID (random)
}

// Cause links appended events to what caused them.
type Cause struct {
	CausationID   string
	CorrelationID string
	OccurredAt    time.Time
}

// Append appends events in order, grouped per topic, and returns their
// envelopes. Events of one aggregate keep their order (one partition).
func (a *Appender) Append(ctx context.Context, c Cause, evs ...domain.Event) ([]topics.Envelope, error) {
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	rec := now().UTC()
	envs := make([]topics.Envelope, 0, len(evs))
	byTopic := map[string][]topics.Message{}
	var order []string
	for _, ev := range evs {
		m := topics.Meta{CausationID: c.CausationID, CorrelationID: c.CorrelationID, OccurredAt: c.OccurredAt, RecordedAt: rec}
		if a.NewID != nil {
			m.ID = a.NewID()
		}
		env, topic, err := a.Catalog.Wrap(ev, m)
		if err != nil {
			return nil, err
		}
		msg, err := env.Message(a.Limits)
		if err != nil {
			return nil, err
		}
		if _, seen := byTopic[topic]; !seen {
			order = append(order, topic)
		}
		byTopic[topic] = append(byTopic[topic], msg)
		envs = append(envs, env)
	}
	for _, t := range order {
		if _, err := a.Log.Append(ctx, t, byTopic[t]...); err != nil {
			return nil, fmt.Errorf("append %d events to %s: %w", len(byTopic[t]), t, err)
		}
	}
	return envs, nil
}
