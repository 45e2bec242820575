package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
)

// relaySigners is the relay config's optional signers section: the
// signing group whose refusal certificates the relay refunds, and where
// to learn them.
type relaySigners struct {
	// Group is a signer config of the group (any member's): only its
	// group section is read, public keys only, to derive the group id,
	// the members' identity keys and the quorum.
	Group string `json:"group"`
	// Endpoints are the signers' HTTP addresses (http://host:port),
	// asked GET /refusals every pollInterval.
	Endpoints []string `json:"endpoints,omitempty"`
	// Timeout bounds each request (Go duration, default 5s).
	Timeout string `json:"timeout,omitempty"`
}

// ErrRefundConfig: a signers section that cannot be used.
var ErrRefundConfig = errors.New("invalid signers section")

// refusalGroup loads the group of s.Group (relative to dir) from its
// public keys.
func (s *relaySigners) refusalGroup(dir string) (handlers.RefusalGroup, error) {
	if s.Group == "" {
		return handlers.RefusalGroup{}, fmt.Errorf("%w: signers.group is required", ErrRefundConfig)
	}
	path := resolvePath(dir, s.Group)
	c, err := readSignerConfig(path)
	if err != nil {
		return handlers.RefusalGroup{}, fmt.Errorf("%w: signers.group: %w", ErrRefundConfig, err)
	}
	l, err := c.Group.publicLedger(twophase.PeerID(c.Self))
	if err != nil {
		return handlers.RefusalGroup{}, fmt.Errorf("%w: signers.group %s: %w", ErrRefundConfig, path, err)
	}
	return groupOfRefusals(l.group), nil
}

// groupOfRefusals is what verifying a group's certificates needs of it.
func groupOfRefusals(g twophase.Group) handlers.RefusalGroup {
	keys := make(map[string]ed25519.PublicKey, len(g.Members))
	for _, m := range g.Members {
		keys[string(m.ID)] = ed25519.PublicKey(m.IdentityKey)
	}
	return handlers.RefusalGroup{ID: g.ID().Hex(), Keys: keys, Quorum: g.Quorum}
}

// sources are the endpoints to poll and the relay's inbox (if any).
func (s *relaySigners) sources(inbox string) ([]handlers.CertificateSource, error) {
	timeout, err := durationOr(s.Timeout, 5*time.Second)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: timeout}
	var out []handlers.CertificateSource
	if inbox != "" {
		out = append(out, handlers.InboxDir{Dir: inbox})
	}
	for _, e := range s.Endpoints {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: signers.endpoints: %q is not http://host:port", ErrRefundConfig, e)
		}
		out = append(out, handlers.HTTPRefusals{Base: e, Client: client, Timeout: timeout})
	}
	return out, nil
}

// refundInbox is where `bridgelog refund` leaves certificates for a
// running relay that holds the log.
func refundInbox(data string) string { return filepath.Join(data, "refunds", "inbox") }

// wireRefunds gives the relay its refund intake and refunder when the
// config has a signers section: refunds mint with the relayer's wallet
// on the token's chain.
func (b *bridge) wireRefunds(cfg relayConfig, calls *evmchain.Calls, driver *handlers.TxDriver, opt bridgeOptions) error {
	if cfg.Signers == nil {
		return nil
	}
	group, err := cfg.Signers.refusalGroup(cfg.dir)
	if err != nil {
		return err
	}
	sources, err := cfg.Signers.sources(opt.inbox)
	if err != nil {
		return err
	}
	if opt.signersUp != nil {
		for i, src := range sources {
			if _, ok := src.(handlers.HTTPRefusals); ok {
				sources[i] = awaitedSource{up: opt.signersUp, CertificateSource: src}
			}
		}
	}
	m, _ := opt.metrics.(handlers.RefundMetrics)
	b.relay.Refunds = &handlers.RefundIntake{Group: group, Token: cfg.Token, Sources: sources, Appender: b.app,
		Known: b.reader, Metrics: m, Logger: opt.logger}
	b.relay.Refunder = &handlers.Refunder{Queue: b.reader, Calls: calls, Driver: driver, Metrics: m, Logger: opt.logger}
	return nil
}

// awaitedSource is a signer endpoint not asked before up reports the
// signers serving: a relay started before its signers would otherwise
// record its refund intake failing until they are.
type awaitedSource struct {
	up func() bool
	handlers.CertificateSource
}

func (a awaitedSource) Certificates(ctx context.Context) ([]handlers.LearnedCertificate, error) {
	if !a.up() {
		return nil, nil
	}
	return a.CertificateSource.Certificates(ctx)
}

// refundIntakeOf is the intake `bridgelog refund` verifies with.
func refundIntakeOf(_ context.Context, cfg relayConfig) (*handlers.RefundIntake, error) {
	if cfg.Signers == nil {
		return nil, fmt.Errorf("%w: the relay config has no signers section: name the signing group whose certificates to trust",
			ErrRefundConfig)
	}
	group, err := cfg.Signers.refusalGroup(cfg.dir)
	if err != nil {
		return nil, err
	}
	return &handlers.RefundIntake{Group: group, Token: cfg.Token}, nil
}
