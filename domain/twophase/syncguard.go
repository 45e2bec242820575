package twophase

import (
	"slices"
	"time"
)

// Sync answers only for questions asked (seed 001, 7.3's DoS note): a
// member may answer a sync request once per event asked, within
// syncAnswerTicks ticks; anything else it sends as a sync response is
// refused, recorded and counted (unrequested_sync).

// syncAnswerTicks bounds how long a sync request stays open.
const syncAnswerTicks = 10

// askSync sends req to member to and remembers what it asked.
func (s *State) askSync(to PeerID, req SyncRequest, now time.Time) {
	s.noteAsked(to, req, now)
	s.sendTo(to, KindSyncRequest, s.seal(KindSyncRequest, req.Encode()))
}

// noteAsked remembers that member to was asked about req's events.
func (s *State) noteAsked(to PeerID, req SyncRequest, now time.Time) {
	m := s.asked[to]
	if m == nil {
		m = map[Hash]time.Time{}
		s.asked[to] = m
	}
	for _, w := range req.Wants {
		m[w.EventID] = now
	}
}

// takeAsked reports whether member from has an open request about event
// id, and closes it: one answer per question.
func (s *State) takeAsked(from PeerID, id Hash, now time.Time) bool {
	at, ok := s.asked[from][id]
	if !ok {
		return false
	}
	delete(s.asked[from], id)
	return now.Sub(at) <= syncAnswerTicks*s.cfg.Params.Tick
}

// expireAsked forgets requests never answered (a member down, a message
// lost), so the map holds at most what the last few ticks asked.
func (s *State) expireAsked(now time.Time) {
	for peer, m := range s.asked {
		for id, at := range m {
			if now.Sub(at) > syncAnswerTicks*s.cfg.Params.Tick {
				delete(m, id)
			}
		}
		if len(m) == 0 {
			delete(s.asked, peer)
		}
	}
}

// roundEvidence is the highest round above e's that the signed votes of
// a sync answer show enough members in for a quorum to meet there with
// this signer: at least Quorum-1 other members each voted of e (its
// epoch) in that round or later. Below that, one member's word (a
// Byzantine vote for the last round) would move honest members away
// from a round that can still commit. It returns e.Round when no later
// round qualifies.
func (s *State) roundEvidence(e *EventState, votes []Envelope) uint32 {
	top := map[PeerID]uint32{}
	for _, env := range votes {
		id, epoch, r, voter, ok := voteOf(env, s.cfg.Params)
		if !ok || id != e.ID || epoch != e.Epoch || voter != env.Sender || voter == s.cfg.Self || r >= s.cfg.Params.MaxRounds() {
			continue
		}
		if cur, seen := top[voter]; !seen || r > cur {
			top[voter] = r
		}
	}
	best := e.Round
	for _, r := range top {
		if r <= best {
			continue
		}
		n := 0
		for _, q := range top {
			if q >= r {
				n++
			}
		}
		if n >= s.quorum()-1 {
			best = r
		}
	}
	return best
}

// voteOf reads what a vote envelope says without validating it further.
func voteOf(env Envelope, p Params) (id Hash, epoch, round uint32, voter PeerID, ok bool) {
	switch env.Kind {
	case KindProposal:
		if pr, err := DecodeProposal(env.Payload, p); err == nil {
			return pr.EventID(), pr.Epoch, pr.Round, pr.Proposer, true
		}
	case KindNoVote:
		if nv, err := DecodeNoVote(env.Payload); err == nil {
			return nv.EventID, nv.Epoch, nv.Round, nv.Voter, true
		}
	}
	return Hash{}, 0, 0, "", false
}

// openRelayed checks the signatures of the votes a sync response relays
// for event e, within a budget: before any check, votes that cannot be a
// member's, that repeat a voter's round, or that this signer holds
// already are skipped, and at most syncChecksPerVoter of each voter are
// checked; the rest are counted against the responder (sync_budget),
// once per response.
func (s *State) openRelayed(e *EventState, from PeerID, raws [][]byte, now time.Time) []Envelope {
	var votes []Envelope
	checked := map[PeerID]int{}
	seen := map[votePlace]bool{}
	over := 0
	for _, raw := range raws {
		head, err := parseEnvelope(raw)
		if err != nil || !slices.Contains(s.members, head.Sender) {
			over++ // nothing a member signed; not worth a check
			continue
		}
		r, ok := voteRound(head)
		place := votePlace{round: r, voter: head.Sender}
		if !ok || seen[place] || e.votes[r][head.Sender] != nil {
			continue // a repeat, or a vote held here: nothing new
		}
		if checked[head.Sender] >= syncChecksPerVoter {
			over++
			continue
		}
		checked[head.Sender]++
		seen[place] = true
		env, err := s.opener.Open(raw)
		if err != nil {
			s.rejectMessage(from, KindSyncResponse.String(), err, now)
			continue
		}
		votes = append(votes, env)
	}
	if over > 0 {
		s.rejectMessage(from, KindSyncResponse.String(), reject(ReasonSyncBudget,
			"%d relayed votes of event %s past %d checks a voter", over, e.ID.Short(), syncChecksPerVoter), now)
	}
	return votes
}
