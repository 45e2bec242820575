package signing_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

// The hostile-client harness of a member: its real identity key in an
// attacker's hands, speaking on its own authenticated link (as the mesh
// delivers: DeliverFrom with the link's member) to the honest signers of
// a paying group. Each attack of issue 34 (items 6-9) floods them while
// they pay; the run measures, against a quiet phase of the same run, what
// it cost them: log bytes, the longest tick, RSS, the payment rate.

// hostileMember is member id's key in the attacker's hands. What it can
// sign ahead it does (the forged envelopes, a state's relayed votes), so
// that its own signing, which a real attacker does elsewhere, takes
// little of the honest signers' CPU in this process.
type hostileMember struct {
	r      *rig
	id     twophase.PeerID
	key    ed25519.PrivateKey
	opener *twophase.Opener
	seq    atomic.Uint64

	forged    [][]byte // bad signatures, made once
	next      atomic.Int64
	mu        sync.Mutex
	responses map[twophase.Hash][]byte // a sync response's payload, by event
	current   map[twophase.PeerID]seenProposal
}

// hostileSession is above any session the member's own signer reaches:
// the honest signers take the attacker's envelopes as fresh.
const hostileSession = 1 << 40

func (h *hostileMember) seal(sender twophase.PeerID, kind twophase.Kind, payload []byte) []byte {
	e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: h.r.group.ID(), Sender: sender, Session: hostileSession,
		Seq: h.seq.Add(1), Kind: kind, Payload: payload}
	return twophase.Seal(h.key, &e)
}

// attack makes the next envelopes the member sends victim; nil when it
// has nothing to send yet.
type attack struct {
	name string
	next func(h *hostileMember, victim twophase.PeerID) [][]byte
}

// floodPerSecond is what the member sends each victim: twice the
// default per-member budget (500/s).
const floodPerSecond = 1000

var memberAttacks = []attack{
	{"bad_signatures", badSignatures},
	{"equivocations", equivocations},
	{"sync_responses", syncResponses},
	{"made_up_events", madeUpEvents},
}

// badSignatures: envelopes whose signatures do not verify, each naming
// another sender (members and made-up names): 20,000 built once, sent
// round and round.
func badSignatures(h *hostileMember, _ twophase.PeerID) [][]byte {
	const n = 20_000
	h.mu.Lock()
	if h.forged == nil {
		for k := range n {
			sender := twophase.PeerID(fmt.Sprintf("forged-%d", k))
			if k%2 == 0 {
				sender = h.r.ids[k%(len(h.r.ids)-1)]
			}
			raw := h.seal(sender, twophase.KindNoVote, []byte("junk"))
			raw[len(raw)-1] ^= 1
			h.forged = append(h.forged, raw)
		}
	}
	h.mu.Unlock()
	at := int(h.next.Add(100)-100) % n
	return h.forged[at:min(at+100, n)]
}

// currentProposal is the latest proposal a victim made, as the member's
// own (the base of the junk). It holds the rig's fact lock, which the
// signers' Observe hooks take too, only to find the envelope.
func currentProposal(h *hostileMember, victim twophase.PeerID) (twophase.Proposal, bool) {
	h.mu.Lock()
	c, ok := h.current[victim]
	h.mu.Unlock()
	if ok && time.Since(c.at) < 5*time.Millisecond {
		return c.p, true // the fact lock is the signers' too: not taken at every envelope
	}
	p, ok := findProposal(h, victim)
	if ok {
		h.mu.Lock()
		h.current[victim] = seenProposal{p: p, at: time.Now()}
		h.mu.Unlock()
	}
	return p, ok
}

type seenProposal struct {
	p  twophase.Proposal
	at time.Time
}

func findProposal(h *hostileMember, victim twophase.PeerID) (twophase.Proposal, bool) {
	var raw []byte
	h.r.fmu.Lock()
	fs := h.r.facts[victim]
	for i := len(fs) - 1; i >= 0 && raw == nil; i-- {
		if v, ok := fs[i].(twophase.VoteAccepted); ok && v.Own && !v.NoVote {
			raw = v.Envelope
		}
	}
	h.r.fmu.Unlock()
	if raw == nil {
		return twophase.Proposal{}, false
	}
	env, err := h.opener.Open(raw)
	if err != nil {
		return twophase.Proposal{}, false
	}
	p, err := twophase.DecodeProposal(env.Payload, h.r.params.WithDefaults())
	p.Proposer = h.id
	return p, err == nil
}

