package twophase

// Deliver handles one envelope from the network. Its signature is checked
// against the sender's configured key before anything else of it is
// trusted; then replays are dropped and the sender's rate is limited (on
// the verified sender); then the message is handled by kind. Refusals are
// recorded (see [MessageRejected], [VoteRejected]) and counted.
func (s *State) Deliver(raw []byte, en Env) Step {
	env, err := s.opener.Open(raw)
	return s.DeliverOpened(raw, env, err, en)
}

// DeliverOpened is Deliver for an envelope already checked by this
// group's [Opener] (env, err are what Open returned for raw): a transport
// may check envelopes on other cores ahead of their turn. A refusal is
// recorded against the sender the envelope claims (a member's name, or
// none): use [State.DeliverFrom] when the transport knows the link.
func (s *State) DeliverOpened(raw []byte, env Envelope, err error, en Env) Step {
	if err != nil {
		s.rejectMessage(claimedSender(raw), "envelope", err, en.Now)
		return s.take()
	}
	return s.deliverVerified(env, en)
}

// DeliverFrom is DeliverOpened for an envelope that came on the
// authenticated link of member link: every refusal of it, a bad
// signature included, is counted against link (never against the sender
// the bytes name), and an envelope signed by another member than link
// is refused (link_mismatch).
func (s *State) DeliverFrom(link PeerID, raw []byte, env Envelope, err error, en Env) Step {
	if err != nil {
		s.rejectMessage(link, "envelope", err, en.Now)
		return s.take()
	}
	if env.Sender != link {
		s.rejectMessage(link, env.Kind.String(), reject(ReasonLinkMismatch, "signed by %q, came from %q", env.Sender, link), en.Now)
		return s.take()
	}
	return s.deliverVerified(env, en)
}

// deliverVerified drops replays, limits the verified sender's rate, and
// handles the envelope.
func (s *State) deliverVerified(env Envelope, en Env) Step {
	p := s.peer(env.Sender)
	if !p.fresh(env.Session, env.Seq) {
		s.rejectMessage(env.Sender, env.Kind.String(), reject(ReasonReplayed, "session %d seq %d seen before", env.Session, env.Seq), en.Now)
		return s.take()
	}
	prm := s.cfg.Params
	if !allow(&p.tokens, &p.refilledAt, en.Now, float64(prm.MessagesPerSecondPerPeer), float64(prm.MessageBurstPerPeer)) {
		s.rejectMessage(env.Sender, env.Kind.String(), reject(ReasonRateLimited, "over %d messages/s", prm.MessagesPerSecondPerPeer), en.Now)
		return s.take()
	}
	p.LastContact = en.Now
	before := len(s.step.Facts) + len(s.step.Submit)
	s.handle(env, false, en)
	if len(s.step.Facts)+len(s.step.Submit) > before {
		// Only a message that changed something may let the active
		// event move: one that was dropped, counted or refused must not
		// cost a vote attempt (a ledger view, a template) each, or a
		// member's flood buys one per envelope. Ticks run it anyway.
		s.progress(en)
	}
	return s.take()
}

// claimedSender reads the sender an envelope claims, for the record of a
// refusal; "" when it cannot be read.
func claimedSender(raw []byte) PeerID {
	if e, err := parseEnvelope(raw); err == nil {
		return e.Sender
	}
	return ""
}

// handle dispatches a verified envelope; relayed ones came inside a sync
// response and are votes only.
func (s *State) handle(env Envelope, relayed bool, en Env) {
	switch env.Kind {
	case KindProposal:
		p, err := DecodeProposal(env.Payload, s.cfg.Params)
		if err != nil {
			s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
			return
		}
		s.onVote(voteIn{env: env, eventID: p.EventID(), epoch: p.Epoch, round: p.Round, voter: p.Proposer,
			hash: p.TemplateHash, proposal: &p}, relayed, en)
	case KindNoVote:
		nv, err := DecodeNoVote(env.Payload)
		if err != nil {
			s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
			return
		}
		s.onVote(voteIn{env: env, eventID: nv.EventID, epoch: nv.Epoch, round: nv.Round, voter: nv.Voter,
			none: true, reason: nv.Reason}, relayed, en)
	case KindPrecommit:
		s.onPrecommit(env, en)
	case KindCommit:
		if relayed {
			return
		}
		c, err := DecodeCommit(env.Payload)
		if err != nil {
			s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
			return
		}
		s.onCommit(env, c, en)
	case KindSyncRequest:
		if relayed {
			return
		}
		req, err := DecodeSyncRequest(env.Payload)
		if err != nil {
			s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
			return
		}
		s.onSyncRequest(env.Sender, req, en)
	case KindSyncResponse:
		if relayed {
			return
		}
		if len(s.asked[env.Sender]) == 0 {
			// Nothing asked of it: refused before its payload (up to
			// MaxEnvelopeBytes) is decoded.
			s.rejectMessage(env.Sender, env.Kind.String(), reject(ReasonUnrequestedSync, "no question open to %s", env.Sender), en.Now)
			return
		}
		resp, err := DecodeSyncResponse(env.Payload)
		if err != nil {
			s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
			return
		}
		s.onSyncResponse(env, resp, en)
	case KindRefusal:
		if relayed {
			return
		}
		m, err := DecodeRefusalSig(env.Payload)
		if err != nil {
			s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
			return
		}
		s.onRefusalSig(env.Sender, m, en)
	default:
		s.rejectMessage(env.Sender, env.Kind.String(), reject(ReasonMalformed, "unknown message kind %d", env.Kind), en.Now)
	}
}

