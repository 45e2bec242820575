package signing

import (
	"context"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// CertificateFunc builds the certificate (without signatures) refusing
// ev for reason; origin is the requester the source read (a burn's
// withdrawer).
type CertificateFunc func(groupID string, ev twophase.SigningEvent, origin string, reason twophase.Reason) (domain.RefusalCertificate, error)

// withRefusals fills in the certificate builder and the protocol's
// refusal subject from each other: the bytes members sign are the
// certificate's SigningBytes.
func withRefusals(cfg Config) Config {
	if cfg.Certificate == nil {
		cfg.Certificate = domain.RefusalFor
	}
	if cfg.Protocol.Refusal == nil {
		build, group := cfg.Certificate, cfg.Protocol.Group.ID().Hex()
		cfg.Protocol.Refusal = func(ev twophase.SigningEvent, origin string, reason twophase.Reason) ([]byte, bool) {
			c, err := build(group, ev, origin, reason)
			return c.SigningBytes(), err == nil
		}
	}
	return cfg
}

// RequestFrom is Request with the requester the source read (a burn's
// withdrawer), which a refusal certificate names.
func (s *Signer) RequestFrom(ctx context.Context, ev twophase.SigningEvent, via, origin string) error {
	return s.do(ctx, func(en twophase.Env) twophase.Step { return s.state.RequestFrom(ev, via, origin, en) })
}

// Refusal is a Refused event at this signer and its certificate, which
// is Complete once a quorum signed it.
type Refusal struct {
	EventID     twophase.Hash
	Event       twophase.SigningEvent
	Reason      twophase.Reason
	Detail      string
	Certificate domain.RefusalCertificate
	Complete    bool
}

// Refusals lists the signer's Refused events with their certificates.
func (s *Signer) Refusals() []Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return RefusalsOf(s.state, s.cfg.Certificate)
}

// RefusalsOf lists state's Refused events, with certificates built by
// build and carrying the signatures held (in member order).
func RefusalsOf(state *twophase.State, build CertificateFunc) []Refusal {
	if build == nil {
		build = domain.RefusalFor
	}
	cfg := state.Config()
	group := cfg.Group.ID().Hex()
	var out []Refusal
	for _, e := range state.Refusals() {
		r := Refusal{EventID: e.ID, Event: e.Event, Reason: e.Refusal.Reason, Detail: e.Refusal.Detail,
			Complete: e.Refusal.Certified}
		c, err := build(group, e.Event, e.Origin, e.Refusal.Reason)
		if err != nil {
			r.Complete = false
		}
		for _, id := range cfg.Group.IDs() {
			if sig := e.Refusal.Sigs[id]; sig != nil {
				c.Signatures = append(c.Signatures, domain.MemberSignature{Member: string(id), Signature: sig})
			}
		}
		r.Certificate = c
		out = append(out, r)
	}
	return out
}
