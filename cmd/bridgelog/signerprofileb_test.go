package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// The Profile B signer process tests: a 3-of-4 group tolerating one
// Byzantine member (f = 1) on kaspad simnet, s4's keys in an attacker's
// hands (lockRogue), s1-s3 honest signer processes, withdrawals of
// several senders (one stream each) paid at once.
var honestB = []string{"s1", "s2", "s3"}

// newProfileBCluster starts the group, s4 as the rogue, with senders
// burning users and fund deep group outputs, and waits until enough of
// them are deep at an anchor for every sender's first event.
func newProfileBCluster(t *testing.T, senders, fund int) (*signerCluster, *lockRogue) {
	t.Helper()
	c := newSignerCluster(t, clusterOptions{members: 4, quorum: 3, profile: twophase.ProfileB, faults: 1, senders: senders,
		fund: fund, skip: []string{"s4"}})
	r := newLockRogue(t, c, "s4")
	c.waitFundsDeep(senders)
	return c, r
}

// roundKey names one round of one event.
type roundKey struct {
	event twophase.Hash
	epoch uint32
	round uint32
}

// lockRogue is a Byzantine member of a Profile B group. For each round
// of an event, the first honest member whose plan it hears gets the
// same plan under the rogue's lock signature (a vote for it); every
// other honest member, once its own plan is heard (so that it knows the
// event), gets a second plan of the rogue's for the same round, lock
// signed too: equivocation. The second plan spends, instead of the
// first input, another group output deep at the anchor that no honest
// plan named; or, once the rogue is set to conflict, an outpoint of the
// latest other event's honest plan (one that event's locks, and soon its
// certificate, hold).
type lockRogue struct {
	*rogueSigner
	ledger      *kaspanode.Client
	conflicting atomic.Bool

	mu   sync.Mutex
	sent map[roundKey]map[twophase.PeerID]twophase.Hash // the rogue's vote for each member
	// conflicts: for each event, the members sent a second plan on an
	// outpoint of another event's plan, and that event.
	conflicts map[twophase.Hash]map[twophase.PeerID]twophase.Hash
	inputs    map[twophase.Outpoint]heardInput // what honest plans said of their inputs
	plans     []eventPlan                      // honest plans heard, latest last
	// locked hears of every honest member's lock (its plan) as it is
	// sent: a kill then lands mid-lock.
	locked chan heardLock
}

type heardInput struct {
	input twophase.TemplateInput
	meta  twophase.InputMeta
}

type eventPlan struct {
	event     twophase.Hash
	outpoints []twophase.Outpoint
}

type heardLock struct {
	member twophase.PeerID
	round  roundKey
}

func newLockRogue(t *testing.T, c *signerCluster, id string) *lockRogue {
	t.Helper()
	r := &lockRogue{rogueSigner: startRogueSigner(t, c, id), ledger: c.groupLedger(),
		sent:      map[roundKey]map[twophase.PeerID]twophase.Hash{},
		conflicts: map[twophase.Hash]map[twophase.PeerID]twophase.Hash{}, inputs: map[twophase.Outpoint]heardInput{},
		locked: make(chan heardLock, 256)}
	r.behave(r.act)
	return r
}

