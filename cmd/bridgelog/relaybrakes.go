package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
)

// relayAdmin says who may act on a running relay: whoever holds the
// credential whose SHA-256 (hex) is CredentialSHA256 may pause, resume,
// hold and release; whoever holds one of PauserCredentialSHA256 may only
// pause (as a CCIP curse admin halts a lane that only the owner lifts).
// The credentials are checked as the signer's admin credential is.
type relayAdmin struct {
	CredentialSHA256       string   `json:"credentialSha256"`
	PauserCredentialSHA256 []string `json:"pauserCredentialSha256,omitempty"`
}

// relayAdminKeys are a relay's parsed credential hashes.
type relayAdminKeys struct {
	admin   []byte   // nil: no admin actions
	pausers [][]byte // may pause only
}

// adminKeys parses the admin section; none: no operator actions.
func (c relayConfig) adminKeys() (relayAdminKeys, error) {
	var k relayAdminKeys
	if c.Admin == nil {
		return k, nil
	}
	var err error
	if c.Admin.CredentialSHA256 != "" {
		if k.admin, err = parseCredentialSHA256("admin.credentialSha256", c.Admin.CredentialSHA256); err != nil {
			return k, err
		}
	}
	for _, h := range c.Admin.PauserCredentialSHA256 {
		p, err := parseCredentialSHA256("admin.pauserCredentialSha256", h)
		if err != nil {
			return k, err
		}
		k.pausers = append(k.pausers, p)
	}
	return k, nil
}

// relayGovernor is the config's mint governor: Limit (token units, a
// decimal integer) is the most minted from the deposits of one Window of
// the source chain's time; a deposit of at least LargeSize waits
// LargeDelay from its block. Durations are Go durations, default 24h.
type relayGovernor struct {
	Window     string `json:"window,omitempty"`
	Limit      string `json:"limit"`
	LargeSize  string `json:"largeSize,omitempty"`
	LargeDelay string `json:"largeDelay,omitempty"`
}

// governorPolicy parses the governor section; nil: no governor.
func (c relayConfig) governorPolicy() (*domain.GovernorPolicy, error) {
	g := c.Governor
	if g == nil {
		return nil, nil
	}
	var p domain.GovernorPolicy
	var err error
	if p.Window, err = durationOr(g.Window, domain.DefaultGovernorWindow); err != nil {
		return nil, fmt.Errorf("%w: governor.window: %w", domain.ErrGovernorConfig, err)
	}
	if p.LargeDelay, err = durationOr(g.LargeDelay, domain.DefaultLargeDelay); err != nil {
		return nil, fmt.Errorf("%w: governor.largeDelay: %w", domain.ErrGovernorConfig, err)
	}
	if g.Limit == "" {
		return nil, fmt.Errorf("%w: governor.limit is required (a positive number of token units)", domain.ErrGovernorConfig)
	}
	if p.Limit, err = domain.ParseAmount(g.Limit); err != nil {
		return nil, fmt.Errorf("%w: governor.limit %q: %w", domain.ErrGovernorConfig, g.Limit, err)
	}
	if g.LargeSize != "" {
		if p.LargeSize, err = domain.ParseAmount(g.LargeSize); err != nil || p.LargeSize.IsZero() {
			return nil, fmt.Errorf("%w: governor.largeSize %q must be a positive number of token units", domain.ErrGovernorConfig, g.LargeSize)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("governor: %w", err)
	}
	return &p, nil
}

// operatorInbox is where the operator commands leave requests for a
// running relay that holds the embedded log.
func operatorInbox(data string) string { return filepath.Join(data, "operator", "inbox") }

// wireBrakes gives the relay its pause gate, its operator inbox and, if
// configured, its mint governor, whose clock is the lock chain's time at
// the indexer's cursor.
func (b *bridge) wireBrakes(cfg relayConfig, opt bridgeOptions, gate *handlers.PauseGate, m handlers.BrakeMetrics) error {
	b.relay.Gate = gate
	if opt.operatorInbox != "" {
		b.relay.Operator = &handlers.OperatorInbox{Dir: opt.operatorInbox, Appender: b.app,
			Deposits: b.reader, Projector: b.projector, Logger: opt.logger}
	}
	policy, err := cfg.governorPolicy()
	if err != nil || policy == nil {
		return err
	}
	b.relay.Minter.Governor = &handlers.MintGovernor{Policy: *policy, Queue: b.reader, Clock: b.chainTime, Appender: b.app,
		Metrics: m, Logger: opt.logger}
	return nil
}

// errNoChainTime: the indexer has scanned nothing yet.
var errNoChainTime = errors.New("the lock chain is not scanned yet")

// chainTime is the source chain's time: the block time of the newest
// block the lock side's indexer scanned.
func (b *bridge) chainTime(ctx context.Context) (time.Time, error) {
	cur, err := b.reader.Cursor(ctx, b.client.ChainID())
	if err != nil {
		return time.Time{}, err
	}
	if !cur.Found {
		return time.Time{}, errNoChainTime
	}
	if b.clock.block == cur.ScannedTo && !b.clock.at.IsZero() {
		return b.clock.at, nil // one RPC per new block, not per round
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	at, err := b.client.BlockTime(ctx, cur.ScannedTo)
	if err == nil {
		b.clock.block, b.clock.at = cur.ScannedTo, at
	}
	return at, err
}

// chainClock is the last source-chain time read, by block.
type chainClock struct {
	block uint64
	at    time.Time
}
