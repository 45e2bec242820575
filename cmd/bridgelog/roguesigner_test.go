package main

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/adapters/signermesh"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// rogueSigner is a member's keys in an attacker's hands: a mesh end on
// the member's address, with its identity, and no protocol behind it.
// It reports the first proposal of each other member, hands every
// envelope it receives to its behaviour, if it has one, and sends
// whatever envelopes the test crafts.
type rogueSigner struct {
	t      *testing.T
	id     twophase.PeerID
	cfg    twophase.Config // the member's, keys included
	mesh   *signermesh.Mesh
	opener *twophase.Opener
	seq    atomic.Uint64
	heard  chan heardProposal

	mu        sync.Mutex
	seen      map[twophase.PeerID]bool
	behaviour func(twophase.Envelope)
}

// heardProposal is a member's own proposal as the rogue received it.
type heardProposal struct {
	from twophase.PeerID
	p    twophase.Proposal
}

// rogueSession is the rogue's session number: the member never ran, so
// its peers take any as the first.
const rogueSession = 1

// startRogueSigner runs member id's mesh end in the test's process and
// waits until the other members' links to it are up.
func startRogueSigner(t *testing.T, c *signerCluster, id string) *rogueSigner {
	t.Helper()
	setup, err := loadSignerConfig(c.member(id).config)
	if err != nil {
		t.Fatal(err)
	}
	var others []twophase.PeerID
	for _, m := range c.group.members {
		if m.id != id {
			others = append(others, twophase.PeerID(m.id))
		}
	}
	r := &rogueSigner{t: t, id: twophase.PeerID(id), cfg: setup.protocol, opener: twophase.NewOpener(setup.protocol.Group, nil),
		heard: make(chan heardProposal, len(others)), seen: map[twophase.PeerID]bool{}}
	r.mesh, err = signermesh.New(signermesh.Config{Self: r.id, Identity: r.cfg.Identity, Group: r.cfg.Group,
		ListenAddr: c.member(id).listen, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.mesh.Close() })
	r.mesh.Attach(r.receive)
	deadline := time.Now().Add(30 * time.Second)
	for _, peer := range others {
		for !r.linked(peer) {
			if time.Now().After(deadline) {
				t.Fatalf("%s's link to the rogue %s did not come up: %+v", peer, id, r.mesh.Peers())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return r
}

func (r *rogueSigner) linked(peer twophase.PeerID) bool {
	for _, s := range r.mesh.Peers() {
		if s.ID == peer {
			return s.Connected
		}
	}
	return false
}

// receive keeps the first proposal each member makes in its own name
// and hands every envelope to the behaviour.
func (r *rogueSigner) receive(_ context.Context, raw []byte) {
	env, err := r.opener.Open(raw)
	if err != nil {
		return
	}
	r.mu.Lock()
	act := r.behaviour
	r.mu.Unlock()
	if act != nil {
		act(env)
	}
	if env.Kind != twophase.KindProposal {
		return
	}
	p, err := twophase.DecodeProposal(env.Payload, r.cfg.Params)
	if err != nil || p.Proposer != env.Sender {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[env.Sender] {
		return
	}
	r.seen[env.Sender] = true
	r.heard <- heardProposal{from: env.Sender, p: p}
}

// behave sets what the rogue does with every envelope it receives (on
// the mesh's goroutines: it must not block).
func (r *rogueSigner) behave(act func(twophase.Envelope)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.behaviour = act
}

// nextProposal waits for the next member's first proposal.
func (r *rogueSigner) nextProposal() heardProposal {
	r.t.Helper()
	select {
	case h := <-r.heard:
		return h
	case <-time.After(30 * time.Second):
		r.t.Fatal("no proposal reached the rogue signer")
		return heardProposal{}
	}
}

// theft is p with every output that is not change paying to instead,
// amounts kept, re-hashed, proposed by the rogue: only the check of the
// outputs can tell it from the real one.
func (r *rogueSigner) theft(p twophase.Proposal, to twophase.Script) twophase.Proposal {
	r.t.Helper()
	tm, err := twophase.DecodeTemplate(p.Template, r.cfg.Params.MaxUTXOsPerProposal, r.cfg.Params.MaxOutputsPerProposal)
	if err != nil {
		r.t.Fatal(err)
	}
	stolen := 0
	for i := range tm.Outputs {
		if !tm.Outputs[i].Script.Equal(r.cfg.Group.ChangeScript) {
			tm.Outputs[i].Script = to
			stolen++
		}
	}
	if stolen != 1 {
		r.t.Fatalf("template of %s has %d payout outputs", p.Proposer, stolen)
	}
	p.Template = tm.Encode()
	p.TemplateHash = twophase.TemplateHash(p.Template)
	p.Proposer = r.id
	return p
}

// seal signs an envelope of the rogue's own.
func (r *rogueSigner) seal(kind twophase.Kind, payload []byte) []byte {
	return r.sealAs(r.id, kind, payload)
}

// sealAs signs an envelope claiming to come from sender, with the
// rogue's key whoever the sender is.
func (r *rogueSigner) sealAs(sender twophase.PeerID, kind twophase.Kind, payload []byte) []byte {
	e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: r.opener.GroupID(), Sender: sender, Session: rogueSession,
		Seq: r.seq.Add(1), Kind: kind, Payload: payload}
	return twophase.Seal(r.cfg.Identity, &e)
}

func (r *rogueSigner) send(to twophase.PeerID, raw []byte) {
	r.t.Helper()
	if err := r.mesh.Send(context.Background(), to, raw); err != nil {
		r.t.Fatal(err)
	}
}

// thief is the address a rogue signer would pay itself.
type thief struct{ *kaspa.Wallet }

func newThief(t *testing.T) thief {
	t.Helper()
	w, err := kaspa.NewRandomWallet(kaspadtest.Network)
	if err != nil {
		t.Fatal(err)
	}
	return thief{w}
}

// checkEmpty fails the test when the thief's address holds anything.
func (th thief) checkEmpty(c *signerCluster) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := c.kaspa.session(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	defer s.Close()
	us, err := s.UTXOs(ctx, th.Address().String())
	if err != nil {
		c.t.Fatal(err)
	}
	if len(us) != 0 {
		c.t.Fatalf("the thief's address holds %d outputs", len(us))
	}
}