// voteIn is a proposal or a no-vote as received.
type voteIn struct {
	env      Envelope
	eventID  Hash
	epoch    uint32
	round    uint32
	voter    PeerID
	hash     Hash
	none     bool
	reason   Reason
	proposal *Proposal
}

// onVote stores a vote when the round rules allow it (sections 5.1 and
// 7.3): a vote of the current round after full validation, one of an
// earlier round as knowledge of that round, one of the next round as a
// hint to sync, anything later counted and dropped. No vote moves the
// round: only timeouts and a quorum's evidence do (see roundEvidence). The first vote of a member
// in a round stands; a different second one is equivocation.
func (s *State) onVote(v voteIn, relayed bool, en Env) {
	e := s.voteEvent(v, en)
	if e == nil {
		return
	}
	if v.voter != v.env.Sender {
		s.rejectVote(e.ID, v.round, v.env, v.hash, reject(ReasonProposerMismatch, "vote of %q signed by %q", v.voter, v.env.Sender), en)
		return
	}
	if e.Phase.Terminal() || v.epoch != e.Epoch {
		return // too late, or of another epoch: nothing to decide with it
	}
	if b := e.votes[v.round][v.voter]; b != nil {
		if b.hash == v.hash && b.none == v.none && !s.otherLock(e, b, v) {
			s.observe(MetricDuplicateVotes, "", 1)
			return
		}
		s.observe(MetricEquivocations, "", 1)
		if e.firstNote(e.place(v.round, v.voter, ReasonEquivocation)) {
			// The first proof of a slot is enough: its first vote is on
			// the log already, this second one proves the double vote.
			s.emit(Equivocation{EventID: e.ID, Epoch: e.Epoch, Round: v.round, Voter: v.voter, FirstHash: b.hash,
				SecondHash: v.hash, Envelope: v.env.Raw, AtNs: ns(en.Now)})
		}
		return
	}
	if e.Phase == PhaseCommitted {
		// Decided: votes change nothing. A vote of a later round than the
		// commit's comes from a member that missed it: it gets the commit.
		if v.round > e.CommitRound {
			if last, ok := e.syncAsked[v.voter]; !ok || en.Now.Sub(last) >= s.cfg.Params.StateSyncCooldown {
				e.syncAsked[v.voter] = en.Now
				s.sendCommit(e, v.voter, false, en)
			}
		}
		return
	}
	if v.round >= s.cfg.Params.MaxRounds() {
		s.rejectVote(e.ID, v.round, v.env, v.hash, reject(ReasonFutureRound, "round %d, at most %d rounds", v.round, s.cfg.Params.MaxRounds()), en)
		return
	}
	if e.Phase == PhaseUnknown {
		// An event first heard of from a peer starts where a request
		// would start it (round 0 of its epoch), never at the message's
		// round: one signed vote for the last round would otherwise send
		// this signer there, no-voting every round before it.
		s.startRound(e, e.Round, TriggerProposal, en)
	}
	if v.round > e.Round {
		s.futureRound(e, v, en)
		return
	}
	if v.proposal != nil {
		t, err := s.validator.Validate(*v.proposal, v.env.Sender)
		if err == nil && s.profileB() {
			err = s.checkPlan(e, *v.proposal, t, v.round == e.Round, en)
		}
		if err != nil {
			s.rejectVote(e.ID, v.round, v.env, v.hash, err, en)
			return
		}
		s.rememberTemplate(e, *v.proposal, t)
	}
	s.emit(VoteAccepted{EventID: e.ID, Epoch: e.Epoch, Round: v.round, Voter: v.voter, Hash: v.hash, NoVote: v.none,
		Reason: v.reason, Envelope: v.env.Raw, AtNs: ns(en.Now)})
	s.tryCommit(e, en)
}

