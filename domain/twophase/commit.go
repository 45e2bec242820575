package twophase

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"
)

// tryCommit commits the active event on a quorum of identical votes in
// any round this signer holds (the earliest such round): never without
// one, and never to a template it did not validate itself. Idempotent.
func (s *State) tryCommit(e *EventState, env Env) {
	if (e.Phase != PhaseProposing && e.Phase != PhaseFailed) || !s.isActive(e) {
		return
	}
	if s.profileB() {
		if e.noQuorumAt == e.votesSeen+1 {
			return // no vote since the last look found no quorum
		}
		quorum := false
		for r := uint32(0); r <= e.Round; r++ {
			c, ok := e.lockQuorum(r, s.opener.id, s.quorum())
			quorum = quorum || ok
			if ok && s.commitCert(e, r, *c, env) {
				return
			}
		}
		if !quorum {
			e.noQuorumAt = e.votesSeen + 1
		}
		return
	}
	for r := uint32(0); r <= e.Round; r++ {
		h, ok := QuorumHash(e.ballots(r), s.quorum())
		if !ok || h == e.unusable {
			continue
		}
		kt := e.templates[h]
		if kt == nil || !kt.valid {
			return
		}
		if r < e.Round && s.deadNow(e, h, env) {
			continue // an earlier round's quorum on a template that can never be paid
		}
		var voters []PeerID
		for _, b := range e.ballots(r) {
			if !b.None && b.Hash == h {
				voters = append(voters, b.Voter)
			}
		}
		s.endRoundMetrics(e, env)
		s.emit(Committed{EventID: e.ID, Epoch: e.Epoch, Round: r, Hash: h, Trigger: TriggerQuorum, Voters: voters, InRound: e.Round, AtNs: ns(env.Now)})
		s.commitMetrics(e, TriggerQuorum, env)
		s.signCommitted(e, env)
		return
	}
}

// deadNow reports whether template h of e can never be paid, as the
// signer's view shows now (false when the view cannot be read).
func (s *State) deadNow(e *EventState, h Hash, env Env) bool {
	view, err := env.View()
	return err == nil && s.deadFunc(e, view, env)(h)
}

func (s *State) commitMetrics(e *EventState, t Trigger, env Env) {
	s.observe(MetricCommits, "", 1)
	s.observe(MetricCanonicalSelection, string(t), 1)
	if t == TriggerFastForward {
		s.observe(MetricFastForward, "", 1)
	}
	if !e.FirstRoundAt.IsZero() {
		s.observe(MetricCommitLatency, "", float64(env.Now.Sub(e.FirstRoundAt).Milliseconds()))
	}
}

// signCommitted signs the committed template of the active event after
// the mandatory pre-sign revalidation against the signer's current view
// (section 8.5.6); when an input fails it signs nothing and the round
// fails (Committed -> Failed). A signer signs one template per event at a
// time: with another template signed it waits until that payout is
// proven void (see tryVoid).
func (s *State) signCommitted(e *EventState, env Env) {
	if e.Phase != PhaseCommitted || !s.isActive(e) {
		return
	}
	if e.Signed != nil && e.Signed.Hash == e.Canonical {
		if e.commitSent.IsZero() {
			s.sendCommit(e, "", false, env)
		}
		return
	}
	if e.Signed != nil && !s.tryVoid(e, env) {
		return // another payout of the event is signed and may still confirm
	}
	kt := e.templates[e.Canonical]
	if kt == nil || !kt.valid || e.voided(e.Canonical) {
		return
	}
	// The view before the payout's status (see checkPayout): a payout
	// accepted between the two reads then shows as accepted, where the
	// other order would see its inputs missing and fail the round.
	view, viewErr := env.View()
	var statusErr error
	if env.Payout != nil {
		st, err := env.Payout(kt.txID)
		if err == nil && st.Accepted {
			// Paid with the others' signatures: nothing to sign.
			if st.VirtualDAAScore >= st.DAAScore+s.cfg.Params.PayoutDepth {
				s.complete(e, e.Canonical, kt.txID, st.DAAScore, env)
			}
			return
		}
		statusErr = err
	}
	if viewErr != nil {
		return // the tick tries again
	}
	if err := Revalidate(kt.template, kt.txID, view, s.cfg.Params); err != nil {
		if notYet(err, kt, view) {
			return // this signer's node is behind: sign when it shows the inputs deep (tick, ledger change)
		}
		if statusErr != nil && missingInput(err) {
			return // the payout itself may have spent it: judge when its status can be read
		}
		s.observe(MetricRevalidationFailures, "", 1)
		s.failRound(e, ReasonRevalidationFailed, err.Error(), env)
		return
	}
	sig, err := s.cfg.Payout.SignPayout(kt.template)
	if err != nil {
		s.observe(MetricPhaseTransitionErrors, "", 1)
		return
	}
	s.emit(TemplateSigned{EventID: e.ID, Round: e.CommitRound, Hash: e.Canonical, TxID: kt.txID, Signature: sig,
		After: uint32(len(e.Voided)), AtNs: ns(env.Now)})
	s.sendCommit(e, "", false, env)
	s.maybeSubmit(e, env)
}

