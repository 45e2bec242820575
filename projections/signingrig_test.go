package projections_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/topics"
)

// signerRig drives three signers of the two-phase protocol (quorum 2)
// over a simulated ledger, delivering their messages in order. Each
// signer appends every step's facts to its own log before its messages
// leave, as a signer process does: the logs the signer projections read.
type signerRig struct {
	t       *testing.T
	sim     simledger.Group
	now     time.Time
	ledger  *simledger.Ledger
	keys    *simledger.Keys
	group   twophase.Group
	params  twophase.Params
	ids     []twophase.PeerID
	idKeys  map[twophase.PeerID]ed25519.PrivateKey
	signers map[twophase.PeerID]*rigSigner
	queue   []rigMsg
	lag     map[twophase.PeerID]uint64
	// appended is called after each signer's step reached its log.
	appended func(id twophase.PeerID)
}

type rigSigner struct {
	st    *twophase.State
	log   topics.Log
	app   *handlers.Appender
	facts []twophase.Fact
}

type rigMsg struct {
	from, to twophase.PeerID
	raw      []byte
}

func newSignerRig(t *testing.T) *signerRig { return newSignerRigOf(t, 3, false) }

// newSignerRigB drives a Profile B group: four members tolerating one
// Byzantine, quorum 3, anchoring every 10 DAA scores (a second of the
// rig's ledger).
func newSignerRigB(t *testing.T) *signerRig { return newSignerRigOf(t, 4, true) }

func newSignerRigOf(t *testing.T, n int, profileB bool) *signerRig {
	t.Helper()
	r := &signerRig{t: t, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), signers: map[twophase.PeerID]*rigSigner{}, lag: map[twophase.PeerID]uint64{}}
	r.params = twophase.Params{ProposalTimeout: 2 * time.Second, Tick: 500 * time.Millisecond, MinInputDepth: 20,
		CoinbaseMaturity: 50, PayoutDepth: 5, CompletionTimeout: time.Minute,
		Retry: twophase.RetryConfig{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: 4 * time.Second, Multiplier: 2, Jitter: 100 * time.Millisecond}}
	if profileB {
		r.sim = simledger.NewGroup("rig", "rig", simledger.MemberIDs(n), twophase.ProfileBQuorum(n, 1))
		r.sim.Group.Profile, r.sim.Group.Faults = twophase.ProfileB, 1
		r.params.AnchorStep = 10
	} else {
		r.sim = simledger.NewGroup("rig", "rig", simledger.MemberIDs(n), n/2+1)
	}
	r.group, r.ids, r.keys, r.idKeys = r.sim.Group, r.sim.IDs, r.sim.Payout, r.sim.Identity
	r.ledger = simledger.New(simledger.Config{DAAPerSecond: 10, StartDAA: 1000, Group: r.group, Keys: r.keys}, r.now)
	for i := 0; i < 20; i++ {
		r.ledger.Fund(twophase.Outpoint{TxID: sha256.Sum256([]byte(fmt.Sprint("fund", i)))}, 1_000_000+uint64(i), 100, false)
	}
	for _, id := range r.ids {
		lg := embeddedLog(t)
		r.signers[id] = &rigSigner{log: lg, app: &handlers.Appender{Log: lg, Catalog: cat, Now: func() time.Time { return r.now }}}
		r.start(id)
	}
	return r
}

func (r *signerRig) config(id twophase.PeerID) twophase.Config {
	return r.sim.Config(id, r.params, twophase.Policy{MinChange: 1000})
}

// replayed is a signer's state rebuilt from its facts, as after a restart.
func (r *signerRig) replayed(id twophase.PeerID) *twophase.State {
	st, err := twophase.NewState(r.config(id))
	if err != nil {
		r.t.Fatal(err)
	}
	for _, f := range r.signers[id].facts {
		st.Apply(f)
	}
	return st
}

// start (re)starts a signer from its log; what it kept only in memory
// (peers' replay windows) is gone.
func (r *signerRig) start(id twophase.PeerID) {
	st := r.replayed(id)
	r.signers[id].st = st
	r.take(id, st.Start(r.env(id)))
}

func (r *signerRig) env(id twophase.PeerID) twophase.Env {
	lag := r.lag[id]
	return twophase.Env{Now: r.now,
		View:   func() (twophase.LedgerView, error) { return r.ledger.View(lag), nil },
		Payout: func(tx twophase.Hash) (twophase.PayoutStatus, error) { return r.ledger.Status(tx, lag), nil }}
}

// take appends a step's facts to the signer's log, then queues its
// messages and submits its payouts.
func (r *signerRig) take(id twophase.PeerID, step twophase.Step) {
	r.t.Helper()
	s := r.signers[id]
	if len(step.Facts) > 0 {
		evs := make([]domain.Event, len(step.Facts))
		for i, f := range step.Facts {
			evs[i] = f
		}
		if _, err := s.app.Append(ctxT(r.t), handlers.Cause{OccurredAt: r.now}, evs...); err != nil {
			r.t.Fatal(err)
		}
		s.facts = append(s.facts, step.Facts...)
		if r.appended != nil {
			r.appended(id)
		}
	}
	for _, o := range step.Out {
		for _, to := range r.ids {
			if to != id && (o.To == "" || o.To == to) {
				r.queue = append(r.queue, rigMsg{from: id, to: to, raw: o.Raw})
			}
		}
	}
	for _, sub := range step.Submit {
		_, err := r.ledger.Submit(sub.Tx)
		r.take(id, s.st.SubmitResult(sub, err, r.env(id)))
	}
}

