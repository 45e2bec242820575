package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/adapters/signermesh"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/handlers/signingsource"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// signerRunFlags are `bridgelog signer`'s own.
var signerRunFlags struct{ config string }

func init() {
	signerCmd.Flags().StringVar(&signerRunFlags.config, "config", "", "run the signer this config (JSON) describes")
	signerCmd.Args = cobra.NoArgs
	signerCmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if signerRunFlags.config == "" {
			return cmd.Help()
		}
		if err := signerDataFlagsUnset(cmd); err != nil {
			return err
		}
		setup, err := loadSignerConfig(signerRunFlags.config)
		if err != nil {
			return err
		}
		return runSigner(cmd.Context(), setup)
	}
}

// Node names in the step health events and metrics of a signer.
const (
	stepKaspaNode = "kaspa_node"
	stepEVMNode   = "evm_node"
)

// signerSettings are what a running signer reads of its config, checked
// and with their defaults.
type signerSettings struct {
	listen string
	peers  map[twophase.PeerID]string
	http   string

	node                    string
	nodeTimeout, stallAfter time.Duration
	nodePoll                time.Duration
	address                 string // the group's multisig address
	chain                   signerChain
	chainPoll               time.Duration
}

// settings checks the parts of the config only a running signer needs: a
// Kaspa group (a "sim" group runs in `bridgelog simulate` only), where it
// listens, peers that are members, its two nodes.
func (s *signerSetup) settings() (signerSettings, error) {
	bad := func(format string, a ...any) (signerSettings, error) {
		return signerSettings{}, fmt.Errorf("%w: %s: %s", ErrSignerConfig, s.path, fmt.Sprintf(format, a...))
	}
	rules, ok := s.rules.(*kaspa.Rules)
	if !ok {
		return bad("group.network %q: a signer process pays on a Kaspa network; a %q group runs in `bridgelog simulate`",
			s.protocol.Group.Network, networkSim)
	}
	n := s.net
	out := signerSettings{listen: n.Listen, http: n.HTTP, peers: map[twophase.PeerID]string{}, address: rules.Address().String()}
	if n.Listen == "" {
		return bad("listen is required: the host:port this signer's peers dial")
	}
	for id, addr := range n.Peers {
		if _, ok := s.protocol.Group.Member(twophase.PeerID(id)); !ok {
			return bad("peers: %q is not a member of the group %v", id, s.protocol.Group.IDs())
		}
		if twophase.PeerID(id) == s.protocol.Self {
			return bad("peers: %q is this signer", id)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return bad("peers.%s: %v", id, err)
		}
		out.peers[twophase.PeerID(id)] = addr
	}
	if n.Kaspad == nil || n.Kaspad.RPC == "" {
		return bad("kaspad.rpc is required: the host:port of this signer's own Kaspa node")
	}
	out.node = n.Kaspad.RPC
	var err error
	for _, d := range []struct {
		name string
		v    string
		def  time.Duration
		into *time.Duration
	}{
		{"kaspad.timeout", n.Kaspad.Timeout, 10 * time.Second, &out.nodeTimeout},
		{"kaspad.stallAfter", n.Kaspad.StallAfter, time.Minute, &out.stallAfter},
		{"kaspad.poll", n.Kaspad.Poll, time.Second, &out.nodePoll},
	} {
		if *d.into, err = durationOr(d.v, d.def); err != nil || *d.into < 0 {
			return bad("%s %q: want a duration such as 10s", d.name, d.v)
		}
	}
	if out.nodeTimeout == 0 || out.nodePoll == 0 {
		return bad("kaspad.timeout and kaspad.poll must be positive")
	}
	if n.EVM == nil || n.EVM.RPC == "" || n.EVM.ChainID == 0 || n.EVM.Token == (domain.Address{}) {
		return bad("evm.rpc, evm.chainId and evm.token are required: this signer's own EVM node and the token whose burns it pays")
	}
	out.chain = *n.EVM
	if out.chain.Confirmations == 0 {
		out.chain.Confirmations = domain.DefaultConfirmationDepth
	}
	if out.chainPoll, err = durationOr(n.EVM.Poll, 200*time.Millisecond); err != nil || out.chainPoll <= 0 {
		return bad("evm.poll %q: want a positive duration", n.EVM.Poll)
	}
	return out, nil
}

