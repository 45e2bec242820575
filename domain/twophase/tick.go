package twophase

import (
	"fmt"
	"slices"
	"time"
)

// Tick runs the timers (section 5.1's timeout tick with its last-chance
// quorum check, retries, the bounds of section 15.2), payout checks,
// anti-entropy and garbage collection. Call it every [Params.Tick].
func (s *State) Tick(en Env) Step {
	s.flushRejects(en.Now)
	s.expireAsked(en.Now)
	s.tickN++
	p := s.cfg.Params
	for _, e := range s.openEvents() {
		if e.Phase.Terminal() {
			continue
		}
		if !e.FirstRoundAt.IsZero() && !en.Now.Before(e.FirstRoundAt.Add(p.MaxTimeToAbandon())) {
			s.abandon(e, TriggerDeadline, fmt.Sprintf("not completed %v after its first round", p.MaxTimeToAbandon()), en)
			continue
		}
		switch e.Phase {
		case PhaseProposing:
			if en.Now.Before(e.PhaseSince.Add(p.ProposalTimeoutFor(e.Round))) {
				continue
			}
			s.tryCommit(e, en) // last chance: a quorum may have just arrived
			if e.Phase == PhaseProposing {
				s.observe(MetricTimeoutsWithoutQuorum, "", 1)
				s.castNoVoteIn(e, e.Round, ReasonTimeoutNoQuorum, en)
				if s.profileB() {
					s.precommit(e, nil, en)
				}
				s.failRound(e, ReasonTimeoutNoQuorum, fmt.Sprintf("%d votes, none with a quorum of %d", len(e.ballots(e.Round)), s.quorum()), en)
			}
		case PhaseFailed:
			if en.Now.Before(e.RetryAt) {
				continue
			}
			if e.Round+1 >= p.MaxRounds() {
				s.abandon(e, TriggerMaxRounds, fmt.Sprintf("%d rounds without a payout", p.MaxRounds()), en)
				continue
			}
			s.observe(MetricRoundRetries, "", 1)
			s.startRound(e, e.Round+1, TriggerRetry, en)
		case PhaseCommitted:
			s.checkPayout(e, en)
			if e.Phase != PhaseCommitted {
				continue
			}
			if e.Signed == nil || e.Signed.Hash != e.Canonical {
				s.signCommitted(e, en) // with another payout signed: once it is proven void
			} else if e.Signed.Hash == e.Canonical && en.Now.Sub(e.commitSent) >= 3*p.Tick {
				s.sendCommit(e, "", true, en) // no payout yet: every member collects
			}
			s.maybeSubmit(e, en)
		}
	}
	s.maybeReserve(en)
	s.resendRefusals(en)
	s.progress(en)
	s.antiEntropy(en)
	s.collect(en)
	s.watchStreams(en)
	return s.take()
}

// LedgerChanged checks committed events' payouts at once when the
// ledger moved (a new block, a UTXO notification), instead of waiting for
// the next tick, so the next event starts as soon as one completes.
func (s *State) LedgerChanged(en Env) Step {
	for _, e := range s.openEvents() {
		if e.Phase == PhaseCommitted {
			s.checkPayout(e, en)
		}
	}
	s.progress(en)
	return s.take()
}

// antiEntropy asks a few members, in turn, for the state of every event
// that has been open for more than a tick (section 7.4), at most
// MaxSyncEventsPerTick of them.
func (s *State) antiEntropy(en Env) {
	p := s.cfg.Params
	var wants []SyncWant
	for _, e := range s.openEvents() {
		if len(wants) >= p.MaxSyncEventsPerTick {
			break
		}
		if e.Phase.Terminal() || !e.started() || en.Now.Sub(e.PhaseSince) < p.Tick {
			continue
		}
		if e.Phase == PhaseCommitted && e.Signed != nil && en.Now.Sub(e.commitSent) < 3*p.Tick {
			continue // signed and sent: the payout, not the peers, is what it waits for
		}
		wants = append(wants, s.want(e))
	}
	if len(wants) == 0 || len(s.members) < 2 {
		return
	}
	var others []PeerID
	for _, id := range s.members {
		if id != s.cfg.Self {
			others = append(others, id)
		}
	}
	req := SyncRequest{Wants: wants}
	raw := s.seal(KindSyncRequest, req.Encode())
	n := min(p.SyncPeersPerTick, len(others))
	start := int(s.tickN*uint64(n)) % len(others)
	for i := 0; i < n; i++ {
		to := others[(start+i)%len(others)]
		s.noteAsked(to, req, en.Now)
		s.sendTo(to, KindSyncRequest, raw)
	}
}

