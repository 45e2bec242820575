package twophase

import "time"

// What one member (its real key in an attacker's hands) can make an
// honest signer record or do is bounded here: one refused vote per
// member, event, epoch, round and reason, and one equivocation record per
// member, event, epoch and round (rounds far ahead count as one; the rest are
// counted in the refusal windows of peers.go); a budget of source-proof
// look-ups per member for events this signer has not confirmed, which
// cost no durable record; and a budget of signature checks per relayed
// voter in a sync response (syncguard.go).

// votePlace is one member's vote slot of an event, with what was
// recorded of it: a refusal's reason, or equivocation.
type votePlace struct {
	epoch, round uint32
	voter        PeerID
	what         Reason
}

// farRound stands for every round more than one ahead of the event's: a
// sender picks those freely, so they share one slot.
const farRound = ^uint32(0)

// place is the slot of voter's vote of round in e, for a record of what.
func (e *EventState) place(round uint32, voter PeerID, what Reason) votePlace {
	if round > e.Round+1 {
		round = farRound
	}
	return votePlace{epoch: e.Epoch, round: round, voter: voter, what: what}
}

// firstNote marks place and reports whether it was not marked yet.
func (e *EventState) firstNote(place votePlace) bool {
	if e.noted == nil {
		e.noted = map[votePlace]bool{}
	}
	if e.noted[place] {
		return false
	}
	e.noted[place] = true
	return true
}

func (f VoteRejected) fold(s *State) {
	if e := s.events[f.EventID]; e != nil {
		e.firstNote(e.place(f.Round, f.Sender, f.Reason))
	}
}

func (f Equivocation) fold(s *State) {
	if _, ok := s.cfg.Group.Member(f.Voter); ok && f.Voter != s.cfg.Self {
		s.equivocators[f.Voter] = true
	}
	if e := s.events[f.EventID]; e != nil {
		e.firstNote(e.place(f.Round, f.Voter, equivocationNote(f.Precommit)))
	}
}

// notePrecommitEquivocation marks a slot whose second precommit is
// recorded (ReasonEquivocation marks a second prevote's): one record each
// per member, event and round, however many a member sends.
const notePrecommitEquivocation Reason = "precommit_equivocation"

func equivocationNote(precommit bool) Reason {
	if precommit {
		return notePrecommitEquivocation
	}
	return ReasonEquivocation
}

// Neither changes which event holds the pool.
func (VoteRejected) isVoteOrRound() {}
func (Equivocation) isVoteOrRound() {}

// Source-proof look-ups a member's proposals may ask for, of events this
// signer has not confirmed: a burst, then one a second.
const (
	proofsPerPeerBurst     = 16
	proofsPerPeerPerSecond = 1
)

// askProof hands ev over for a source proof within its proposer's budget;
// past it the proposal is only counted (proof_budget).
func (s *State) askProof(ev SigningEvent, env Envelope, now time.Time) {
	p := s.peer(env.Sender)
	if !allow(&p.proofTokens, &p.proofRefilledAt, now, proofsPerPeerPerSecond, proofsPerPeerBurst) {
		s.recordRefusal(env.Sender, env.Kind.String(), reject(ReasonProofBudget, "over %d source proofs/s", proofsPerPeerPerSecond), 1, now)
		s.observe(MetricValidationFailures, string(ReasonProofBudget), 1)
		return
	}
	s.step.Unconfirmed = append(s.step.Unconfirmed, ev)
}

// syncChecksPerVoter bounds the relayed votes of one voter a sync
// response's state of one event may cost in signature checks: the
// asker's missing rounds are rarely more, and what is left is asked for
// again at the next anti-entropy round.
const syncChecksPerVoter = 2
