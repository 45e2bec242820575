package twophase

import (
	"crypto/ed25519"
	"fmt"
	"maps"
	"slices"
)

// Profile B votes in two steps a round (see doc.go for the argument).
// The proposal is the prevote: a template and its lock message, signed
// under the prevote tag, so no number of prevotes is a certificate. A
// member that holds a polka (a quorum of prevotes naming one lock
// message) in its current round precommits: it signs that lock message
// under the lock tag and is locked on it. A lock certificate is a quorum
// of precommits of one lock message, the same wire form as before.

const tagPrevote = "bridgelog/twophase/prevote/v1"

// SignPrevote signs m as a Profile B prevote: the proposal's LockSig.
func SignPrevote(key ed25519.PrivateKey, group Hash, m LockMsg) []byte {
	d := m.prevoteDigest(group)
	return ed25519.Sign(key, d[:])
}

// prevoteDigest is what a prevote signs: the lock message under another
// tag than a lock, so a prevote never counts toward a certificate.
func (m LockMsg) prevoteDigest(group Hash) Hash {
	var w writer
	m.encode(&w)
	return taggedHash(tagPrevote, group[:], w.out())
}

// Precommit is a Profile B member's second vote in a round: its lock
// signature of the lock message a polka named, or nil (no polka seen in
// time). One per member, event and round, ever.
type Precommit struct {
	EventID     Hash
	Epoch       uint32
	Round       uint32
	Voter       PeerID
	Nil         bool
	Lock        LockMsg // with !Nil
	LockSig     []byte  // the voter's SignLock of Lock, with !Nil
	TimestampNs int64
}

// Encode is the precommit's wire form.
func (p Precommit) Encode() []byte {
	var w writer
	w.hash(p.EventID)
	w.u32(p.Epoch)
	w.u32(p.Round)
	w.str(string(p.Voter))
	w.bool(p.Nil)
	if !p.Nil {
		p.Lock.encode(&w)
		w.bytes(p.LockSig)
	}
	w.timeNs(p.TimestampNs)
	return w.out()
}

// DecodePrecommit decodes a precommit, its lock message bounded by
// maxOutpoints; a lock message of another event or round is malformed.
func DecodePrecommit(b []byte, maxOutpoints int) (Precommit, error) {
	r := reader{b: b}
	p := Precommit{EventID: r.hash("event"), Epoch: r.u32("epoch"), Round: r.u32("round"),
		Voter: PeerID(r.str(MaxPeerIDBytes, "voter")), Nil: r.bool("nil")}
	if !p.Nil && r.err == nil {
		p.Lock = decodeLockMsg(&r, maxOutpoints)
		p.LockSig = r.bytes(ed25519.SignatureSize, "lock signature")
		if r.err == nil && (p.Lock.EventID != p.EventID || p.Lock.Epoch != p.Epoch || p.Lock.Round != p.Round) {
			r.fail("precommit's lock message is of another event or round")
		}
	}
	p.TimestampNs = r.timeNs("timestamp")
	return p, malformed(r.end("precommit"))
}

// onPrecommit stores a member's precommit of the current or an earlier
// round once its lock signature verifies; a second, different one of a
// round is an equivocation, recorded with its envelope as evidence.
func (s *State) onPrecommit(env Envelope, en Env) {
	if !s.profileB() {
		s.rejectMessage(env.Sender, env.Kind.String(), reject(ReasonMalformed, "a precommit in a Profile A group"), en.Now)
		return
	}
	p, err := DecodePrecommit(env.Payload, s.cfg.Params.MaxUTXOsPerProposal)
	if err != nil {
		s.rejectMessage(env.Sender, env.Kind.String(), err, en.Now)
		return
	}
	e := s.events[p.EventID]
	switch {
	case e == nil:
		s.rejectVote(p.EventID, p.Round, env, p.Lock.TemplateHash, reject(ReasonUnknownEvent, "precommit for an event this signer has not seen confirmed"), en)
		return
	case p.Voter != env.Sender:
		s.rejectVote(e.ID, p.Round, env, p.Lock.TemplateHash, reject(ReasonProposerMismatch, "precommit of %q signed by %q", p.Voter, env.Sender), en)
		return
	case e.Phase.Terminal() || p.Epoch != e.Epoch || e.Phase == PhaseUnknown:
		return
	case p.Round >= s.cfg.Params.MaxRounds() || p.Round > e.Round:
		// A precommit needs a polka of its round, which this signer would
		// hear of by the prevotes: it is not taken on its own.
		s.observe(MetricFutureRoundIgnored, "", 1)
		s.rejectVote(e.ID, p.Round, env, p.Lock.TemplateHash, reject(ReasonFutureRound, "precommit of round %d while this signer is in round %d", p.Round, e.Round), en)
		return
	}
	if !p.Nil {
		d := p.Lock.Digest(s.opener.id)
		if !s.opener.VerifyMember(p.Voter, d[:], p.LockSig) {
			s.rejectVote(e.ID, p.Round, env, p.Lock.TemplateHash, reject(ReasonBadLockSignature, "the precommit's lock signature by %s does not verify", p.Voter), en)
			return
		}
		s.observe(MetricLockSigsReceived, "", 1)
	}
	if b := e.precommits[p.Round][p.Voter]; b != nil {
		if b.none == p.Nil && (p.Nil || b.lockDigest == p.Lock.Digest(s.opener.id)) {
			s.observe(MetricDuplicateVotes, "", 1)
			return
		}
		if e.firstNote(e.place(p.Round, p.Voter, notePrecommitEquivocation)) {
			s.emit(Equivocation{EventID: e.ID, Epoch: e.Epoch, Round: p.Round, Voter: p.Voter, FirstHash: b.hash,
				SecondHash: p.Lock.TemplateHash, Precommit: true, Envelope: env.Raw, AtNs: ns(en.Now)})
		}
		s.observe(MetricEquivocations, "", 1)
		return
	}
	s.emit(PrecommitAccepted{EventID: e.ID, Epoch: e.Epoch, Round: p.Round, Voter: p.Voter, Hash: p.Lock.TemplateHash,
		Nil: p.Nil, Envelope: env.Raw, AtNs: ns(en.Now)})
	s.tryCommit(e, en)
}