// missingInput reports whether a revalidation failed on an input gone
// from the view.
func missingInput(err error) bool {
	var rf *RevalidationFailure
	return errors.As(err, &rf) && rf.Reason == "missing"
}

// notYet tells a revalidation failure that time cures from one that
// makes the template unusable: an input not yet deep or mature, or not
// yet visible to a node behind the score at which it was created.
func notYet(err error, kt *knownTemplate, view LedgerView) bool {
	var rf *RevalidationFailure
	if !errors.As(err, &rf) {
		return false
	}
	switch rf.Reason {
	case "too_shallow", "immature_coinbase":
		return true
	case "missing":
		for i, in := range kt.template.Inputs {
			if in.Outpoint == rf.Outpoint && i < len(kt.created) {
				return kt.created[i] > view.VirtualDAAScore
			}
		}
	}
	return false
}

// sendCommit sends this signer's commit with its evidence and, once
// signed, its signature. First to the event's signature collectors only
// (see collectors): they gather a quorum of signatures and submit, and
// every member sees the payout on its own ledger view, so the commit
// costs N messages, not N×(N-1). A member still in Proposing learns the
// commit by anti-entropy. When the payout does not show up, the tick
// sends the commit to every member (to == "" with all set), and a member
// found behind gets it directly.
func (s *State) sendCommit(e *EventState, to PeerID, all bool, env Env) {
	c := Commit{EventID: e.ID, Epoch: e.Epoch, Round: e.CommitRound, TemplateHash: e.Canonical, Evidence: e.Evidence}
	if e.Signed != nil && e.Signed.Hash == e.Canonical {
		c.Signature = e.Signed.Signature
	}
	raw := s.seal(KindCommit, c.Encode())
	switch {
	case to != "":
		s.sendTo(to, KindCommit, raw)
	case all:
		s.broadcast(KindCommit, raw)
		e.commitSent = env.Now
	default:
		for _, id := range s.collectors(e.ID) {
			if id != s.cfg.Self {
				s.sendTo(id, KindCommit, raw)
			}
		}
		e.commitSent = env.Now
	}
}

// collectors are the members that gather an event's payout signatures
// first: SignatureCollectors of them, in an order drawn from the event id
// (so the load spreads over the members and every signer agrees).
func (s *State) collectors(id Hash) []PeerID {
	k := min(s.cfg.Params.SignatureCollectors, len(s.members))
	type ranked struct {
		id   PeerID
		rank Hash
	}
	rs := make([]ranked, len(s.members))
	for i, m := range s.members {
		rs[i] = ranked{m, taggedHash("bridgelog/twophase/collector/v1", id[:], []byte(m))}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		switch {
		case a.rank.Less(b.rank):
			return -1
		case b.rank.Less(a.rank):
			return 1
		}
		return 0
	})
	out := make([]PeerID, k)
	for i := range out {
		out[i] = rs[i].id
	}
	return out
}

// onCommit handles a peer's commit: a signature for the template this
// signer committed too, a conflict (logged, never followed), or, with
// verified evidence, a fast-forward to the peer's commit.
func (s *State) onCommit(env Envelope, c Commit, en Env) {
	e := s.events[c.EventID]
	if e == nil {
		s.rejectVote(c.EventID, c.Round, env, Hash{}, reject(ReasonUnknownEvent, "commit for an event this signer has not seen confirmed"), en)
		return
	}
	if c.Epoch != e.Epoch || e.Phase == PhaseCompleted {
		return
	}
	switch {
	case e.Phase == PhaseCommitted && e.Canonical == c.TemplateHash:
		s.mergeSignature(e, env.Sender, c.Signature, en)
		s.maybeSubmit(e, en)
		return
	case e.Phase == PhaseCommitted:
		if _, _, err := s.verifyCommit(e, c.Round, c.TemplateHash, c.Evidence); err != nil {
			s.rejectVote(e.ID, c.Round, env, c.TemplateHash, err, en)
			return
		}
		s.emit(CommitConflict{EventID: e.ID, Round: c.Round, LocalHash: e.Canonical, RemoteHash: c.TemplateHash,
			Sender: env.Sender, AtNs: ns(en.Now)})
		s.observe(MetricSplitBrainWarnings, "", 1)
		return
	case e.Phase == PhaseAbandoned, e.Phase == PhaseRefused:
		return
	}
	if !s.adopt(e, env, c.Round, c.TemplateHash, c.Evidence, en) {
		return
	}
	s.mergeSignature(e, env.Sender, c.Signature, en)
	s.maybeSubmit(e, en)
}

