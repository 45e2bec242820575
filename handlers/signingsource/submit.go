package signingsource

import (
	"context"
	"errors"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
)

// ViaRPC names, in the signer's EventRequested, an event an authenticated
// external request brought.
const ViaRPC = "rpc"

// SigningEventRequest is an external request for a signing event, as the
// signer's authenticated RPC entry point (SubmitSigningEvent) receives it.
type SigningEventRequest struct {
	Stream      string `json:"stream"`
	Nonce       uint64 `json:"nonce"`
	Destination string `json:"destination"`
	Amount      uint64 `json:"amount"` // sompi
	Source      struct {
		Chain    string `json:"chain"`
		TxHash   string `json:"txHash"` // 0x-hex
		LogIndex uint32 `json:"logIndex"`
		Block    uint64 `json:"block"`
	} `json:"source"`
}

// ErrBadRequest: an external request that is not a well-formed signing
// event.
var ErrBadRequest = errors.New("malformed signing event request")

// ParseSigningEventRequest reads req into a signing event, within the
// bounds the protocol's wire format has. What it returns on an error is
// as much as could be read (for the refusal's record).
func ParseSigningEventRequest(req SigningEventRequest) (twophase.SigningEvent, error) {
	ev := twophase.SigningEvent{Stream: req.Stream, Nonce: req.Nonce, Destination: req.Destination, Amount: req.Amount,
		Source: twophase.SourceRef{Chain: req.Source.Chain, LogIndex: req.Source.LogIndex, Block: req.Source.Block}}
	var errs []error
	tx, err := domain.ParseHash32(req.Source.TxHash)
	if err != nil {
		errs = append(errs, fmt.Errorf("source tx hash: %w", err))
	}
	ev.Source.TxHash = twophase.Hash(tx)
	for _, f := range []struct {
		name  string
		value string
		max   int
	}{{"stream", ev.Stream, twophase.MaxStreamBytes}, {"destination", ev.Destination, twophase.MaxDestinationBytes},
		{"source chain", ev.Source.Chain, twophase.MaxChainBytes}} {
		if len(f.value) == 0 || len(f.value) > f.max {
			errs = append(errs, fmt.Errorf("%s: %d bytes, want 1..%d", f.name, len(f.value), f.max))
		}
	}
	if ev.Amount == 0 {
		errs = append(errs, errors.New("amount: zero"))
	}
	if err := errors.Join(errs...); err != nil {
		return ev, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return ev, nil
}

// SubmitSigningEvent is what the signer's authenticated RPC entry point
// calls: it reads req, proves its source on the signer's own node (as a
// peer's proposal is) and hands the event to the signer (via "rpc"). A
// request refused (malformed, or unproven) is recorded on the signer's
// log (signing_request.refused) and counted; the error says why
// (ErrBadRequest, or ErrUnproven and its reason). An error reading the
// node is returned as is: nothing was decided.
func (s *Source) SubmitSigningEvent(ctx context.Context, req SigningEventRequest) (twophase.SigningEvent, error) {
	ev, err := ParseSigningEventRequest(req)
	if err == nil {
		err = s.ProveSource(ctx, ev)
	}
	if errors.Is(err, ErrBadRequest) || errors.Is(err, ErrUnproven) {
		return ev, s.refuse(ctx, ev, err)
	}
	if err != nil {
		return ev, err
	}
	return ev, s.cfg.Requester.Request(ctx, ev, ViaRPC)
}

// refuse records and counts a refused request and returns why.
func (s *Source) refuse(ctx context.Context, ev twophase.SigningEvent, why error) error {
	s.cfg.Metrics.RequestRefused(ViaRPC, ReasonLabel(why))
	s.cfg.Logger.Warn("signing event request refused", "via", ViaRPC, "stream", ev.Stream, "nonce", ev.Nonce,
		"tx_hash", ev.Source.TxHash.Hex(), "error", why.Error())
	rec := domain.SigningRequestRefused{Via: ViaRPC, Event: ev, Reason: why.Error()}
	if _, err := s.cfg.Appender.Append(ctx, handlers.Cause{}, rec); err != nil {
		return errors.Join(why, fmt.Errorf("recording the refusal: %w", err))
	}
	return why
}