// applyPrecommit folds a stored precommit: the first of a member in a
// round stands.
func (s *State) applyPrecommit(f PrecommitAccepted) {
	e := s.events[f.EventID]
	if e == nil || f.Epoch != e.Epoch {
		return
	}
	m := e.precommits[f.Round]
	if m == nil {
		m = map[PeerID]*ballot{}
		e.precommits[f.Round] = m
	}
	if _, ok := m[f.Voter]; ok {
		return
	}
	b := &ballot{hash: f.Hash, none: f.Nil, envelope: f.Envelope}
	if !f.Nil {
		if env, err := parseEnvelope(f.Envelope); err == nil {
			if p, err := DecodePrecommit(env.Payload, s.cfg.Params.MaxUTXOsPerProposal); err == nil && !p.Nil {
				lm := p.Lock
				b.lockMsg, b.lockDigest, b.lockSig = &lm, lm.Digest(s.opener.id), p.LockSig
			}
		}
	}
	m[f.Voter] = b
	e.votesSeen++
}

// precommit records and broadcasts this signer's precommit in the event's
// round: of lock message m, or nil when m is nil. Never a second one.
func (s *State) precommit(e *EventState, m *LockMsg, env Env) {
	if e.precommits[e.Round][s.cfg.Self] != nil {
		return
	}
	p := Precommit{EventID: e.ID, Epoch: e.Epoch, Round: e.Round, Voter: s.cfg.Self, Nil: m == nil, TimestampNs: ns(env.Now)}
	if m != nil {
		p.Lock = *m
		p.LockSig = SignLock(s.cfg.Identity, s.opener.id, *m)
	}
	raw := s.seal(KindPrecommit, p.Encode())
	s.emit(PrecommitAccepted{EventID: e.ID, Epoch: e.Epoch, Round: e.Round, Voter: s.cfg.Self, Hash: p.Lock.TemplateHash,
		Nil: p.Nil, Own: true, Envelope: raw, AtNs: ns(env.Now)})
	s.broadcast(KindPrecommit, raw)
}

// maybePrecommit casts this signer's precommit of its current round once
// it can: on a polka of a lock message it can still sign (the template
// valid here, no outpoint held by another event), or nil once no polka
// can form in the round any more.
func (s *State) maybePrecommit(e *EventState, env Env) {
	if e.Phase != PhaseProposing || e.precommits[e.Round][s.cfg.Self] != nil || e.votes[e.Round][s.cfg.Self] == nil {
		return
	}
	if m, ok := e.polka(e.Round, s.quorum()); ok {
		kt := e.templates[m.TemplateHash]
		if kt == nil || !kt.valid || m.TemplateHash == e.unusable {
			return // not checked here (yet): the timeout precommits nil
		}
		if _, _, clash := conflict(m.Outpoints, s.heldByOthers(e.ID)); clash {
			s.observe(MetricOutpointLockConflicts, "", 1)
			s.precommit(e, nil, env)
			return
		}
		s.precommit(e, &m, env)
		return
	}
	if !e.polkaPossible(e.Round, len(s.members), s.quorum()) {
		s.precommit(e, nil, env)
	}
}

