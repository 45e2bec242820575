package twophase

import (
	"maps"
	"slices"
)

// profileB reports whether the group runs Profile B.
func (s *State) profileB() bool { return s.cfg.Group.Profile == ProfileB }

// isActive reports whether e may be proposed for, committed and signed
// now: Profile A's one event per pool, or one of Profile B's active set.
func (s *State) isActive(e *EventState) bool {
	if !s.profileB() {
		return s.active() == e
	}
	s.actives()
	return s.activeSet[e.ID]
}

// actives is Profile B's active set: every event it signed and that is
// not finished, and the next event of every stream, in source order, at
// most MaxActiveEvents. Reserved outpoints, not serialization, keep two
// events off one output.
func (s *State) actives() []*EventState {
	if s.activeOK {
		return s.activeList
	}
	set := map[Hash]bool{}
	var list []*EventState
	for _, e := range s.open {
		if e.Signed != nil && e.Signed.Hash == e.Canonical && e.Phase == PhaseCommitted {
			set[e.ID] = true
			list = append(list, e)
		}
	}
	for _, st := range s.streams {
		e := s.events[st.pending[st.next]]
		if e == nil || e.Phase.Terminal() || set[e.ID] {
			continue
		}
		set[e.ID] = true
		list = append(list, e)
	}
	slices.SortFunc(list, compareEvents)
	if n := s.cfg.Params.MaxActiveEvents; len(list) > n {
		for _, e := range list[n:] {
			delete(set, e.ID)
		}
		list = list[:n]
	}
	s.activeSet, s.activeList, s.activeOK = set, list, true
	return list
}

// lockView is what a Profile B member builds a plan from: its view with
// the virtual DAA score moved back to the anchor (inputs must be deep at
// the anchor), and the outpoints other events hold left out.
//
// Members that learn of concurrent events in different orders would
// otherwise lock them in different orders and split their votes: so an
// event also leaves out what every earlier active event (in source
// order) not yet locked by this member in its round would take, as that
// event will build it. Every member then gives an outpoint to the
// earliest event that wants it, whatever the order it voted in.
func (s *State) lockView(e *EventState, view LedgerView) (LedgerView, map[Outpoint]bool) {
	v := view
	v.VirtualDAAScore = anchorFor(view.VirtualDAAScore, s.cfg.Params)
	exclude := map[Outpoint]bool{}
	for o := range s.heldByOthers(e.ID) {
		exclude[o] = true
	}
	for _, a := range s.actives() {
		if !a.Event.Before(e.Event) {
			break
		}
		if a.Phase == PhaseCommitted || a.votes[a.Round][s.cfg.Self] != nil {
			continue // its certificate or this member's lock is in exclude already
		}
		salt := a.ID
		req := BuildRequest{Event: a.Event, Group: s.cfg.Group, Params: s.cfg.Params, Policy: s.cfg.Policy, Rules: s.cfg.Rules,
			Exclude: exclude, Salt: &salt}
		if _, ins, _, err := BuildTemplate(req, v); err == nil {
			for _, u := range ins {
				exclude[u.Outpoint] = true
			}
		}
	}
	return v, exclude
}

// signLock fills a Profile B proposal's anchor and prevote signature:
// anchor when it is not 0 and checks against view, else view's own.
func (s *State) signLock(p *Proposal, t Template, view LedgerView, anchor uint64) {
	p.Anchor = &Anchor{TipScore: anchorFor(view.VirtualDAAScore, s.cfg.Params)}
	if anchor != 0 {
		own := p.Anchor
		p.Anchor = &Anchor{TipScore: anchor}
		if s.checkAnchor(*p, view) != nil {
			p.Anchor = own
		}
	}
	p.LockSig = SignPrevote(s.cfg.Identity, s.opener.id, LockMsgOf(*p, t))
}

// lockConflict refuses this signer's lock of t for e when another event
// holds one of its outpoints (a certificate, or this signer's own lock):
// the no-vote says why and the conflict is counted.
func (s *State) lockConflict(e *EventState, t Template) bool {
	if _, _, clash := conflict(templateOutpoints(t), s.heldByOthers(e.ID)); !clash {
		return false
	}
	s.observe(MetricOutpointLockConflicts, "", 1)
	return true
}

// checkPlan is Profile B's check of a received plan, after the common
// validation: its lock signature, its anchor (for the current round's
// plans) and the outpoints other certificates reserve.
func (s *State) checkPlan(e *EventState, p Proposal, t Template, current bool, en Env) error {
	m := LockMsgOf(p, t)
	d := m.prevoteDigest(s.opener.id)
	if !s.opener.VerifyMember(p.Proposer, d[:], p.LockSig) {
		return reject(ReasonBadLockSignature, "the plan's prevote signature by %s does not verify", p.Proposer)
	}
	s.observe(MetricLockSigsReceived, "", 1)
	if current {
		view, err := en.View()
		if err != nil {
			return reject(ReasonAnchorUnknown, "this signer's node cannot be read to check the anchor: %v", err)
		}
		if err := s.checkAnchor(p, view); err != nil {
			return err
		}
	}
	if o, other, clash := conflict(m.Outpoints, s.reservedByOthers(e.ID)); clash {
		s.observe(MetricOutpointLockConflicts, "", 1)
		return reject(ReasonOutpointLocked, "outpoint %s is reserved by the certificate of event %s", o, other.Short())
	}
	return nil
}