// equivocations: different proposals for the event in hand, one round.
func equivocations(h *hostileMember, victim twophase.PeerID) [][]byte {
	p, ok := currentProposal(h, victim)
	if !ok {
		return nil
	}
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil {
		return nil
	}
	var out [][]byte
	for range 20 {
		tm.LockTime = h.seq.Load()
		p.Template, p.TemplateHash = tm.Encode(), tm.Hash()
		out = append(out, h.seal(h.id, twophase.KindProposal, p.Encode()))
	}
	return out
}

// syncResponses: a vote a round ahead (the victim asks the member for
// the event's state), then a response as full of relayed votes as a state
// may be (the member's own of every round, and forgeries of every other
// member's, over and over), and states of events never asked about.
func syncResponses(h *hostileMember, victim twophase.PeerID) [][]byte {
	p, ok := currentProposal(h, victim)
	if !ok {
		return nil
	}
	nv := func(as twophase.PeerID, round uint32) []byte {
		v := twophase.NoVote{EventID: p.EventID(), Epoch: p.Epoch, Round: round, Voter: as, Reason: twophase.ReasonTimeoutNoQuorum}
		return h.seal(as, twophase.KindNoVote, v.Encode())
	}
	h.mu.Lock()
	payload := h.responses[p.EventID()]
	h.mu.Unlock()
	if payload == nil {
		var distinct, votes [][]byte
		for _, as := range h.r.ids {
			for round := range uint32(8) {
				distinct = append(distinct, nv(as, round)) // another member's: a forgery
			}
		}
		for i := range 320 {
			votes = append(votes, distinct[i%len(distinct)])
		}
		resp := twophase.SyncResponse{States: []twophase.SyncState{{EventID: p.EventID(), Epoch: p.Epoch, Phase: twophase.PhaseProposing,
			Round: p.Round + 1, Votes: votes}}}
		for i := range 64 {
			resp.States = append(resp.States, twophase.SyncState{EventID: twophase.Hash{byte(i), 1}, Phase: twophase.PhaseProposing})
		}
		payload = resp.Encode()
		h.mu.Lock()
		if h.responses == nil || len(h.responses) > 16 { // victims a few events apart share it
			h.responses = map[twophase.Hash][]byte{}
		}
		h.responses[p.EventID()] = payload
		h.mu.Unlock()
	}
	return [][]byte{nv(h.id, p.Round+1), h.seal(h.id, twophase.KindSyncResponse, payload)}
}

// madeUpEvents: proposals for events no source ever saw.
func madeUpEvents(h *hostileMember, victim twophase.PeerID) [][]byte {
	p, ok := currentProposal(h, victim)
	if !ok {
		return nil
	}
	var out [][]byte
	for range 20 {
		p.Event.Destination = fmt.Sprintf("sim:made-up-%d", h.seq.Load())
		out = append(out, h.seal(h.id, twophase.KindProposal, p.Encode()))
	}
	return out
}

// countingLog counts the bytes a signer appends to its log.
type countingLog struct {
	topics.Log
	bytes atomic.Int64
}

func (l *countingLog) Append(ctx context.Context, topic string, msgs ...topics.Message) ([]topics.Position, error) {
	for _, m := range msgs {
		l.bytes.Add(int64(len(m.Key) + len(m.Value)))
	}
	return l.Log.Append(ctx, topic, msgs...)
}

// slowProver is a chain node on which no peer's event proves.
type slowProver struct{ calls atomic.Int64 }

func (p *slowProver) Prove(ctx context.Context, _ twophase.SigningEvent) error {
	p.calls.Add(1)
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Millisecond): // an EVM receipt look-up
	}
	return errors.New("no such burn on this node")
}

// hostileRun is one attack's run: a quiet phase, then the attacked one.
type hostileRun struct {
	r       *rig
	h       *hostileMember
	honest  []twophase.PeerID
	logs    map[twophase.PeerID]*countingLog
	provers map[twophase.PeerID]*slowProver
	nonce   uint64
}

