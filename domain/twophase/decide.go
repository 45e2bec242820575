package twophase

import (
	"errors"
	"fmt"
)

// seal signs a message of this signer's current session.
func (s *State) seal(kind Kind, payload []byte) []byte {
	s.seq++
	e := Envelope{Version: ProtocolVersion, Group: s.opener.id, Sender: s.cfg.Self, Session: s.session,
		Seq: s.seq, Kind: kind, Payload: payload}
	return Seal(s.cfg.Identity, &e)
}

func (s *State) broadcast(kind Kind, raw []byte) {
	s.step.Out = append(s.step.Out, Outbound{Kind: kind, Raw: raw})
}

func (s *State) sendTo(to PeerID, kind Kind, raw []byte) {
	s.step.Out = append(s.step.Out, Outbound{To: to, Kind: kind, Raw: raw})
}

// Start opens a new session once the log has been replayed into the
// state, and sends again what a crash may have kept from leaving: the
// signer's votes of its current rounds and its commit. Their content was
// recorded before the crash, so they are the same votes, never new ones.
func (s *State) Start(env Env) Step {
	s.emit(SignerStarted{Signer: s.cfg.Self, Session: s.session + 1, AtNs: ns(env.Now)})
	for _, e := range s.openEvents() {
		for _, b := range []*ballot{e.votes[e.Round][s.cfg.Self], e.precommits[e.Round][s.cfg.Self]} {
			if b == nil {
				continue
			}
			if env, err := parseEnvelope(b.envelope); err == nil {
				s.broadcast(env.Kind, s.seal(env.Kind, env.Payload))
			}
		}
		if e.Phase == PhaseCommitted && e.Signed != nil && e.Signed.Hash == e.Canonical {
			s.sendCommit(e, "", true, env)
		}
	}
	s.progress(env)
	return s.take()
}

// Request hands the signer an event from its own source: its indexer's
// confirmed view of the chain, an authenticated RPC request or an
// operator ("via"). Requests are idempotent.
func (s *State) Request(ev SigningEvent, via string, env Env) Step {
	return s.RequestFrom(ev, via, "", env)
}

// RequestFrom is Request with who made the request on the source (a
// burn's withdrawer), which a refusal certificate names.
func (s *State) RequestFrom(ev SigningEvent, via, origin string, env Env) Step {
	s.request(ev, via, origin, env)
	s.progress(env)
	return s.take()
}

func (s *State) request(ev SigningEvent, via, origin string, env Env) {
	id := ev.ID()
	if _, ok := s.events[id]; ok {
		return
	}
	st := s.stream(ev.Stream)
	if ev.Nonce < st.next {
		return // done long ago
	}
	refuse := func(r Reason, format string, a ...any) {
		s.emit(EventRefused{Event: ev, ID: id, Reason: r, Detail: fmt.Sprintf(format, a...), AtNs: ns(env.Now)})
	}
	if other, ok := st.pending[ev.Nonce]; ok && other != id {
		refuse(ReasonEventMismatch, "nonce %d of stream %s is already event %s", ev.Nonce, ev.Stream, other.Short())
		return
	}
	if ev.IsReserve() {
		if !s.wellFormedReserve(ev) {
			refuse(ReasonPolicy, "a reserve event this group would not request")
			return
		}
		s.emit(EventRequested{Event: ev, ID: id, Via: via, Origin: origin, AtNs: ns(env.Now)})
		return
	}
	s.emit(EventRequested{Event: ev, ID: id, Via: via, Origin: origin, AtNs: ns(env.Now)})
	// An event the group will never pay is Refused now, before anyone
	// could vote for it: its nonce is passed, never left a hole.
	if r, detail, ok := s.unpayable(ev); ok {
		s.refuseEvent(s.events[id], r, detail, env)
	}
}