// otherLock reports whether v, a vote for the template b holds, signs
// another lock message than b did (another anchor): in Profile B that is
// a second lock for one (event, round), an equivocation.
func (s *State) otherLock(e *EventState, b *ballot, v voteIn) bool {
	if !s.profileB() || v.proposal == nil || b.lockMsg == nil {
		return false
	}
	kt := e.templates[b.hash]
	if kt == nil {
		return false
	}
	return LockMsgOf(*v.proposal, kt.template).Digest(s.opener.id) != b.lockDigest
}

// commitCert commits e on the lock certificate c of round (aggregated
// from this signer's ballots), unless its template is not usable here:
// true when it did.
func (s *State) commitCert(e *EventState, round uint32, c LockCert, env Env) bool {
	if c.Msg.TemplateHash == e.unusable {
		return false
	}
	h := c.Msg.TemplateHash
	kt := e.templates[h]
	if kt == nil || !kt.valid {
		return false
	}
	if round < e.Round && s.deadNow(e, h, env) {
		return false
	}
	if _, _, clash := conflict(c.Msg.Outpoints, s.reservedByOthers(e.ID)); clash {
		// Two certificates on one outpoint take more than f Byzantine
		// members: never follow the second.
		s.observe(MetricOutpointLockConflicts, "", 1)
		return false
	}
	prop := e.proposalOf(h)
	if prop == nil {
		return false // its template came by a commit's evidence: that commit is adopted instead
	}
	evidence := [][]byte{c.Encode(), prop}
	s.endRoundMetrics(e, env)
	s.acceptCert(e, c, env)
	s.emit(Committed{EventID: e.ID, Epoch: e.Epoch, Round: round, Hash: h, Trigger: TriggerLockCert, Voters: certSigners(c),
		Evidence: evidence, InRound: e.Round, AtNs: ns(env.Now)})
	s.commitMetrics(e, TriggerLockCert, env)
	s.signCommitted(e, env)
	return true
}

// proposalOf is a stored proposal envelope of template h, of the latest
// round that has one (a certificate's evidence names its template so).
func (e *EventState) proposalOf(h Hash) []byte {
	for r := int64(e.Round); r >= 0; r-- {
		for _, id := range slices.Sorted(maps.Keys(e.votes[uint32(r)])) {
			if b := e.votes[uint32(r)][id]; !b.none && b.hash == h {
				return b.envelope
			}
		}
	}
	return nil
}

// acceptCert records an accepted certificate: the outpoints it reserves.
func (s *State) acceptCert(e *EventState, c LockCert, env Env) {
	s.emit(LockCertAccepted{EventID: e.ID, Epoch: e.Epoch, Round: c.Msg.Round, Anchor: c.Msg.Anchor,
		TemplateHash: c.Msg.TemplateHash, Outpoints: c.Msg.Outpoints, Signers: certSigners(c), Cert: c.Encode(), InRound: e.Round, AtNs: ns(env.Now)})
	s.observe(MetricLockCertsAccepted, "", 1)
}

func certSigners(c LockCert) []PeerID {
	out := make([]PeerID, len(c.Sigs))
	for i, sg := range c.Sigs {
		out[i] = sg.Signer
	}
	slices.Sort(out)
	return out
}

// checkCertEvidence verifies Profile B commit evidence: a lock
// certificate of the event for hash, and a proposal of its template
// (signed by any member) that passes this signer's validation and spends
// exactly the certificate's outpoints, none reserved by another event.
func (s *State) checkCertEvidence(e *EventState, round uint32, hash Hash, evidence [][]byte) ([]PeerID, *LockCert, error) {
	bad := func(format string, a ...any) ([]PeerID, *LockCert, error) {
		return nil, nil, reject(ReasonBadEvidence, format, a...)
	}
	if len(evidence) != 2 {
		return bad("%d evidence items, Profile B wants a lock certificate and a proposal", len(evidence))
	}
	c, err := DecodeLockCert(evidence[0], s.cfg.Params)
	if err != nil {
		return nil, nil, err
	}
	m := c.Msg
	if m.EventID != e.ID || m.Epoch != e.Epoch || m.Round != round || m.TemplateHash != hash {
		return bad("certificate of event %s epoch %d round %d hash %s", m.EventID.Short(), m.Epoch, m.Round, m.TemplateHash.Short())
	}
	if err := s.opener.VerifyLockCert(s.quorum(), c); err != nil {
		return nil, nil, err
	}
	env, err := s.opener.Open(evidence[1])
	if err != nil {
		return bad("proposal: %v", err)
	}
	if env.Kind != KindProposal {
		return bad("proposal is a %s", env.Kind)
	}
	p, err := DecodeProposal(env.Payload, s.cfg.Params)
	switch {
	case err != nil:
		return bad("proposal: %v", err)
	case p.EventID() != e.ID || p.TemplateHash != hash:
		return bad("proposal is for event %s hash %s", p.EventID().Short(), p.TemplateHash.Short())
	}
	t, err := s.validator.Validate(p, env.Sender)
	if err != nil {
		return bad("the template fails validation: %v", err)
	}
	if !slices.Equal(templateOutpoints(t), m.Outpoints) {
		return nil, nil, reject(ReasonLockMismatch, "the certificate's outpoints are not its template's inputs")
	}
	if o, other, clash := conflict(m.Outpoints, s.reservedByOthers(e.ID)); clash {
		s.observe(MetricOutpointLockConflicts, "", 1)
		return nil, nil, reject(ReasonOutpointLocked, "outpoint %s is reserved by the certificate of event %s", o, other.Short())
	}
	s.rememberTemplate(e, p, t)
	return certSigners(c), &c, nil
}