// signerProcess is one running signer: its log and store, its view of
// both chains, its links to its peers, and the protocol between them.
type signerProcess struct {
	setup  *signerSetup
	set    signerSettings
	reg    *metrics.Registry
	logger *slog.Logger

	log       *embeddedlog.Log
	store     projections.Store
	projector *runnerProjector
	app       *handlers.Appender
	health    *handlers.StepHealth
	ledger    *signing.WatchedLedger
	evm       *evmNode
	mesh      *signermesh.Mesh
	source    *signingsource.Source
	signer    *signing.Signer

	nodeClient chan *kaspanode.Client // the connected node, once, for close
}

// runSigner runs the signer until ctx ends or it cannot go on.
func runSigner(ctx context.Context, setup *signerSetup) error {
	set, err := setup.settings()
	if err != nil {
		return err
	}
	p := &signerProcess{setup: setup, set: set, reg: metrics.New(), logger: slog.Default(),
		nodeClient: make(chan *kaspanode.Client, 1)}
	defer p.close()
	if err := p.open(ctx); err != nil {
		return err
	}
	return p.run(ctx)
}

// open opens the signer's data and its mesh; it dials neither node. run
// connects both in the background, so that a signer whose nodes are
// down still serves /healthz, /metrics, status and the console, and
// keeps its links, while it signs nothing.
func (p *signerProcess) open(ctx context.Context) error {
	s, self := p.setup, p.setup.protocol.Self
	ownerfs.WarnShared(p.logger, "signer data directory", s.data)
	ownerfs.WarnShared(p.logger, "signer data directory", s.logDir())
	if err := os.MkdirAll(s.data, ownerfs.DirMode); err != nil {
		return fmt.Errorf("signer data directory: %w", err)
	}
	lg, err := embeddedlog.Open(s.logDir(), embeddedlog.WithContext(ctx), embeddedlog.WithLogger(p.logger),
		embeddedlog.WithMetrics(p.reg.EmbeddedLog()))
	if errors.Is(err, embeddedlog.ErrLocked) {
		return fmt.Errorf("%w: another process (signer %s already running, or a bridgelog command) has %s open", err, self, s.logDir())
	}
	if err != nil {
		return fmt.Errorf("open the signer's log %s: %w", s.logDir(), err)
	}
	p.log = lg
	if p.store, err = sqlstore.OpenSQLite(ctx, s.storePath()); err != nil {
		return fmt.Errorf("open the signer's store %s: %w", s.storePath(), err)
	}
	runner, err := projections.NewRunner(ctx, lg, p.store, signerProcessProjections(),
		runnerOptions(projections.WithLogger(p.logger), projections.WithMetrics(p.reg.Projections()))...)
	if err != nil {
		return err
	}
	p.projector = &runnerProjector{r: runner}
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	p.app = app
	p.health = &handlers.StepHealth{Appender: app, Logger: p.logger, Metrics: p.reg.Handlers()}
	p.ledger = &signing.WatchedLedger{Health: p.health, Step: stepKaspaNode, StallAfter: p.set.stallAfter}
	p.evm = newEVMNode(p.set.chain, p.health, p.reg.EVMNode().Up)
	p.mesh, err = signermesh.New(signermesh.Config{Self: self, Identity: s.protocol.Identity, Group: s.protocol.Group,
		ListenAddr: p.set.listen, Peers: p.set.peers, Metrics: p.reg.Mesh(), Logger: p.logger})
	if err != nil {
		return err
	}
	req := &lateRequester{}
	c := p.set.chain
	// A Profile B group runs one event per stream at a time, so its
	// streams are the seed's per sender (concurrent across senders); a
	// Profile A group pays one event at a time anyway and keeps one stream
	// per contract, the ids of the events its log already holds.
	p.source, err = signingsource.New(signingsource.Config{Chain: p.evm,
		Decoder:       evmchain.NewDecoder(c.ChainID, evmchain.Contracts{Token: c.Token}),
		SenderStreams: s.protocol.Group.Profile == twophase.ProfileB,
		Contracts:     []domain.Address{c.Token}, StartBlock: c.StartBlock, Depth: c.Confirmations, Appender: app,
		Reader: projections.BridgeReader{Store: p.store}, Projector: p.projector, Requester: req, Interval: p.set.chainPoll,
		Logger: p.logger, Metrics: p.reg.Handlers()})
	if err != nil {
		return err
	}
	p.signer, err = signing.Open(ctx, signing.Config{Protocol: s.protocol, Log: lg, Transport: p.mesh, Ledger: p.ledger,
		Metrics: p.reg.Signer(string(self)), Logger: p.logger, LedgerTimeout: p.set.nodeTimeout,
		Prover: proverFunc(p.proveSource)})
	if err != nil {
		return fmt.Errorf("start signer %s: %w", self, err)
	}
	req.signer = p.signer
	p.mesh.Attach(func(ctx context.Context, raw []byte) {
		// The link's member, never the name the bytes claim, answers for
		// what they cost: its budget, its refusals.
		link, ok := signermesh.PeerFromContext(ctx)
		if !ok {
			p.logger.Error("mesh delivered an envelope without its link", "signer", self)
			return
		}
		if err := p.signer.DeliverFrom(ctx, link, raw); err != nil {
			p.logger.Debug("delivery failed", "signer", self, "err", err)
		}
	})
	return nil
}

