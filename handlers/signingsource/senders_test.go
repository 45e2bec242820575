package signingsource

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// handedEvent is a stream and nonce the handover handed over.
type handedEvent struct {
	stream string
	nonce  uint64
}

func handedEvents(r *recorder) []handedEvent {
	var out []handedEvent
	for _, c := range r.taken() {
		out = append(out, handedEvent{c.ev.Stream, c.ev.Nonce})
	}
	return out
}

// TestHandoverSenderStreams: with Senders, each burn is handed over in
// its sender's stream, numbered by the sender's burns in id order; a
// missing id holds back every burn above it, whoever sent it, until it
// is confirmed; then they follow, numbered as if it had never been
// missing.
func TestHandoverSenderStreams(t *testing.T) {
	token, ann, ben := domain.Address{9}, domain.Address{0xa}, domain.Address{0xb}
	burns := &confirmedBurns{}
	from := func(sender domain.Address, ids ...uint64) {
		for _, id := range ids {
			burns.confirm(id)
			i := slices.IndexFunc(burns.burns, func(b domain.WithdrawalToKaspaDetected) bool { return b.OnChainID == id })
			burns.burns[i].Withdrawer = sender
		}
	}
	from(ann, 1, 3, 6)
	from(ben, 2, 5)
	req := &recorder{}
	h := &Handover{Streams: []string{domain.BurnStream(1, token)}, Burns: burns, Requester: req, Senders: NewSenderNonces(),
		PageSize: 2, Logger: quietLogger, Metrics: &counts{}}
	ctx := context.Background()
	annStream, benStream := domain.BurnSenderStream(1, token, ann), domain.BurnSenderStream(1, token, ben)
	if n, err := h.Poll(ctx); err != nil || n != 3 {
		t.Fatalf("first poll: %d handed, %v; want ids 1-3, and 5 and 6 held back by the missing 4", n, err)
	}
	from(ben, 4)
	if n, err := h.Poll(ctx); err != nil || n != 3 {
		t.Fatalf("poll after id 4 is confirmed: %d handed, %v; want 3", n, err)
	}
	want := []handedEvent{{annStream, 1}, {benStream, 1}, {annStream, 2}, {benStream, 2}, {benStream, 3}, {annStream, 3}}
	if got := handedEvents(req); !slices.Equal(got, want) {
		t.Fatalf("handed over %v, want %v", got, want)
	}
	for _, c := range req.taken() {
		if c.ev.Amount != c.ev.Source.Block-10 { // confirm's burn id i pays i sompi in block 10+i
			t.Errorf("event %s pays %d, its burn %d", c.ev.Stream, c.ev.Amount, c.ev.Source.Block-10)
		}
	}
}

// mintTo gives dev account i amount tokens.
func (r *rig) mintTo(i int, amount *big.Int) {
	r.t.Helper()
	tok := contracts.NewBridgeToken()
	auth := bind.NewKeyedTransactor(devchain.DevKey(0), big.NewInt(devchain.ChainID))
	auth.Context = r.ctx
	to := crypto.PubkeyToAddress(devchain.DevKey(i).PublicKey)
	tx, err := bind.Transact(tok.Instance(r.users.Backend, r.bridge.Token), auth, tok.PackMint(to, amount, common.Hash{byte(i), 0xee}))
	if err != nil {
		r.t.Fatal(contracts.DecodeRevert(err))
	}
	if _, err := r.chain.WaitMined(r.ctx, tx.Hash()); err != nil {
		r.t.Fatal(err)
	}
}

// burnFrom burns amount tokens of dev account i toward recipient.
func (r *rig) burnFrom(i int, amount *big.Int, recipient string) *types.Receipt {
	r.t.Helper()
	tx, err := r.users.BurnToKaspa(r.ctx, devchain.DevKey(i), amount, recipient)
	if err != nil {
		r.t.Fatal(err)
	}
	rc, err := r.chain.WaitMined(r.ctx, tx.Hash())
	if err != nil {
		r.t.Fatal(err)
	}
	return rc
}

// expectedFrom is the event a burn of dev account i makes as its nonce-th
// in its sender's stream.
func (r *rig) expectedFrom(rc *types.Receipt, i int, nonce uint64, amount *big.Int, recipient string) twophase.SigningEvent {
	ev := r.expected(rc, nonce, amount, recipient)
	ev.Stream = domain.BurnSenderStream(devchain.ChainID, r.token, domain.Address(crypto.PubkeyToAddress(devchain.DevKey(i).PublicKey)))
	return ev
}

// TestProveSenderSource: in a group of sender streams, a burn proves as
// its sender's nonce-th only once every lower burn id is known to the
// signer (confirmed or proven), so a signer that has confirmed nothing
// proves peers' events in id order; a wrong nonce or sender, or an event
// of the contract's stream, is refused. The source then hands over the
// same events.
func TestProveSenderSource(t *testing.T) {
	const depth = 2
	r := newRig(t, depth, nil)
	r.mintTo(2, tokens(10))
	a1 := r.burnFrom(1, tokens(1), alice)
	b1 := r.burnFrom(2, tokens(2), bob)
	a2 := r.burnFrom(1, tokens(3), bob)
	r.mine(depth)
	r.src = r.newSource(r.client, func(c *Config) { c.SenderStreams = true })
	evA1, evB1, evA2 := r.expectedFrom(a1, 1, 1, tokens(1), alice), r.expectedFrom(b1, 2, 1, tokens(2), bob), r.expectedFrom(a2, 1, 2, tokens(3), bob)

	if err := r.src.ProveSource(r.ctx, evB1); !errors.Is(err, ErrUnnumbered) || !errors.Is(err, ErrUnproven) {
		t.Fatalf("burn id 2 before id 1 is known: %v, want ErrUnnumbered", err)
	}
	if got := ReasonLabel(r.src.ProveSource(r.ctx, evB1)); got != "unnumbered" {
		t.Fatalf("reason label %q", got)
	}
	for _, ev := range []twophase.SigningEvent{evA1, evB1, evA2} {
		if err := r.src.ProveSource(r.ctx, ev); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
	}
	change := func(f func(*twophase.SigningEvent)) twophase.SigningEvent { e := evA2; f(&e); return e }
	for name, c := range map[string]struct {
		ev   twophase.SigningEvent
		want error
	}{
		"nonce":            {change(func(e *twophase.SigningEvent) { e.Nonce = 1 }), ErrEventMismatch},
		"another sender":   {change(func(e *twophase.SigningEvent) { e.Stream = evB1.Stream }), ErrEventMismatch},
		"contract stream":  {change(func(e *twophase.SigningEvent) { e.Stream = domain.BurnStream(devchain.ChainID, r.token) }), ErrUnwatchedStream},
		"unwatched sender": {change(func(e *twophase.SigningEvent) { e.Stream += "0" }), ErrUnwatchedStream},
	} {
		if err := r.src.ProveSource(r.ctx, c.ev); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	r.round()
	r.round()
	want := []request{{evA1, ViaSource}, {evB1, ViaSource}, {evA2, ViaSource}}
	if got := r.req.taken(); !slices.Equal(got, want) {
		t.Fatalf("handed over %+v, want %+v", got, want)
	}
}
