package simulate

import (
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// round-jump and reserve-spam: the Byzantine signer sends what its state
// sends, as it is, and after each envelope one message of its own making
// to each target, in the odd sequence number after it (see seal).

// spams reports whether b is one of the behaviours that add messages.
func spams(b Behaviour) bool { return b == BehaviourRoundJump || b == BehaviourReserveSpam }

// spamState is what the adding behaviours remember.
type spamState struct {
	n int // messages added, to alternate their kinds
	// last is the event (and epoch, round) of the latest vote its state
	// sent or asked about: the target of round-jump's votes.
	last    roundKey
	hasLast bool
	// reserveNext is the reserve stream's next nonce at its state;
	// reserveNonces the nonces of the reserve events its state knows.
	reserveNext   uint64
	reserveNonces map[twophase.Hash]uint64
	far           uint64 // far nonces used so far
}

func newSpamState() spamState {
	return spamState{reserveNext: twophase.FirstNonce, reserveNonces: map[twophase.Hash]uint64{}}
}

// observe follows its state's reserve stream.
func (s *spamState) observe(f twophase.Fact) {
	switch f := f.(type) {
	case twophase.EventRequested:
		if f.Event.IsReserve() {
			s.reserveNonces[f.ID] = f.Event.Nonce
		}
	case twophase.Completed:
		if n, ok := s.reserveNonces[f.EventID]; ok && n >= s.reserveNext {
			s.reserveNext = n + 1
		}
	}
}

// spamAfter adds one message to each target after env.
func (a *adversary) spamAfter(env twophase.Envelope, targets []twophase.PeerID) {
	a.noteLast(env)
	for _, to := range targets {
		var raw []byte
		if a.w.cfg.Behaviour == BehaviourRoundJump {
			raw = a.roundJump(env)
		} else {
			raw = a.reserveSpam(env)
		}
		if raw == nil {
			return
		}
		a.spam.n++
		a.send(to, raw)
	}
}

// noteLast remembers the event env is about.
func (a *adversary) noteLast(env twophase.Envelope) {
	prm := a.w.cfg.Params
	switch env.Kind {
	case twophase.KindProposal:
		if p, err := twophase.DecodeProposal(env.Payload, prm); err == nil && !p.Event.IsReserve() {
			a.spam.last, a.spam.hasLast = roundKey{p.EventID(), p.Epoch, p.Round}, true
		}
	case twophase.KindNoVote:
		if nv, err := twophase.DecodeNoVote(env.Payload); err == nil {
			a.spam.last, a.spam.hasLast = roundKey{nv.EventID, nv.Epoch, nv.Round}, true
		}
	}
}

// roundJump is a vote for the last round of the latest event (a copy of
// its state's proposal, lock-signed again, when env is one; else a
// no-vote), or, every other time, a sync answer nobody asked for that
// carries such a no-vote. Nothing when the event is near its last round
// already (a vote one round ahead is a legitimate hint).
func (a *adversary) roundJump(env twophase.Envelope) []byte {
	last := a.w.cfg.Params.MaxRounds() - 1
	k := a.spam.last
	if !a.spam.hasLast || k.round+1 >= last {
		return nil
	}
	a.w.byzantine.RoundJumps++
	far := roundKey{k.event, k.epoch, last}
	nv := twophase.NoVote{EventID: k.event, Epoch: k.epoch, Round: last, Voter: a.self, Reason: twophase.ReasonTimeoutNoQuorum,
		TimestampNs: a.w.sched.Now().UnixNano()}
	if a.spam.n%2 == 1 {
		vote := a.seal(env, twophase.KindNoVote, nv.Encode(), true)
		resp := twophase.SyncResponse{States: []twophase.SyncState{{EventID: k.event, Epoch: k.epoch, Phase: twophase.PhaseProposing,
			Round: last, Votes: [][]byte{vote}}}}
		return a.seal(env, twophase.KindSyncResponse, resp.Encode(), true)
	}
	if env.Kind == twophase.KindProposal {
		if p, err := twophase.DecodeProposal(env.Payload, a.w.cfg.Params); err == nil && p.EventID() == k.event {
			p.Round = last
			a.signLock(&p)
			a.w.check.sentVote(a.self, far, p.TemplateHash)
			return a.seal(env, twophase.KindProposal, p.Encode(), true)
		}
	}
	return a.seal(env, twophase.KindNoVote, nv.Encode(), true)
}

// reserveSpam is a proposal of a reserve split: for the reserve stream's
// next nonce (due or not), or, every other time, for a far nonce, each a
// new one.
func (a *adversary) reserveSpam(env twophase.Envelope) []byte {
	prm := a.w.cfg.Params
	if prm.ReserveOutputs == 0 {
		return nil
	}
	a.w.byzantine.ReserveSpam++
	n := a.spam.reserveNext
	if a.spam.n%2 == 1 {
		a.spam.far++
		n += 1 + a.spam.far
	}
	ev := twophase.ReserveEvent(n, prm)
	t := twophase.Template{Outputs: make([]twophase.TemplateOutput, prm.ReserveOutputs)}
	for i := range t.Outputs {
		t.Outputs[i] = twophase.TemplateOutput{Amount: 100_000, Script: a.w.group.ChangeScript}
	}
	enc := t.Encode()
	p := twophase.Proposal{Event: ev, Template: enc, TemplateHash: twophase.TemplateHash(enc), Proposer: a.self,
		TimestampNs: a.w.sched.Now().UnixNano(), Anchor: &twophase.Anchor{TipScore: 0}}
	return a.seal(env, twophase.KindProposal, p.Encode(), true)
}