// voteEvent is the event a vote is of: one known here, or a reserve split
// admitted now (see admitReserve). Else nil, with the vote refused
// (unknown_event, and the event handed over for a source proof) or
// dropped as late.
func (s *State) voteEvent(v voteIn, en Env) *EventState {
	e := s.events[v.eventID]
	if e == nil && v.proposal != nil {
		if st := s.streams[v.proposal.Event.Stream]; st != nil && v.proposal.Event.Nonce < st.next {
			return nil // an event completed here; the proposal is late
		}
		if v.proposal.Event.IsReserve() {
			// Nothing to prove on a chain, but nothing is stored before
			// this member's own view agrees the split is due.
			if err := s.admitReserve(v.proposal.Event, en); err != nil {
				s.rejectVote(v.eventID, v.round, v.env, v.hash, err, en)
				return nil
			}
			s.request(v.proposal.Event, ViaReserve, "", en)
			if e = s.events[v.eventID]; e == nil {
				return nil // refused by request, and recorded there
			}
		}
	}
	if e == nil {
		s.rejectVote(v.eventID, v.round, v.env, v.hash, reject(ReasonUnknownEvent, "no confirmed event %s here (yet)", v.eventID.Short()), en)
		if v.proposal != nil {
			s.askProof(v.proposal.Event, v.env, en.Now)
		}
	}
	return e
}

// rejectVote counts a refused vote or commit and records it: on the
// event's log once per sender, vote slot and reason; a vote of an event
// not known here, or a slot's further refusals, only in the sender's
// refusal window (a member's made-up events and junk cost no record
// each).
func (s *State) rejectVote(id Hash, round uint32, env Envelope, hash Hash, err error, en Env) {
	r := ReasonOf(err)
	if r != ReasonFutureRound { // a vote from rounds ahead is counted as such (future_round_proposals_ignored)
		s.observe(MetricValidationFailures, string(r), 1)
	}
	e := s.events[id]
	if e == nil || !e.firstNote(e.place(round, env.Sender, r)) {
		s.recordRefusal(env.Sender, env.Kind.String(), err, 1, en.Now)
		return
	}
	s.emit(VoteRejected{EventID: id, Epoch: e.Epoch, Round: round, Sender: env.Sender, Hash: hash, Reason: r, Detail: boundedDetail(err),
		Digest: taggedHash("bridgelog/twophase/rejected/v1", env.Raw), AtNs: ns(en.Now)})
}

// futureRound answers a vote of a round ahead: a member one round ahead
// means this signer missed something, so it asks that member for the
// event's state, at most once per STATE_SYNC_COOLDOWN_MS for the pair and
// within the member's sync budget; a member further ahead is ignored (a
// cheap lever for a flood otherwise).
func (s *State) futureRound(e *EventState, v voteIn, en Env) {
	if v.round != e.Round+1 {
		s.observe(MetricFutureRoundIgnored, "", 1)
		s.rejectVote(e.ID, v.round, v.env, v.hash, reject(ReasonFutureRound, "round %d while this signer is in round %d", v.round, e.Round), en)
		return
	}
	if s.joinNextRound(e, v, en) {
		return
	}
	if last, ok := e.syncAsked[v.voter]; ok && en.Now.Sub(last) < s.cfg.Params.StateSyncCooldown {
		s.observe(MetricStateSyncThrottled, "", 1)
		return
	}
	p := s.peer(v.voter)
	rate := float64(s.cfg.Params.SyncRequestsPerPeerPerMinute)
	if !allow(&p.syncTokens, &p.syncRefilledAt, en.Now, rate/60, rate) {
		s.observe(MetricStateSyncThrottled, "", 1)
		return
	}
	e.syncAsked[v.voter] = en.Now
	req := SyncRequest{Wants: []SyncWant{s.want(e)}}
	s.askSync(v.voter, req, en.Now)
}

// want describes what this signer holds of an event, for a sync request.
func (s *State) want(e *EventState) SyncWant {
	w := SyncWant{EventID: e.ID, Epoch: e.Epoch, Round: e.Round}
	for r := uint32(0); r <= e.Round; r++ {
		bs := e.ballots(r)
		if len(bs) == 0 {
			continue
		}
		rv := RoundVoters{Round: r}
		for _, b := range bs {
			rv.Voters = append(rv.Voters, b.Voter)
		}
		w.Have = append(w.Have, rv)
	}
	return w
}
