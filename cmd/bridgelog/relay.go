package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/adapters/watermilllog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// relayConfig is what a relay must know of its chain, contracts and
// wallets. devnet writes one; an operator writes their own.
type relayConfig struct {
	RPC           string         `json:"rpc"`
	ChainID       uint64         `json:"chainId"`
	Distributor   domain.Address `json:"distributor"`
	Token         domain.Address `json:"token"`
	StartBlock    uint64         `json:"startBlock"`
	Confirmations uint64         `json:"confirmations"`
	// DevChain marks a chain whose keys are worthless (devnet's): only
	// then are plain hex keys accepted.
	DevChain bool `json:"devChain,omitempty"`
	// Wallets say where each wallet's key is: a keystore account or an
	// external signer (plain keys on dev chains only).
	Wallets *relayWallets `json:"wallets,omitempty"`
	// Keys are hex secp256k1 keys, the older form of Wallets: accepted on
	// dev chains only.
	RelayerKey string   `json:"relayerKey,omitempty"`
	ClaimKeys  []string `json:"claimKeys,omitempty"`
	// MintKeys are more wallets (with the token's relayer role) to mint
	// with in parallel besides relayerKey: each wallet sends one
	// transaction at a time, so one wallet mints about one deposit a block.
	MintKeys     []string `json:"mintKeys,omitempty"`
	BatchMaxSize int      `json:"batchMaxSize"`
	BatchMaxWait string   `json:"batchMaxWait"` // Go duration
	StuckAfter   string   `json:"stuckAfter"`   // Go duration
	PollInterval string   `json:"pollInterval"` // Go duration
	// Execution, if set, is the chain the token lives on (deposits are
	// minted and withdrawals burned there); the top-level chain is then
	// the lock side only.
	Execution *executionChain `json:"execution,omitempty"`
	// Signers, if set, is the signing group whose refusal certificates
	// the relay refunds, and where it learns them.
	Signers *relaySigners `json:"signers,omitempty"`
	// Kaspa, if set, indexes deposits on Kaspa to the signing group's
	// deposit addresses (KAS coming in).
	Kaspa *relayKaspa `json:"kaspa,omitempty"`
	// Admin says who may pause and resume the relay and hold or release
	// mints (see relayAdmin); Governor bounds what it mints (relayGovernor).
	Admin    *relayAdmin    `json:"admin,omitempty"`
	Governor *relayGovernor `json:"governor,omitempty"`

	// dir is the config file's directory: relative keystore and
	// passphrase paths are read from there.
	dir string
}

// relayWallets are the relay's wallets: the relayer (anchors roots and
// mints), the claim swarm's (one executor each; none: the relayer's) and
// more minting wallets.
type relayWallets struct {
	Relayer evmwallet.Spec   `json:"relayer"`
	Claim   []evmwallet.Spec `json:"claim,omitempty"`
	Mint    []evmwallet.Spec `json:"mint,omitempty"`
}

// executionChain is the execution side of a two-chain bridge.
type executionChain struct {
	RPC           string `json:"rpc"`
	ChainID       uint64 `json:"chainId"`
	StartBlock    uint64 `json:"startBlock"`
	Confirmations uint64 `json:"confirmations"`
}

// ErrConfig wraps every relay configuration error.
var ErrConfig = errors.New("invalid relay config")

func loadRelayConfig(path string) (relayConfig, error) {
	var c relayConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	if c.RPC == "" || c.Distributor == (domain.Address{}) || c.Token == (domain.Address{}) {
		return c, fmt.Errorf("%w: %s: rpc, distributor and token are required", ErrConfig, path)
	}
	c.dir = filepath.Dir(path)
	specs, err := c.walletSpecs()
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if err := specs.check(c.walletOptions()); err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if c.Execution != nil && c.Execution.RPC == "" {
		return c, fmt.Errorf("%w: %s: execution.rpc is required when execution is set", ErrConfig, path)
	}
	if _, err := c.governorPolicy(); err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if _, err := c.adminKeys(); err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	return c, nil
}