// act answers an honest member's plan with the rogue's vote for it.
func (r *lockRogue) act(env twophase.Envelope) {
	if env.Kind != twophase.KindProposal {
		return
	}
	p, err := twophase.DecodeProposal(env.Payload, r.cfg.Params)
	if err != nil || p.Proposer != env.Sender || len(p.LockSig) == 0 || p.Anchor == nil {
		return
	}
	tm, err := twophase.DecodeTemplate(p.Template, r.cfg.Params.MaxUTXOsPerProposal, r.cfg.Params.MaxOutputsPerProposal)
	if err != nil {
		return
	}
	k := roundKey{p.EventID(), p.Epoch, p.Round}
	select {
	case r.locked <- heardLock{member: p.Proposer, round: k}:
	default:
	}
	r.mu.Lock()
	for i, in := range tm.Inputs {
		r.inputs[in.Outpoint] = heardInput{input: in, meta: p.Inputs[i]}
	}
	r.plans = append(r.plans, eventPlan{event: k.event, outpoints: tm.Outpoints()})
	if r.sent[k] == nil {
		r.sent[k] = map[twophase.PeerID]twophase.Hash{}
	}
	first := len(r.sent[k]) == 0
	if _, done := r.sent[k][p.Proposer]; done {
		r.mu.Unlock()
		return
	}
	vote, conflictWith := p, twophase.Hash{}
	if !first {
		vote, conflictWith = r.secondPlan(p, tm)
	}
	r.sent[k][p.Proposer] = vote.TemplateHash
	r.mu.Unlock()

	if vote.TemplateHash == p.TemplateHash {
		vote.LockSig = twophase.SignPrevote(r.cfg.Identity, r.opener.GroupID(), twophase.LockMsgOf(vote, tm))
	}
	vote.Proposer = r.id
	_ = r.mesh.Send(context.Background(), p.Proposer, r.seal(twophase.KindProposal, vote.Encode()))
	if conflictWith != (twophase.Hash{}) {
		r.mu.Lock()
		if r.conflicts[k.event] == nil {
			r.conflicts[k.event] = map[twophase.PeerID]twophase.Hash{}
		}
		r.conflicts[k.event][p.Proposer] = conflictWith
		r.mu.Unlock()
	}
}

// secondPlan is p on another first input, as the rogue's, lock signed,
// and the event whose plan that input came from (zero: a free output).
// Without another input to take, it is p (r.mu held).
func (r *lockRogue) secondPlan(p twophase.Proposal, tm twophase.Template) (twophase.Proposal, twophase.Hash) {
	own := tm.Outpoints()
	tm.Inputs, tm.Outputs = slices.Clone(tm.Inputs), slices.Clone(tm.Outputs)
	var swap heardInput
	var from twophase.Hash
	for i := len(r.plans) - 1; i >= 0 && from == (twophase.Hash{}) && r.conflicting.Load(); i-- {
		if r.plans[i].event == p.EventID() {
			continue
		}
		for _, o := range r.plans[i].outpoints {
			if !slices.Contains(own, o) {
				swap, from = r.inputs[o], r.plans[i].event
				break
			}
		}
	}
	if from == (twophase.Hash{}) {
		var ok bool
		if swap, ok = r.freeInput(p); !ok {
			return p, twophase.Hash{}
		}
	}
	tm.Inputs[0] = swap.input
	if !r.refee(&tm) {
		return p, twophase.Hash{}
	}
	q := p
	q.Inputs = slices.Clone(p.Inputs)
	q.Inputs[0] = swap.meta
	q.Template = tm.Encode()
	q.TemplateHash = twophase.TemplateHash(q.Template)
	q.Proposer = r.id
	q.LockSig = twophase.SignPrevote(r.cfg.Identity, r.opener.GroupID(), twophase.LockMsgOf(q, tm))
	return q, from
}

// refee sets the change of tm so that its fee is its mass at the
// group's fee rate, as the members build theirs: Kaspa's storage mass
// moves with the amounts. False when it finds no such change.
func (r *lockRogue) refee(tm *twophase.Template) bool {
	change := slices.IndexFunc(tm.Outputs, func(o twophase.TemplateOutput) bool { return o.Script.Equal(r.cfg.Group.ChangeScript) })
	if change < 0 {
		return false
	}
	var in, out uint64
	for _, i := range tm.Inputs {
		in += i.Amount
	}
	for i, o := range tm.Outputs {
		if i != change {
			out += o.Amount
		}
	}
	for step := 0; step < 8; step++ {
		mass, err := r.cfg.Rules.Mass(*tm)
		fee := mass * r.cfg.Params.FeeRate
		if err != nil || in < out+fee+1 {
			return false
		}
		if tm.Outputs[change].Amount == in-out-fee {
			return true
		}
		tm.Outputs[change].Amount = in - out - fee
	}
	return false
}

// freeInput is a group output on the node that no honest plan heard
// names, deep at p's anchor (r.mu held).
func (r *lockRogue) freeInput(p twophase.Proposal) (heardInput, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := r.ledger.View(ctx)
	if err != nil {
		return heardInput{}, false
	}
	for _, u := range v.UTXOs {
		if _, named := r.inputs[u.Outpoint]; !named && u.DAAScore+r.cfg.Params.MinInputDepth <= p.Anchor.TipScore {
			return heardInput{input: r.cfg.Rules.Input(u), meta: twophase.InputMeta{DAAScore: u.DAAScore, Coinbase: u.Coinbase}}, true
		}
	}
	return heardInput{}, false
}

