package twophase

import "time"

// Apply folds one fact of the signer's log into the state. Replay calls it
// for every fact in log order (decoded as pointers); decisions call it for
// the facts they decide (values), so the state after a crash and replay is
// the state before. Apply never fails: a fact the state cannot place (of
// an event it has garbage-collected) is ignored. Facts that change nothing
// the protocol decides on (EventRefused, VoteRejected,
// CommitConflict, PayoutOutcome, MessageRejected, and AdminReinjected,
// which its EventRequested follows) have no fold.
func (s *State) Apply(f Fact) {
	if _, once := f.(recordedOnce); once {
		s.remember(f.SourceKey())
	}
	a, ok := f.(folded)
	if !ok {
		return
	}
	if _, vote := f.(interface{ isVoteOrRound() }); !vote {
		s.activeOK = false // which event holds the pool may change
	}
	a.fold(s)
	if o, ok := f.(opens); ok {
		s.track(o.openedEvent())
	}
}

// recordedOnce are facts about a message received: the same message seen
// again (sent again, or relayed in a sync answer) would record the same
// source key with another time, which the log holds as a conflict. The
// state remembers their keys and records each once.
type recordedOnce interface{ recordOnce() }

func (VoteRejected) recordOnce()   {}
func (Equivocation) recordOnce()   {}
func (CommitConflict) recordOnce() {}
func (EventRefused) recordOnce()   {}

// maxRecordedKeys bounds the keys remembered; past it they are forgotten
// (a message seen again after that is recorded again, a conflict the log
// keeps, never a decision).
const maxRecordedKeys = 1 << 16

func (s *State) remember(key string) {
	if len(s.recorded) >= maxRecordedKeys {
		clear(s.recorded)
	}
	s.recorded[key] = true
}

// folded is a fact the state folds (value receivers: a fact and a pointer
// to it both are).
type folded interface{ fold(s *State) }

// opens is a fact that may open or close an event (see State.open).
type opens interface{ openedEvent() Hash }

func (f SignerStarted) fold(s *State) { s.applyStarted(f) }
func (f EventRequested) fold(s *State) {
	s.applyRequested(f.Event, f.Via, f.Origin, fromNs(f.AtNs))
}
func (f RoundStarted) fold(s *State) { s.applyRoundStarted(f) }
func (f VoteAccepted) fold(s *State) { s.applyVote(f) }
func (f PrecommitAccepted) fold(s *State) {
	s.applyPrecommit(f)
}
func (f Committed) fold(s *State)       { s.applyCommitted(f) }
func (f TemplateSigned) fold(s *State)  { s.applySigned(f) }
func (f RoundFailed) fold(s *State)     { s.applyRoundFailed(f) }
func (f PayoutSubmitted) fold(s *State) { s.applySubmitted(f) }
func (f Completed) fold(s *State)       { s.applyCompleted(f) }
func (f Abandoned) fold(s *State)       { s.applyAbandoned(f) }
func (f AdminReset) fold(s *State)      { s.applyReset(f) }
func (f PayoutVoided) fold(s *State)    { s.applyVoided(f) }
func (f Refused) fold(s *State)         { s.applyRefused(f) }
func (f RefusalSigned) fold(s *State)   { s.applyRefusalSigned(f) }
func (f RefusalCertified) fold(s *State) {
	s.applyRefusalCertified(f)
}

// Votes and round starts do not change which event holds the pool.
func (VoteAccepted) isVoteOrRound()      {}
func (PrecommitAccepted) isVoteOrRound() {}
func (RoundStarted) isVoteOrRound()      {}

func (f RoundStarted) openedEvent() Hash { return f.EventID }
func (f Committed) openedEvent() Hash    { return f.EventID }
func (f Completed) openedEvent() Hash    { return f.EventID }
func (f Abandoned) openedEvent() Hash    { return f.EventID }
func (f AdminReset) openedEvent() Hash   { return f.EventID }
func (f Refused) openedEvent() Hash      { return f.EventID }

func (s *State) applyStarted(f SignerStarted) {
	if f.Signer == s.cfg.Self && f.Session > s.session {
		s.session = f.Session
		s.seq = 0
	}
}

func (s *State) stream(name string) *streamState {
	st, ok := s.streams[name]
	if !ok {
		st = &streamState{next: FirstNonce, pending: map[uint64]Hash{}, done: map[uint64]bool{}}
		s.streams[name] = st
	}
	return st
}

func (s *State) applyRequested(ev SigningEvent, via, origin string, at time.Time) {
	id := ev.ID()
	if _, ok := s.events[id]; ok {
		return
	}
	st := s.stream(ev.Stream)
	if ev.Nonce < st.next {
		return // completed and collected
	}
	if other, ok := st.pending[ev.Nonce]; ok && other != id {
		return // the nonce belongs to another event; refused when decided
	}
	st.pending[ev.Nonce] = id
	s.events[id] = &EventState{ID: id, Event: ev, Via: via, Origin: origin, requestedAt: at, votes: map[uint32]map[PeerID]*ballot{},
		precommits: map[uint32]map[PeerID]*ballot{},
		templates:  map[Hash]*knownTemplate{}, sigs: map[PeerID][]byte{}, syncAsked: map[PeerID]time.Time{}}
}