// adopt fast-forwards e to a commit whose evidence verifies: a quorum of
// distinct members' signed proposals of one round for the hash, whose
// template passes this signer's own validation. A peer's word alone
// moves nothing.
func (s *State) adopt(e *EventState, from Envelope, round uint32, hash Hash, evidence [][]byte, en Env) bool {
	if hash == e.unusable {
		return false // given up in this round: its inputs failed revalidation here
	}
	voters, cert, err := s.verifyCommit(e, round, hash, evidence)
	if err != nil {
		s.rejectVote(e.ID, round, from, hash, err, en)
		return false
	}
	s.endRoundMetrics(e, en)
	if cert != nil {
		s.acceptCert(e, *cert, en)
	}
	s.emit(Committed{EventID: e.ID, Epoch: e.Epoch, Round: round, Hash: hash, Trigger: TriggerFastForward,
		From: from.Sender, Voters: voters, Evidence: evidence, InRound: e.Round, AtNs: ns(en.Now)})
	s.commitMetrics(e, TriggerFastForward, en)
	s.signCommitted(e, en)
	return true
}

// verifyCommit checks a commit's evidence: Profile A's quorum of signed
// proposals, or Profile B's lock certificate (returned too).
func (s *State) verifyCommit(e *EventState, round uint32, hash Hash, evidence [][]byte) ([]PeerID, *LockCert, error) {
	if s.profileB() {
		return s.checkCertEvidence(e, round, hash, evidence)
	}
	voters, err := s.checkEvidence(e, round, hash, evidence)
	return voters, nil, err
}

// checkEvidence verifies commit evidence and returns the quorum's voters.
// Envelopes identical to votes this signer stored were verified then.
func (s *State) checkEvidence(e *EventState, round uint32, hash Hash, evidence [][]byte) ([]PeerID, error) {
	bad := func(format string, a ...any) ([]PeerID, error) {
		return nil, reject(ReasonBadEvidence, format, a...)
	}
	if len(evidence) < s.quorum() {
		return bad("%d signed proposals, a quorum is %d", len(evidence), s.quorum())
	}
	var voters []PeerID
	validated := false
	for i, raw := range evidence {
		var env Envelope
		var err error
		if b := s.storedBallot(e, round, raw); b != nil {
			env, err = parseEnvelope(raw)
		} else {
			env, err = s.opener.Open(raw)
		}
		if err != nil {
			return bad("proposal %d: %v", i, err)
		}
		if env.Kind != KindProposal {
			return bad("proposal %d is a %s", i, env.Kind)
		}
		p, err := DecodeProposal(env.Payload, s.cfg.Params)
		switch {
		case err != nil:
			return bad("proposal %d: %v", i, err)
		case p.EventID() != e.ID || p.Epoch != e.Epoch || p.Round != round || p.TemplateHash != hash:
			return bad("proposal %d is for event %s epoch %d round %d hash %s", i, p.EventID().Short(), p.Epoch, p.Round, p.TemplateHash.Short())
		case p.Proposer != env.Sender:
			return bad("proposal %d names %s but is signed by %s", i, p.Proposer, env.Sender)
		case slices.Contains(voters, env.Sender):
			return bad("%s counted twice", env.Sender)
		}
		if !validated {
			t, err := s.validator.Validate(p, env.Sender)
			if err != nil {
				return bad("the template fails validation: %v", err)
			}
			s.rememberTemplate(e, p, t)
			validated = true
		}
		voters = append(voters, env.Sender)
	}
	slices.Sort(voters)
	return voters, nil
}

// storedBallot returns the stored vote whose envelope is exactly raw.
func (s *State) storedBallot(e *EventState, round uint32, raw []byte) *ballot {
	for _, b := range e.votes[round] {
		if bytes.Equal(b.envelope, raw) {
			return b
		}
	}
	return nil
}