// equivocations counts the rounds in which the rogue sent two members
// different plans.
func (r *lockRogue) equivocations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, votes := range r.sent {
		var hashes []twophase.Hash
		for _, h := range votes {
			if !slices.Contains(hashes, h) {
				hashes = append(hashes, h)
			}
		}
		if len(hashes) > 1 {
			n++
		}
	}
	return n
}

// checkProfileB fails the test when the honest members' logs break a
// rule of Profile B: a member that signed two templates for one event, or
// one without a lock certificate of it on its log, or sent two different
// plans (locks) in one round; an outpoint that two events' certificates
// reserve. (A certificate of a rogue's plan is no fault: a valid plan
// the honest members may adopt in a later round, when it alone may have
// been certified in an earlier one.)
func (c *signerCluster) checkProfileB(honest []string) {
	c.t.Helper()
	reserved := map[twophase.Outpoint]map[twophase.Hash]bool{}
	for _, id := range honest {
		certs := map[[2]twophase.Hash]bool{}
		for _, f := range c.rawFacts(id, twophase.TypeLockCertAccepted) {
			a := f.(*twophase.LockCertAccepted)
			certs[[2]twophase.Hash{a.EventID, a.TemplateHash}] = true
			for _, o := range a.Outpoints {
				if reserved[o] == nil {
					reserved[o] = map[twophase.Hash]bool{}
				}
				reserved[o][a.EventID] = true
			}
		}
		for ev, hashes := range c.signedTemplates(id) {
			for _, h := range hashes {
				if h != hashes[0] {
					c.t.Errorf("%s signed two templates for event %s: %s and %s", id, ev.Short(), hashes[0].Short(), h.Short())
				}
				if !certs[[2]twophase.Hash{ev, h}] {
					c.t.Errorf("%s signed template %s of event %s without its lock certificate", id, h.Short(), ev.Short())
				}
			}
		}
		locks := map[roundKey]twophase.Hash{}
		for _, f := range c.rawFacts(id, twophase.TypeVoteAccepted) {
			v := f.(*twophase.VoteAccepted)
			if !v.Own || v.NoVote {
				continue
			}
			k := roundKey{v.EventID, v.Epoch, v.Round}
			if h, ok := locks[k]; ok && h != v.Hash {
				c.t.Errorf("%s locked two plans in round %d of event %s: %s and %s", id, v.Round, v.EventID.Short(), h.Short(), v.Hash.Short())
			}
			locks[k] = v.Hash
		}
	}
	for o, events := range reserved {
		if len(events) > 1 {
			c.t.Errorf("outpoint %s reserved by the certificates of %d events", o, len(events))
		}
	}
}

// eventOf is the id of the event that pays the i-th payout owed, as
// member id requested it.
func (c *signerCluster) eventOf(id string, i int) twophase.Hash {
	c.t.Helper()
	dest := c.kaspa.owed[i].address.String()
	var ev twophase.Hash
	c.waitFor(fmt.Sprintf("%s's request of payout %d", id, i), 30*time.Second, func() bool {
		for _, f := range c.rawFacts(id, twophase.TypeEventRequested) {
			if r := f.(*twophase.EventRequested); r.Event.Destination == dest {
				ev = r.ID
				return true
			}
		}
		return false
	})
	return ev
}

// cutHonest cuts (or heals) every link between two of the honest
// members; their links to the rogue stay up.
func (c *signerCluster) cutHonest(honest []string, cut bool) {
	for pair, p := range c.proxies {
		if slices.Contains(honest, pair[0]) && slices.Contains(honest, pair[1]) {
			if cut {
				p.Cut()
			} else {
				p.Heal()
			}
		}
	}
}

