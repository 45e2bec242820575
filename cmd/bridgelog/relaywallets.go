package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
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

// walletDrivers hands out one transaction driver per wallet and chain: a
// wallet's nonces must never be handed out by two drivers (executors fall
// back to the relayer's wallet, an address may serve several roles).
type walletDrivers struct {
	wallets walletOpener
	new     func(w evmwallet.TxSigner, on *evmchain.Client) *handlers.TxDriver
	byID    map[string]*handlers.TxDriver
}

// on is the driver of spec's wallet on chain c.
func (w *walletDrivers) on(ctx context.Context, spec evmwallet.Spec, c *evmchain.Client) (*handlers.TxDriver, error) {
	s, err := w.wallets.open(ctx, spec)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%d/%s", c.ChainID(), s.Address().Hex())
	if d, ok := w.byID[id]; ok {
		return d, nil
	}
	if w.byID == nil {
		w.byID = map[string]*handlers.TxDriver{}
	}
	d := w.new(s, c)
	w.byID[id] = d
	return d, nil
}

// all returns the drivers of specs on chain c, each once.
func (w *walletDrivers) all(ctx context.Context, specs []evmwallet.Spec, c *evmchain.Client) ([]*handlers.TxDriver, error) {
	var out []*handlers.TxDriver
	for _, spec := range specs {
		d, err := w.on(ctx, spec, c)
		if err != nil {
			return nil, err
		}
		out = appendNew(out, d)
	}
	return out, nil
}

// loopDrivers are the relay loop's drivers: the relayer's (anchors), the
// relayer wallet's on the execution side (mints; on one chain the same
// driver), the other mint wallets' and the retiring mint wallets'.
type loopDrivers struct {
	relayer, mint          *handlers.TxDriver
	mintPool, retiringMint []*handlers.TxDriver
}

func (w *walletDrivers) loop(ctx context.Context, specs walletSpecs, lock, exec *evmchain.Client) (loopDrivers, error) {
	var ld loopDrivers
	var err error
	if ld.relayer, err = w.on(ctx, specs.relayer, lock); err != nil {
		return ld, err
	}
	if ld.mint, err = w.on(ctx, specs.relayer, exec); err != nil {
		return ld, err
	}
	if ld.mintPool, err = w.all(ctx, retiringOr(specs.mint, false), exec); err != nil {
		return ld, err
	}
	ld.mintPool = slices.DeleteFunc(ld.mintPool, func(d *handlers.TxDriver) bool { return d == ld.mint })
	ld.retiringMint, err = w.all(ctx, retiringOr(specs.mint, true), exec)
	return ld, err
}

// retiringOr are the specs whose retiring mark is retiring.
func retiringOr(specs []evmwallet.Spec, retiring bool) []evmwallet.Spec {
	return slices.DeleteFunc(slices.Clone(specs), func(s evmwallet.Spec) bool { return s.Retiring != retiring })
}

func appendNew[T comparable](s []T, vs ...T) []T {
	for _, v := range vs {
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// newRetirer follows the retiring wallets until each has nothing in
// flight (nil when none is retiring). A retiring address must not also
// serve an active role: its driver would keep taking new requests.
func newRetirer(b *bridge, app *handlers.Appender, opt bridgeOptions, retiring, active []*handlers.TxDriver) (*handlers.WalletRetirer, error) {
	if len(retiring) == 0 {
		return nil, nil
	}
	for _, d := range retiring {
		if slices.Contains(active, d) {
			return nil, fmt.Errorf("%w: wallet %s is retiring and active in another role", ErrConfig, d.Chain.From().Hex())
		}
	}
	return &handlers.WalletRetirer{Wallets: appendNew(nil, retiring...), Intents: b.reader, Appender: app, Logger: opt.logger}, nil
}

func (b *bridge) executorDrivers() []*handlers.TxDriver {
	out := make([]*handlers.TxDriver, len(b.executors))
	for i, x := range b.executors {
		out[i] = x.Driver
	}
	return out
}