// named groups a round's prevotes by the template they name: how many,
// and the lock message at the lowest anchor among them (members whose
// nodes are a few blocks apart may anchor one template differently; the
// lowest is one that every node that accepted the others has passed).
// Prevotes of the members in skip are left out.
func (e *EventState) named(round uint32, skip map[PeerID]bool) (map[Hash]int, map[Hash]LockMsg) {
	counts := map[Hash]int{}
	msgs := map[Hash]LockMsg{}
	for id, b := range e.votes[round] {
		if b.none || b.lockMsg == nil || skip[id] {
			continue
		}
		h := b.lockMsg.TemplateHash
		counts[h]++
		if m, ok := msgs[h]; !ok || b.lockMsg.Anchor < m.Anchor {
			msgs[h] = *b.lockMsg
		}
	}
	return counts, msgs
}

// polka is the lock message of the template a quorum of round's prevotes
// name, if any (the lower hash among several, which one vote per member
// rules out), at the lowest anchor they name.
func (e *EventState) polka(round uint32, quorum int) (LockMsg, bool) {
	counts, msgs := e.named(round, nil)
	return lowestWith(counts, msgs, quorum)
}

// polkaPossible reports whether some template can still gather a quorum
// of round's prevotes: the most named plus the members unheard reach it.
func (e *EventState) polkaPossible(round uint32, n, quorum int) bool {
	counts, _ := e.named(round, nil)
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	return top+n-len(e.votes[round]) >= quorum
}

// certPossibleIn reports whether some lock message's precommits in round
// plus the members unheard reach quorum.
func (e *EventState) certPossibleIn(round uint32, n, quorum int) bool {
	counts := map[Hash]int{}
	top := 0
	for _, b := range e.precommits[round] {
		if !b.none {
			counts[b.lockDigest]++
			top = max(top, counts[b.lockDigest])
		}
	}
	return top+n-len(e.precommits[round]) >= quorum
}

// ownLock is this signer's lock: its latest non-nil precommit before
// round, unless its template can never be paid (dead constrains nothing).
func (s *State) ownLock(e *EventState, before uint32, dead func(Hash) bool) (uint32, *ballot, bool) {
	for r := int64(before) - 1; r >= 0; r-- {
		b := e.precommits[uint32(r)][s.cfg.Self]
		if b != nil && !b.none && b.lockMsg != nil && !dead(b.hash) {
			return uint32(r), b, true
		}
	}
	return 0, nil, false
}

// latestPolka is the polka of the latest round before `before` that this
// signer knows of, skipping dead templates: the valid value. A polka is
// known by its quorum of prevotes, or by the precommits of one template
// in the round from more members than can be Byzantine (f+1, fewer the
// members already proven to equivocate, whose precommits do not count):
// one of them is honest, and an honest member precommits only on a
// polka. So a member shown other prevotes by equivocators still learns
// what the rest are locked on.
func (s *State) latestPolka(e *EventState, before uint32, dead func(Hash) bool) (uint32, LockMsg, bool) {
	k := max(1, s.cfg.Group.Faults-len(s.equivocators)+1)
	for r := int64(before) - 1; r >= 0; r-- {
		if m, ok := e.polka(uint32(r), s.quorum()); ok && !dead(m.TemplateHash) {
			return uint32(r), m, true
		}
		if m, ok := e.precommitted(uint32(r), k, s.equivocators); ok && !dead(m.TemplateHash) {
			return uint32(r), m, true
		}
	}
	return 0, LockMsg{}, false
}

// precommitted is the lock message of the template at least k of round's
// precommits name, those of members in skip left out (the lower hash
// among several), at its lowest anchor.
func (e *EventState) precommitted(round uint32, k int, skip map[PeerID]bool) (LockMsg, bool) {
	counts := map[Hash]int{}
	msgs := map[Hash]LockMsg{}
	for id, b := range e.precommits[round] {
		if b.none || b.lockMsg == nil || skip[id] {
			continue
		}
		h := b.lockMsg.TemplateHash
		counts[h]++
		if m, ok := msgs[h]; !ok || b.lockMsg.Anchor < m.Anchor {
			msgs[h] = *b.lockMsg
		}
	}
	return lowestWith(counts, msgs, k)
}

// lowestWith is the lock message of the lowest hash counted at least k
// times (one vote per member leaves at most one in practice).
func lowestWith(counts map[Hash]int, msgs map[Hash]LockMsg, k int) (LockMsg, bool) {
	var best *Hash
	for h, n := range counts {
		if n >= k && (best == nil || h.Less(*best)) {
			hh := h
			best = &hh
		}
	}
	if best == nil {
		return LockMsg{}, false
	}
	return msgs[*best], true
}