// signerProcessProjections are a signer's tables: its signing state and
// the burns its source confirmed.
func signerProcessProjections() []projections.Projection {
	return append(projections.SignerProjections(), projections.BurnSourceProjections()...)
}

// storePath is the signer's SQLite store.
func (s *signerSetup) storePath() string { return filepath.Join(s.data, "projections.db") }

// run runs the signer's loops until ctx ends or one fails.
func (p *signerProcess) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loops := []func(context.Context) error{p.connectNode, p.evm.connect, p.tick, p.followLedger, p.runSource}
	if p.set.http != "" {
		loops = append(loops, p.serveHTTP)
	}
	errc := make(chan error, len(loops))
	for _, loop := range loops {
		go func() { errc <- loop(ctx) }()
	}
	self := p.setup.protocol.Self
	p.logger.Info("signer running", "signer", self, "group", p.setup.protocol.Group.ID().Short(), "address", p.set.address,
		"listen", p.mesh.Addr().String(), "kaspad", p.set.node, "evm", p.set.chain.RPC, "http", p.set.http)
	var first error
	for range loops {
		if err := <-errc; err != nil && first == nil && ctx.Err() == nil {
			first = err
			cancel()
		}
	}
	p.logger.Info("signer stopped", "signer", self)
	return first
}

// dialNode connects the signer's Kaspa node: it must answer on the
// group's network and keep a UTXO index.
func (p *signerProcess) dialNode(ctx context.Context) (*kaspanode.Client, error) {
	addr, err := kaspa.DecodeAddress(p.setup.protocol.Group.Network, p.set.address)
	if err != nil {
		return nil, err
	}
	return kaspanode.New(ctx, kaspanode.Config{Node: p.set.node, Network: p.setup.protocol.Group.Network, Address: addr,
		Timeout: p.set.nodeTimeout, Metrics: p.reg.KaspaNode(), Logger: p.logger})
}

// runSource runs the signer's source once its EVM node has answered:
// before, it has nothing to read.
func (p *signerProcess) runSource(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case <-p.evm.ready:
	}
	return p.source.Run(ctx)
}

