package twophase_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// cluster drives N signer states with direct, in-order delivery and a
// simulated ledger: the protocol's own tests, without a transport.
// tb is what the cluster reports failures to: a *testing.T or rapid's T.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
	Logf(format string, args ...any)
}

type cluster struct {
	t      tb
	now    time.Time
	ledger *simledger.Ledger
	keys   *simledger.Keys
	sim    simledger.Group
	group  twophase.Group
	params twophase.Params
	ids    []twophase.PeerID
	idKeys map[twophase.PeerID]ed25519.PrivateKey
	nodes  map[twophase.PeerID]*node
	queue  []msg
	// drop, when set, decides whether a message from -> to is lost.
	drop func(from, to twophase.PeerID, kind twophase.Kind) bool
	// pick, when set, chooses which of the n queued messages goes next
	// (reordering); dup whether a delivered message is delivered again.
	pick func(n int) int
	dup  func() bool
	lag  map[twophase.PeerID]uint64
	// rewrite, when set, replaces what from sends to: a Byzantine member
	// (nil: the message is withheld).
	rewrite func(from, to twophase.PeerID, kind twophase.Kind, raw []byte) []byte
}

type node struct {
	st      *twophase.State
	log     []twophase.Fact
	metrics []twophase.Observation
	down    bool
}

type msg struct {
	from, to twophase.PeerID
	kind     twophase.Kind
	raw      []byte
}

func newCluster(t tb, n, quorum int, mutate ...func(*twophase.Params)) *cluster {
	t.Helper()
	return newClusterOf(t, n, quorum, nil, mutate...)
}

// newClusterOf is newCluster with the group edited first (its profile).
func newClusterOf(t tb, n, quorum int, edit func(*twophase.Group), mutate ...func(*twophase.Params)) *cluster {
	t.Helper()
	return newClusterFunded(t, n, quorum, edit, 20, mutate...)
}

// newClusterFunded is newClusterOf with the group funded by funds deep
// outputs of about a million each.
func newClusterFunded(t tb, n, quorum int, edit func(*twophase.Group), funds int, mutate ...func(*twophase.Params)) *cluster {
	t.Helper()
	c := &cluster{t: t, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), nodes: map[twophase.PeerID]*node{}, lag: map[twophase.PeerID]uint64{}}
	c.sim = simledger.NewGroup("test", "test", simledger.MemberIDs(n), quorum)
	if edit != nil {
		edit(&c.sim.Group)
	}
	c.group, c.ids, c.keys, c.idKeys = c.sim.Group, c.sim.IDs, c.sim.Payout, c.sim.Identity
	c.params = twophase.Params{ProposalTimeout: 2 * time.Second, Tick: 500 * time.Millisecond, MinInputDepth: 20,
		CoinbaseMaturity: 50, PayoutDepth: 5, CompletionTimeout: time.Minute,
		Retry: twophase.RetryConfig{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: 4 * time.Second, Multiplier: 2, Jitter: 100 * time.Millisecond}}
	for _, m := range mutate {
		m(&c.params)
	}
	c.ledger = simledger.New(simledger.Config{DAAPerSecond: 10, StartDAA: 1000, Group: c.group, Keys: c.keys}, c.now)
	for i := 0; i < funds; i++ {
		c.ledger.Fund(twophase.Outpoint{TxID: sha256.Sum256([]byte(fmt.Sprint("fund", i))), Index: 0}, 1_000_000+uint64(i), 100, false)
	}
	for _, id := range c.ids {
		c.nodes[id] = &node{}
		c.start(id)
	}
	return c
}

func (c *cluster) config(id twophase.PeerID) twophase.Config {
	return c.sim.Config(id, c.params, twophase.Policy{MinChange: 1000})
}

// start builds a signer from its log (a restart is the same) and starts it.
func (c *cluster) start(id twophase.PeerID) {
	st, err := twophase.NewState(c.config(id))
	if err != nil {
		c.t.Fatal(err)
	}
	nd := c.nodes[id]
	for _, f := range nd.log {
		st.Apply(f)
	}
	nd.st, nd.down = st, false
	c.take(id, st.Start(c.env(id)))
}

func (c *cluster) crash(id twophase.PeerID) { c.nodes[id].down = true }