// mergeSignature keeps a member's payout signature of the committed
// template once it verifies.
func (s *State) mergeSignature(e *EventState, from PeerID, sig []byte, en Env) {
	if len(sig) == 0 || e.sigs[from] != nil {
		return
	}
	kt := e.templates[e.Canonical]
	m, ok := s.cfg.Group.Member(from)
	if kt == nil || !ok {
		return
	}
	if err := s.cfg.Scheme.VerifySignature(kt.template, m, sig); err != nil {
		s.rejectMessage(from, KindCommit.String(), reject(ReasonBadSignature, "payout signature of %s: %v", from, err), en.Now)
		return
	}
	e.sigs[from] = sig
}

// resubmitAfter is how long a submitted payout may stay unseen on the
// ledger before it is submitted again.
const resubmitAfter = 5 * time.Second

// maybeSubmit assembles and submits the payout once a quorum of
// signatures of the committed template is held; any signer may, and each
// does (the ledger takes one transaction once).
func (s *State) maybeSubmit(e *EventState, en Env) {
	if e.Phase != PhaseCommitted || len(e.sigs) < s.quorum() {
		return
	}
	if e.Submitted > 0 && en.Now.Sub(e.lastSub) < max(resubmitAfter, 5*s.cfg.Params.Tick) {
		return
	}
	kt := e.templates[e.Canonical]
	var sigs []MemberSignature
	for _, id := range s.members {
		if sig := e.sigs[id]; sig != nil && len(sigs) < s.quorum() {
			sigs = append(sigs, MemberSignature{Signer: id, Signature: sig})
		}
	}
	tx, err := s.cfg.Scheme.Assemble(kt.template, s.cfg.Group, sigs)
	if err != nil {
		s.observe(MetricPhaseTransitionErrors, "", 1)
		return
	}
	signers := make([]PeerID, len(sigs))
	for i, m := range sigs {
		signers[i] = m.Signer
	}
	attempt := e.Submitted + 1
	s.emit(PayoutSubmitted{EventID: e.ID, Epoch: e.Epoch, Hash: e.Canonical, TxID: kt.txID, Signers: signers, Tx: tx,
		Attempt: attempt, AtNs: ns(en.Now)})
	s.step.Submit = append(s.step.Submit, Submission{EventID: e.ID, TxID: kt.txID, Attempt: attempt, Tx: tx})
}

// SubmitResult records the ledger's answer to a submission (nil: accepted
// into its mempool or already known to it).
func (s *State) SubmitResult(sub Submission, err error, en Env) Step {
	out := PayoutOutcome{EventID: sub.EventID, TxID: sub.TxID, Attempt: sub.Attempt, Accepted: err == nil, AtNs: ns(en.Now)}
	label := "accepted"
	if err != nil {
		out.Error, label = err.Error(), "rejected"
	}
	s.emit(out)
	s.observe(MetricPayoutSubmissions, label, 1)
	return s.take()
}

// checkPayout completes an event whose payout the ledger accepted and
// that is deep enough; a payout that can never be accepted fails the
// round: on proof (PayoutVoided) when this signer signed it, on its
// view's word when it did not (its signature is not in that payout).
func (s *State) checkPayout(e *EventState, en Env) {
	kt := e.templates[e.Canonical]
	if kt == nil || en.Payout == nil {
		return
	}
	// The view is read before the payout's status: a payout accepted
	// between the two reads then shows as accepted, where the other order
	// would see its inputs gone, judge it dead and pay the event again.
	view, viewErr := en.View()
	st, err := en.Payout(kt.txID)
	if err != nil {
		return
	}
	if st.Accepted {
		if st.VirtualDAAScore >= st.DAAScore+s.cfg.Params.PayoutDepth {
			s.complete(e, e.Canonical, kt.txID, st.DAAScore, en)
		}
		return
	}
	if e.Signed != nil && e.Signed.Hash == e.Canonical {
		// Signed here: only a proof that it can never confirm ends this
		// payout; until then it is sent again as it is (maybeSubmit).
		if s.tryVoid(e, en) {
			s.failRound(e, ReasonPayoutRejected, fmt.Sprintf("payout %s voided: an input is spent elsewhere or gone, %d deep", kt.txID.Short(), s.cfg.Params.PayoutDepth), en)
		}
		return
	}
	if e.Submitted == 0 {
		return
	}
	if viewErr == nil && Dead(kt.template, kt.txID, kt.created, view) {
		s.failRound(e, ReasonPayoutRejected, fmt.Sprintf("payout %s can never be accepted: an input is spent elsewhere or gone", kt.txID.Short()), en)
	}
}

func (s *State) complete(e *EventState, hash, txID Hash, daa uint64, en Env) {
	s.emit(Completed{EventID: e.ID, Hash: hash, TxID: txID, DAAScore: daa, AtNs: ns(en.Now)})
	s.observe(MetricEventsCompleted, "", 1)
}
