package simulate

import (
	"slices"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// checker watches every fact every honest signer records and keeps the
// invariants and the per-event measures. A Byzantine signer's own facts
// are not its peers' concern: what it sent them is (sentVote).
type checker struct {
	w      *world
	opener *twophase.Opener
	byID   map[twophase.Hash]int // event id -> index
	ev     []eventTrace
	votes  map[voteKey]twophase.Hash // own votes as each honest signer recorded them
	sent   map[voteKey][]twophase.Hash
	// Profile B: own precommits of honest signers, and what Byzantine
	// ones sent, likewise: a certificate's signers are its precommitters.
	precommits map[voteKey]twophase.Hash
	sentPre    map[voteKey][]twophase.Hash
	tmpl       map[twophase.Hash]twophase.Template
	signed     map[signKey]twophase.Hash
	proposed   map[twophase.Hash]bool // events whose first proposal was seen
	keys       map[signKeyString]bool // every source key each signer recorded
	// holds lists, per outpoint, the committed templates that spend it;
	// held, per event, its own.
	holds map[twophase.Outpoint][]*holding
	held  map[twophase.Hash][]*holding

	doubleSigns, splitCommits, commitsWithoutQuorum int
	keyConflicts, thefts, doubleSpendAttempts       int
	equivocations, rejectedVotes, conflicts         int
	retries, timeouts, abandonFacts                 int
	invalidated, diverged, voided                   int
	// reserve holds the reserve events (splits) honest signers requested;
	// refused counts what they refused by reason (reserve and round-jump
	// defences).
	reserve     map[twophase.Hash]bool
	refused     map[twophase.Reason]int
	splitTraces map[twophase.Hash]*eventTrace
}

// holding is an event's committed template (Profile B: its lock
// certificate) and the honest signers that hold it: from their commit
// until they complete, abandon or fail its round. The template's
// outpoints are reserved for the event while one of them does.
type holding struct {
	event twophase.Hash
	hash  twophase.Hash
	by    map[twophase.PeerID]bool
}

type voteKey struct {
	voter        twophase.PeerID
	event        twophase.Hash
	epoch, round uint32
}

type signKeyString struct {
	signer twophase.PeerID
	key    string
}

type signKey struct {
	signer twophase.PeerID
	event  twophase.Hash
}

// eventTrace is what the run saw of one event.
type eventTrace struct {
	firstActive time.Time
	lastCommit  time.Time
	committed   map[twophase.Hash]bool
	split       bool
	maxRound    uint32
	abandoned   map[twophase.PeerID]bool
	completed   map[twophase.PeerID]bool
}

func newChecker(w *world) *checker {
	c := &checker{w: w, opener: twophase.NewOpener(w.group, nil), byID: map[twophase.Hash]int{},
		votes: map[voteKey]twophase.Hash{}, sent: map[voteKey][]twophase.Hash{},
		precommits: map[voteKey]twophase.Hash{}, sentPre: map[voteKey][]twophase.Hash{}, tmpl: map[twophase.Hash]twophase.Template{},
		signed: map[signKey]twophase.Hash{}, proposed: map[twophase.Hash]bool{}, keys: map[signKeyString]bool{},
		holds: map[twophase.Outpoint][]*holding{}, held: map[twophase.Hash][]*holding{},
		reserve: map[twophase.Hash]bool{}, refused: map[twophase.Reason]int{}}
	return c
}

func (c *checker) trace(id twophase.Hash) *eventTrace {
	if len(c.byID) == 0 {
		c.ev = make([]eventTrace, len(c.w.events))
		for i, e := range c.w.events {
			c.byID[e.ID()] = i
			c.ev[i] = eventTrace{committed: map[twophase.Hash]bool{}, abandoned: map[twophase.PeerID]bool{},
				completed: map[twophase.PeerID]bool{}}
		}
	}
	i, ok := c.byID[id]
	if !ok {
		return nil
	}
	return &c.ev[i]
}

// sentVote records that Byzantine signer self sent a vote for hash in
// round k: honest commits may count it for that hash.
func (c *checker) sentVote(self twophase.PeerID, k roundKey, hash twophase.Hash) {
	v := voteKey{self, k.event, k.epoch, k.round}
	if !slices.Contains(c.sent[v], hash) {
		c.sent[v] = append(c.sent[v], hash)
	}
}

// sentPrecommit records that Byzantine signer self sent a precommit for
// hash in round k.
func (c *checker) sentPrecommit(self twophase.PeerID, k roundKey, hash twophase.Hash) {
	v := voteKey{self, k.event, k.epoch, k.round}
	if !slices.Contains(c.sentPre[v], hash) {
		c.sentPre[v] = append(c.sentPre[v], hash)
	}
}

// certified reports whether member v's vote toward a commit of hash
// stands: in Profile B its precommit, in Profile A its proposal.
func (c *checker) certified(v voteKey, hash twophase.Hash) bool {
	if c.w.cfg.Profile != twophase.ProfileB {
		return c.voted(v, hash)
	}
	if c.w.nodes[v.voter].adv != nil {
		return slices.Contains(c.sentPre[v], hash)
	}
	return c.precommits[v] == hash
}

// voted reports whether member v's vote in that round, as a peer may have
// received it, was for hash.
func (c *checker) voted(v voteKey, hash twophase.Hash) bool {
	if c.w.nodes[v.voter].adv != nil {
		return slices.Contains(c.sent[v], hash)
	}
	return c.votes[v] == hash
}

// observe checks each fact as it reaches an honest signer's log.
func (c *checker) observe(self twophase.PeerID, facts []twophase.Fact) {
	if adv := c.w.nodes[self].adv; adv != nil {
		adv.observe(facts)
		return
	}
	now := c.w.sched.Now()
	for _, f := range facts {
		// A signer records each fact once: a source key seen twice is a
		// second, different fact under one key (its log would keep only the
		// first), or a decision taken twice.
		k := signKeyString{self, f.SourceKey()}
		if c.keys[k] {
			c.keyConflicts++
		}
		c.keys[k] = true
		switch f := f.(type) {
		case twophase.EventRequested:
			if f.Event.IsReserve() {
				c.reserve[f.ID] = true
			}
		case twophase.MessageRejected:
			c.refused[f.Reason] += f.Count
		case twophase.RoundStarted:
			t := c.trace(f.EventID)
			if t == nil {
				continue // a reserve split: not one of the run's events
			}
			if f.Round == 0 && (t.firstActive.IsZero() || now.Before(t.firstActive)) {
				t.firstActive = now
			}
			t.maxRound = max(t.maxRound, f.Round)
			if f.Trigger == twophase.TriggerRetry {
				c.retries++
			}
		case twophase.VoteAccepted:
			if f.NoVote {
				continue
			}
			if f.Own {
				c.votes[voteKey{self, f.EventID, f.Epoch, f.Round}] = f.Hash
			}
			if _, ok := c.tmpl[f.Hash]; !ok {
				c.learn(f.Envelope)
			}
		case twophase.PrecommitAccepted:
			if f.Own && !f.Nil {
				c.precommits[voteKey{self, f.EventID, f.Epoch, f.Round}] = f.Hash
			}
		case twophase.Committed:
			for _, raw := range f.Evidence {
				c.learn(raw)
			}
			c.committed(self, f, now)
		case twophase.TemplateSigned:
			k := signKey{self, f.EventID}
			if h, ok := c.signed[k]; ok && h != f.Hash {
				c.doubleSigns++
			}
			c.signed[k] = f.Hash
			// An honest signer signs only a template it validated from a
			// proposal, which the checker learnt too: one it never saw
			// counts as a theft as well.
			if t, ok := c.tmpl[f.Hash]; !ok || !c.paysEvent(t, f.EventID) {
				c.thefts++
			}
		case twophase.PayoutVoided:
			c.voidedPayout(self, f)
		case twophase.RoundFailed:
			if f.Reason == twophase.ReasonTimeoutNoQuorum {
				c.timeouts++
			}
			c.release(self, f.EventID)
		case twophase.Equivocation:
			c.equivocations++
		case twophase.VoteRejected:
			c.rejectedVotes++
			c.refused[f.Reason]++
		case twophase.CommitConflict:
			c.conflicts++
		case twophase.Completed:
			if t := c.trace(f.EventID); t != nil {
				t.completed[self] = true
			}
			c.release(self, f.EventID)
		case twophase.Abandoned:
			if t := c.trace(f.EventID); t != nil {
				t.abandoned[self] = true
			}
			c.abandonFacts++
			c.release(self, f.EventID)
		}
	}
}

// voidedPayout frees a signer to sign another template of the event only
// when the voided payout can really never be accepted on the ledger: a
// void without that is counted as a double sign.
func (c *checker) voidedPayout(self twophase.PeerID, f twophase.PayoutVoided) {
	c.voided++
	k := signKey{self, f.EventID}
	if t, ok := c.tmpl[f.TemplateHash]; !ok || !c.w.ledger.Dead(t) {
		c.doubleSigns++
		return
	}
	if c.signed[k] == f.TemplateHash {
		delete(c.signed, k)
	}
}

// committed checks a commit: a quorum of members who each really voted
// that hash in that round, and no other live hash committed for the event
// by anyone (a hash whose inputs are gone or spent elsewhere is dead: the
// retry that section 8.4 asks for).
func (c *checker) committed(self twophase.PeerID, f twophase.Committed, now time.Time) {
	t := c.trace(f.EventID)
	if t == nil {
		t = c.reserveTrace(f.EventID)
	}
	voters := slices.Compact(slices.Sorted(slices.Values(f.Voters)))
	ok := len(voters) >= c.w.cfg.Quorum
	for _, v := range voters {
		if !c.certified(voteKey{v, f.EventID, f.Epoch, f.Round}, f.Hash) {
			ok = false
		}
	}
	if !ok {
		c.commitsWithoutQuorum++
	}
	for h := range t.committed {
		if h != f.Hash && !c.dead(h) && !c.dead(f.Hash) && !t.split {
			t.split = true
			c.splitCommits++
		}
	}
	c.hold(self, f.EventID, f.Hash)
	t.committed[f.Hash] = true
	if now.After(t.lastCommit) {
		t.lastCommit = now
	}
}

// hold records that self committed event's template hash, and counts a
// double-spend attempt for each template of another event that shares an
// outpoint with it and is still held and payable.
func (c *checker) hold(self twophase.PeerID, event, hash twophase.Hash) {
	for _, h := range c.held[event] {
		if h.hash == hash {
			h.by[self] = true
			return
		}
	}
	t, ok := c.tmpl[hash]
	if !ok {
		return
	}
	h := &holding{event: event, hash: hash, by: map[twophase.PeerID]bool{self: true}}
	c.held[event] = append(c.held[event], h)
	counted := map[*holding]bool{}
	for _, op := range t.Outpoints() {
		for _, o := range c.holds[op] {
			if o.event != event && len(o.by) > 0 && !counted[o] && c.payable(o.hash) && c.payable(hash) {
				counted[o] = true
				c.doubleSpendAttempts++
			}
		}
		c.holds[op] = append(c.holds[op], h)
	}
}

// release: self no longer holds event's template.
func (c *checker) release(self twophase.PeerID, event twophase.Hash) {
	for _, h := range c.held[event] {
		delete(h.by, self)
	}
}

// payable: template h is neither paid nor dead.
func (c *checker) payable(h twophase.Hash) bool {
	t, ok := c.tmpl[h]
	return ok && !c.w.ledger.Status(simledgerRules.TxID(t), 0).Accepted && !c.w.ledger.Dead(t)
}

// paysEvent reports whether t pays event id exactly: one output of its
// amount to its destination, every other output to the group.
func (c *checker) paysEvent(t twophase.Template, id twophase.Hash) bool {
	i, ok := c.byID[id]
	if !ok {
		return c.reserve[id] && isSplit(t, c.w.group.ChangeScript, c.w.cfg.Params.ReserveOutputs)
	}
	ev := c.w.events[i]
	dest, _ := simledgerRules.ScriptFor(ev.Destination)
	paid := 0
	for _, o := range t.Outputs {
		switch {
		case o.Script.Equal(dest) && o.Amount == ev.Amount:
			paid++
		case !o.Script.Equal(c.w.group.ChangeScript):
			return false
		}
	}
	return paid == 1
}

func (c *checker) dead(h twophase.Hash) bool {
	t, ok := c.tmpl[h]
	return ok && c.w.ledger.Dead(t)
}

// learn keeps the template a vote carries.
func (c *checker) learn(raw []byte) (twophase.Proposal, twophase.Template, bool) {
	env, err := c.opener.Open(raw)
	if err != nil || env.Kind != twophase.KindProposal {
		return twophase.Proposal{}, twophase.Template{}, false
	}
	p, err := twophase.DecodeProposal(env.Payload, c.w.cfg.Params)
	if err != nil {
		return twophase.Proposal{}, twophase.Template{}, false
	}
	t, err := twophase.DecodeTemplate(p.Template, c.w.cfg.Params.MaxUTXOsPerProposal, c.w.cfg.Params.MaxOutputsPerProposal)
	if err != nil {
		return twophase.Proposal{}, twophase.Template{}, false
	}
	c.tmpl[p.TemplateHash] = t
	return p, t, true
}

// firstProposal: at the first proposal of an event, with probability
// --invalidate, one of its inputs is reorganised away soon after, before
// a round can commit on it; with probability --diverge, half the honest
// signers' nodes see its first input late.
func (c *checker) firstProposal(from twophase.PeerID, raw []byte) {
	p, t, ok := c.learn(raw)
	if !ok || c.proposed[p.EventID()] || len(t.Inputs) == 0 {
		return
	}
	c.proposed[p.EventID()] = true
	w := c.w
	if w.cfg.Invalidate > 0 && w.rng.Float64() < w.cfg.Invalidate {
		op := t.Inputs[w.rng.IntN(len(t.Inputs))].Outpoint
		w.sched.After(w.cfg.Faults.Delay/2, func() {
			if w.ledger.Invalidate(op) {
				c.invalidated++
			}
		})
	}
	if w.cfg.Diverge > 0 && w.rng.Float64() < w.cfg.Diverge {
		w.diverge(from, t.Inputs[0].Outpoint)
	}
}

// reserveTrace is the trace of a reserve split's commits (kept apart
// from the run's events, for the split-commit check only).
func (c *checker) reserveTrace(id twophase.Hash) *eventTrace {
	if c.splitTraces == nil {
		c.splitTraces = map[twophase.Hash]*eventTrace{}
	}
	t := c.splitTraces[id]
	if t == nil {
		t = &eventTrace{committed: map[twophase.Hash]bool{}, abandoned: map[twophase.PeerID]bool{}, completed: map[twophase.PeerID]bool{}}
		c.splitTraces[id] = t
	}
	return t
}

// isSplit reports whether t is a reserve split: outputs equal in number
// to the reserve, every one to the group.
func isSplit(t twophase.Template, change twophase.Script, outputs int) bool {
	if outputs == 0 || len(t.Outputs) != outputs {
		return false
	}
	for _, o := range t.Outputs {
		if !o.Script.Equal(change) {
			return false
		}
	}
	return true
}
