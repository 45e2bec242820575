package simulate

import (
	"context"
	"errors"
	"slices"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// forgery is the evidence a forge-evidence signer makes up for a commit.
type forgery int

const (
	// forgeDuplicated: its own proposal, as many times as a quorum.
	forgeDuplicated forgery = iota
	// forgeClaimed: its own proposal, re-signed under its key naming
	// other members as the proposers.
	forgeClaimed
	// forgeImpersonated: the same, in envelopes that claim those members
	// as senders (signed with its own key).
	forgeImpersonated
	// Profile B's evidence is a lock certificate and a proposal.
	// forgeCertDuplicated: its own lock signature, as many times as a
	// quorum.
	forgeCertDuplicated
	// forgeCertSelfMade: its own lock signature, and signatures it made
	// with its own key under other members' names.
	forgeCertSelfMade
	// forgeCertShort: its own lock signature alone.
	forgeCertShort
)

// drawForgery draws one of the profile's forgeries.
func (a *adversary) drawForgery() forgery {
	if a.w.cfg.Profile == twophase.ProfileB {
		return forgeCertDuplicated + forgery(a.rng.IntN(3))
	}
	return forgeDuplicated + forgery(a.rng.IntN(3))
}

var errNoAlternative = errors.New("simulate: no other template to propose")

// simPolicy is every simulated signer's policy.
// --unpayable names its denied destination, or an amount over its limit
// (ten times the largest event's).
var simPolicy = twophase.Policy{MinChange: 10_000, MaxAmount: 10_000_000, DeniedDestinations: []string{deniedDestination}}

// decode is p's template.
func (a *adversary) decode(p twophase.Proposal) (twophase.Template, error) {
	prm := a.w.cfg.Params
	return twophase.DecodeTemplate(p.Template, prm.MaxUTXOsPerProposal, prm.MaxOutputsPerProposal)
}

// withTemplate is q proposing t: its encoding, its hash and (Profile B)
// its lock signature.
func (a *adversary) withTemplate(q twophase.Proposal, t twophase.Template) twophase.Proposal {
	q.Template = t.Encode()
	q.TemplateHash = twophase.TemplateHash(q.Template)
	a.signLock(&q)
	return q
}

// otherProposal is p with another valid template for the same event:
// other inputs from this signer's view, or, when none cover the amount,
// the same inputs with the change split in two.
func (a *adversary) otherProposal(p twophase.Proposal) (twophase.Proposal, bool) {
	prm := a.w.cfg.Params
	t, err := a.decode(p)
	if err != nil {
		return p, false
	}
	view, err := a.w.nodes[a.self].ledger.View(context.Background())
	if err != nil {
		return p, false
	}
	if p.Anchor != nil && a.w.cfg.Profile == twophase.ProfileB {
		view.VirtualDAAScore = min(view.VirtualDAAScore, p.Anchor.TipScore) // inputs deep at the anchor, as receivers check
	}
	exclude := map[twophase.Outpoint]bool{}
	for _, op := range t.Outpoints() {
		exclude[op] = true
	}
	q := p
	alt, _, _, err := twophase.BuildTemplate(twophase.BuildRequest{Event: p.Event, Group: a.w.group, Params: prm, Policy: simPolicy,
		Rules: simledgerRules, Exclude: exclude}, view)
	if err == nil {
		q.Inputs = nil
		for _, in := range alt.Inputs {
			u, _ := view.Lookup(in.Outpoint)
			q.Inputs = append(q.Inputs, twophase.InputMeta{DAAScore: u.DAAScore, Coinbase: u.Coinbase})
		}
	} else if alt, err = a.splitChange(t); err != nil {
		return p, false
	}
	q = a.withTemplate(q, alt)
	v := twophase.Validator{Group: a.w.group, Params: prm, Policy: simPolicy, Rules: simledgerRules}
	if _, err := v.Validate(q, a.self); err != nil {
		return p, false
	}
	return q, true
}

// splitChange returns t with its change in two outputs, the fee paying
// for the extra output.
func (a *adversary) splitChange(t twophase.Template) (twophase.Template, error) {
	c := -1
	for i, o := range t.Outputs {
		if o.Script.Equal(a.w.group.ChangeScript) {
			c = i
		}
	}
	fee, err := t.Fee()
	if c < 0 || err != nil {
		return t, errNoAlternative
	}
	out := append([]twophase.TemplateOutput(nil), t.Outputs...)
	out = append(out, out[c])
	t.Outputs = out
	mass, err := simledgerRules.Mass(t)
	if err != nil {
		return t, err
	}
	change := out[c].Amount + fee
	if newFee := mass * a.w.cfg.Params.FeeRate; change >= newFee+2*simPolicy.MinChange {
		change -= newFee
		out[c].Amount, out[len(out)-1].Amount = change/2, change-change/2
		return t, nil
	}
	return t, errNoAlternative
}

// theft is q paying the event's amount to this signer instead.
func (a *adversary) theft(q twophase.Proposal) twophase.Proposal {
	t, err := a.decode(q)
	if err != nil {
		return q
	}
	thief, _ := simledgerRules.ScriptFor("sim:thief-" + string(a.self))
	for i, o := range t.Outputs {
		if !o.Script.Equal(a.w.group.ChangeScript) {
			t.Outputs[i].Script = thief
		}
	}
	return a.withTemplate(q, t)
}

// forgeCommit claims, beside the state's proposal p, a commit of another
// template of the round (half the time a theft) on forged evidence.
func (a *adversary) forgeCommit(env twophase.Envelope, p twophase.Proposal, at *attack) {
	q, ok := a.otherProposal(p)
	if !ok {
		return
	}
	if a.rng.IntN(2) == 0 {
		q = a.theft(q)
	}
	c := twophase.Commit{EventID: q.EventID(), Epoch: q.Epoch, Round: q.Round, TemplateHash: q.TemplateHash,
		Evidence: a.forge(q, at.forgery, env)}
	raw := a.seal(env, twophase.KindCommit, c.Encode(), true)
	for _, id := range a.peers {
		a.w.byzantine.ForgedCommit++
		a.send(id, raw)
	}
}

// forgeEvidence replaces the evidence of one of the state's commits by a
// forgery made of this signer's own proposal of that template.
func (a *adversary) forgeEvidence(c twophase.Commit, f forgery, env twophase.Envelope) ([][]byte, bool) {
	for _, raw := range c.Evidence {
		e, err := a.w.check.opener.Open(raw)
		if err != nil || e.Kind != twophase.KindProposal {
			continue
		}
		p, err := twophase.DecodeProposal(e.Payload, a.w.cfg.Params)
		if err != nil {
			continue
		}
		p.Proposer = a.self
		a.signLock(&p)
		return a.forge(p, f, env), true
	}
	return nil, false
}

// forge makes up a quorum's evidence for q, a proposal of this signer.
func (a *adversary) forge(q twophase.Proposal, f forgery, env twophase.Envelope) [][]byte {
	quorum := a.w.group.Quorum
	own := a.sealProposal(a.self, env, q)
	if f >= forgeCertDuplicated {
		return [][]byte{a.forgeCert(q, f).Encode(), own}
	}
	evidence := [][]byte{own}
	for i := 0; len(evidence) < quorum; i++ {
		switch f {
		case forgeDuplicated:
			evidence = append(evidence, own)
		default:
			r := q
			r.Proposer = a.peers[i%len(a.peers)]
			sender := a.self
			if f == forgeImpersonated {
				sender = r.Proposer
			}
			evidence = append(evidence, a.sealProposal(sender, env, r))
		}
	}
	return evidence
}

// sealProposal signs p with this signer's key in an envelope that claims
// sender.
func (a *adversary) sealProposal(sender twophase.PeerID, env twophase.Envelope, p twophase.Proposal) []byte {
	e := twophase.Envelope{Version: env.Version, Group: env.Group, Sender: sender, Session: env.Session, Seq: 2 * env.Seq,
		Kind: twophase.KindProposal, Payload: p.Encode()}
	return twophase.Seal(a.key, &e)
}

// forgeCert is a lock certificate of q's lock message that only this
// signer signed.
func (a *adversary) forgeCert(q twophase.Proposal, f forgery) twophase.LockCert {
	t, _ := a.decode(q)
	m := twophase.LockMsgOf(q, t)
	sig := twophase.SignLock(a.key, a.group, m)
	c := twophase.LockCert{Msg: m, Sigs: []twophase.LockSignature{{Signer: a.self, Signature: sig}}}
	for i := 0; f != forgeCertShort && len(c.Sigs) < a.w.group.Quorum; i++ {
		signer := a.self
		if f == forgeCertSelfMade {
			signer = a.peers[i%len(a.peers)]
		}
		c.Sigs = append(c.Sigs, twophase.LockSignature{Signer: signer, Signature: sig})
	}
	return c
}

// signLock signs p's prevote of its lock message (Profile B): a Byzantine signer holds
// its identity key, so what it makes up carries valid lock signatures.
func (a *adversary) signLock(p *twophase.Proposal) {
	if a.w.cfg.Profile != twophase.ProfileB {
		return
	}
	t, err := a.decode(*p)
	if err != nil {
		return
	}
	p.LockSig = twophase.SignPrevote(a.key, a.group, twophase.LockMsgOf(*p, t))
}

// conflictingLock is a second lock message for p's round (Profile B):
// p's template also spending an outpoint another event's certificate
// reserves, when this signer knows one deep enough at p's anchor; else p
// anchored one step earlier.
func (a *adversary) conflictingLock(p twophase.Proposal) (twophase.Proposal, bool) {
	prm := a.w.cfg.Params
	if p.Anchor == nil {
		return p, false
	}
	if q, ok := a.spendReserved(p); ok {
		return q, true
	}
	if p.Anchor.TipScore < prm.AnchorStep {
		return p, false
	}
	q := p
	q.Anchor = &twophase.Anchor{TipScore: p.Anchor.TipScore - prm.AnchorStep}
	a.signLock(&q)
	return q, true
}

// spendReserved is p with one more input: an outpoint another event's
// certificate reserves, its amount going to the change.
func (a *adversary) spendReserved(p twophase.Proposal) (twophase.Proposal, bool) {
	prm := a.w.cfg.Params
	t, err := a.decode(p)
	if err != nil {
		return p, false
	}
	view, err := a.w.nodes[a.self].ledger.View(context.Background())
	if err != nil {
		return p, false
	}
	ops := make([]twophase.Outpoint, 0, len(a.reserved))
	for op, ev := range a.reserved {
		if ev != p.EventID() {
			ops = append(ops, op)
		}
	}
	slices.SortFunc(ops, twophase.Outpoint.Compare)
	for _, op := range ops {
		u, ok := view.Lookup(op)
		if !ok || u.DAAScore+prm.MinInputDepth > p.Anchor.TipScore {
			continue
		}
		q, ok := a.withInput(p, t, u)
		if ok {
			return q, true
		}
	}
	return p, false
}

// withInput adds u to p's template t, the change taking its amount less
// the fee of the extra input.
func (a *adversary) withInput(p twophase.Proposal, t twophase.Template, u twophase.UTXO) (twophase.Proposal, bool) {
	before, _ := simledgerRules.Mass(t)
	t.Inputs = append(slices.Clone(t.Inputs), simledgerRules.Input(u))
	t.Outputs = slices.Clone(t.Outputs)
	after, err := simledgerRules.Mass(t)
	if err != nil {
		return p, false
	}
	extra := (after - before) * a.w.cfg.Params.FeeRate
	for i, o := range t.Outputs {
		if o.Script.Equal(a.w.group.ChangeScript) && u.Amount > extra {
			t.Outputs[i].Amount += u.Amount - extra
			q := p
			q.Inputs = append(slices.Clone(p.Inputs), twophase.InputMeta{DAAScore: u.DAAScore, Coinbase: u.Coinbase})
			return a.withTemplate(q, t), true
		}
	}
	return p, false
}
