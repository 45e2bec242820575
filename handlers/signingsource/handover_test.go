package signingsource

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// confirmedBurns is a BurnReader over a fixed set of confirmed burns of
// one stream.
type confirmedBurns struct {
	burns []domain.WithdrawalToKaspaDetected
	reads int
}

func (c *confirmedBurns) ConfirmedBurns(_ context.Context, _ string, after uint64, limit int) ([]domain.WithdrawalToKaspaDetected, error) {
	c.reads++
	var out []domain.WithdrawalToKaspaDetected
	for _, b := range c.burns {
		if b.OnChainID > after && len(out) < limit {
			out = append(out, b)
		}
	}
	return out, nil
}

func (c *confirmedBurns) confirm(ids ...uint64) {
	for _, id := range ids {
		c.burns = append(c.burns, domain.WithdrawalToKaspaDetected{Ref: domain.LogRef{ChainID: 1, TxHash: domain.Hash32{byte(id)}},
			Contract: domain.Address{9}, BlockNumber: 10 + id, OnChainID: id, Amount: domain.AmountFromUint64(id * domain.WeiPerSompi),
			Recipient: alice})
	}
	slices.SortFunc(c.burns, func(a, b domain.WithdrawalToKaspaDetected) int { return int(a.OnChainID) - int(b.OnChainID) })
}

// flakyRequester fails the request of one nonce once.
type flakyRequester struct {
	recorder
	failOn uint64
}

var errStopped = errors.New("signer stopped")

func (f *flakyRequester) Request(ctx context.Context, ev twophase.SigningEvent, via string) error {
	if ev.Nonce == f.failOn {
		f.failOn = 0
		return errStopped
	}
	return f.recorder.Request(ctx, ev, via)
}

// TestHandoverPagesHolesAndFailures: every confirmed burn is handed over
// once, in id order, across pages; a hole is skipped and handed when it
// is confirmed; a request that fails stops the poll and is made again on
// the next; a burn that makes no signing event is never handed, and
// counted.
func TestHandoverPagesHolesAndFailures(t *testing.T) {
	burns := &confirmedBurns{}
	burns.confirm(1, 2, 4, 5, 6, 7)
	req := &flakyRequester{failOn: 5}
	m := &counts{}
	h := &Handover{Streams: []string{domain.BurnStream(1, domain.Address{9})}, Burns: burns, Requester: req, PageSize: 2,
		Logger: quietLogger, Metrics: m}
	ctx := context.Background()

	if n, err := h.Poll(ctx); !errors.Is(err, errStopped) || n != 3 {
		t.Fatalf("first poll: %d handed, %v; want 3 and the requester's error", n, err)
	}
	if n, err := h.Poll(ctx); err != nil || n != 3 {
		t.Fatalf("second poll: %d handed, %v; want 3", n, err)
	}
	if n, err := h.Poll(ctx); err != nil || n != 0 {
		t.Fatalf("third poll: %d handed, %v; want none", n, err)
	}
	burns.confirm(3)
	invalid := domain.WithdrawalToKaspaDetected{OnChainID: 8, Amount: domain.AmountFromUint64(1), Recipient: alice}
	burns.burns = append(burns.burns, invalid)
	if n, err := h.Poll(ctx); err != nil || n != 1 {
		t.Fatalf("poll after the hole filled: %d handed, %v; want 1", n, err)
	}
	if got, want := req.nonces(), []uint64{1, 2, 4, 5, 6, 7, 3}; !slices.Equal(got, want) {
		t.Fatalf("handed over nonces %v, want %v", got, want)
	}
	if got := m.get("signing_source_invalid_total/"); got != 1 {
		t.Fatalf("invalid burns counted %d, want 1", got)
	}
	// Everything up to 8 is handed: a poll reads past it only.
	burns.reads = 0
	if n, err := h.Poll(ctx); err != nil || n != 0 || burns.reads != 1 {
		t.Fatalf("idle poll: %d handed, %v, %d reads; want none in one read", n, err, burns.reads)
	}
}

// originRecorder takes events with their burner.
type originRecorder struct {
	recorder
	origins map[uint64]string
}

func (o *originRecorder) RequestFrom(ctx context.Context, ev twophase.SigningEvent, via, origin string) error {
	if o.origins == nil {
		o.origins = map[uint64]string{}
	}
	o.origins[ev.Nonce] = origin
	return o.recorder.Request(ctx, ev, via)
}

// TestHandoverNamesTheBurner: a requester that takes the burner gets
// each burn's withdrawer, which a refusal certificate names (a Profile A
// stream is the contract's, so the event alone does not say who burned).
func TestHandoverNamesTheBurner(t *testing.T) {
	burns := &confirmedBurns{}
	burns.confirm(1, 2)
	burns.burns[1].Withdrawer = domain.Address{7}
	req := &originRecorder{}
	h := &Handover{Streams: []string{domain.BurnStream(1, domain.Address{9})}, Burns: burns, Requester: req,
		Logger: quietLogger, Metrics: &counts{}}
	if n, err := h.Poll(context.Background()); err != nil || n != 2 {
		t.Fatalf("poll: %d, %v", n, err)
	}
	if got, want := req.origins[2], (domain.Address{7}).Hex(); got != want {
		t.Fatalf("burner of burn 2: %q, want %q", got, want)
	}
	ev, _ := burns.burns[1].SigningEvent()
	c, err := domain.RefusalFor("g", ev, req.origins[2], twophase.RefusedBelowMinimum)
	if err != nil || c.Burner != (domain.Address{7}) || c.Token != (domain.Address{9}) || c.Burn != burns.burns[1].Ref ||
		c.Amount.Cmp(burns.burns[1].Amount) != 0 {
		t.Fatalf("certificate %+v, %v: want the burn's token, burner, log and wei", c, err)
	}
}
