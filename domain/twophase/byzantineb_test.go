package twophase_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// byzantine rewrites what the Byzantine members send, one behaviour per
// member: every message re-sealed in a session of their own (so their
// honest-looking originals never count), and per behaviour:
// equivocate (another plan, lock-signed, to half the group), withhold
// (nothing to some members), forge (commits whose certificate repeats
// one signer or drops to one signature) and conflicting locks (plans on
// outpoints another event's certificate reserves).
type byzantine struct {
	c         *cluster
	behaviour map[twophase.PeerID]string
	seq       map[twophase.PeerID]uint64
	rng       *rand.Rand
}

const byzSession = 1 << 40

func (b *byzantine) rewrite(from, to twophase.PeerID, kind twophase.Kind, raw []byte) []byte {
	beh, ok := b.behaviour[from]
	if !ok {
		return raw
	}
	env, err := twophase.NewOpener(b.c.group, nil).Open(raw)
	if err != nil {
		return raw
	}
	payload := env.Payload
	half := to < b.c.ids[len(b.c.ids)/2]
	switch {
	case beh == "withhold" && (half || b.rng.IntN(2) == 0):
		return nil
	case beh == "equivocate" && kind == twophase.KindProposal && half:
		if p, err := twophase.DecodeProposal(payload, b.c.params.WithDefaults()); err == nil {
			payload = b.c.replan(b.c.t, p, from).Encode()
		}
	case beh == "conflicting-locks" && kind == twophase.KindProposal:
		if p, ok := b.lockedPlan(from, payload); ok {
			payload = p.Encode()
		}
	case beh == "forge" && kind == twophase.KindCommit:
		if cm, err := twophase.DecodeCommit(payload); err == nil && len(cm.Evidence) == 2 {
			if cert, err := twophase.DecodeLockCert(cm.Evidence[0], b.c.params.WithDefaults()); err == nil && len(cert.Sigs) > 1 {
				for i := range cert.Sigs {
					cert.Sigs[i] = cert.Sigs[0]
				}
				cm.Evidence[0] = cert.Encode()
				payload = cm.Encode()
			}
		}
	}
	b.seq[from]++
	return b.c.craft(from, byzSession, b.seq[from], kind, payload)
}

// lockedPlan turns a plan into one spending an outpoint that an honest
// member's certificate of another event reserves, lock-signed.
func (b *byzantine) lockedPlan(from twophase.PeerID, payload []byte) (twophase.Proposal, bool) {
	p, err := twophase.DecodeProposal(payload, b.c.params.WithDefaults())
	if err != nil {
		return p, false
	}
	tm, err := twophase.DecodeTemplate(p.Template, 100, 16)
	if err != nil || len(tm.Inputs) == 0 {
		return p, false
	}
	for _, id := range b.c.ids {
		for _, r := range b.c.nodes[id].st.Reserved() {
			if r.EventID == p.EventID() {
				continue
			}
			u, ok := b.c.ledger.View(0).Lookup(r.Outpoint)
			if !ok || u.Amount < tm.Inputs[0].Amount {
				continue
			}
			return b.c.spending(p, tm, u, from), true
		}
	}
	return p, false
}

// TestProfileBByzantineSchedules draws Profile B groups (N = 4, 5, 7 with
// f = (N-1)/3 Byzantine members of drawn behaviours), events on several
// streams, loss, crashes of honest members with their messages in
// flight lost (a kill mid-lock) and lagging views, and checks after every
// step, over the honest members: one certified template per event, no
// outpoint reserved by two events' certificates, one signed template per
// event and member, nothing paid twice; once the faults stop, every
// event is paid once.
func TestProfileBByzantineSchedules(t *testing.T) {
	rapid.Check(t, runByzSchedule)
}

