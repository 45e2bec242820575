package main

import (
	"context"
	"fmt"
	"io"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/cmd/bridgelog/internal/simulate"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// payoutRecord is what one signer's log says of its payouts.
type payoutRecord struct {
	completed int
	// refused are the events it recorded Refused: the group's verdict,
	// which every honest member reaches alone.
	refused  []refusedEvent
	rounds   []int64 // per completed event: rounds started
	commitMs []int64 // per completed event: first round to commit
	fees     []int64 // sompi, per completed payout
	masses   []int64
}

// readPayoutRecord replays a stopped (or running: it opens read-only)
// signer's log for its completed payouts: how many rounds each took, how
// long from its first round to its commit, and its template's fee and
// mass.
func readPayoutRecord(ctx context.Context, configPath string) (payoutRecord, error) {
	var rec payoutRecord
	setup, err := loadSignerConfig(configPath)
	if err != nil {
		return rec, err
	}
	lg, err := embeddedlog.OpenReadOnly(setup.logDir(), embeddedlog.WithContext(ctx))
	if err != nil {
		return rec, fmt.Errorf("open signer %s's log: %w", setup.protocol.Self, err)
	}
	defer lg.Close()
	st, err := twophase.NewState(setup.protocol)
	if err != nil {
		return rec, err
	}
	rounds := map[twophase.Hash]int64{}
	firstRound := map[twophase.Hash]int64{}
	committed := map[twophase.Hash]int64{}
	if _, err := signing.Replay(ctx, lg, func(f twophase.Fact) {
		st.Apply(f)
		switch f := f.(type) {
		case *twophase.RoundStarted:
			rounds[f.EventID]++
			if at, ok := firstRound[f.EventID]; !ok || f.AtNs < at {
				firstRound[f.EventID] = f.AtNs
			}
		case *twophase.Committed:
			if _, ok := committed[f.EventID]; !ok {
				committed[f.EventID] = f.AtNs
			}
		}
	}); err != nil {
		return rec, err
	}
	for _, e := range st.Events() {
		if e.Phase == twophase.PhaseRefused && e.Refusal != nil {
			rec.refused = append(rec.refused, refusedEvent{destination: e.Event.Destination, reason: e.Refusal.Reason})
		}
		if e.Phase != twophase.PhaseCompleted {
			continue
		}
		rec.completed++
		rec.rounds = append(rec.rounds, rounds[e.ID])
		if at, ok := committed[e.ID]; ok && firstRound[e.ID] > 0 {
			rec.commitMs = append(rec.commitMs, (at-firstRound[e.ID])/1e6)
		}
		t, ok := e.Template(e.Canonical)
		if !ok {
			continue
		}
		if fee, err := t.Fee(); err == nil {
			rec.fees = append(rec.fees, int64(fee))
		}
		if mass, err := setup.protocol.Rules.Mass(t); err == nil {
			rec.masses = append(rec.masses, int64(mass))
		}
	}
	return rec, nil
}

// refusedEvent is a signing event a signer recorded Refused.
type refusedEvent struct {
	destination string
	reason      twophase.Reason
}

// printKaspaSummary writes the Kaspa lines of the devnet summary and
// says whether every payout was confirmed once and every refused burn
// refused by the group and refunded once.
func printKaspaSummary(w io.Writer, paid kaspaPaid, want int, refunds refundOutcome, rec payoutRecord, signer string) bool {
	line := fmt.Sprintf("%d / %d", paid.confirmed, want)
	if refunds.want > 0 {
		line += fmt.Sprintf(", refused %d, refunded %d", refunds.refused, refunds.refunded)
	}
	fmt.Fprintf(w, "  kaspa payouts confirmed %s   (on the node, each recipient holding exactly what it was owed, once)\n", line)
	for _, p := range paid.problems {
		fmt.Fprintf(w, "  kaspa differs           %s\n", p)
	}
	for _, p := range refunds.problems {
		fmt.Fprintf(w, "  refunds differ          %s\n", p)
	}
	if rec.completed > 0 {
		r := simulate.LatencyOf(rec.rounds)
		fmt.Fprintf(w, "  kaspa rounds per event  median %d, max %d (signer %s)\n", r.P50, r.Max, signer)
		c := simulate.LatencyOf(rec.commitMs)
		fmt.Fprintf(w, "  kaspa commit latency    p50 %d ms, p95 %d ms, max %d ms (first round to commit)\n", c.P50, c.P95, c.Max)
		f, m := simulate.LatencyOf(rec.fees), simulate.LatencyOf(rec.masses)
		fmt.Fprintf(w, "  kaspa fee per payout    median %d sompi, max %d; mass median %d, max %d\n", f.P50, f.Max, m.P50, m.Max)
	}
	return paid.confirmed == want && len(paid.problems) == 0 && refunds.ok()
}