func (c *cluster) env(id twophase.PeerID) twophase.Env {
	lag := c.lag[id]
	return twophase.Env{Now: c.now,
		View:   func() (twophase.LedgerView, error) { return c.ledger.View(lag), nil },
		Payout: func(tx twophase.Hash) (twophase.PayoutStatus, error) { return c.ledger.Status(tx, lag), nil },
		Input:  func(op twophase.Outpoint) (twophase.InputStatus, error) { return c.ledger.Input(op, lag), nil }}
}

// take appends a step's facts and metrics to the node, then sends and submits.
func (c *cluster) take(id twophase.PeerID, st twophase.Step) {
	nd := c.nodes[id]
	nd.log = append(nd.log, st.Facts...)
	nd.metrics = append(nd.metrics, st.Metrics...)
	for _, o := range st.Out {
		for _, to := range c.ids {
			if to == id || (o.To != "" && o.To != to) {
				continue
			}
			raw := o.Raw
			if c.rewrite != nil {
				if raw = c.rewrite(id, to, o.Kind, raw); raw == nil {
					continue
				}
			}
			c.queue = append(c.queue, msg{from: id, to: to, kind: o.Kind, raw: raw})
		}
	}
	for _, sub := range st.Submit {
		_, err := c.ledger.Submit(sub.Tx)
		c.take(id, nd.st.SubmitResult(sub, err, c.env(id)))
	}
}

// flush delivers every queued message, and what they cause, in order.
func (c *cluster) flush() {
	for len(c.queue) > 0 {
		i := 0
		if c.pick != nil {
			i = c.pick(len(c.queue))
		}
		m := c.queue[i]
		c.queue = append(c.queue[:i], c.queue[i+1:]...)
		nd := c.nodes[m.to]
		if nd.down || (c.drop != nil && c.drop(m.from, m.to, m.kind)) {
			continue
		}
		if c.dup != nil && c.dup() {
			c.queue = append(c.queue, m)
		}
		c.take(m.to, nd.st.Deliver(m.raw, c.env(m.to)))
	}
}

func (c *cluster) request(ev twophase.SigningEvent, ids ...twophase.PeerID) {
	if len(ids) == 0 {
		ids = c.ids
	}
	for _, id := range ids {
		if nd := c.nodes[id]; !nd.down {
			c.take(id, nd.st.Request(ev, "source", c.env(id)))
		}
	}
}

// advance moves time in ticks, delivering everything between them.
func (c *cluster) advance(d time.Duration) {
	end := c.now.Add(d)
	for c.now.Before(end) {
		c.flush()
		c.now = c.now.Add(c.params.Tick)
		c.ledger.AdvanceTo(c.now)
		for _, id := range c.ids {
			if nd := c.nodes[id]; !nd.down {
				c.take(id, nd.st.Tick(c.env(id)))
			}
		}
		c.flush()
	}
}

func (c *cluster) phase(id twophase.PeerID, ev twophase.SigningEvent) twophase.Phase {
	e, ok := c.nodes[id].st.Event(ev.ID())
	if !ok {
		return twophase.PhaseUnknown
	}
	return e.Phase
}

func (c *cluster) facts(id twophase.PeerID, typ string) []twophase.Fact {
	var out []twophase.Fact
	for _, f := range c.nodes[id].log {
		if f.EventType() == typ {
			out = append(out, f)
		}
	}
	return out
}

// observed returns the node's observations of one metric, oldest first.
func (c *cluster) observed(id twophase.PeerID, name string) []twophase.Observation {
	var out []twophase.Observation
	for _, o := range c.nodes[id].metrics {
		if o.Name == name {
			out = append(out, o)
		}
	}
	return out
}

// payouts counts accepted payouts paying ev's destination, and checks
// each pays exactly ev's amount.
func (c *cluster) payouts(ev twophase.SigningEvent) int {
	c.t.Helper()
	dest, _ := simledger.Rules{}.ScriptFor(ev.Destination)
	n := 0
	for _, a := range c.ledger.AcceptedPayouts() {
		for _, o := range a.Template.Outputs {
			if o.Script.Equal(dest) {
				n++
				if o.Amount != ev.Amount {
					c.t.Errorf("payout %s pays %d, the event asks %d", a.TxID.Short(), o.Amount, ev.Amount)
				}
			}
		}
	}
	return n
}