// connectNode dials the signer's Kaspa node until it answers, at once
// and then with a growing pause (each attempt bounded by kaspad.timeout),
// recording each failure as a round of the node's outage; the connected
// client then reconnects by itself.
func (p *signerProcess) connectNode(ctx context.Context) error {
	dialUntil(ctx, func(ctx context.Context) error {
		c, err := p.dialNode(ctx)
		switch {
		case err == nil:
			p.ledger.Attach(c)
			p.nodeClient <- c
		case ctx.Err() == nil:
			p.ledger.DialFailed(ctx, err)
		}
		return err
	})
	return nil
}

// tick runs the protocol's timers and refreshes the peers' link gauges.
func (p *signerProcess) tick(ctx context.Context) error {
	t := time.NewTicker(p.setup.protocol.Params.Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := p.signer.Tick(ctx); err != nil && ctx.Err() == nil {
			if errors.Is(err, signing.ErrCrashed) {
				return err
			}
			p.logger.Debug("tick failed", "signer", p.setup.protocol.Self, "err", err)
		}
		for _, peer := range p.mesh.Peers() {
			p.reg.Mesh().Connected(peer.ID, peer.Connected)
		}
	}
}

// followLedger reads the node's view every poll: the node's health and
// its gauge follow, and a new DAA score tells the signer the ledger moved
// (a payout may be deep enough now, an input spent).
func (p *signerProcess) followLedger(ctx context.Context) error {
	t := time.NewTicker(p.set.nodePoll)
	defer t.Stop()
	var last uint64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		vctx, cancel := context.WithTimeout(ctx, p.set.nodeTimeout)
		v, err := p.ledger.View(vctx)
		cancel()
		p.reg.KaspaNode().Up(err == nil)
		if err != nil || v.VirtualDAAScore == last {
			continue
		}
		last = v.VirtualDAAScore
		if err := p.signer.LedgerChanged(ctx); err != nil && ctx.Err() == nil {
			p.logger.Debug("ledger change not handled", "signer", p.setup.protocol.Self, "err", err)
		}
	}
}

// close releases what open opened, in reverse.
func (p *signerProcess) close() {
	if p.mesh != nil {
		_ = p.mesh.Close()
	}
	select {
	case c := <-p.nodeClient:
		_ = c.Close()
	default:
	}
	if p.evm != nil {
		p.evm.close()
	}
	if p.store != nil {
		if err := p.store.Close(); err != nil {
			p.logger.Warn("close store", "err", err)
		}
	}
	if p.log != nil {
		if err := p.log.Close(); err != nil {
			p.logger.Warn("close log", "err", err)
		}
	}
}

// lateRequester hands the source's events to the signer, which is opened
// after the source (the signer proves peers' events through the source).
type lateRequester struct{ signer *signing.Signer }

func (r *lateRequester) Request(ctx context.Context, ev twophase.SigningEvent, via string) error {
	if r.signer == nil {
		return errors.New("signer not started")
	}
	return r.signer.Request(ctx, ev, via)
}

// RequestFrom hands an event over with its burner, whom a refusal
// certificate names.
func (r *lateRequester) RequestFrom(ctx context.Context, ev twophase.SigningEvent, via, origin string) error {
	if r.signer == nil {
		return errors.New("signer not started")
	}
	return r.signer.RequestFrom(ctx, ev, via, origin)
}

// proveSource proves a peer's event on the signer's EVM node; a node not
// connected yet is ErrProverUnavailable (its outage is logged once, by
// the evm_node step, not once per event).
func (p *signerProcess) proveSource(ctx context.Context, ev twophase.SigningEvent) error {
	err := p.source.ProveSource(ctx, ev)
	if errors.Is(err, ErrEVMNodeDown) {
		return fmt.Errorf("%w: %w", signing.ErrProverUnavailable, err)
	}
	return err
}

// proverFunc adapts a proof function to signing.SourceProver.
type proverFunc func(ctx context.Context, ev twophase.SigningEvent) error

func (f proverFunc) Prove(ctx context.Context, ev twophase.SigningEvent) error { return f(ctx, ev) }