// active is the event that holds the UTXO pool (section 5.0: one event at
// a time in Proposing/Committed per pool): the one this signer signed and
// that is not finished, else the earliest actionable event (next in its
// stream, in source order). Only the active event is proposed for and
// signed; votes for others are stored.
func (s *State) active() *EventState {
	if s.activeOK {
		return s.activeEv
	}
	s.activeEv, s.activeOK = s.findActive(), true
	return s.activeEv
}

func (s *State) findActive() *EventState {
	var held *EventState
	for _, e := range s.open {
		if e.Signed != nil && e.Signed.Hash == e.Canonical && e.Phase == PhaseCommitted {
			if held == nil || e.Event.Before(held.Event) {
				held = e
			}
		}
	}
	if held != nil {
		return held
	}
	var best *EventState
	for _, st := range s.streams {
		e := s.events[st.pending[st.next]]
		if e == nil || e.Phase.Terminal() {
			continue
		}
		if best == nil || e.Event.Before(best.Event) {
			best = e
		}
	}
	return best
}

// progress moves the active event on: starts it, casts this signer's
// vote in its round, commits on a quorum, signs a commit.
func (s *State) progress(env Env) {
	if s.profileB() {
		for _, a := range s.actives() {
			s.progressEvent(a, env)
		}
		return
	}
	if a := s.active(); a != nil {
		s.progressEvent(a, env)
	}
}

func (s *State) progressEvent(a *EventState, env Env) {
	if s.profileB() && a.votes[a.Round][s.cfg.Self] == nil && env.Now.Sub(a.requestedAt) < s.cfg.Params.Tick {
		// Profile B waits a tick before its first lock of an event, so
		// that events learnt at about the same time are all known when
		// it gives their outputs out (see lockView), in one order at
		// every member.
		return
	}
	if a.Phase == PhaseUnknown && !a.Event.IsReserve() && a.Signed == nil {
		// An event requested before its verdict was decided at request
		// (or reset since) is refused before its first round, likewise.
		if r, detail, ok := s.unpayable(a.Event); ok {
			s.refuseEvent(a, r, detail, env)
			return
		}
	}
	if a.Phase == PhaseUnknown {
		s.startRound(a, 0, TriggerActivated, env)
		s.observe(MetricEventsStarted, "", 1)
	}
	if a.Phase == PhaseProposing && a.votes[a.Round][s.cfg.Self] == nil {
		s.castVote(a, env)
	}
	// Profile B's second step looks again only when a vote came since
	// its last look (the active events are many, the messages more).
	look := s.profileB() && a.stepSeen != a.votesSeen+1
	if look {
		s.maybePrecommit(a, env)
	}
	s.tryCommit(a, env)
	if look {
		s.maybeEndRound(a, env)
		a.stepSeen = a.votesSeen + 1
	}
	if a.Phase == PhaseCommitted && (a.Signed == nil || a.Signed.Hash != a.Canonical) {
		s.signCommitted(a, env)
	}
}

// startRound enters Proposing in round, leaving a no-vote behind in every
// round before it that this signer did not vote in, so that its peers can
// count it as known (see LockFor).
func (s *State) startRound(e *EventState, round uint32, t Trigger, env Env) {
	for r := e.Round; r < round; r++ {
		s.castNoVoteIn(e, r, ReasonTimeoutNoQuorum, env)
	}
	s.emit(RoundStarted{EventID: e.ID, Epoch: e.Epoch, Round: round, Trigger: t, AtNs: ns(env.Now)})
}