// TestProfileBByzantineSignerConcurrentPayouts: withdrawals of four
// senders are paid at once by s1-s3 while s4, Byzantine, answers every
// round with a vote for one member's plan and a second lock-signed plan
// on another output for the others. Every payout is on the node exactly
// once, no honest signer signs two templates for an event or locks two
// plans in a round, no outpoint is reserved by two events, and several
// events held certificates at once. Then the rogue's second plans spend
// outpoints another event holds: with the miner stopped, so that a
// payout stays pending and its certificate holds its outpoints, and the
// honest members cut from each other, so that the next event stays
// open, each honest member that gets a plan for that event on the
// pending one's outpoint refuses it as outpoint_locked, records and
// counts it, while the one that got the rogue's vote for its own plan
// accepted it.
func TestProfileBByzantineSignerConcurrentPayouts(t *testing.T) {
	const senders, each = 4, 2
	c, rogue := newProfileBCluster(t, senders, 32)
	for n := 0; n < each; n++ {
		for s := 0; s < senders; s++ {
			c.burnFrom(s, payoutSompi(n*senders+s))
		}
	}
	c.waitPaid(2 * time.Minute)
	equivocated, atOnce := rogue.equivocations(), c.certsAtOnce("s1")
	t.Logf("the rogue equivocated in %d rounds; up to %d events held certificates at once on s1's log", equivocated, atOnce)
	if equivocated < senders {
		t.Errorf("the rogue equivocated in %d rounds, want one at least for each sender's first event", equivocated)
	}
	if atOnce < 2 {
		t.Errorf("at most %d events held certificates at once on s1's log, want concurrent events", atOnce)
	}

	rogue.conflicting.Store(true)
	c.node.StopMiner()
	pending := c.eventOf("s1", c.burnFrom(0, payoutSompi(100)))
	for _, id := range honestB {
		c.waitFact(twophase.PeerID(id), "certificate of the pending payout", twophase.TypeLockCertAccepted, func(f twophase.Fact) bool {
			return f.(*twophase.LockCertAccepted).EventID == pending
		})
	}
	c.cutHonest(honestB, true)
	open := c.eventOf("s1", c.burnFrom(1, payoutSompi(101)))
	var targets map[twophase.PeerID]twophase.Hash
	c.waitFor("the rogue's plans for the open event on the pending one's outpoints", 20*time.Second, func() bool {
		rogue.mu.Lock()
		defer rogue.mu.Unlock()
		targets = maps.Clone(rogue.conflicts[open])
		return len(targets) >= 2
	})
	t.Logf("the rogue sent %v plans for event %s on outpoints of the pending %s", slices.Sorted(maps.Keys(targets)), open.Short(), pending.Short())
	for member, with := range targets {
		if with != pending {
			t.Fatalf("the rogue's plan to %s spends an outpoint of event %s, want the pending %s", member, with.Short(), pending.Short())
		}
		c.waitFact(member, "refusal of the rogue's plan on a reserved outpoint", twophase.TypeVoteRejected, func(f twophase.Fact) bool {
			r := f.(*twophase.VoteRejected)
			return r.EventID == open && r.Sender == rogue.id && r.Reason == twophase.ReasonOutpointLocked
		})
		c.waitMetric(member, "bridgelog_signer_proposal_validation_failures_total",
			map[string]string{"signer": string(member), "reason": string(twophase.ReasonOutpointLocked)}, 1)
	}
	// The open event's first round is the rogue's equivocation as the
	// honest members recorded it: one accepted the rogue's vote for its
	// plan, the others refused its other plan.
	if n := c.rogueVotesSplit(honestB, rogue.id); n < 1 {
		t.Errorf("no round in which the honest members' logs hold two different plans of the rogue")
	}
	c.cutHonest(honestB, false)
	c.node.StartMiner()
	c.waitPaid(2 * time.Minute)
	c.checkProfileB(honestB)
}

// certsAtOnce is the most events member id held certificates of at
// once: accepted and not yet completed, in its log's order.
func (c *signerCluster) certsAtOnce(id string) int {
	c.t.Helper()
	type at struct {
		ns    int64
		delta int
	}
	var steps []at
	for _, f := range c.rawFacts(id, twophase.TypeLockCertAccepted) {
		steps = append(steps, at{f.(*twophase.LockCertAccepted).AtNs, 1})
	}
	for _, f := range c.rawFacts(id, twophase.TypeCompleted) {
		steps = append(steps, at{f.(*twophase.Completed).AtNs, -1})
	}
	slices.SortStableFunc(steps, func(a, b at) int {
		if a.ns != b.ns {
			return cmp.Compare(a.ns, b.ns)
		}
		return cmp.Compare(b.delta, a.delta) // a certificate and a completion of one instant: both held
	})
	held, most := 0, 0
	for _, s := range steps {
		held += s.delta
		most = max(most, held)
	}
	return most
}