func runByzSchedule(rt *rapid.T) {
	behaviours := []string{"equivocate", "withhold", "forge", "conflicting-locks"}
	{
		n := rapid.SampledFrom([]int{4, 5, 7}).Draw(rt, "signers")
		f := (n - 1) / 3
		// Few outputs make concurrent events' plans collide.
		funds := rapid.SampledFrom([]int{4, 8, 20}).Draw(rt, "outputs")
		edit := func(g *twophase.Group) { g.Profile, g.Faults = twophase.ProfileB, f }
		c := newClusterFunded(rt, n, twophase.ProfileBQuorum(n, f), edit, funds, func(p *twophase.Params) { p.AnchorStep = 10 })
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 2))
		byz := &byzantine{c: c, behaviour: map[twophase.PeerID]string{}, seq: map[twophase.PeerID]uint64{}, rng: rng}
		honest := c.ids[:n-f]
		for _, id := range c.ids[n-f:] {
			byz.behaviour[id] = rapid.SampledFrom(behaviours).Draw(rt, "behaviour")
		}
		c.rewrite = byz.rewrite
		loss := rapid.Float64Range(0, 0.2).Draw(rt, "loss")
		c.drop = func(from, to twophase.PeerID, _ twophase.Kind) bool { return rng.Float64() < loss }
		streams := uint64(rapid.IntRange(1, 3).Draw(rt, "streams"))
		var evs []twophase.SigningEvent
		for s := uint64(0); s < streams; s++ {
			for k := uint64(0); k < 2; k++ {
				evs = append(evs, streamEvent(s, k))
			}
		}
		request := func() {
			for _, ev := range evs {
				c.request(ev)
			}
		}
		request()
		steps := rapid.IntRange(5, 25).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			switch rapid.IntRange(0, 5).Draw(rt, "fault") {
			case 0: // an honest member killed: what it had not sent is lost
				id := rapid.SampledFrom(honest).Draw(rt, "killed")
				c.crash(id)
				kept := c.queue[:0]
				for _, m := range c.queue {
					if m.from != id {
						kept = append(kept, m)
					}
				}
				c.queue = kept
			case 1:
				for _, id := range honest {
					if c.nodes[id].down {
						c.start(id)
					}
				}
			case 2:
				id := rapid.SampledFrom(honest).Draw(rt, "lagging")
				c.lag[id] = uint64(rapid.IntRange(0, 15).Draw(rt, "lag"))
			}
			request()
			c.advance(time.Duration(rapid.IntRange(1, 6).Draw(rt, "ticks")) * c.params.Tick)
			c.checkHonest(honest, evs)
		}
		c.drop = nil
		for _, id := range honest {
			c.lag[id] = 0
			if c.nodes[id].down {
				c.start(id)
			}
		}
		request()
		c.advance(3 * time.Minute)
		c.checkHonest(honest, evs)
		// Liveness is bounded, not promised: an event not paid once the
		// faults stopped was given up explicitly (Abandoned), or waits
		// behind one given up in its stream.
		for _, id := range honest {
			blocked := map[string]bool{}
			for _, ev := range evs {
				switch p := c.phase(id, ev); {
				case p == twophase.PhaseAbandoned:
					blocked[ev.Stream] = true
				case p == twophase.PhaseCompleted:
				case blocked[ev.Stream] && p == twophase.PhaseUnknown:
				default:
					rt.Fatalf("%s: event %s of stream %s is %s once the faults stopped (%s)", id, ev.ID().Short(), ev.Stream, p, c.describe(ev))
				}
			}
		}
	}
}

// checkHonest is checkCerts and one signed template per event over the
// honest members, and at most one payout per event.
func (c *cluster) checkHonest(honest []twophase.PeerID, evs []twophase.SigningEvent) {
	c.t.Helper()
	c.checkCerts(honest)
	for _, id := range honest {
		c.checkSignedOnce(id)
	}
	for _, ev := range evs {
		if got := c.payouts(ev); got > 1 {
			c.t.Fatalf("event %s paid %d times", ev.ID().Short(), got)
		}
	}
}