// castVote decides this signer's vote in the event's round: Profile B's
// prevote rule (see castPrevoteB), or Profile A's: what earlier rounds
// allow (LockFor), then a template built from its view, or the earlier
// hash again, or no vote.
func (s *State) castVote(e *EventState, env Env) {
	view, err := env.View()
	if err != nil {
		return // the node is not answering: the tick tries again
	}
	if s.profileB() {
		s.castPrevoteB(e, view, env)
		return
	}
	lock := LockFor(e.roundBallots(), e.Round, len(s.members), s.quorum(), s.deadFunc(e, view, env))
	switch lock.Kind {
	case LockAmbiguous:
		s.observe(MetricAmbiguousRounds, "", 1)
		s.castNoVoteIn(e, e.Round, ReasonAmbiguousEarlierVote, env)
	case LockHash:
		kt := e.templates[lock.Hash]
		if kt == nil || !kt.valid {
			s.castNoVoteIn(e, e.Round, ReasonAmbiguousEarlierVote, env)
			return
		}
		if err := Revalidate(kt.template, kt.txID, view, s.cfg.Params); err != nil {
			s.observe(MetricRevalidationFailures, "", 1)
			s.castNoVoteIn(e, e.Round, ReasonRevalidationFailed, env)
			return
		}
		s.proposeAt(e, kt.template, view, 0, env)
	default:
		s.buildAndPropose(e, view, env)
	}
}

// buildAndPropose proposes a template built from this signer's view (in
// Profile B its lock view), or records why it cannot.
func (s *State) buildAndPropose(e *EventState, view LedgerView, env Env) {
	req := BuildRequest{Event: e.Event, Group: s.cfg.Group, Params: s.cfg.Params, Policy: s.cfg.Policy, Rules: s.cfg.Rules}
	build := view
	if s.profileB() {
		build, req.Exclude = s.lockView(e, view)
		salt := e.ID
		req.Salt = &salt
	}
	t, _, stats, err := BuildTemplate(req, build)
	if stats.DepthRejects > 0 {
		s.observe(MetricUTXODepthRejects, "", float64(stats.DepthRejects))
	}
	switch {
	case errors.Is(err, ErrInsufficientDeepUTXOs):
		s.observe(MetricInsufficientDeepUTXOs, "", 1)
		s.castNoVoteIn(e, e.Round, ReasonNoDeepUTXOs, env)
		s.failRound(e, ReasonNoDeepUTXOs, err.Error(), env)
	case err != nil:
		s.castNoVoteIn(e, e.Round, ReasonBuildFailed, env)
		s.failRound(e, ReasonBuildFailed, err.Error(), env)
	default:
		s.proposeAt(e, t, view, 0, env)
	}
}

// proposeAt records and broadcasts this signer's proposal of t. A Profile
// B prevote names anchor when it is not 0 and checks against this
// signer's view (a template carried from an earlier round keeps the
// anchor its prevotes named, so that members a few blocks apart name one
// lock message), else the anchor of its own view.
func (s *State) proposeAt(e *EventState, t Template, view LedgerView, anchor uint64, env Env) {
	encoded := t.Encode()
	p := Proposal{Event: e.Event, Epoch: e.Epoch, Round: e.Round, TemplateHash: TemplateHash(encoded), Template: encoded,
		Proposer: s.cfg.Self, TimestampNs: ns(env.Now), Anchor: &Anchor{TipScore: view.VirtualDAAScore}}
	for _, in := range t.Inputs {
		u, _ := view.Lookup(in.Outpoint)
		p.Inputs = append(p.Inputs, InputMeta{DAAScore: u.DAAScore, Coinbase: u.Coinbase})
	}
	if s.profileB() {
		s.signLock(&p, t, view, anchor)
	}
	if _, err := s.validator.Validate(p, s.cfg.Self); err != nil {
		// The builder and the validator disagree: never vote for what peers
		// would refuse.
		s.observe(MetricPhaseTransitionErrors, "", 1)
		s.castNoVoteIn(e, e.Round, ReasonBuildFailed, env)
		s.failRound(e, ReasonBuildFailed, err.Error(), env)
		return
	}
	raw := s.seal(KindProposal, p.Encode())
	s.rememberTemplate(e, p, t)
	s.emit(VoteAccepted{EventID: e.ID, Epoch: e.Epoch, Round: e.Round, Voter: s.cfg.Self, Hash: p.TemplateHash,
		Own: true, Envelope: raw, AtNs: ns(env.Now)})
	s.broadcast(KindProposal, raw)
}

