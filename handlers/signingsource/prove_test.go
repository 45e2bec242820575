package signingsource

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// failedReceipts reports every receipt as reverted.
type failedReceipts struct{ ProofChain }

func (c failedReceipts) Receipt(ctx context.Context, tx domain.Hash32) (*types.Receipt, error) {
	rc, err := c.ProofChain.Receipt(ctx, tx)
	if rc != nil {
		cp := *rc
		cp.Status = types.ReceiptStatusFailed
		rc = &cp
	}
	return rc, err
}

// forkedNode has replaced every block: its receipts still name the old
// ones (a node that has not re-indexed yet).
type forkedNode struct{ ProofChain }

func (forkedNode) HashAt(context.Context, uint64) (domain.Hash32, error) {
	return domain.Hash32{0xf0}, nil
}

// TestProveSource: a real burn, depth deep, proves; each way an event can
// differ from what the signer's own node holds is refused with its own
// error.
func TestProveSource(t *testing.T) {
	const depth = 3
	r := newRig(t, depth, nil)
	other, err := r.chain.Deploy(r.ctx, devchain.DevKey(0))
	if err != nil {
		t.Fatal(err)
	}
	watched := []domain.Address{r.token, domain.Address(other.Token)}
	dec := evmchain.NewDecoder(devchain.ChainID, evmchain.Contracts{Token: r.token})
	rc := r.burn(tokens(3), alice)
	ev := r.expected(rc, 1, tokens(3), alice)

	if err := ProveSource(r.ctx, r.client, dec, watched, ev, depth); !errors.Is(err, ErrNotDeep) || !errors.Is(err, ErrUnproven) {
		t.Fatalf("a burn %d blocks deep proved %v, want ErrNotDeep", r.tipNumber()-rc.BlockNumber.Uint64(), err)
	}
	r.mine(depth)
	if err := ProveSource(r.ctx, r.client, dec, watched, ev, depth); err != nil {
		t.Fatalf("a real burn, depth deep: %v", err)
	}

	change := func(f func(*twophase.SigningEvent)) twophase.SigningEvent { e := ev; f(&e); return e }
	cases := []struct {
		name  string
		ev    twophase.SigningEvent
		chain ProofChain
		want  error
	}{
		{"amount", change(func(e *twophase.SigningEvent) { e.Amount++ }), r.client, ErrEventMismatch},
		{"recipient", change(func(e *twophase.SigningEvent) { e.Destination = bob }), r.client, ErrEventMismatch},
		{"nonce", change(func(e *twophase.SigningEvent) { e.Nonce = 2 }), r.client, ErrEventMismatch},
		{"block", change(func(e *twophase.SigningEvent) { e.Source.Block-- }), r.client, ErrEventMismatch},
		{"another watched contract", change(func(e *twophase.SigningEvent) { e.Stream = domain.BurnStream(devchain.ChainID, watched[1]) }),
			r.client, ErrWrongContract},
		{"unwatched contract", change(func(e *twophase.SigningEvent) {
			e.Stream = domain.BurnStream(devchain.ChainID, domain.Address(r.bridge.Distributor))
		}), r.client, ErrUnwatchedStream},
		{"not a stream", change(func(e *twophase.SigningEvent) { e.Stream = "kaspa-payouts" }), r.client, ErrUnwatchedStream},
		{"other chain in the stream", change(func(e *twophase.SigningEvent) { e.Stream = domain.BurnStream(1, r.token) }), r.client, ErrWrongChain},
		{"other source chain", change(func(e *twophase.SigningEvent) { e.Source.Chain = "evm:1" }), r.client, ErrWrongChain},
		{"missing receipt", change(func(e *twophase.SigningEvent) { e.Source.TxHash = twophase.Hash{0xde, 0xad} }), r.client, ErrNoReceipt},
		{"log index past the receipt's", change(func(e *twophase.SigningEvent) { e.Source.LogIndex += 5 }), r.client, ErrNoLog},
		{"the burn's Transfer log", change(func(e *twophase.SigningEvent) { e.Source.LogIndex-- }), r.client, ErrNotABurn},
		{"reverted transaction", ev, failedReceipts{r.client}, ErrTxFailed},
		{"block replaced", ev, forkedNode{r.client}, ErrNotCanonical},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ProveSource(r.ctx, c.chain, dec, watched, c.ev, depth)
			if !errors.Is(err, c.want) || !errors.Is(err, ErrUnproven) {
				t.Fatalf("proved %v, want %v", err, c.want)
			}
		})
	}
}

// TestSubmitSigningEvent: a request for a real burn is proven and handed
// to the signer via "rpc"; a malformed or unproven one is refused with
// its reason, recorded on the signer's log and counted, and never handed.
func TestSubmitSigningEvent(t *testing.T) {
	const depth = 2
	r := newRig(t, depth, nil)
	rc := r.burn(tokens(4), bob)
	r.mine(depth)
	ev := r.expected(rc, 1, tokens(4), bob)
	req := SigningEventRequest{Stream: ev.Stream, Nonce: ev.Nonce, Destination: ev.Destination, Amount: ev.Amount}
	req.Source.Chain, req.Source.TxHash, req.Source.LogIndex, req.Source.Block = ev.Source.Chain, ev.Source.TxHash.Hex(), ev.Source.LogIndex, ev.Source.Block

	got, err := r.src.SubmitSigningEvent(r.ctx, req)
	if err != nil || got != ev {
		t.Fatalf("submit: %+v, %v; want %+v", got, err, ev)
	}
	if calls := r.req.taken(); len(calls) != 1 || calls[0] != (request{ev, ViaRPC}) {
		t.Fatalf("handed %+v, want the event via rpc", calls)
	}

	malformed := req
	malformed.Source.TxHash = "0x12"
	if _, err := r.src.SubmitSigningEvent(r.ctx, malformed); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("malformed tx hash: %v, want ErrBadRequest", err)
	}
	empty := req
	empty.Destination, empty.Amount = "", 0
	if _, err := r.src.SubmitSigningEvent(r.ctx, empty); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("empty destination and amount: %v, want ErrBadRequest", err)
	}
	inflated := req
	inflated.Amount *= 10
	if _, err := r.src.SubmitSigningEvent(r.ctx, inflated); !errors.Is(err, ErrEventMismatch) {
		t.Fatalf("inflated amount: %v, want ErrEventMismatch", err)
	}
	if calls := r.req.taken(); len(calls) != 1 {
		t.Fatalf("refused requests were handed over: %+v", calls)
	}
	refused := r.events(topics.TopicChain, domain.TypeSigningRequestRefused)
	if len(refused) != 3 {
		t.Fatalf("%d refusals on the log, want 3: %+v", len(refused), refused)
	}
	if e := refused[len(refused)-1].(*domain.SigningRequestRefused); e.Via != ViaRPC || e.Event.Amount != inflated.Amount {
		t.Fatalf("refusal recorded as %+v", e)
	}
	if r.metrics.get("signing_requests_refused_total/malformed") != 2 || r.metrics.get("signing_requests_refused_total/event_mismatch") != 1 {
		t.Fatalf("refusals counted %v", r.metrics.n)
	}
}
