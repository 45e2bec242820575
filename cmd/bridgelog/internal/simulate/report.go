package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// metricsSink adds up the signers' metric observations: all of them, and
// the honest signers' apart.
type metricsSink struct {
	totals, honest map[string]float64
}

func newMetricsSink() *metricsSink {
	return &metricsSink{totals: map[string]float64{}, honest: map[string]float64{}}
}

type signerMetrics struct {
	s      *metricsSink
	honest bool
}

func (m *metricsSink) signer(honest bool) signerMetrics { return signerMetrics{m, honest} }

func (m signerMetrics) Observe(name, _ string, v float64) {
	m.s.totals[name] += v
	if m.honest {
		m.s.honest[name] += v
	}
}

// Latency is a distribution's percentiles in virtual milliseconds.
type Latency struct {
	P50 int64 `json:"p50"`
	P95 int64 `json:"p95"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// Byzantine is how many signers are Byzantine, what they do, and what
// they did: proposals sent as another template than their state's (or
// another lock message), messages withheld, commits with forged evidence.
type Byzantine struct {
	Count        int       `json:"count"`
	Behaviour    Behaviour `json:"behaviour"`
	Equivocated  int       `json:"equivocated"`
	Withheld     int       `json:"withheld"`
	ForgedCommit int       `json:"forged_commits"`
	// RoundJumps counts far-ahead votes and unrequested sync answers sent
	// (round-jump); ReserveSpam reserve proposals for a far nonce or an
	// undue split (reserve-spam).
	RoundJumps  int `json:"round_jumps,omitempty"`
	ReserveSpam int `json:"reserve_spam,omitempty"`
}

// Report is what a run prints. Its invariants are those of the honest
// signers: a Byzantine signer's own state is not checked.
type Report struct {
	Seed      uint64           `json:"seed"`
	Profile   twophase.Profile `json:"profile"`
	Signers   int              `json:"signers"`
	Quorum    int              `json:"quorum"`
	Byzantine Byzantine        `json:"byzantine"`
	Events    int              `json:"events"`
	Streams   int              `json:"streams"`

	Completed int `json:"completed"`
	// Refused counts the events every honest signer Refused (never paid);
	// Refunds those with a refusal certificate that verifies against
	// the group's keys (a quorum signed it).
	Refused   int `json:"refused"`
	Refunds   int `json:"refunds"`
	Abandoned int `json:"abandoned"`
	// StalledStreams counts streams with an event still pending at some
	// honest signer at the end: 0 whenever a quorum can talk (a minority
	// cut off for good abandons, and its streams wait behind that).
	StalledStreams int `json:"stalled_streams"`
	// BlockedBehindAbandoned counts abandoned events that never started
	// because an earlier event of their stream was abandoned (the stream
	// stalls: section 1.5).
	BlockedBehindAbandoned int `json:"blocked_behind_abandoned"`
	Hanging                int `json:"hanging"`

	RoundsP50       int     `json:"rounds_p50"`
	RoundsMax       int     `json:"rounds_max"`
	CommitLatencyMs Latency `json:"commit_latency_ms"`
	// PayoutLatencyMs runs from the first signer starting an event to the
	// ledger's block that accepted its payout.
	PayoutLatencyMs Latency `json:"payout_latency_ms"`
	// PayoutsPerMinute is the events paid per minute of virtual time from
	// the first event's arrival at the sources to the last accepting
	// block: with events arriving faster than they are paid, the rate
	// one active event per pool allows.
	PayoutsPerMinute float64 `json:"payouts_per_minute"`

	Retries              int `json:"retries"`
	TimeoutsWithoutQuoum int `json:"proposal_timeouts_without_quorum"`
	Equivocations        int `json:"equivocations"`
	InvalidRejected      int `json:"invalid_proposals_rejected"`
	StateSyncsThrottled  int `json:"state_syncs_throttled"`
	CommitConflicts      int `json:"commit_conflicts"`
	InputsInvalidated    int `json:"inputs_invalidated"`
	// PayoutsDropped and PayoutsConflicted count the signed payouts
	// --lose-payout lost (dropped by the node, or an input spent by a
	// conflicting transaction); PayoutsVoided the voids honest signers
	// recorded (each proven on the ledger, or counted as a double sign).
	PayoutsDropped    int `json:"payouts_dropped"`
	PayoutsConflicted int `json:"payouts_conflicted"`
	PayoutsVoided     int `json:"payouts_voided"`
	// ViewsDiverged counts events whose first input some honest nodes saw
	// late (--diverge).
	ViewsDiverged int `json:"views_diverged"`
	Crashes       int `json:"crashes"`
	// LockConflicts counts proposals and locks honest signers refused for
	// outpoints another event's certificate holds (Profile B).
	LockConflicts int `json:"lock_conflicts"`
	// ReserveEvents counts the reserve events (splits) honest signers
	// created; ReserveSplits the splits the ledger accepted and
	// ReserveSplitFees their fees (with ReserveOutputs).
	ReserveEvents    int    `json:"reserve_events,omitempty"`
	ReserveSplits    int    `json:"reserve_splits,omitempty"`
	ReserveSplitFees uint64 `json:"reserve_split_fees,omitempty"`
	// RefusedMessages counts, by reason, votes and messages honest
	// signers refused for the round-jump and reserve defences
	// (future_round, unrequested_sync, reserve_nonce, reserve_not_due).
	RefusedMessages map[twophase.Reason]int `json:"refused_messages,omitempty"`

	MessagesSent      uint64 `json:"messages_sent"`
	MessagesLost      uint64 `json:"messages_lost"`
	MessagesDuplicate uint64 `json:"messages_duplicated"`
	MessagesCutOff    uint64 `json:"messages_partitioned"`

	SplitCommits         int `json:"split_commits"`
	DoubleSigns          int `json:"double_signs"`
	CommitsWithoutQuorum int `json:"commits_without_quorum"`
	WrongPayouts         int `json:"wrong_payouts"`
	DoublePayouts        int `json:"double_payouts"`
	// TheftsSigned counts templates an honest signer signed that do not
	// pay their event exactly.
	TheftsSigned int `json:"thefts_signed"`
	// DoubleSpends counts accepted payouts spending an outpoint an earlier
	// accepted payout spent (the ledger refuses them: this checks it);
	// DoubleSpendAttempts counts templates of two events, both committed
	// by honest signers and both still payable, that share an outpoint.
	DoubleSpends        int `json:"double_spends"`
	DoubleSpendAttempts int `json:"double_spend_attempts"`
	// LogKeyConflicts counts facts a signer recorded under a source key it
	// had used already.
	LogKeyConflicts int `json:"log_key_conflicts"`
	// ProjectionMismatches counts events whose SQL projection (event_phase)
	// differs from the signer's state, with CheckProjections.
	ProjectionMismatches int  `json:"projection_mismatches"`
	ProjectionsChecked   bool `json:"projections_checked"`

	VirtualSeconds float64 `json:"virtual_seconds"`
}

// InvariantsHeld reports whether no safety invariant broke, nothing was
// left hanging, every event was paid, refused or abandoned, and every
// refusal is certified.
func (r Report) InvariantsHeld() bool {
	return r.SafetyHeld() && r.LogKeyConflicts == 0 && r.ProjectionMismatches == 0 && r.Hanging == 0 &&
		r.Completed+r.Refused+r.Abandoned == r.Events && r.Refunds == r.Refused
}

// SafetyHeld reports whether the honest signers never split a commit,
// signed twice or signed a theft, no commit lacked a quorum, and no
// outpoint was spent, or committed to be spent, by two events.
func (r Report) SafetyHeld() bool {
	return r.SplitCommits == 0 && r.DoubleSigns == 0 && r.CommitsWithoutQuorum == 0 && r.WrongPayouts == 0 &&
		r.DoublePayouts == 0 && r.TheftsSigned == 0 && r.DoubleSpends == 0 && r.DoubleSpendAttempts == 0
}

// LatencyOf is the percentiles of ms (sorted in place).
func LatencyOf(ms []int64) Latency {
	slices.Sort(ms)
	l := Latency{P50: percentile(ms, .50), P95: percentile(ms, .95), P99: percentile(ms, .99)}
	if len(ms) > 0 {
		l.Max = ms[len(ms)-1]
	}
	return l
}

// acceptedAt is, per event, when the block that accepted its payout came
// (the ledger's DAA score grows DAAPerSecond a second from StartDAA).
func (w *world) acceptedAt() []time.Time {
	out := make([]time.Time, len(w.events))
	for _, a := range w.ledger.AcceptedSince(0) {
		for _, o := range a.Template.Outputs {
			if i, ok := w.byScript[string(o.Script.Bytes)]; ok && out[i].IsZero() {
				out[i] = epoch.Add(time.Duration(a.DAAScore-startDAA) * w.blockInterval())
			}
		}
	}
	return out
}

func percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted)-1) + 0.5)
	return sorted[i]
}

// report builds the run's report from what the checker and the ledger saw.
func (w *world) report() Report {
	c := w.check
	c.trace(twophase.Hash{}) // make sure traces exist with zero events seen
	r := Report{Seed: w.cfg.Seed, Profile: w.cfg.Profile, Signers: w.cfg.Signers, Quorum: w.cfg.Quorum,
		Byzantine: w.byzantine, Events: w.cfg.Events, Streams: w.cfg.Streams,
		SplitCommits: c.splitCommits, DoubleSigns: c.doubleSigns, CommitsWithoutQuorum: c.commitsWithoutQuorum, LogKeyConflicts: c.keyConflicts,
		TheftsSigned: c.thefts, DoubleSpendAttempts: c.doubleSpendAttempts, DoubleSpends: w.doubleSpends(),
		Retries: c.retries, TimeoutsWithoutQuoum: c.timeouts, Equivocations: c.equivocations, InvalidRejected: c.rejectedVotes,
		StateSyncsThrottled: int(w.stats.totals[twophase.MetricStateSyncThrottled]), CommitConflicts: c.conflicts,
		InputsInvalidated: c.invalidated, PayoutsDropped: w.lost.Dropped, PayoutsConflicted: w.lost.Conflicted, PayoutsVoided: c.voided, ViewsDiverged: c.diverged, LockConflicts: int(w.stats.honest[twophase.MetricOutpointLockConflicts]),
		VirtualSeconds: w.sched.Now().Sub(epoch).Seconds()}
	for _, id := range w.ids {
		r.Crashes += w.nodes[id].crashes
	}
	r.ReserveEvents = len(c.reserve)
	for _, why := range []twophase.Reason{twophase.ReasonFutureRound, twophase.ReasonUnrequestedSync, twophase.ReasonReserveNonce, twophase.ReasonReserveNotDue} {
		if n := c.refused[why]; n > 0 {
			if r.RefusedMessages == nil {
				r.RefusedMessages = map[twophase.Reason]int{}
			}
			r.RefusedMessages[why] = n
		}
	}
	st := w.bus.Stats()
	r.MessagesSent, r.MessagesLost, r.MessagesDuplicate, r.MessagesCutOff = st.Sent, st.Lost, st.Duplicated, st.Partitioned
	paid := w.payouts(&r)
	accepted := w.acceptedAt()
	var lat, pay []int64
	var rounds []int
	var lastAccepted time.Time
	for i := range w.events {
		t := &c.ev[i]
		switch {
		case paid[i]:
			r.Completed++
			if accepted[i].After(lastAccepted) {
				lastAccepted = accepted[i]
			}
			if !t.firstActive.IsZero() && !t.lastCommit.IsZero() {
				lat = append(lat, t.lastCommit.Sub(t.firstActive).Milliseconds())
			}
			if !t.firstActive.IsZero() {
				pay = append(pay, accepted[i].Sub(t.firstActive).Milliseconds())
			}
			rounds = append(rounds, int(t.maxRound)+1)
		case w.refused(i):
			r.Refused++
		case w.abandoned(i):
			r.Abandoned++
			if t.firstActive.IsZero() {
				r.BlockedBehindAbandoned++
			}
		default:
			r.Hanging++
		}
	}
	r.Refunds, r.StalledStreams = w.refunds(), w.stalledStreams()
	slices.Sort(rounds)
	r.CommitLatencyMs, r.PayoutLatencyMs = LatencyOf(lat), LatencyOf(pay)
	if span := lastAccepted.Sub(epoch.Add(w.cfg.EventEvery)); r.Completed > 0 && span > 0 {
		r.PayoutsPerMinute = float64(r.Completed) / span.Minutes()
	}
	if len(rounds) > 0 {
		r.RoundsP50, r.RoundsMax = rounds[len(rounds)/2], rounds[len(rounds)-1]
	}
	return r
}

// payouts matches every accepted payout to the event it pays: exactly
// one output to the event's destination with its amount, the others to
// the group; anything else is a wrong payout, a second one a double.
func (w *world) payouts(r *Report) []bool {
	w.indexScripts()
	paid := make([]bool, len(w.events))
	for _, a := range w.ledger.AcceptedSince(0) {
		if isSplit(a.Template, w.group.ChangeScript, w.cfg.Params.ReserveOutputs) {
			r.ReserveSplits++
			r.ReserveSplitFees += fee(a.Template)
			continue
		}
		matched := -1
		for _, o := range a.Template.Outputs {
			if o.Script.Equal(w.group.ChangeScript) {
				continue
			}
			i, ok := w.byScript[string(o.Script.Bytes)]
			if !ok || matched >= 0 || o.Amount != w.events[i].Amount {
				r.WrongPayouts++
			}
			if ok {
				matched = i
			}
		}
		if matched < 0 {
			r.WrongPayouts++
			continue
		}
		if paid[matched] {
			r.DoublePayouts++
		}
		paid[matched] = true
	}
	return paid
}

// doubleSpends counts accepted payouts that spend an outpoint an earlier
// one spent.
func (w *world) doubleSpends() int {
	spent := map[twophase.Outpoint]bool{}
	n := 0
	for _, a := range w.ledger.AcceptedSince(0) {
		twice := false
		for _, op := range a.Template.Outpoints() {
			twice = twice || spent[op]
			spent[op] = true
		}
		if twice {
			n++
		}
	}
	return n
}

// abandoned: event i is not paid and every honest signer that is up gave
// it up, or holds it behind an abandoned event of its stream.
func (w *world) abandoned(i int) bool {
	for _, n := range w.honestNodes() {
		if !n.up {
			continue
		}
		e, ok := n.signer.Event(w.events[i].ID())
		if ok && e.Phase == twophase.PhaseAbandoned {
			continue
		}
		if w.behindAbandoned(n, i) {
			continue
		}
		return false
	}
	return true
}

// behindAbandoned: an earlier event of event i's stream is Abandoned at n.
func (w *world) behindAbandoned(n *node, i int) bool {
	for j := i - w.cfg.Streams; j >= 0; j -= w.cfg.Streams {
		if e, ok := n.signer.Event(w.events[j].ID()); ok && e.Phase == twophase.PhaseAbandoned {
			return true
		}
	}
	return false
}

// WriteText prints the report for people.
func (r Report) WriteText(out io.Writer) {
	fmt.Fprintf(out, "simulate: profile %s, %d signers, quorum %d, %d events over %d streams, seed %d, %.1f s of virtual time\n",
		r.Profile, r.Signers, r.Quorum, r.Events, r.Streams, r.Seed, r.VirtualSeconds)
	if r.Byzantine.Count > 0 {
		b := r.Byzantine
		fmt.Fprintf(out, "byzantine   the last %d signers (%s): %d proposals sent as another template, %d messages withheld, %d commits on forged evidence; the invariants below are the honest signers'\n",
			b.Count, b.Behaviour, b.Equivocated, b.Withheld, b.ForgedCommit)
		if b.RoundJumps+b.ReserveSpam > 0 {
			fmt.Fprintf(out, "byzantine   %d far-ahead votes and unrequested sync answers sent, %d reserve proposals for a far nonce or an undue split\n",
				b.RoundJumps, b.ReserveSpam)
		}
	}
	fmt.Fprintf(out, "events      %d completed, %d refused (%d refunds certified), %d abandoned (%d behind an abandoned event), %d hanging; %d streams stalled\n",
		r.Completed, r.Refused, r.Refunds, r.Abandoned, r.BlockedBehindAbandoned, r.Hanging, r.StalledStreams)
	fmt.Fprintf(out, "rounds      p50 %d, max %d; %d retries, %d proposal timeouts without quorum\n",
		r.RoundsP50, r.RoundsMax, r.Retries, r.TimeoutsWithoutQuoum)
	fmt.Fprintf(out, "commit      latency p50 %d ms, p95 %d ms, p99 %d ms, max %d ms (first activation to the last signer's commit)\n",
		r.CommitLatencyMs.P50, r.CommitLatencyMs.P95, r.CommitLatencyMs.P99, r.CommitLatencyMs.Max)
	fmt.Fprintf(out, "payout      latency p50 %d ms, p95 %d ms, p99 %d ms, max %d ms (first activation to the block accepting the payout); %.1f payouts/min (first arrival to the last accepting block)\n",
		r.PayoutLatencyMs.P50, r.PayoutLatencyMs.P95, r.PayoutLatencyMs.P99, r.PayoutLatencyMs.Max, r.PayoutsPerMinute)
	fmt.Fprintf(out, "faults      %d messages sent, %d lost, %d duplicated, %d cut by partitions; %d crashes, %d inputs reorganised away, %d seen late by some nodes\n",
		r.MessagesSent, r.MessagesLost, r.MessagesDuplicate, r.MessagesCutOff, r.Crashes, r.InputsInvalidated, r.ViewsDiverged)
	if r.PayoutsDropped+r.PayoutsConflicted+r.PayoutsVoided > 0 {
		fmt.Fprintf(out, "lost        %d signed payouts dropped by the node (sent again), %d with an input spent by a conflicting transaction; %d voids recorded\n",
			r.PayoutsDropped, r.PayoutsConflicted, r.PayoutsVoided)
	}
	fmt.Fprintf(out, "rejections  %d invalid votes rejected, %d equivocations, %d conflicting commits, %d lock conflicts, %d state syncs throttled\n",
		r.InvalidRejected, r.Equivocations, r.CommitConflicts, r.LockConflicts, r.StateSyncsThrottled)
	if r.ReserveEvents+r.ReserveSplits > 0 || len(r.RefusedMessages) > 0 {
		m := r.RefusedMessages
		fmt.Fprintf(out, "defences    %d reserve events, %d splits accepted (%d fees); refused: %d future_round, %d unrequested_sync, %d reserve_nonce, %d reserve_not_due\n",
			r.ReserveEvents, r.ReserveSplits, r.ReserveSplitFees, m[twophase.ReasonFutureRound], m[twophase.ReasonUnrequestedSync],
			m[twophase.ReasonReserveNonce], m[twophase.ReasonReserveNotDue])
	}
	if r.ProjectionsChecked {
		fmt.Fprintf(out, "projections every signer's log folded into event_phase, event_proposals, signed_templates: %d events differ from the signer's state\n",
			r.ProjectionMismatches)
	}
	verdict := "held"
	if !r.InvariantsHeld() {
		verdict = "BROKEN"
	}
	fmt.Fprintf(out, "invariants  %s: %d split commits, %d double signs, %d thefts signed, %d commits without quorum, %d wrong payouts, %d double payouts, %d double spends, %d double-spend attempts, %d log key conflicts (checked on every fact of every event)\n",
		verdict, r.SplitCommits, r.DoubleSigns, r.TheftsSigned, r.CommitsWithoutQuorum, r.WrongPayouts, r.DoublePayouts, r.DoubleSpends,
		r.DoubleSpendAttempts, r.LogKeyConflicts)
}

// WriteJSON prints the report as one JSON object.
func (r Report) WriteJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	return enc.Encode(r)
}

// Run runs one simulation to its end: every event paid or given up by
// every signer that is up, or the virtual deadline.
func Run(cfg Config) (Report, error) {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return Report{}, err
	}
	w, err := newWorld(cfg)
	if err != nil {
		return Report{}, err
	}
	defer w.bus.Close()
	w.schedule()
	last := epoch.Add(time.Duration(cfg.Events+1)*cfg.EventEvery + maxLag(cfg))
	deadline := last.Add(time.Duration(cfg.Events+1) * cfg.Params.MaxTimeToAbandon())
	for next := epoch; next.Before(deadline); {
		next = next.Add(time.Second)
		w.sched.Run(next, nil)
		if !next.Before(last) && w.settled() {
			break
		}
	}
	r := w.report()
	if cfg.CheckProjections {
		n, err := w.checkProjections()
		if err != nil {
			return r, err
		}
		r.ProjectionMismatches, r.ProjectionsChecked = n, true
	}
	if cfg.LogDir != "" {
		if err := w.keepLogs(cfg.LogDir); err != nil {
			return r, err
		}
	}
	return r, nil
}

func maxLag(cfg Config) time.Duration {
	var m time.Duration
	for _, d := range cfg.Lags {
		m = max(m, d)
	}
	return m
}

// settled: every event is paid (and every signer that is up has it
// Completed) or given up everywhere it is up.
func (w *world) settled() bool {
	var r Report
	paid := w.payouts(&r)
	for ; w.settledTo < len(w.events); w.settledTo++ {
		if !w.eventSettled(w.settledTo, paid) {
			return false
		}
	}
	return true
}

func (w *world) eventSettled(i int, paid []bool) bool {
	if !paid[i] {
		return w.refused(i) || w.abandoned(i)
	}
	for _, n := range w.honestNodes() {
		if !n.up {
			return false
		}
		if e, ok := n.signer.Event(w.events[i].ID()); ok && e.Phase != twophase.PhaseCompleted && !w.behindAbandoned(n, i) {
			return false
		}
	}
	return true
}

// fee is what t's inputs hold beyond its outputs.
func fee(t twophase.Template) uint64 {
	var in, out uint64
	for _, i := range t.Inputs {
		in += i.Amount
	}
	for _, o := range t.Outputs {
		out += o.Amount
	}
	if out > in {
		return 0
	}
	return in - out
}