func (r *signerRig) deliver(to twophase.PeerID, raw []byte) {
	r.take(to, r.signers[to].st.Deliver(raw, r.env(to)))
}

// flush delivers every queued message, and what they cause, in order.
func (r *signerRig) flush() {
	for len(r.queue) > 0 {
		m := r.queue[0]
		r.queue = r.queue[1:]
		r.deliver(m.to, m.raw)
	}
}

func (r *signerRig) request(ev twophase.SigningEvent, ids ...twophase.PeerID) {
	if len(ids) == 0 {
		ids = r.ids
	}
	for _, id := range ids {
		r.take(id, r.signers[id].st.Request(ev, "source", r.env(id)))
	}
}

// tickOnly moves time a tick and runs every signer's tick, delivering
// nothing.
func (r *signerRig) tickOnly() {
	r.now = r.now.Add(r.params.Tick)
	r.ledger.AdvanceTo(r.now)
	for _, id := range r.ids {
		r.take(id, r.signers[id].st.Tick(r.env(id)))
	}
}

// advance moves time in ticks, delivering everything between them.
func (r *signerRig) advance(d time.Duration) {
	end := r.now.Add(d)
	for r.now.Before(end) {
		r.flush()
		r.tickOnly()
		r.flush()
	}
}

func (r *signerRig) adminReset(ev twophase.SigningEvent) {
	for _, id := range r.ids {
		step, err := r.signers[id].st.AdminReset(ev.ID(), "ops", "inputs are back", r.env(id))
		if err != nil {
			r.t.Fatal(err)
		}
		r.take(id, step)
	}
}

func (r *signerRig) phase(id twophase.PeerID, ev twophase.SigningEvent) twophase.Phase {
	e, _ := r.signers[id].st.Event(ev.ID())
	return e.Phase
}

func (r *signerRig) ownVote(id twophase.PeerID, ev twophase.SigningEvent, round uint32) twophase.VoteAccepted {
	r.t.Helper()
	for _, f := range r.signers[id].facts {
		if v, ok := f.(twophase.VoteAccepted); ok && v.Own && v.EventID == ev.ID() && v.Round == round {
			return v
		}
	}
	r.t.Fatalf("%s did not vote in round %d of %s", id, round, ev)
	return twophase.VoteAccepted{}
}

// craft seals a message as member id would, in a session of the test's
// choosing: a byzantine member.
func (r *signerRig) craft(id twophase.PeerID, session, seq uint64, kind twophase.Kind, payload []byte) []byte {
	e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: r.group.ID(), Sender: id, Session: session, Seq: seq, Kind: kind, Payload: payload}
	return twophase.Seal(r.idKeys[id], &e)
}

func (r *signerRig) proposalOf(envelope []byte) twophase.Proposal {
	r.t.Helper()
	env, err := twophase.NewOpener(r.group, nil).Open(envelope)
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := twophase.DecodeProposal(env.Payload, r.params.WithDefaults())
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// byzantine has s1 send s2 two different proposals for ev's round 0 (an
// equivocation) and one paying a thief (rejected), then restarts s2 so
// that the real s1's envelopes are fresh to it again.
func (r *signerRig) byzantine(ev twophase.SigningEvent) {
	r.t.Helper()
	p := r.proposalOf(r.ownVote("s2", ev, 0).Envelope)
	p.Proposer = "s1"
	other := p
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		r.t.Fatal(err)
	}
	tm.LockTime = 1
	other.Template, other.TemplateHash = tm.Encode(), tm.Hash()
	thief, _ := simledger.Rules{}.ScriptFor("sim:thief")
	tm.LockTime = 0
	for i := range tm.Outputs {
		if !tm.Outputs[i].Script.Equal(r.group.ChangeScript) {
			tm.Outputs[i].Script = thief
		}
	}
	theft := p
	theft.Template, theft.TemplateHash = tm.Encode(), tm.Hash()
	for i, q := range []twophase.Proposal{theft, p, other} {
		r.deliver("s2", r.craft("s1", 70, uint64(i+1), twophase.KindProposal, q.Encode()))
	}
	r.start("s2")
}

// withdrawn takes away (a reorg) the inputs of the template s1 voted for
// in ev's round 0.
func (r *signerRig) withdrawn(ev twophase.SigningEvent) {
	r.t.Helper()
	p := r.proposalOf(r.ownVote("s1", ev, 0).Envelope)
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, in := range tm.Inputs {
		r.ledger.Invalidate(in.Outpoint)
	}
}

func signingEvent(stream string, nonce uint64) twophase.SigningEvent {
	return twophase.SigningEvent{Stream: stream, Nonce: nonce + twophase.FirstNonce, Destination: fmt.Sprintf("sim:user-%s-%d", stream, nonce),
		Amount: 50_000 + nonce, Source: twophase.SourceRef{Chain: "evm:1337", Block: 100 + nonce}}
}
