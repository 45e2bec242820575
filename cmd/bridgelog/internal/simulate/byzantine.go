package simulate

import (
	"context"
	"crypto/ed25519"
	"math/rand/v2"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Behaviour is what a Byzantine signer does to the messages its state
// sends.
type Behaviour string

const (
	// BehaviourEquivocate: each of its proposals goes as it is to one half
	// of its peers and as another valid template to the other half: the
	// first proposal it receives from that half that differs from its own
	// (it joins that camp), else one with other inputs or another change
	// split.
	BehaviourEquivocate Behaviour = "equivocate"
	// BehaviourWithhold: its votes, commits and sync answers of an event
	// never reach some or all of its peers.
	BehaviourWithhold Behaviour = "withhold"
	// BehaviourConflictingLocks (Profile B): two different lock messages
	// for one (event, round), and locks on outpoints that other events'
	// certificates hold. Profile A has no locks: it equivocates.
	BehaviourConflictingLocks Behaviour = "conflicting-locks"
	// BehaviourForgeEvidence: its commits carry forged evidence, and with
	// each proposal it claims a commit of another template or of a theft.
	BehaviourForgeEvidence Behaviour = "forge-evidence"
	// BehaviourRoundJump: besides what its state sends, signed votes for
	// the last round and sync answers nobody asked for, carrying them
	// (see spam.go).
	BehaviourRoundJump Behaviour = "round-jump"
	// BehaviourReserveSpam: besides what its state sends, reserve split
	// proposals for far nonces and for the next nonce whether a split is
	// due or not (see spam.go).
	BehaviourReserveSpam Behaviour = "reserve-spam"
	// BehaviourMixed: each Byzantine signer draws one of equivocate,
	// withhold, forge-evidence and (Profile B) conflicting-locks for each
	// event.
	BehaviourMixed Behaviour = "mixed"
)

// Behaviours lists every --byzantine-behaviour.
var Behaviours = []Behaviour{BehaviourEquivocate, BehaviourWithhold, BehaviourConflictingLocks, BehaviourForgeEvidence,
	BehaviourRoundJump, BehaviourReserveSpam, BehaviourMixed}

// adversary is a Byzantine signer's transport. The signer behind it is a
// real twophase.State with its own log and identity key: what it decides
// is honest, what its peers receive is rewritten here and sealed again
// with that key. Every envelope goes out with twice the sequence number
// its state gave it, so the odd numbers are free for messages the
// adversary adds (a receiver's replay window takes both).
type adversary struct {
	w      *world
	self   twophase.PeerID
	key    ed25519.PrivateKey
	group  twophase.Hash
	out    *simnet.Endpoint
	rng    *rand.Rand
	peers  []twophase.PeerID
	events map[twophase.Hash]*attack
	rounds map[roundKey]*equivocation
	// seen is a targeted peer's proposal that differs from everything
	// this signer sent in that round, received before its own proposal.
	seen map[roundKey]twophase.Proposal
	// reserved is what the certificates its state accepted hold:
	// outpoint -> event, until the event is done or its round fails.
	reserved map[twophase.Outpoint]twophase.Hash
	spam     spamState
}

type roundKey struct {
	event        twophase.Hash
	epoch, round uint32
}

// attack is what one Byzantine signer does to one event.
type attack struct {
	behaviour Behaviour
	// targets: the half that gets the other template (equivocate), the
	// peers it withholds from (withhold).
	targets map[twophase.PeerID]bool
	forgery forgery
}

// equivocation is one round's pair of proposals.
type equivocation struct {
	real    twophase.Proposal
	env     twophase.Envelope // the state's latest envelope of it: session and sequence
	other   *twophase.Proposal
	differs bool              // false when no other proposal could be made: the real one goes instead
	waiting []twophase.PeerID // targets still without a vote
}

func newAdversary(w *world, n *node) *adversary {
	a := &adversary{w: w, self: n.id, key: w.sim.Identity[n.id], group: w.group.ID(), out: w.bus.Endpoint(n.id), rng: w.advRNG,
		events: map[twophase.Hash]*attack{}, rounds: map[roundKey]*equivocation{}, seen: map[roundKey]twophase.Proposal{},
		reserved: map[twophase.Outpoint]twophase.Hash{}, spam: newSpamState()}
	for _, id := range w.ids {
		if id != n.id {
			a.peers = append(a.peers, id)
		}
	}
	return a
}

// attack is the event's plan, drawn the first time the event comes up.
func (a *adversary) attack(id twophase.Hash) *attack {
	if at, ok := a.events[id]; ok {
		return at
	}
	b := a.w.cfg.Behaviour
	if b == BehaviourMixed {
		choices := []Behaviour{BehaviourEquivocate, BehaviourWithhold, BehaviourForgeEvidence}
		if a.w.cfg.Profile == twophase.ProfileB {
			choices = append(choices, BehaviourConflictingLocks)
		}
		b = choices[a.rng.IntN(len(choices))]
	}
	if b == BehaviourConflictingLocks && a.w.cfg.Profile != twophase.ProfileB {
		b = BehaviourEquivocate
	}
	at := &attack{behaviour: b, targets: map[twophase.PeerID]bool{}}
	peers := append([]twophase.PeerID(nil), a.peers...)
	a.rng.Shuffle(len(peers), func(i, j int) { peers[i], peers[j] = peers[j], peers[i] })
	k := max(1, len(peers)/2)
	switch b {
	case BehaviourWithhold:
		k = 1 + a.rng.IntN(len(peers)) // some or all
	case BehaviourForgeEvidence:
		at.forgery = a.drawForgery()
	}
	for _, id := range peers[:k] {
		at.targets[id] = !spams(b) // a spammer sends its state's messages as they are
	}
	a.events[id] = at
	return at
}

// Send takes every envelope the state sends (to one member, or to all
// others when to is empty) and hands the bus what the event's attack
// makes of it.
func (a *adversary) Send(ctx context.Context, to twophase.PeerID, raw []byte) error {
	env, err := a.w.check.opener.Open(raw)
	if err != nil {
		return a.out.Send(ctx, to, raw) // not its own envelope: nothing to rewrite
	}
	targets := a.peers
	if to != "" {
		targets = []twophase.PeerID{to}
	}
	if spams(a.w.cfg.Behaviour) {
		defer a.spamAfter(env, targets)
	}
	same := a.seal(env, env.Kind, env.Payload, false) // what its state sent, at this signer's sequence number
	switch env.Kind {
	case twophase.KindProposal:
		if p, err := twophase.DecodeProposal(env.Payload, a.w.cfg.Params); err == nil {
			a.proposal(env, same, p, targets)
			return nil
		}
	case twophase.KindNoVote:
		if nv, err := twophase.DecodeNoVote(env.Payload); err == nil {
			a.sendUnlessWithheld(same, a.attack(nv.EventID), targets)
			return nil
		}
	case twophase.KindPrecommit:
		if pc, err := twophase.DecodePrecommit(env.Payload, a.w.cfg.Params.MaxUTXOsPerProposal); err == nil {
			a.precommit(env, same, pc, targets)
			return nil
		}
	case twophase.KindCommit:
		if c, err := twophase.DecodeCommit(env.Payload); err == nil {
			a.commit(env, same, c, targets)
			return nil
		}
	case twophase.KindSyncResponse:
		if resp, err := twophase.DecodeSyncResponse(env.Payload); err == nil {
			for _, id := range targets {
				if payload, ok := a.syncResponse(resp, id); ok {
					a.send(id, a.seal(env, twophase.KindSyncResponse, payload, false))
				}
			}
			return nil
		}
	}
	for _, id := range targets {
		a.send(id, same)
	}
	return nil
}

// seal signs a message as this signer in env's session: at twice env's
// sequence number, or the odd number after it for an added message.
func (a *adversary) seal(env twophase.Envelope, kind twophase.Kind, payload []byte, added bool) []byte {
	e := twophase.Envelope{Version: env.Version, Group: env.Group, Sender: a.self, Session: env.Session, Seq: 2 * env.Seq,
		Kind: kind, Payload: payload}
	if added {
		e.Seq++
	}
	return twophase.Seal(a.key, &e)
}

func (a *adversary) send(to twophase.PeerID, raw []byte) {
	_ = a.out.Send(context.Background(), to, raw)
}

// vote sends a proposal and tells the checker which hash to hold this
// signer's vote to at that peer.
func (a *adversary) vote(to twophase.PeerID, k roundKey, hash twophase.Hash, raw []byte) {
	a.w.check.sentVote(a.self, k, hash)
	a.send(to, raw)
}

func (a *adversary) sendUnlessWithheld(raw []byte, at *attack, targets []twophase.PeerID) {
	for _, id := range targets {
		if at.behaviour == BehaviourWithhold && at.targets[id] {
			a.w.byzantine.Withheld++
			continue
		}
		a.send(id, raw)
	}
}

// proposal sends one of the state's proposals (raw, sealed again) as the
// event's attack says.
func (a *adversary) proposal(env twophase.Envelope, raw []byte, p twophase.Proposal, targets []twophase.PeerID) {
	k := roundKey{p.EventID(), p.Epoch, p.Round}
	at := a.attack(k.event)
	switch at.behaviour {
	case BehaviourEquivocate, BehaviourConflictingLocks:
		eq := a.equivocation(k, env, p, at)
		for _, id := range targets {
			switch {
			case !at.targets[id]:
				a.vote(id, k, p.TemplateHash, raw)
			case eq.other != nil:
				a.otherVote(id, k, eq)
			default:
				eq.waiting = append(eq.waiting, id)
			}
		}
	case BehaviourWithhold:
		for _, id := range targets {
			if at.targets[id] {
				a.w.byzantine.Withheld++
				continue
			}
			a.vote(id, k, p.TemplateHash, raw)
		}
	default:
		for _, id := range targets {
			a.vote(id, k, p.TemplateHash, raw)
		}
		if at.behaviour == BehaviourForgeEvidence {
			a.forgeCommit(env, p, at)
		}
	}
}

// precommit sends one of the state's Profile B precommits (raw) as the
// event's attack says: withheld from the targets, or, when it equivocates
// and its round's other proposal differs, a precommit of that proposal's
// lock message to the targets.
func (a *adversary) precommit(env twophase.Envelope, raw []byte, pc twophase.Precommit, targets []twophase.PeerID) {
	k := roundKey{pc.EventID, pc.Epoch, pc.Round}
	at := a.attack(k.event)
	other, otherHash := a.otherPrecommit(env, k, pc, at)
	for _, id := range targets {
		switch {
		case at.behaviour == BehaviourWithhold && at.targets[id]:
			a.w.byzantine.Withheld++
		case other != nil && at.targets[id]:
			a.w.byzantine.Equivocated++
			a.w.check.sentPrecommit(a.self, k, otherHash)
			a.send(id, other)
		default:
			if !pc.Nil {
				a.w.check.sentPrecommit(a.self, k, pc.Lock.TemplateHash)
			}
			a.send(id, raw)
		}
	}
}

// otherPrecommit is a precommit of round k's other proposal's lock
// message, when this signer equivocates in k with a differing one.
func (a *adversary) otherPrecommit(env twophase.Envelope, k roundKey, pc twophase.Precommit, at *attack) ([]byte, twophase.Hash) {
	if at.behaviour != BehaviourEquivocate && at.behaviour != BehaviourConflictingLocks {
		return nil, twophase.Hash{}
	}
	eq, ok := a.rounds[k]
	if !ok || eq.other == nil || !eq.differs || (!pc.Nil && pc.Lock.TemplateHash == eq.other.TemplateHash) {
		return nil, twophase.Hash{}
	}
	t, err := a.decode(*eq.other)
	if err != nil {
		return nil, twophase.Hash{}
	}
	q := pc
	q.Nil, q.Lock = false, twophase.LockMsgOf(*eq.other, t)
	q.LockSig = twophase.SignLock(a.key, a.group, q.Lock)
	return a.seal(env, twophase.KindPrecommit, q.Encode(), false), q.Lock.TemplateHash
}

// equivocation is round k's pair, made at the state's first proposal in
// it: the other proposal is a targeted peer's that differs, when one came
// already; else the targets wait for one until half the proposal timeout,
// then get one of this signer's own making.
func (a *adversary) equivocation(k roundKey, env twophase.Envelope, p twophase.Proposal, at *attack) *equivocation {
	if eq, ok := a.rounds[k]; ok {
		eq.env = env // restarted: its state sends the same vote again, in a new session
		return eq
	}
	eq := &equivocation{real: p, env: env}
	a.rounds[k] = eq
	if at.behaviour == BehaviourConflictingLocks {
		if q, ok := a.conflictingLock(p); ok {
			a.choose(eq, q)
			return eq
		}
	}
	if q, ok := a.seen[k]; ok && q.TemplateHash != p.TemplateHash {
		a.choose(eq, q)
		return eq
	}
	a.w.sched.After(a.w.cfg.Params.ProposalTimeoutFor(k.round)/2, func() {
		if eq.other == nil {
			if q, ok := a.otherProposal(eq.real); ok {
				a.choose(eq, q)
			} else {
				eq.other = &eq.real
			}
		}
		a.flush(k, eq)
	})
	return eq
}

// choose makes q's template this signer's other proposal of the round.
func (a *adversary) choose(eq *equivocation, q twophase.Proposal) {
	p := eq.real
	p.TemplateHash, p.Template, p.Inputs, p.Anchor = q.TemplateHash, q.Template, q.Inputs, q.Anchor
	a.signLock(&p)
	eq.other, eq.differs = &p, true
}

// otherRaw is the round's other proposal, sealed in the state's latest
// session.
func (a *adversary) otherRaw(eq *equivocation) []byte {
	return a.seal(eq.env, twophase.KindProposal, eq.other.Encode(), false)
}

func (a *adversary) flush(k roundKey, eq *equivocation) {
	for _, id := range eq.waiting {
		a.otherVote(id, k, eq)
	}
	eq.waiting = nil
}

func (a *adversary) otherVote(to twophase.PeerID, k roundKey, eq *equivocation) {
	if eq.differs {
		a.w.byzantine.Equivocated++
	}
	a.vote(to, k, eq.other.TemplateHash, a.otherRaw(eq))
}

// received sees every envelope delivered to this signer: a targeted
// peer's proposal that differs from its own becomes its other proposal.
func (a *adversary) received(env twophase.Envelope) {
	if env.Kind != twophase.KindProposal || env.Sender == a.self {
		return
	}
	p, err := twophase.DecodeProposal(env.Payload, a.w.cfg.Params)
	if err != nil {
		return
	}
	k := roundKey{p.EventID(), p.Epoch, p.Round}
	at := a.attack(k.event)
	if (at.behaviour != BehaviourEquivocate && at.behaviour != BehaviourConflictingLocks) || !at.targets[env.Sender] {
		return
	}
	eq, ok := a.rounds[k]
	switch {
	case !ok:
		if _, first := a.seen[k]; !first {
			a.seen[k] = p
		}
	case eq.other == nil && p.TemplateHash != eq.real.TemplateHash:
		a.choose(eq, p)
		a.flush(k, eq)
	}
}

// commit sends one of the state's commits (raw, sealed again): with
// forged evidence under forge-evidence, not at all to the peers it
// withholds from or (when it equivocates) to the half it told another
// template.
func (a *adversary) commit(env twophase.Envelope, raw []byte, c twophase.Commit, targets []twophase.PeerID) {
	at := a.attack(c.EventID)
	forged := false
	if at.behaviour == BehaviourForgeEvidence {
		if evidence, ok := a.forgeEvidence(c, at.forgery, env); ok {
			c.Evidence, forged = evidence, true
			raw = a.seal(env, env.Kind, c.Encode(), false)
		}
	}
	for _, id := range targets {
		switch {
		case forged:
			a.w.byzantine.ForgedCommit++
		case at.behaviour != BehaviourForgeEvidence && at.targets[id]:
			a.w.byzantine.Withheld++
			continue
		}
		a.send(id, raw)
	}
}

// syncResponse is what peer to gets of one of the state's sync answers:
// nothing of an event withheld from it, and in an event where it was told
// another template, that proposal in place of the state's own.
func (a *adversary) syncResponse(resp twophase.SyncResponse, to twophase.PeerID) ([]byte, bool) {
	var out twophase.SyncResponse
	for _, st := range resp.States {
		at := a.attack(st.EventID)
		if !at.targets[to] {
			out.States = append(out.States, st)
			continue
		}
		switch at.behaviour {
		case BehaviourWithhold:
			a.w.byzantine.Withheld++
			continue
		case BehaviourEquivocate, BehaviourConflictingLocks:
			st.Votes = a.ownVotesFor(st, to)
			st.Evidence, st.Signatures = nil, nil
		}
		out.States = append(out.States, st)
	}
	if len(out.States) == 0 {
		return nil, false
	}
	return out.Encode(), true
}

// ownVotesFor replaces this signer's own proposals among relayed votes
// by the other proposal of their round (dropped while it is not chosen).
func (a *adversary) ownVotesFor(st twophase.SyncState, to twophase.PeerID) [][]byte {
	var votes [][]byte
	for _, raw := range st.Votes {
		env, err := a.w.check.opener.Open(raw)
		if err != nil || env.Sender != a.self || env.Kind != twophase.KindProposal {
			votes = append(votes, raw)
			continue
		}
		p, err := twophase.DecodeProposal(env.Payload, a.w.cfg.Params)
		if err != nil {
			continue
		}
		k := roundKey{p.EventID(), p.Epoch, p.Round}
		if eq := a.rounds[k]; eq != nil && eq.other != nil {
			a.w.check.sentVote(a.self, k, eq.other.TemplateHash)
			votes = append(votes, a.otherRaw(eq))
		}
	}
	return votes
}

// observe follows the facts of this signer's own state: the outpoints
// its accepted certificates reserve.
func (a *adversary) observe(facts []twophase.Fact) {
	for _, f := range facts {
		a.spam.observe(f)
		switch f := f.(type) {
		case twophase.LockCertAccepted:
			for _, op := range f.Outpoints {
				a.reserved[op] = f.EventID
			}
		case twophase.Completed:
			a.release(f.EventID)
		case twophase.Abandoned:
			a.release(f.EventID)
		case twophase.RoundFailed:
			a.release(f.EventID)
		}
	}
}

func (a *adversary) release(id twophase.Hash) {
	for op, ev := range a.reserved {
		if ev == id {
			delete(a.reserved, op)
		}
	}
}