func (s *State) applyRoundStarted(f RoundStarted) {
	e := s.events[f.EventID]
	if e == nil || f.Epoch != e.Epoch {
		return
	}
	at := fromNs(f.AtNs)
	if f.Trigger == TriggerRetry {
		e.RetryCount++
	}
	if e.FirstRoundAt.IsZero() {
		e.FirstRoundAt = at
	}
	e.Phase, e.Round, e.PhaseSince, e.RetryAt = PhaseProposing, f.Round, at, time.Time{}
	e.unusable = Hash{}
	e.ahead = nil
	// Proposals of rounds before this one stay as knowledge of those rounds
	// (see LockFor); only their templates are kept, not their quorum.
}

func (s *State) applyVote(f VoteAccepted) {
	e := s.events[f.EventID]
	if e == nil || f.Epoch != e.Epoch {
		return
	}
	m := e.votes[f.Round]
	if m == nil {
		m = map[PeerID]*ballot{}
		e.votes[f.Round] = m
	}
	if _, ok := m[f.Voter]; ok {
		return // first vote of a member in a round stands
	}
	b := &ballot{hash: f.Hash, none: f.NoVote, reason: f.Reason, envelope: f.Envelope}
	m[f.Voter] = b
	e.votesSeen++
	if _, known := e.templates[f.Hash]; !f.NoVote && !known {
		s.learnTemplate(e, f.Envelope)
	}
	if s.profileB() && !f.NoVote {
		s.learnLock(e, b)
	}
}

// learnLock keeps the lock message and signature a stored Profile B
// proposal carries (verified before it was stored, or the signer's own).
func (s *State) learnLock(e *EventState, b *ballot) {
	env, err := parseEnvelope(b.envelope)
	if err != nil || env.Kind != KindProposal {
		return
	}
	p, err := DecodeProposal(env.Payload, s.cfg.Params)
	kt := e.templates[b.hash]
	if err != nil || len(p.LockSig) == 0 || kt == nil {
		return
	}
	m := LockMsgOf(p, kt.template)
	b.lockMsg, b.lockDigest, b.lockSig = &m, m.Digest(s.opener.id), p.LockSig
}

// learnTemplate keeps the template a stored proposal carries. The
// envelope comes from the signer's own log or was verified before it was
// stored, so it is parsed, not verified again.
func (s *State) learnTemplate(e *EventState, envelope []byte) {
	env, err := parseEnvelope(envelope)
	if err != nil || env.Kind != KindProposal {
		return
	}
	p, err := DecodeProposal(env.Payload, s.cfg.Params)
	if err != nil {
		return
	}
	if _, ok := e.templates[p.TemplateHash]; ok {
		return
	}
	kt := &knownTemplate{encoded: p.Template}
	if t, err := s.validator.Validate(p, env.Sender); err == nil && p.EventID() == e.ID {
		kt.template, kt.valid = t, true
		kt.txID = s.cfg.Rules.TxID(t)
	} else if t, err := DecodeTemplate(p.Template, s.cfg.Params.MaxUTXOsPerProposal, s.cfg.Params.MaxOutputsPerProposal); err == nil {
		kt.template = t
		kt.txID = s.cfg.Rules.TxID(t)
	}
	for _, m := range p.Inputs {
		kt.created = append(kt.created, m.DAAScore)
	}
	e.templates[p.TemplateHash] = kt
}

func (s *State) applyCommitted(f Committed) {
	e := s.events[f.EventID]
	if e == nil || f.Epoch != e.Epoch || e.Phase == PhaseCommitted || e.Phase.Terminal() {
		return
	}
	for _, raw := range f.Evidence {
		s.learnTemplate(e, raw)
	}
	e.Phase, e.PhaseSince = PhaseCommitted, fromNs(f.AtNs)
	e.Canonical, e.CommitRound = f.Hash, f.Round
	if f.Round > e.Round {
		e.Round = f.Round
	}
	e.Evidence = f.Evidence
	e.cert = nil
	if s.profileB() && len(f.Evidence) > 0 {
		if c, err := DecodeLockCert(f.Evidence[0], s.cfg.Params); err == nil {
			e.cert = &c
		}
	}
	if len(e.Evidence) == 0 {
		e.Evidence = e.evidenceFor(f.Round, f.Hash)
	}
	if e.FirstRoundAt.IsZero() {
		e.FirstRoundAt = fromNs(f.AtNs)
	}
	if e.Signed != nil && e.Signed.Hash != f.Hash {
		return
	}
	for k := range e.sigs {
		delete(e.sigs, k)
	}
	if e.Signed != nil {
		e.sigs[s.cfg.Self] = e.Signed.Signature
	}
}

