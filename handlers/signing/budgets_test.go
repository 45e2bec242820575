package signing_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/memlog"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// standalone opens member id of r's group on a log of its own, off the
// bus, on a clock that stands still, checking signatures with verify.
func standalone(t *testing.T, r *rig, id twophase.PeerID, verify twophase.VerifyFunc, prover signing.SourceProver) (*signing.Signer, *[]twophase.Fact) {
	t.Helper()
	cfg := r.config(id)
	cfg.Log, cfg.Prover, cfg.Protocol.Verify = memlog.New(), prover, verify
	now := time.Now()
	cfg.Clock = func() time.Time { return now }
	cfg.Transport = r.bus.Endpoint("nobody")
	facts := &[]twophase.Fact{}
	cfg.Observe = func(_ twophase.PeerID, fs []twophase.Fact) { *facts = append(*facts, fs...) }
	s, err := signing.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, facts
}

// A link over its budget: past the burst, its envelopes are refused
// before any signature check, and recorded with the next tick against
// the link, as are the bad signatures within the budget.
func TestLinkBudgetBeforeAnyCheck(t *testing.T) {
	r := newRig(t, 3, 0)
	var checks atomic.Int64
	s, facts := standalone(t, r, "s1", func(pub ed25519.PublicKey, msg, sig []byte) bool {
		checks.Add(1)
		return ed25519.Verify(pub, msg, sig)
	}, nil)
	burst := r.params.WithDefaults().MessageBurstPerPeer
	for i := range burst + 3000 {
		e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: r.group.ID(), Sender: twophase.PeerID(fmt.Sprint("x", i)),
			Session: 1, Seq: uint64(i + 1), Kind: twophase.KindNoVote, Payload: []byte("junk")}
		raw := twophase.Seal(r.idKeys["s3"], &e)
		if err := s.DeliverFrom(context.Background(), "s3", raw); err != nil {
			t.Fatal(err)
		}
	}
	if n := checks.Load(); n != 0 {
		t.Fatalf("%d signature checks of envelopes naming no member, want 0", n)
	}
	if err := s.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := map[twophase.Reason]int{}
	for _, f := range *facts {
		if m, ok := f.(twophase.MessageRejected); ok {
			if m.Sender != "s3" {
				t.Fatalf("refusal recorded against %q, want the link s3", m.Sender)
			}
			got[m.Reason] += m.Count
		}
	}
	if got[twophase.ReasonRateLimited] != 1 || got[twophase.ReasonUnknownSender] != 1 {
		t.Fatalf("refusals recorded %v, want the first rate_limited and the first unknown_sender", got)
	}
	for i := range 100 { // named members: checked, within the budget only
		e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: r.group.ID(), Sender: "s2", Session: 1, Seq: uint64(i + 1),
			Kind: twophase.KindNoVote, Payload: []byte("junk")}
		_ = s.DeliverFrom(context.Background(), "s3", twophase.Seal(r.idKeys["s3"], &e))
	}
	if n := checks.Load(); n != 0 {
		t.Fatalf("%d signature checks past the link's budget, want 0", n)
	}
}

// blockedProver holds every proof until release.
type blockedProver struct {
	calls   atomic.Int64
	release chan struct{}
}

func (p *blockedProver) Prove(ctx context.Context, _ twophase.SigningEvent) error {
	p.calls.Add(1)
	select {
	case <-p.release:
	case <-ctx.Done():
	}
	return fmt.Errorf("no such burn")
}

// Proposals for made-up events: the proofs they start are bounded by the
// proposer's budget and the signer's slots in flight.
func TestProofLookUpsBounded(t *testing.T) {
	r := newRig(t, 3, 0)
	ev := event(0)
	r.request(ev)
	r.waitCompleted(ev, 20*time.Second)
	var base twophase.Proposal
	r.fmu.Lock()
	for _, f := range r.facts["s2"] {
		if v, ok := f.(twophase.VoteAccepted); ok && v.Own && !v.NoVote {
			env, _ := twophase.NewOpener(r.group, nil).Open(v.Envelope)
			base, _ = twophase.DecodeProposal(env.Payload, r.params.WithDefaults())
		}
	}
	r.fmu.Unlock()
	base.Proposer = "s3"
	prover := &blockedProver{release: make(chan struct{})}
	defer close(prover.release)
	s, facts := standalone(t, r, "s1", nil, prover)
	for i := range 200 {
		p := base
		p.Event.Destination = fmt.Sprint("sim:made-up-", i)
		e := twophase.Envelope{Version: twophase.ProtocolVersion, Group: r.group.ID(), Sender: "s3", Session: 1, Seq: uint64(i + 1),
			Kind: twophase.KindProposal, Payload: p.Encode()}
		_ = s.DeliverFrom(context.Background(), "s3", twophase.Seal(r.idKeys["s3"], &e))
	}
	for prover.calls.Load() < 4 {
		time.Sleep(time.Millisecond) // the proofs' goroutines start
	}
	if n := prover.calls.Load(); n != 4 {
		t.Fatalf("%d proofs in flight, want 4", n)
	}
	for _, f := range *facts {
		if _, ok := f.(twophase.VoteRejected); ok {
			t.Fatalf("a vote refusal recorded for a made-up event: %+v", f)
		}
	}
}
