package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
)

// walletSpecs are a relay config's wallets by role: its wallets list, or
// the older plain keys (dev chains only) as specs. Every spec is named
// for messages: "relayer", "claim 0", "mint 1".
type walletSpecs struct {
	relayer     evmwallet.Spec
	claim, mint []evmwallet.Spec
}

// walletSpecs reads the config's wallets; a role given both as wallets
// and as plain keys is refused (which one would sign is not obvious).
func (c relayConfig) walletSpecs() (walletSpecs, error) {
	var w walletSpecs
	var set relayWallets
	if c.Wallets != nil {
		set = *c.Wallets
	}
	switch {
	case set.Relayer != (evmwallet.Spec{}) && c.RelayerKey != "":
		return w, fmt.Errorf("%w: give wallets.relayer or relayerKey, not both", ErrConfig)
	case set.Relayer != (evmwallet.Spec{}):
		w.relayer = set.Relayer
	case c.RelayerKey != "":
		w.relayer = evmwallet.Spec{Key: c.RelayerKey}
	default:
		return w, fmt.Errorf("%w: a relayer wallet is required (wallets.relayer; relayerKey on a dev chain)", ErrConfig)
	}
	w.relayer.Name = "relayer"
	if w.relayer.Retiring {
		return w, fmt.Errorf("%w: wallet relayer: only claim and mint wallets can be retired", ErrConfig)
	}
	var err error
	if w.claim, err = roleSpecs("claim", set.Claim, c.ClaimKeys); err != nil {
		return w, err
	}
	w.mint, err = roleSpecs("mint", set.Mint, c.MintKeys)
	return w, err
}

func roleSpecs(role string, specs []evmwallet.Spec, keys []string) ([]evmwallet.Spec, error) {
	if len(specs) > 0 && len(keys) > 0 {
		return nil, fmt.Errorf("%w: give wallets.%s or %sKeys, not both", ErrConfig, role, role)
	}
	out := slices.Clone(specs)
	for _, k := range keys {
		out = append(out, evmwallet.Spec{Key: k})
	}
	for i := range out {
		out[i].Name = fmt.Sprintf("%s %d", role, i)
	}
	return out, nil
}

// check refuses what Open would refuse before any file or signer is
// read: a spec with no key source or two, a plain key off a dev chain.
func (w walletSpecs) check(opt evmwallet.Options) error {
	for _, s := range append(append([]evmwallet.Spec{w.relayer}, w.claim...), w.mint...) {
		if err := s.Check(opt); err != nil {
			return err
		}
	}
	return nil
}

// walletOpener unlocks each wallet once: an address named by two roles
// (a claim wallet that mints too) is one signer.
type walletOpener struct {
	opt    evmwallet.Options
	byAddr map[domain.Address]evmwallet.TxSigner
}

func (o *walletOpener) open(ctx context.Context, spec evmwallet.Spec) (evmwallet.TxSigner, error) {
	if s, ok := o.byAddr[spec.Address]; ok && spec.Address != (domain.Address{}) {
		return s, nil
	}
	s, err := evmwallet.Open(ctx, spec, o.opt)
	if err != nil {
		return nil, err
	}
	if known, ok := o.byAddr[s.Address()]; ok {
		return known, nil
	}
	if o.byAddr == nil {
		o.byAddr = map[domain.Address]evmwallet.TxSigner{}
	}
	o.byAddr[s.Address()] = s
	return s, nil
}

// newRetirer follows the retiring wallets until each has nothing in
// flight (nil when none is retiring). A retiring address must not also
// serve an active role: its driver would keep taking new requests.
func newRetirer(b *bridge, app *handlers.Appender, opt bridgeOptions, retiring, active []*handlers.TxDriver) (*handlers.WalletRetirer, error) {
	if len(retiring) == 0 {
		return nil, nil
	}
	var ds []*handlers.TxDriver
	for _, d := range retiring {
		if slices.Contains(active, d) {
			return nil, fmt.Errorf("%w: wallet %s is retiring and active in another role", ErrConfig, d.Chain.From().Hex())
		}
		if !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	return &handlers.WalletRetirer{Wallets: ds, Intents: b.reader, Appender: app, Logger: opt.logger}, nil
}

func (b *bridge) executorDrivers() []*handlers.TxDriver {
	out := make([]*handlers.TxDriver, len(b.executors))
	for i, x := range b.executors {
		out[i] = x.Driver
	}
	return out
}