func newHostileRun(t testing.TB) *hostileRun {
	r := newRig(t, 4, time.Millisecond)
	bad := r.ids[len(r.ids)-1]
	hr := &hostileRun{r: r, h: &hostileMember{r: r, id: bad, key: r.idKeys[bad], opener: twophase.NewOpener(r.group, nil),
		current: map[twophase.PeerID]seenProposal{}}, honest: r.ids[:len(r.ids)-1],
		logs: map[twophase.PeerID]*countingLog{}, provers: map[twophase.PeerID]*slowProver{}}
	r.wrap = map[twophase.PeerID]topics.Log{}
	r.prover = map[twophase.PeerID]signing.SourceProver{}
	for _, id := range hr.honest {
		hr.logs[id] = &countingLog{Log: r.logs[id]}
		hr.provers[id] = &slowProver{}
		r.wrap[id], r.prover[id] = hr.logs[id], hr.provers[id]
		r.open(id)
	}
	return hr
}

// phaseFigures is what one phase cost the honest signers.
type phaseFigures struct {
	elapsed   time.Duration
	paid      int
	logBytes  int64         // the most any honest log grew
	tickMax   time.Duration // the longest tick of any honest signer
	rssGrowth int64         // of the process, bytes
	sent      int64         // envelopes the member sent
	proofs    int64         // source-proof look-ups of the honest signers
}

func (f phaseFigures) rate() float64 { return float64(f.paid) / f.elapsed.Seconds() }

// phase pays k events at the honest members, under a if it is not nil.
func (hr *hostileRun) phase(t testing.TB, k int, a *attack) phaseFigures {
	before := map[twophase.PeerID]int64{}
	var proofs int64
	for _, id := range hr.honest {
		before[id] = hr.logs[id].bytes.Load()
		proofs -= hr.provers[id].calls.Load()
	}
	hr.r.tickMaxes()
	rss := rssBytes(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent atomic.Int64
	if a != nil {
		a.next(hr.h, hr.honest[0]) // what it signs ahead, before the clock starts
		for _, victim := range hr.honest {
			wg.Go(func() { hr.flood(a, victim, stop, &sent) })
		}
	}
	began := time.Now()
	for range k {
		ev := event(hr.nonce)
		hr.nonce++
		hr.r.request(ev, hr.honest...)
	}
	hr.waitPaid(t, k, 60*time.Second)
	f := phaseFigures{elapsed: time.Since(began), paid: k, rssGrowth: rssBytes(t) - rss}
	close(stop)
	wg.Wait()
	f.sent = sent.Load()
	for id, d := range hr.r.tickMaxes() {
		if id != hr.h.id {
			f.tickMax = max(f.tickMax, d)
		}
	}
	for _, id := range hr.honest {
		f.logBytes = max(f.logBytes, hr.logs[id].bytes.Load()-before[id])
		proofs += hr.provers[id].calls.Load()
	}
	f.proofs = proofs
	return f
}

// flood sends victim a's envelopes at floodPerSecond until stop.
func (hr *hostileRun) flood(a *attack, victim twophase.PeerID, stop <-chan struct{}, sent *atomic.Int64) {
	const every = 20 * time.Millisecond
	tk := time.NewTicker(every)
	defer tk.Stop()
	var queue [][]byte
	for {
		select {
		case <-stop:
			return
		case <-tk.C:
		}
		for range floodPerSecond * every / time.Second {
			if len(queue) == 0 {
				if queue = a.next(hr.h, victim); len(queue) == 0 {
					break
				}
			}
			_ = hr.r.node(victim).DeliverFrom(context.Background(), hr.h.id, queue[0])
			queue = queue[1:]
			sent.Add(1)
		}
	}
}

// waitPaid waits until the honest members completed the first nonce
// events of the run.
func (hr *hostileRun) waitPaid(t testing.TB, k int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for n := hr.nonce - uint64(k); n < hr.nonce; {
		done := 0
		for _, id := range hr.honest {
			if e, ok := hr.r.node(id).Event(event(n).ID()); ok && e.Phase == twophase.PhaseCompleted {
				done++
			}
		}
		if done == len(hr.honest) {
			n++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("event %d not paid at every honest member in %v", n, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rssBytes is the process's resident set.
func rssBytes(t testing.TB) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}