// maxSyncResponseBytes bounds one response; what does not fit is asked
// for again on a later tick.
const maxSyncResponseBytes = 2 << 20

// onSyncRequest answers with each asked event's state: phase and round,
// the votes the asker lacks (at most MaxProposalsPerResponse a round),
// the commit evidence and the payout signatures held, the payout.
func (s *State) onSyncRequest(from PeerID, req SyncRequest, en Env) {
	p := s.cfg.Params
	var resp SyncResponse
	size := 0
	for i, w := range req.Wants {
		if i >= p.MaxSyncEventsPerTick || size > maxSyncResponseBytes {
			break
		}
		e := s.events[w.EventID]
		if e == nil {
			continue
		}
		st := SyncState{EventID: e.ID, Epoch: e.Epoch, Phase: e.Phase, Round: e.Round, CommitRound: e.CommitRound,
			Canonical: e.Canonical, PayoutTx: e.PayoutTx}
		if w.Epoch == e.Epoch {
			have := map[uint32]map[PeerID]bool{}
			for _, h := range w.Have {
				have[h.Round] = map[PeerID]bool{}
				for _, v := range h.Voters {
					have[h.Round][v] = true
				}
			}
			for r := uint32(0); r <= max(e.Round, w.Round); r++ {
				n := 0
				for _, b := range e.ballots(r) {
					if have[r][b.Voter] || n >= p.MaxProposalsPerResponse {
						continue
					}
					st.Votes = append(st.Votes, e.votes[r][b.Voter].envelope)
					size += len(e.votes[r][b.Voter].envelope)
					n++
				}
			}
			// Profile B: the precommits of the asker's round, which it
			// may lack to see a certificate form (at most one a member).
			for _, id := range s.members {
				if b := e.precommits[w.Round][id]; b != nil {
					st.Votes = append(st.Votes, b.envelope)
					size += len(b.envelope)
				}
			}
		}
		if e.Phase == PhaseCommitted || e.Phase == PhaseCompleted {
			st.Evidence = e.Evidence
			for _, id := range s.members {
				if sig := e.sigs[id]; sig != nil {
					st.Signatures = append(st.Signatures, MemberSignature{Signer: id, Signature: sig})
				}
			}
		}
		resp.States = append(resp.States, st)
	}
	if len(resp.States) > 0 {
		s.sendTo(from, KindSyncResponse, s.seal(KindSyncResponse, resp.Encode()))
	}
}

// onSyncResponse takes a member's state of the events this signer asked
// it about (an answer to no question is refused): the votes it relays
// (each verified against its own signer), a later round when the relayed
// votes show a quorum can meet there (see roundEvidence), its commit
// when the evidence verifies, its signatures, and its completed payout
// when this signer's own ledger view shows it.
func (s *State) onSyncResponse(from Envelope, resp SyncResponse, en Env) {
	for _, st := range resp.States {
		if !s.takeAsked(from.Sender, st.EventID, en.Now) {
			s.rejectMessage(from.Sender, KindSyncResponse.String(),
				reject(ReasonUnrequestedSync, "state of event %s, not asked of %s", st.EventID.Short(), from.Sender), en.Now)
			continue
		}
		e := s.events[st.EventID]
		if e == nil || st.Epoch != e.Epoch || e.Phase == PhaseCompleted {
			continue
		}
		votes := s.openRelayed(e, from.Sender, st.Votes, en.Now)
		if r := s.roundEvidence(e, votes); r > e.Round && (e.Phase == PhaseProposing || e.Phase == PhaseFailed) {
			s.startRound(e, r, TriggerRoundSync, en)
		}
		slices.SortStableFunc(votes, func(a, b Envelope) int {
			return voteOrder(a) - voteOrder(b)
		})
		for _, env := range votes {
			s.handle(env, true, en)
		}
		if (st.Phase == PhaseCommitted || st.Phase == PhaseCompleted) && len(st.Evidence) > 0 {
			switch {
			case e.Phase.Terminal(): // the votes above may have completed it
			case e.Phase == PhaseCommitted && e.Canonical == st.Canonical:
			case e.Phase == PhaseCommitted:
				s.onCommit(from, Commit{EventID: e.ID, Epoch: e.Epoch, Round: st.CommitRound, TemplateHash: st.Canonical, Evidence: st.Evidence}, en)
			default:
				s.adopt(e, from, st.CommitRound, st.Canonical, st.Evidence, en)
			}
		}
		if e.Canonical == st.Canonical && !e.Canonical.IsZero() {
			for _, m := range st.Signatures {
				s.mergeSignature(e, m.Signer, m.Signature, en)
			}
			s.maybeSubmit(e, en)
		}
		if st.Phase == PhaseCompleted && !st.PayoutTx.IsZero() {
			s.observePayout(e, st.Canonical, st.PayoutTx, en)
		}
	}
}

