package signingsource

import (
	"context"
	"errors"
	"log/slog"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// BurnReader lists confirmed burns toward Kaspa (the withdrawals_to_kaspa
// projection, status CONFIRMED).
type BurnReader interface {
	// ConfirmedBurns lists stream's confirmed burns with a nonce above
	// afterNonce, at most limit, by nonce.
	ConfirmedBurns(ctx context.Context, stream string, afterNonce uint64, limit int) ([]domain.WithdrawalToKaspaDetected, error)
}

// ViaSource names, in the signer's EventRequested, an event its own
// indexer and confirmer found.
const ViaSource = "source"

// Handover hands every confirmed burn of its streams to the requester,
// in id order, once per process: it remembers what it handed, so a poll
// reads only past the lowest id not handed yet. A restarted process hands
// its streams over again from the start, which the requester's
// idempotence makes harmless. A hole (an id not confirmed) is not waited
// for: what is confirmed above it is handed over, and the hole is
// handed when it is confirmed. With Senders, burns are handed over in
// their senders' streams, and a hole holds back every burn above it (its
// sender, and so every later burn's nonce, is unknown until it is
// confirmed or proven).
type Handover struct {
	Streams   []string // the contracts' streams (domain.BurnStream)
	Burns     BurnReader
	Requester Requester
	// Senders, when set, numbers the burns per sender: each is handed over
	// as its sender's stream's event ([domain.BurnSenderStream]). Nil: as
	// its contract's, its id the nonce.
	Senders  *SenderNonces
	PageSize int // default 256
	Logger   *slog.Logger
	Metrics  HandoverMetrics

	progress map[string]*handed
	waiting  map[string]uint64 // the burn id each stream's numbering waits for, once said
}

// handed is what a stream had handed over: every id up to floor, and the
// ids in above.
type handed struct {
	floor uint64
	above map[uint64]bool
}

func (h *handed) has(id uint64) bool { return id <= h.floor || h.above[id] }

func (h *handed) add(id uint64) {
	h.above[id] = true
	for h.above[h.floor+1] {
		delete(h.above, h.floor+1)
		h.floor++
	}
}

// Poll hands over what was confirmed since the last poll and returns how
// many events it handed. A request that fails stops the poll; the next
// one tries it again.
func (h *Handover) Poll(ctx context.Context) (int, error) {
	n := 0
	for _, stream := range h.Streams {
		k, err := h.pollStream(ctx, stream)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (h *Handover) pollStream(ctx context.Context, stream string) (int, error) {
	if h.progress == nil {
		h.progress = map[string]*handed{}
	}
	p := h.progress[stream]
	if p == nil {
		p = &handed{floor: domain.FirstBurnID - 1, above: map[uint64]bool{}}
		h.progress[stream] = p
	}
	page := h.PageSize
	if page <= 0 {
		page = 256
	}
	log, m := h.Logger, h.Metrics
	if log == nil {
		log = slog.Default()
	}
	if m == nil {
		m = NopMetrics{}
	}
	n := 0
	for after := p.floor; ; {
		burns, err := h.Burns.ConfirmedBurns(ctx, stream, after, page)
		if err != nil {
			return n, err
		}
		for _, b := range burns {
			after = b.OnChainID
			if p.has(b.OnChainID) {
				continue
			}
			ev, err := h.event(b)
			if errors.Is(err, errUnnumbered) {
				h.holeBelow(log, stream, err)
				return n, nil
			}
			if err != nil {
				// The indexer records no such burn; one on the log was
				// written by something else. Never handed, said once.
				p.add(b.OnChainID)
				m.SourceInvalid(stream)
				log.Error("confirmed burn makes no signing event, not handed over", "stream", stream, "nonce", b.OnChainID,
					"event_source", b.Ref.Key(), "error", err)
				continue
			}
			if err := h.request(ctx, ev, b); err != nil {
				return n, err
			}
			p.add(b.OnChainID)
			n++
			m.SourceHanded(stream)
			// Debug: the signer logs the request when it is new to it; a
			// restart hands everything over again.
			log.Debug("burn toward Kaspa handed to the signer", "stream", stream, "nonce", ev.Nonce, "event_id", ev.ID().Hex(),
				"event_source", b.Ref.Key(), "block_number", b.BlockNumber, "amount_sompi", ev.Amount)
		}
		if len(burns) < page {
			return n, nil
		}
	}
}

// OriginRequester is a Requester that also takes who made the request
// (handlers/signing.Signer): a refusal certificate names the burner.
type OriginRequester interface {
	RequestFrom(ctx context.Context, ev twophase.SigningEvent, via, origin string) error
}

// request hands ev over with its burner, when the requester takes it.
func (h *Handover) request(ctx context.Context, ev twophase.SigningEvent, b domain.WithdrawalToKaspaDetected) error {
	if r, ok := h.Requester.(OriginRequester); ok {
		return r.RequestFrom(ctx, ev, ViaSource, b.Withdrawer.Hex())
	}
	return h.Requester.Request(ctx, ev, ViaSource)
}

// event is the signing event burn b makes in its stream.
func (h *Handover) event(b domain.WithdrawalToKaspaDetected) (twophase.SigningEvent, error) {
	if h.Senders == nil {
		return b.SigningEvent()
	}
	nonce, err := h.Senders.Number(b)
	if err != nil {
		return twophase.SigningEvent{}, err
	}
	return b.SenderSigningEvent(nonce)
}

// holeBelow says once per missing id that the burns above it wait.
func (h *Handover) holeBelow(log *slog.Logger, stream string, err error) {
	var u *unnumberedError
	if !errors.As(err, &u) || h.waiting[stream] == u.missing {
		return
	}
	if h.waiting == nil {
		h.waiting = map[string]uint64{}
	}
	h.waiting[stream] = u.missing
	log.Warn("burns toward Kaspa wait for a lower burn id, whose sender and so their nonces are unknown until it is confirmed or proven",
		"stream", stream, "burn_id", u.missing, "waiting", u.id)
}