func writeRelayConfig(path string, c relayConfig) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

func (c relayConfig) walletOptions() evmwallet.Options {
	return evmwallet.Options{DevChain: c.DevChain, Dir: c.dir}
}

func durationOr(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%w: duration %q: %v", ErrConfig, s, err)
	}
	return d, nil
}

func trim0x(s string) string {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}

// runnerProjector adapts the projection runner to handlers.Projector.
type runnerProjector struct {
	mu sync.Mutex // one catch-up at a time: the runner is single-threaded
	r  *projections.Runner
}

func (p *runnerProjector) CatchUp(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.r.CatchUp(ctx)
	return err
}

// bridge is an assembled relay: the loop, the claim swarm members and
// what they read.
type bridge struct {
	relay     *handlers.Relay
	executors []*handlers.ClaimExecutor
	reader    projections.BridgeReader
	projector *runnerProjector
	client    *evmchain.Client  // the lock side
	exec      *evmchain.Client  // the execution side (client itself on one chain)
	kaspa     *kaspanode.Client // the Kaspa indexer's node; nil without a kaspa section
	settle    domain.Settlement
	binding   domain.RelayBound // the chains and contracts of the config
	app       *handlers.Appender
	logger    *slog.Logger
	metrics   handlers.Metrics
	clock     chainClock // the governor's, read by the relay loop only
}

type bridgeOptions struct {
	dryRun      bool
	executors   int // claim swarm members in this process (each needs a claim key); 0: all keys
	logger      *slog.Logger
	metrics     handlers.Metrics
	projMetrics projections.Metrics
	claimsOnly  bool // a claim worker: executors only, no relay loop, no projections
	// inbox is where `bridgelog refund` leaves certificates for this
	// relay (refundInbox of its --data); empty: none.
	inbox string
	// signersUp, when set, holds back asking the signers' endpoints until
	// it reports them serving: devnet starts them after its relay.
	signersUp func() bool
	// operatorInbox is where the operator commands leave pause, resume,
	// hold and release requests for this relay (operatorInbox of its
	// --data); empty: none.
	operatorInbox string
}