// checkSafety asserts the invariants on every signer's log: one signed
// template per event and signer, every commit backed by a quorum, and one
// committed hash per event across signers, unless the other hash's
// template can never be accepted (an input reorganised away or spent
// elsewhere: the retry with fresh inputs that section 8.4 asks for).
func (c *cluster) checkSafety() {
	c.t.Helper()
	committed := map[twophase.Hash]map[twophase.Hash]bool{}
	for _, id := range c.ids {
		c.checkSignedOnce(id)
		for _, f := range c.facts(id, twophase.TypeCommitted) {
			cm := f.(twophase.Committed)
			if len(cm.Voters) < c.group.Quorum {
				c.t.Errorf("%s committed %s with %d voters", id, cm.Hash.Short(), len(cm.Voters))
			}
			if committed[cm.EventID] == nil {
				committed[cm.EventID] = map[twophase.Hash]bool{}
			}
			committed[cm.EventID][cm.Hash] = true
		}
	}
	for ev, hashes := range committed {
		live := 0
		for h := range hashes {
			if t, ok := c.templateOf(h); !ok || !c.ledger.Dead(t) {
				live++
			}
		}
		if live > 1 {
			c.t.Errorf("event %s has %d live committed hashes", ev.Short(), live)
		}
	}
}

// checkSignedOnce: member id signed at most one template per event at a
// time: another only after it recorded the first's payout void, and that
// payout can really never be accepted on the ledger.
func (c *cluster) checkSignedOnce(id twophase.PeerID) {
	c.t.Helper()
	signed := map[twophase.Hash]twophase.Hash{}
	for _, f := range c.nodes[id].log {
		switch s := f.(type) {
		case twophase.TemplateSigned:
			if h, ok := signed[s.EventID]; ok && h != s.Hash {
				c.t.Errorf("%s signed two templates for event %s", id, s.EventID.Short())
			}
			signed[s.EventID] = s.Hash
		case twophase.PayoutVoided:
			if t, ok := c.templateOf(s.TemplateHash); !ok || !c.ledger.Dead(t) {
				c.t.Errorf("%s voided payout %s, which the ledger may still accept", id, s.TxID.Short())
			}
			if signed[s.EventID] == s.TemplateHash {
				delete(signed, s.EventID)
			}
		}
	}
}

// templateOf finds the template of a hash among the votes in any log.
func (c *cluster) templateOf(h twophase.Hash) (twophase.Template, bool) {
	opener := twophase.NewOpener(c.group, nil)
	for _, id := range c.ids {
		for _, f := range c.facts(id, twophase.TypeVoteAccepted) {
			v := f.(twophase.VoteAccepted)
			if v.Hash != h || v.NoVote {
				continue
			}
			env, err := opener.Open(v.Envelope)
			if err != nil {
				continue
			}
			p, err := twophase.DecodeProposal(env.Payload, c.params.WithDefaults())
			if err != nil {
				continue
			}
			if t, err := twophase.DecodeTemplate(p.Template, 1000, 1000); err == nil {
				return t, true
			}
		}
	}
	return twophase.Template{}, false
}

func event(n uint64) twophase.SigningEvent {
	return twophase.SigningEvent{Stream: "evm:1337:bridge", Nonce: n + twophase.FirstNonce, Destination: fmt.Sprintf("sim:user-%d", n),
		Amount: 50_000 + n, Source: twophase.SourceRef{Chain: "evm:1337", Block: 100 + n}}
}

func simledgerScript(addr string) (twophase.Script, error) { return simledger.Rules{}.ScriptFor(addr) }

// craft seals a message as member id would, in a session of the test's
// choosing (a byzantine member, or a replay).
func (c *cluster) craft(id twophase.PeerID, session, seq uint64, kind twophase.Kind, payload []byte) []byte {
	e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: c.group.ID(), Sender: id, Session: session, Seq: seq, Kind: kind, Payload: payload}
	return twophase.Seal(c.idKeys[id], &e)
}

// proposalPayload reads the proposal out of a stored envelope, moved to
// round.
func (c *cluster) proposalPayload(t *testing.T, envelope []byte, round uint32) []byte {
	t.Helper()
	p := c.proposalOf(t, envelope)
	p.Round = round
	return p.Encode()
}

func (c *cluster) proposalOf(t *testing.T, envelope []byte) twophase.Proposal {
	t.Helper()
	env, err := twophase.NewOpener(c.group, nil).Open(envelope)
	if err != nil {
		t.Fatal(err)
	}
	p, err := twophase.DecodeProposal(env.Payload, c.params.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func twophaseID(s string) twophase.PeerID { return twophase.PeerID(s) }