// observePayout completes an event, whatever its phase here, when its
// payout (of a template this signer validated) is accepted and deep on
// its own ledger view: seeing the payment needs no new signature.
func (s *State) observePayout(e *EventState, hash, txID Hash, en Env) {
	kt := e.templates[hash]
	if kt == nil || !kt.valid || kt.txID != txID || en.Payout == nil || e.Phase == PhaseCompleted {
		return
	}
	st, err := en.Payout(txID)
	if err != nil || !st.Accepted || st.VirtualDAAScore < st.DAAScore+s.cfg.Params.PayoutDepth {
		return
	}
	s.complete(e, hash, txID, st.DAAScore, en)
}

// voteOrder places a relayed vote: by round, a round's prevotes before
// its precommits.
func voteOrder(env Envelope) int {
	r, _ := voteRound(env)
	if env.Kind == KindPrecommit {
		return 2*int(r) + 1
	}
	return 2 * int(r)
}

// voteRound reads the round of a vote envelope without validating it.
func voteRound(env Envelope) (uint32, bool) {
	switch env.Kind {
	case KindProposal:
		if p, err := DecodeProposal(env.Payload, Params{}.WithDefaults()); err == nil {
			return p.Round, true
		}
	case KindNoVote:
		if nv, err := DecodeNoVote(env.Payload); err == nil {
			return nv.Round, true
		}
	case KindPrecommit:
		if p, err := DecodePrecommit(env.Payload, Params{}.WithDefaults().MaxUTXOsPerProposal); err == nil {
			return p.Round, true
		}
	}
	return 0, false
}

// collect forgets completed events after the retention (section 6.1's
// GC). Abandoned ones stay: they hold their stream until an operator
// acts.
func (s *State) collect(en Env) {
	for len(s.doneQueue) > 0 {
		e := s.events[s.doneQueue[0]]
		if e != nil && e.Phase == PhaseCompleted && en.Now.Sub(e.DoneAt) < s.cfg.Params.Retention {
			return
		}
		if e != nil && e.Phase == PhaseCompleted {
			delete(s.events, e.ID)
			delete(s.open, e.ID)
			s.activeOK = false
		}
		s.doneQueue = s.doneQueue[1:]
	}
}

// watchStreams counts streams that stall on a hole (section 1.5): later
// nonces are known, the next one is not.
func (s *State) watchStreams(en Env) {
	for _, st := range s.Streams() {
		ss := s.streams[st.Stream]
		if !st.Blocked {
			if !ss.blockedSince.IsZero() {
				// Back to 0, or the gauge would hold the last blocked
				// duration (and its alert) after the hole is filled.
				s.observe(MetricStreamHoleBlockedMs, st.Stream, 0)
			}
			ss.blockedSince = time.Time{}
			continue
		}
		if ss.blockedSince.IsZero() {
			ss.blockedSince = en.Now
			s.observe(MetricStreamHolesBlocking, st.Stream, 1)
		}
		s.observe(MetricStreamHoleBlockedMs, st.Stream, float64(en.Now.Sub(ss.blockedSince).Milliseconds()))
	}
}
