package simulate

import (
	"slices"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// checker watches every fact every signer records and keeps the
// invariants and the per-event measures.
type checker struct {
	w        *world
	opener   *twophase.Opener
	byID     map[twophase.Hash]int // event id -> index
	ev       []eventTrace
	votes    map[voteKey]twophase.Hash // own votes as each signer recorded them
	tmpl     map[twophase.Hash]twophase.Template
	signed   map[signKey]twophase.Hash
	invalids map[twophase.Hash]bool // events whose inputs were invalidated once
	keys     map[signKeyString]bool // every source key each signer recorded

	doubleSigns, splitCommits, commitsWithoutQuorum int
	keyConflicts                                    int
	equivocations, rejectedVotes, conflicts         int
	retries, timeouts, abandonFacts                 int
	invalidated                                     int
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
		votes: map[voteKey]twophase.Hash{}, tmpl: map[twophase.Hash]twophase.Template{},
		signed: map[signKey]twophase.Hash{}, invalids: map[twophase.Hash]bool{}, keys: map[signKeyString]bool{}}
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

// observe checks each fact as it reaches a signer's log.
func (c *checker) observe(self twophase.PeerID, facts []twophase.Fact) {
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
		case twophase.RoundStarted:
			t := c.trace(f.EventID)
			if f.Round == 0 && (t.firstActive.IsZero() || now.Before(t.firstActive)) {
				t.firstActive = now
			}
			t.maxRound = max(t.maxRound, f.Round)
			if f.Trigger == twophase.TriggerRetry {
				c.retries++
			}
		case twophase.VoteAccepted:
			if !f.Own || f.NoVote {
				continue
			}
			c.votes[voteKey{self, f.EventID, f.Epoch, f.Round}] = f.Hash
			if _, ok := c.tmpl[f.Hash]; !ok {
				c.learn(f.Envelope)
			}
		case twophase.Committed:
			c.committed(self, f, now)
		case twophase.TemplateSigned:
			k := signKey{self, f.EventID}
			if h, ok := c.signed[k]; ok && h != f.Hash {
				c.doubleSigns++
			}
			c.signed[k] = f.Hash
		case twophase.RoundFailed:
			if f.Reason == twophase.ReasonTimeoutNoQuorum {
				c.timeouts++
			}
		case twophase.Equivocation:
			c.equivocations++
		case twophase.VoteRejected:
			c.rejectedVotes++
		case twophase.CommitConflict:
			c.conflicts++
		case twophase.Completed:
			c.trace(f.EventID).completed[self] = true
		case twophase.Abandoned:
			c.trace(f.EventID).abandoned[self] = true
			c.abandonFacts++
		}
	}
}

// committed checks a commit: a quorum of members who each really voted
// that hash in that round, and no other live hash committed for the event
// by anyone (a hash whose inputs are gone or spent elsewhere is dead: the
// retry that section 8.4 asks for).
func (c *checker) committed(self twophase.PeerID, f twophase.Committed, now time.Time) {
	t := c.trace(f.EventID)
	voters := slices.Compact(slices.Sorted(slices.Values(f.Voters)))
	ok := len(voters) >= c.w.cfg.Quorum
	for _, v := range voters {
		if c.votes[voteKey{v, f.EventID, f.Epoch, f.Round}] != f.Hash {
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
	t.committed[f.Hash] = true
	if now.After(t.lastCommit) {
		t.lastCommit = now
	}
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

// maybeInvalidate: at the first proposal of an event, with probability
// --invalidate, one of its inputs is reorganised away soon after, before
// a round can commit on it.
func (c *checker) maybeInvalidate(raw []byte) {
	p, t, ok := c.learn(raw)
	if !ok || c.invalids[p.EventID()] {
		return
	}
	c.invalids[p.EventID()] = true
	w := c.w
	if w.rng.Float64() >= w.cfg.Invalidate || len(t.Inputs) == 0 {
		return
	}
	op := t.Inputs[w.rng.IntN(len(t.Inputs))].Outpoint
	w.sched.After(w.cfg.Faults.Delay/2, func() {
		if w.ledger.Invalidate(op) {
			c.invalidated++
		}
	})
}