// prevoteChoice is what a Profile B member may prevote in the event's
// round, besides a template of its own: its lock (unless a later polka
// for another lock message unlocks it), else the latest polka's, else
// the lock messages this round's prevotes named (the previous round's
// when it has none yet), most named first (ties: lower template hash).
// carried is false when it may build its own.
func (s *State) prevoteChoice(e *EventState, dead func(Hash) bool) (choices []LockMsg, carried bool) {
	lr, lock, locked := s.ownLock(e, e.Round, dead)
	pr, pm, polka := s.latestPolka(e, e.Round, dead)
	switch {
	case locked && (!polka || pr <= lr || pm.TemplateHash == lock.lockMsg.TemplateHash):
		return []LockMsg{*lock.lockMsg}, true
	case polka:
		return []LockMsg{pm}, true
	}
	// Unlocked and no polka: any template is safe to prevote; the one
	// most prevoted already (in this round, else the last) converges.
	// Members proven to equivocate are not counted: they would steer it.
	from := e.Round
	if len(e.votes[from]) == 0 && from > 0 {
		from--
	}
	counts, msgs := e.named(from, s.equivocators)
	for h, m := range msgs {
		if !dead(h) {
			choices = append(choices, m)
		}
	}
	slices.SortFunc(choices, func(a, b LockMsg) int {
		if c := counts[b.TemplateHash] - counts[a.TemplateHash]; c != 0 {
			return c
		}
		return compareHashes(a.TemplateHash, b.TemplateHash)
	})
	return choices, false
}

func compareHashes(a, b Hash) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// castPrevoteB is castVote's Profile B: the lock, the valid value or the
// previous round's most named template when it still revalidates here
// (anchored as its prevotes were, when that anchor still checks here),
// else a template of its own; a lock or valid value that does not
// revalidate is a no-vote, never another template.
func (s *State) castPrevoteB(e *EventState, view LedgerView, env Env) {
	choices, carried := s.prevoteChoice(e, s.deadFunc(e, view, env))
	for _, m := range choices {
		kt := e.templates[m.TemplateHash]
		ok := kt != nil && kt.valid && m.TemplateHash != e.unusable
		if ok {
			if err := Revalidate(kt.template, kt.txID, view, s.cfg.Params); err != nil {
				s.observe(MetricRevalidationFailures, "", 1)
				ok = false
			}
		}
		if ok && s.lockConflict(e, kt.template) {
			ok = false
		}
		if ok {
			s.proposeAt(e, kt.template, view, m.Anchor, env)
			return
		}
		if carried {
			s.castNoVoteIn(e, e.Round, ReasonRevalidationFailed, env)
			return
		}
	}
	s.buildAndPropose(e, view, env)
}

// maybeEndRound fails a Profile B round as soon as no certificate can
// form in it any more (this signer precommitted, and no template's
// precommits, with the members unheard and the f that may have shown
// others another precommit, reach a quorum), instead of waiting for its
// timeout: the next round starts after the retry delay.
func (s *State) maybeEndRound(e *EventState, env Env) {
	if e.Phase != PhaseProposing || e.precommits[e.Round][s.cfg.Self] == nil || e.Round+1 >= s.cfg.Params.MaxRounds() {
		return // the last round waits for its timeout: a certificate formed elsewhere may still come
	}
	if e.certPossibleIn(e.Round, len(s.members), s.quorum()-s.cfg.Group.Faults) {
		return
	}
	s.failRound(e, ReasonTimeoutNoQuorum, fmt.Sprintf("%d precommits of round %d, none can reach a quorum of %d",
		len(e.precommits[e.Round]), e.Round, s.quorum()), env)
}

// joinNextRound is Profile B's catch-up: a vote of the next round is
// kept, and once f+1 members (one of them honest) voted there while this
// signer's round is over here (failed, or its precommit cast), the
// signer starts that round now rather than after its retry delay, and
// takes the kept votes. Retry delays drift apart between members; a
// round they do not share cannot gather a polka. True when v was taken.
func (s *State) joinNextRound(e *EventState, v voteIn, en Env) bool {
	if !s.profileB() {
		return false
	}
	if e.ahead == nil {
		e.ahead = map[PeerID]voteIn{}
	}
	if _, ok := e.ahead[v.voter]; !ok && len(e.ahead) < len(s.members) {
		e.ahead[v.voter] = v
	}
	over := e.Phase == PhaseFailed || (e.Phase == PhaseProposing && e.precommits[e.Round][s.cfg.Self] != nil)
	if !over || len(e.ahead) <= s.cfg.Group.Faults {
		return false
	}
	kept := e.ahead
	s.startRound(e, e.Round+1, TriggerRoundSync, en)
	for _, id := range slices.Sorted(maps.Keys(kept)) {
		s.onVote(kept[id], false, en)
	}
	return true
}