// rogueVotesSplit counts the rounds in which the honest members'
// logs, together, hold two different plans of the rogue: each member
// accepted or refused what it got, and they got different plans.
func (c *signerCluster) rogueVotesSplit(honest []string, rogue twophase.PeerID) int {
	c.t.Helper()
	type key struct {
		event twophase.Hash
		round uint32
	}
	seen := map[key]map[twophase.Hash]bool{}
	note := func(k key, h twophase.Hash) {
		if seen[k] == nil {
			seen[k] = map[twophase.Hash]bool{}
		}
		seen[k][h] = true
	}
	for _, id := range honest {
		for _, f := range c.rawFacts(id, twophase.TypeVoteAccepted) {
			if v := f.(*twophase.VoteAccepted); v.Voter == rogue && !v.NoVote {
				note(key{v.EventID, v.Round}, v.Hash)
			}
		}
		for _, f := range c.rawFacts(id, twophase.TypeVoteRejected) {
			if v := f.(*twophase.VoteRejected); v.Sender == rogue {
				note(key{v.EventID, v.Round}, v.Hash)
			}
		}
	}
	n := 0
	for _, hashes := range seen {
		if len(hashes) > 1 {
			n++
		}
	}
	return n
}

// TestProfileBHonestSignersKilledMidLock: while withdrawals of four
// senders are paid at once and s4 equivocates as in the test above, an
// honest signer is killed (SIGKILL) the moment its plan, which carries
// its lock signature, leaves it, and started again moments later; six
// times, in turn. Afterwards every payout is on the node exactly once,
// and the honest members' logs keep every Profile B rule: a restarted
// signer never locks a second plan in a round it had locked, nor signs
// a second template.
func TestProfileBHonestSignersKilledMidLock(t *testing.T) {
	const senders, each, kills = 4, 3, 6
	c, rogue := newProfileBCluster(t, senders, 32)
	rng := rand.New(rand.NewPCG(24, 4))
	midLock := 0
	for i := 0; i < senders*each; i++ {
		kill := i%2 == 1 && i/2 < kills
		if kill {
			rogue.forgetLocks()
		}
		c.burnFrom(i%senders, payoutSompi(i))
		if !kill {
			continue
		}
		victim := twophase.PeerID(honestB[(i/2)%len(honestB)])
		lock := rogue.nextLock(t, victim, 15*time.Second)
		c.kill(string(victim))
		if c.lockedWithoutCert(string(victim), lock) {
			midLock++
		}
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		c.start(string(victim))
	}
	t.Logf("%d of %d kills came after the victim's lock and before its certificate", midLock, kills)
	if midLock < kills/2 {
		t.Errorf("%d of %d kills came between the victim's lock and its certificate, want half at least", midLock, kills)
	}
	c.waitPaid(2 * time.Minute)
	c.checkProfileB(honestB)
}

// forgetLocks drops the locks heard so far.
func (r *lockRogue) forgetLocks() {
	for {
		select {
		case <-r.locked:
		default:
			return
		}
	}
}

// nextLock waits for member's next plan (its lock) heard since
// forgetLocks, and returns its round.
func (r *lockRogue) nextLock(t *testing.T, member twophase.PeerID, timeout time.Duration) roundKey {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l := <-r.locked:
			if l.member == member {
				return l.round
			}
		case <-deadline:
			t.Fatalf("no lock of %s reached the rogue in %s", member, timeout)
		}
	}
}

// lockedWithoutCert reports whether member id's log holds its own lock
// of round k and no certificate of k's event.
func (c *signerCluster) lockedWithoutCert(id string, k roundKey) bool {
	c.t.Helper()
	for _, f := range c.rawFacts(id, twophase.TypeLockCertAccepted) {
		if f.(*twophase.LockCertAccepted).EventID == k.event {
			return false
		}
	}
	for _, f := range c.rawFacts(id, twophase.TypeVoteAccepted) {
		if v := f.(*twophase.VoteAccepted); v.Own && v.EventID == k.event && v.Epoch == k.epoch && v.Round == k.round {
			return true
		}
	}
	return false
}