// castNoVoteIn records and broadcasts this signer's no-vote in round,
// unless it already voted there.
func (s *State) castNoVoteIn(e *EventState, round uint32, r Reason, env Env) {
	if e.votes[round][s.cfg.Self] != nil {
		return
	}
	nv := NoVote{EventID: e.ID, Epoch: e.Epoch, Round: round, Voter: s.cfg.Self, Reason: r, TimestampNs: ns(env.Now)}
	raw := s.seal(KindNoVote, nv.Encode())
	s.emit(VoteAccepted{EventID: e.ID, Epoch: e.Epoch, Round: round, Voter: s.cfg.Self, NoVote: true, Reason: r,
		Own: true, Envelope: raw, AtNs: ns(env.Now)})
	s.broadcast(KindNoVote, raw)
}

func (s *State) rememberTemplate(e *EventState, p Proposal, t Template) {
	if kt, ok := e.templates[p.TemplateHash]; ok && kt.valid {
		return
	}
	kt := &knownTemplate{encoded: p.Template, template: t, valid: true, txID: s.cfg.Rules.TxID(t)}
	for _, m := range p.Inputs {
		kt.created = append(kt.created, m.DAAScore)
	}
	e.templates[p.TemplateHash] = kt
}

// deadFunc tells LockFor which hashes can never be paid, as seen now.
func (s *State) deadFunc(e *EventState, view LedgerView, env Env) func(Hash) bool {
	return func(h Hash) bool {
		kt := e.templates[h]
		if kt == nil {
			return false
		}
		// view was read before this status (see checkPayout). A status
		// that cannot be read leaves the template alive: judging a paid
		// template dead would let the event be paid again.
		if env.Payout != nil {
			if st, err := env.Payout(kt.txID); err != nil || st.Accepted {
				return false
			}
		}
		return Dead(kt.template, kt.txID, kt.created, view)
	}
}

// failRound ends the event's round without a usable commit: Failed with
// the retry delay of section 3.2, or Abandoned when no round is left.
func (s *State) failRound(e *EventState, r Reason, detail string, env Env) {
	s.endRoundMetrics(e, env)
	if e.Round+1 >= s.cfg.Params.MaxRounds() {
		s.abandon(e, TriggerMaxRounds, fmt.Sprintf("round %d failed (%s: %s), no round left", e.Round, r, detail), env)
		return
	}
	delay := s.cfg.Params.Retry.RetryDelay(e.RetryCount, jitterFor(e.ID, e.Round, s.cfg.Self))
	var given Hash
	if e.Phase == PhaseCommitted {
		given = e.Canonical
	}
	s.emit(RoundFailed{EventID: e.ID, Epoch: e.Epoch, Round: e.Round, Hash: given, Reason: r, Detail: detail,
		RetryAtNs: ns(env.Now.Add(delay)), AtNs: ns(env.Now)})
}

func (s *State) abandon(e *EventState, t Trigger, detail string, env Env) {
	s.emit(Abandoned{EventID: e.ID, Round: e.Round, Trigger: t, Detail: detail, Epoch: e.Epoch, AtNs: ns(env.Now)})
	s.observe(MetricEventsAbandoned, "", 1)
}

// endRoundMetrics reports a round that ends: its time in Proposing, the
// votes held and how many hashes they split into.
func (s *State) endRoundMetrics(e *EventState, env Env) {
	if e.Phase != PhaseProposing {
		return
	}
	s.observe(MetricProposalPhaseDuration, "", float64(env.Now.Sub(e.PhaseSince).Milliseconds()))
	bs := e.ballots(e.Round)
	s.observe(MetricProposalsReceived, "", float64(len(bs)))
	s.observe(MetricUniqueHashesPerEvent, "", float64(len(tally(bs))))
}