// evidenceFor collects the stored envelopes voting hash in round.
func (e *EventState) evidenceFor(round uint32, hash Hash) [][]byte {
	var out [][]byte
	for _, b := range e.ballots(round) {
		if !b.None && b.Hash == hash {
			out = append(out, e.votes[round][b.Voter].envelope)
		}
	}
	return out
}

func (s *State) applySigned(f TemplateSigned) {
	e := s.events[f.EventID]
	if e == nil || e.Signed != nil {
		return
	}
	sig := f
	e.Signed = &sig
	if e.Canonical == f.Hash {
		e.sigs[s.cfg.Self] = f.Signature
	}
}

// applyVoided frees the signer to sign another template of the event:
// the one it signed can never confirm.
func (s *State) applyVoided(f PayoutVoided) {
	e := s.events[f.EventID]
	if e == nil || e.Signed == nil || e.Signed.Hash != f.TemplateHash {
		return
	}
	e.Voided = append(e.Voided, f.TemplateHash)
	e.Signed = nil
	delete(e.sigs, s.cfg.Self)
}

func (s *State) applyRoundFailed(f RoundFailed) {
	e := s.events[f.EventID]
	if e == nil || f.Epoch != e.Epoch || e.Phase.Terminal() {
		return
	}
	e.Phase, e.PhaseSince, e.RetryAt = PhaseFailed, fromNs(f.AtNs), fromNs(f.RetryAtNs)
	if f.Round > e.Round {
		e.Round = f.Round
	}
	if f.Reason == ReasonRevalidationFailed || f.Reason == ReasonPayoutRejected {
		// The commit is given up at this signer: a later round may commit
		// again (the same template if it is still good, see LockFor).
		e.unusable = e.Canonical
		e.Canonical, e.Evidence, e.cert = Hash{}, nil, nil
	}
}

func (s *State) applySubmitted(f PayoutSubmitted) {
	e := s.events[f.EventID]
	if e == nil {
		return
	}
	e.Submitted = max(e.Submitted, f.Attempt)
	e.lastSub = fromNs(f.AtNs)
	e.PayoutTx = f.TxID
}

func (s *State) applyCompleted(f Completed) {
	e := s.events[f.EventID]
	if e == nil || e.Phase == PhaseCompleted {
		return
	}
	e.Phase, e.PhaseSince, e.DoneAt = PhaseCompleted, fromNs(f.AtNs), fromNs(f.AtNs)
	e.Canonical, e.PayoutTx = f.Hash, f.TxID
	s.doneQueue = append(s.doneQueue, e.ID)
	// A payout observed out of order (a lagging signer seeing its peers'
	// payments) waits for the nonces before it.
	s.passNonce(e)
}

// passNonce marks the event's nonce done (Completed or Refused): its
// stream moves past every nonce done without a gap.
func (s *State) passNonce(e *EventState) {
	st := s.stream(e.Event.Stream)
	if st.pending[e.Event.Nonce] == e.ID && e.Event.Nonce >= st.next {
		st.done[e.Event.Nonce] = true
	}
	for st.done[st.next] {
		delete(st.done, st.next)
		delete(st.pending, st.next)
		st.next++
	}
}

func (s *State) applyAbandoned(f Abandoned) {
	e := s.events[f.EventID]
	if e == nil || e.Phase.Terminal() {
		return
	}
	e.Phase, e.PhaseSince, e.DoneAt = PhaseAbandoned, fromNs(f.AtNs), fromNs(f.AtNs)
}

func (s *State) applyReset(f AdminReset) {
	e := s.events[f.EventID]
	if e == nil || e.Phase == PhaseCompleted || e.Phase == PhaseRefused || f.Epoch <= e.Epoch {
		return
	}
	e.Epoch = f.Epoch
	e.Phase, e.Round, e.RetryCount = PhaseUnknown, 0, 0
	e.PhaseSince, e.RetryAt, e.FirstRoundAt, e.DoneAt = fromNs(f.AtNs), time.Time{}, time.Time{}, time.Time{}
	e.votes = map[uint32]map[PeerID]*ballot{}
	e.precommits = map[uint32]map[PeerID]*ballot{}
	e.Canonical, e.CommitRound, e.Evidence, e.cert = Hash{}, 0, nil, nil
	for k := range e.sigs {
		delete(e.sigs, k)
	}
	// e.Signed stays: a signer signs one template per event, ever.
}

// track keeps the open set: an event is open from its first round (or
// commit) until it is terminal or reset.
func (s *State) track(id Hash) {
	e := s.events[id]
	if e == nil || e.Phase.Terminal() || !e.started() {
		delete(s.open, id)
		return
	}
	s.open[id] = e
}