// assemble wires a relay from its config over an open log and store.
func assemble(ctx context.Context, cfg relayConfig, lg topics.Log, st projections.Store, opt bridgeOptions) (*bridge, error) {
	if opt.logger == nil {
		opt.logger = slog.Default()
	}
	if opt.metrics == nil {
		opt.metrics = handlers.NopMetrics{}
	}
	stuck, err := durationOr(cfg.StuckAfter, 0) // 0: domain.SendPolicy's default
	if err != nil {
		return nil, err
	}
	maxWait, err := durationOr(cfg.BatchMaxWait, 0) // 0: domain.BatchPolicy's default
	if err != nil {
		return nil, err
	}
	poll, err := durationOr(cfg.PollInterval, 200*time.Millisecond)
	if err != nil {
		return nil, err
	}
	cl, err := evmchain.Dial(ctx, evmchain.Config{URL: cfg.RPC, ChainID: cfg.ChainID})
	if err != nil {
		return nil, err
	}
	// One chain hosts both contracts unless an execution chain is named.
	exec := cl
	lockSide := evmchain.Contracts{Distributor: cfg.Distributor, Token: cfg.Token}
	var execSide evmchain.Contracts
	if cfg.Execution != nil {
		if exec, err = evmchain.Dial(ctx, evmchain.Config{URL: cfg.Execution.RPC, ChainID: cfg.Execution.ChainID}); err != nil {
			cl.Close()
			return nil, err
		}
		lockSide.Token, execSide.Token = domain.Address{}, cfg.Token
	}
	b := &bridge{reader: projections.BridgeReader{Store: st}, client: cl, exec: exec,
		settle:  domain.Settlement{ChainID: cl.ChainID(), Distributor: cfg.Distributor},
		binding: domain.RelayBound{ChainID: cl.ChainID(), Distributor: cfg.Distributor, ExecChainID: exec.ChainID(), Token: cfg.Token},
		logger:  opt.logger, metrics: opt.metrics}
	if err := b.wire(ctx, cfg, lg, st, opt, lockSide, execSide, stuck, maxWait, poll); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// wire builds the bridge's handlers over its dialled chains.
func (b *bridge) wire(ctx context.Context, cfg relayConfig, lg topics.Log, st projections.Store, opt bridgeOptions,
	lockSide, execSide evmchain.Contracts, stuck, maxWait, poll time.Duration) error {
	calls := evmchain.NewCalls(evmchain.Contracts{Distributor: cfg.Distributor, Token: cfg.Token})
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	b.app = app
	policy := domain.SendPolicy{StuckAfter: stuck}
	specs, err := cfg.walletSpecs()
	if err != nil {
		return err
	}
	// Every wallet's signer is followed as a step of its own: an external
	// signer that refuses or does not answer is one line and one event.
	signing := &handlers.StepHealth{Appender: app, Logger: opt.logger, Metrics: opt.metrics}
	// An item waiting on a contract's rate limit is a step of its own
	// (counted by relay_rate_limited_total, not per item).
	rateLimits := &handlers.StepHealth{Appender: app, Logger: opt.logger}
	// Every wallet's driver asks the relay's pause before it signs.
	brakeMetrics, _ := opt.metrics.(handlers.BrakeMetrics)
	gate := &handlers.PauseGate{Reader: b.reader, Every: poll, Metrics: brakeMetrics, Logger: opt.logger}
	if opt.claimsOnly {
		// A claim worker keeps no projections: it tails the pauses on the log.
		gate.Reader = &handlers.LogPause{Log: lg}
	}
	drivers := &walletDrivers{wallets: walletOpener{opt: cfg.walletOptions()},
		new: func(w evmwallet.TxSigner, on *evmchain.Client) *handlers.TxDriver {
			return &handlers.TxDriver{Chain: evmchain.Signer{Client: on, Wallet: w}, Appender: app,
				Policy: policy, Logger: opt.logger, DryRun: opt.dryRun, Health: signing, Metrics: opt.metrics,
				RateLimits: rateLimits, Gate: gate}
		}}
	executorDriver := func(spec evmwallet.Spec) (*handlers.TxDriver, error) { return drivers.on(ctx, spec, b.client) }
	retiringClaim, err := drivers.all(ctx, retiringOr(specs.claim, true), b.client)
	if err != nil {
		return err
	}
	if err := b.addExecutors(specs, opt, lg, calls, executorDriver, retiringClaim); err != nil {
		return err
	}
	if opt.claimsOnly {
		// A claim worker's executors fold the claims topic in memory
		// (projections.ClaimFold): it needs no store, and must not run a
		// second runner on a shared one.
		return nil
	}
	ld, err := drivers.loop(ctx, specs, b.client, b.exec)
	if err != nil {
		return err
	}
	retirer, err := newRetirer(b, app, opt, slices.Concat(retiringClaim, ld.retiringMint),
		slices.Concat(b.executorDrivers(), ld.mintPool, []*handlers.TxDriver{ld.mint, ld.relayer}))
	if err != nil {
		return err
	}
	ropts := []projections.Option{projections.WithLogger(opt.logger)}
	if opt.projMetrics != nil {
		ropts = append(ropts, projections.WithMetrics(opt.projMetrics))
	}
	runner, err := projections.NewRunner(ctx, lg, st, projections.RelayProjections(), runnerOptions(ropts...)...)
	if err != nil {
		return err
	}
	b.projector = &runnerProjector{r: runner}
	anchors := evmchain.Anchors{Client: b.client, Calls: calls}
	b.relay = &handlers.Relay{
		Projector: b.projector,
		Indexers:  []*handlers.Indexer{b.indexer(b.client, lockSide, cfg.StartBlock, cfg.Confirmations, app, opt)},
		Confirmer: []*handlers.Confirmer{b.confirmer(b.client, cfg.Confirmations, app, opt)},
		Minter: &handlers.Minter{Queue: b.reader, Calls: calls, Driver: ld.mint, Pool: ld.mintPool, Retiring: ld.retiringMint,
			Metrics: opt.metrics, Logger: opt.logger},
		Batcher: &handlers.Batcher{Settlement: b.settle, Reader: b.reader, Chain: anchors, Appender: app, Metrics: opt.metrics,
			Logger: opt.logger, Policy: domain.BatchPolicy{MaxSize: cfg.BatchMaxSize, MaxWait: maxWait}},
		Anchorer: &handlers.Anchorer{Settlement: b.settle, Queue: b.reader, Chain: anchors,
			Driver: ld.relayer, Metrics: opt.metrics, Logger: opt.logger},
		Retirer:  retirer,
		Interval: poll,
		Logger:   opt.logger,
		Metrics:  opt.metrics,
		Appender: app,
	}
	if err := b.wireRefunds(cfg, calls, ld.mint, opt); err != nil {
		return err
	}
	if err := b.wireKaspa(ctx, cfg, opt); err != nil {
		return err
	}
	if err := b.wireBrakes(cfg, opt, gate, brakeMetrics); err != nil {
		return err
	}
	if b.exec != b.client {
		b.relay.Indexers = append(b.relay.Indexers,
			b.indexer(b.exec, execSide, cfg.Execution.StartBlock, cfg.Execution.Confirmations, app, opt))
		b.relay.Confirmer = append(b.relay.Confirmer, b.confirmer(b.exec, cfg.Execution.Confirmations, app, opt))
	}
	return nil
}

// indexer follows one chain's watched contracts. Its reorg window is the
// chain's confirmation depth: a reorg up to that deep is traced to its
// fork point; a deeper one replaced blocks the relay held final.
func (b *bridge) indexer(c *evmchain.Client, w evmchain.Contracts, start, confirmations uint64, app *handlers.Appender,
	opt bridgeOptions) *handlers.Indexer {
	return &handlers.Indexer{Chain: c, Decoder: evmchain.NewDecoder(c.ChainID(), w), Cursors: b.reader, Appender: app,
		Metrics: opt.metrics, Logger: opt.logger,
		Config: handlers.IndexerConfig{StartBlock: start, ReorgWindow: confirmations, Watched: w.Addresses()}}
}

// confirmer applies one chain's confirmation depth.
func (b *bridge) confirmer(c *evmchain.Client, depth uint64, app *handlers.Appender, opt bridgeOptions) *handlers.Confirmer {
	return &handlers.Confirmer{Chain: c, Pending: b.reader, Appender: app, Depth: depth, Metrics: opt.metrics, Logger: opt.logger}
}

// addExecutors creates this process's claim swarm members, one per claim
// wallet (at most opt.executors), each with its own wallet.
func (b *bridge) addExecutors(specs walletSpecs, opt bridgeOptions, lg topics.Log, calls *evmchain.Calls,
	newDriver func(evmwallet.Spec) (*handlers.TxDriver, error), retiring []*handlers.TxDriver) error {
	claim := retiringOr(specs.claim, false)
	if len(claim) == 0 {
		claim = []evmwallet.Spec{specs.relayer}
	}
	if opt.executors > 0 && opt.executors < len(claim) {
		claim = claim[:opt.executors]
	}
	for i, spec := range claim {
		d, err := newDriver(spec)
		if err != nil {
			return err
		}
		logger := opt.logger.With("executor", i)
		b.executors = append(b.executors, &handlers.ClaimExecutor{Log: lg, Calls: calls, Driver: d, Retiring: retiring,
			Metrics: opt.metrics, Consumer: claimConsumer(lg, logger), Logger: logger})
	}
	return nil
}

// claimConsumer delivers a claim executor's records: its share of the
// claims topic, on a Watermill router that dead-letters what keeps failing.
func claimConsumer(lg topics.Log, logger *slog.Logger) watermilllog.Consumer {
	return watermilllog.Consumer{Log: lg, Topic: topics.TopicClaims, Name: "claims", Logger: logger}
}

// run runs the relay loop and the claim executors until ctx ends or one
// of them fails. A relay loop first checks that the log is this config's.
func (b *bridge) run(ctx context.Context) error {
	if b.relay != nil {
		if err := b.bind(ctx); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(b.executors)+1)
	n := len(b.executors)
	if b.relay != nil {
		n++
		go func() { errc <- b.relay.Run(ctx) }()
	}
	for _, x := range b.executors {
		go func() { errc <- x.Run(ctx) }()
	}
	var first error
	for range n {
		if err := <-errc; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

// bind refuses a log that was used with other chains or contracts than
// the config names, and records the config's on a log that records none.
// It reads the bindings from the projections, caught up first.
func (b *bridge) bind(ctx context.Context) error {
	if err := b.projector.CatchUp(ctx); err != nil {
		return err
	}
	recorded, err := b.reader.Bindings(ctx)
	if err != nil {
		return fmt.Errorf("read the log's bindings: %w", err)
	}
	record, err := domain.CheckBinding(recorded, b.binding)
	var other *domain.BoundElsewhereError
	if errors.As(err, &other) {
		b.logger.Error("relay refused: the log was used with other chains or contracts", "recorded", other.Recorded.String(),
			"configured", other.Configured.String())
		b.metrics.StepFailed("bind")
		return fmt.Errorf("%w (use the data directory or log of this config's chain, or a new one)", err)
	}
	if err != nil || !record {
		return err
	}
	if _, err := b.app.Append(ctx, handlers.Cause{}, b.binding); err != nil {
		return fmt.Errorf("record the log's binding: %w", err)
	}
	b.logger.Info("log bound to the relay config's chains and contracts", "chain_id", b.binding.ChainID,
		"distributor", b.binding.Distributor.Hex(), "exec_chain_id", b.binding.ExecChainID, "token", b.binding.Token.Hex())
	return b.projector.CatchUp(ctx)
}

func (b *bridge) close() {
	if b.kaspa != nil {
		_ = b.kaspa.Close()
	}
	b.client.Close()
	if b.exec != nil && b.exec != b.client {
		b.exec.Close()
	}
}

var relayFlags struct {
	config      string
	dryRun      bool
	executors   int
	metricsAddr string
	role        string
	bulkMin     int64
	backups     backupPlan
}

var relayCmd = &cobra.Command{
	Use:   "relay --config FILE",
	Short: "Run the bridge relayer: index, confirm, mint, batch, anchor and claim",
	Long: `relay follows the chain in the config, turns every bridge log into an event,
confirms it at the confirmation depth, mints deposits, cuts sequential merkle
batches of withdrawals, anchors their roots and claims every leaf. Claim
executors run as members of a consumer group: start more relay processes with
the same log (Kafka) to add workers. With --dry-run every proof is checked
locally and every transaction is estimated and logged, never sent.

Where the SQLite store does not exist yet and the log holds at least
--bulk-build-min records (a new relay on an existing log, a store deleted to
recover), the store is first built in bulk, as an offline replay builds one,
before the relay starts.`,
	RunE: func(cmd *cobra.Command, _ []string) error {
		cfg, err := loadRelayConfig(relayFlags.config)
		if err != nil {
			return err
		}
		var reg *metrics.Registry
		if relayFlags.metricsAddr != "" {
			reg = metrics.New()
			engineMetrics = reg
		}
		if _, err := relayFlags.backups.on(); err != nil {
			return err
		}
		opt := bridgeOptions{dryRun: relayFlags.dryRun, executors: relayFlags.executors, inbox: refundInbox(engineFlags.data),
			operatorInbox: operatorInbox(engineFlags.data)}
		switch relayFlags.role {
		case "all":
			// A claim worker keeps no projections: only the relay loop's
			// store is worth building first.
			if _, err := buildMissingStore(cmd.Context(), cmd.ErrOrStderr(), relayFlags.bulkMin); err != nil {
				return err
			}
		case "claims":
			opt.claimsOnly = true
		default:
			return fmt.Errorf("--role %q: want all or claims", relayFlags.role)
		}
		eng, err := openEngines(cmd.Context())
		if err != nil {
			return err
		}
		defer eng.Close()
		backups, err := relayBackups(eng.Log, relayFlags.backups)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithCancel(cmd.Context())
		defer cancel()
		if reg != nil {
			opt.metrics, opt.projMetrics = reg.Handlers(), reg.Projections()
			var lc net.ListenConfig
			ln, err := lc.Listen(ctx, "tcp", relayFlags.metricsAddr)
			if err != nil {
				return fmt.Errorf("metrics: listen %s: %w", relayFlags.metricsAddr, err)
			}
			mux := reg.Mux()
			(&relayConsole{log: eng.Log, store: eng.Store, finder: consoleAuditFinder(eng.Log, eng.Store)}).routes(mux)
			go func() {
				if err := metrics.ServeHandler(ctx, ln, mux, nil); err != nil {
					slog.Error("metrics endpoint failed", "addr", relayFlags.metricsAddr, "error", err)
					cancel()
				}
			}()
		}
		b, err := assemble(ctx, cfg, eng.Log, eng.Store, opt)
		if err != nil {
			return err
		}
		defer b.close()
		if backups != nil {
			var m backupMetrics
			if reg != nil {
				m = reg.Handlers()
			}
			go backupLoop(ctx, backups, relayFlags.backups, m)
		}
		slog.Info("relay started", "rpc", cfg.RPC, "chain_id", b.client.ChainID(), "distributor", cfg.Distributor.Hex(),
			"token", cfg.Token.Hex(), "claim_executors", len(b.executors), "dry_run", relayFlags.dryRun)
		return b.run(ctx)
	},
}

func init() {
	relayCmd.Flags().StringVar(&relayFlags.config, "config", "", "relay config file (JSON; devnet writes DATA/devnet.json)")
	relayCmd.Flags().BoolVar(&relayFlags.dryRun, "dry-run", false, "compute and verify every proof and transaction, send nothing")
	relayCmd.Flags().IntVar(&relayFlags.executors, "executors", 0, "claim executors in this process (0: one per claim key)")
	relayCmd.Flags().StringVar(&relayFlags.role, "role", "all", "all: the relay loop and claim executors; claims: claim executors only (add workers to the swarm; run one 'all' per store)")
	relayCmd.Flags().StringVar(&relayFlags.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on /metrics and /healthz, and the operator console on /, at this address (e.g. 127.0.0.1:9464)")
	addBulkBuildFlag(relayCmd, &relayFlags.bulkMin)
	relayCmd.Flags().StringVar(&relayFlags.backups.dir, "backup-dir", "", "with --backup-every: back the embedded log up into a new directory here (named by the UTC time) at every interval")
	relayCmd.Flags().DurationVar(&relayFlags.backups.every, "backup-every", 0, "back the embedded log up into --backup-dir this often (0: never); each backup is a consistent copy, see log backup --help")
	relayCmd.Flags().IntVar(&relayFlags.backups.keep, "backup-keep", 24, "newest backups kept in --backup-dir, older ones removed (0: keep all); each is a full copy of the log")
	_ = relayCmd.MarkFlagRequired("config")
	rootCmd.AddCommand(relayCmd)
	// replay, verify and project drive every bridge projection.
	projectionSet = projections.RelayProjections
}
