package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
)

var devnetFlags struct {
	deposits, withdrawals int
	executors             int
	port                  int
	blockInterval         time.Duration
	timeout               time.Duration
	chainOnly             bool
	dryRun                bool
	fresh                 bool
	kaspa                 devnetKaspaOptions
}

// Dev account roles: 0 deploys and administers, 1 relays (mints and
// anchors), 2.. are claim executors, then users.
const (
	devAdmin   = 0
	devRelayer = 1
	devClaim0  = 2
)

var devnetCmd = &cobra.Command{
	Use:   "devnet [--deposits N] [--withdrawals N]",
	Short: "Run every bridge flow end to end on a local chain and print a summary",
	Long: `devnet starts a local EVM chain (go-ethereum's simulated chain, served over
HTTP so a relayer can also run as a separate process), deploys the bridge
contracts, writes the relay's wallets into an encrypted keystore
(DATA/keystore, unlocked by the random passphrase in DATA/keystore.passphrase)
and DATA/devnet.json (a relay config naming them), generates deposits and
withdrawals, runs the relayer with its claim swarm until every deposit is
minted and every withdrawal claimed, checks the chain, prints a summary and
exits 0 when everything completed. The log and projections stay in --data for
replay, verify and log inspect.

With --kaspa-payouts N (default 10) it pays Kaspa too: it starts a kaspad
simnet node (--utxoindex) and a miner as child processes (built from the
kaspad version go.mod pins on first use, cached in ~/.cache/bridgelog), or
uses the node --kaspad names (funded from --kaspa-faucet-key; a node devnet
starts mines to a fresh key kept in DATA/kaspa/faucet.key), writes a 2-of-3
signing group to DATA/signers, funds its multisig address, starts the three
signer processes (bridgelog signer --config DATA/signers/sN.json) and sends N
burns toward fresh Kaspa addresses among the withdrawals. It exits 0 only when
every payout is confirmed once on the node; Ctrl-C stops every process it
started.

With --kaspa-refused K it also sends K burns toward fresh Kaspa addresses
that the group's policy denies (policy.deniedDestinations in every
signer's config), spread among the payouts. The group refuses each one
(Refused, policy_denied_destination) and certifies the refusal; the relay,
whose config (DATA/devnet.json) names the group and the signers' HTTP
endpoints in its signers section, takes each certificate from GET
/refusals and mints the burn back to its burner once. The summary's
payouts line then adds "refused K, refunded K", and devnet exits 0 only
when every refused burn was refused by the group, refunded once on chain
(the token's Refunded log, the burner's balance) and completed in the
relay's refunds.

A previous devnet's run in --data (its chain is gone with its process) is
not deleted silently: devnet refuses to start there unless --fresh is given,
and then says on its first line that it deleted it.

With --chain-only it serves the chain and deployed contracts until
interrupted, and prints the commands to run beside it:

  bridgelog relay --config DATA/devnet.json --data DATA
  bridgelog devnet traffic --config DATA/devnet.json --deposits N --withdrawals N
  bridgelog devnet check --config DATA/devnet.json

The relay keeps its log and store in its own --data (default
./bridgelog-data, not the config's directory), so pass --data.

On a terminal the progress is one line fitted to its width; otherwise a
plain line every few seconds.`,
	RunE: runDevnet,
}

func init() {
	f := devnetCmd.Flags()
	f.IntVar(&devnetFlags.deposits, "deposits", 20, "deposits to generate")
	f.IntVar(&devnetFlags.withdrawals, "withdrawals", 20, "withdrawals to generate (paid from minted deposits)")
	f.IntVar(&devnetFlags.executors, "executors", 2, "claim executors (each with its own wallet)")
	f.IntVar(&devnetFlags.port, "port", 0, "chain HTTP port (0: a free one)")
	f.DurationVar(&devnetFlags.blockInterval, "block-interval", 100*time.Millisecond, "time between blocks")
	f.DurationVar(&devnetFlags.timeout, "timeout", 5*time.Minute, "give up if the flows have not completed by then")
	f.BoolVar(&devnetFlags.chainOnly, "chain-only", false, "serve the chain and contracts only; run the relay separately")
	f.BoolVar(&devnetFlags.fresh, "fresh", false, "delete a previous devnet run's log and store in --data first (without it devnet refuses to start there)")
	f.BoolVar(&devnetFlags.dryRun, "dry-run", false, "run the relay in dry-run mode (nothing is minted or claimed; devnet then reports incomplete)")
	f.IntVar(&devnetFlags.kaspa.refused, "kaspa-refused", 0, "burns toward Kaspa addresses the group's policy denies, among the payouts: each must be refused by the group and refunded once by the relay")
	f.IntVar(&devnetFlags.kaspa.payouts, "kaspa-payouts", 10, "withdrawals to Kaspa addresses, paid by 3 signer processes (2-of-3) from a multisig on a kaspad simnet node (0: no Kaspa side)")
	f.StringVar(&devnetFlags.kaspa.kaspad, "kaspad", "", "use the running kaspad simnet node at this gRPC address (with --utxoindex) instead of starting one; needs --kaspa-faucet-key")
	f.StringVar(&devnetFlags.kaspa.faucetKey, "kaspa-faucet-key", "", "with --kaspad: file holding a simnet key (32-byte secret, hex; mode 600) whose coins fund the group")
	rootCmd.AddCommand(devnetCmd)
}

func runDevnet(cmd *cobra.Command, _ []string) error {
	ctx := cmd.Context()
	fl := devnetFlags
	if !cmd.Flags().Changed("log-level") {
		// The live display is the output; the engines' INFO lines would
		// drown it. --log-level info brings them back.
		slog.SetDefault(quietLogger())
	}
	if fl.deposits < 0 || fl.withdrawals < 0 || fl.executors < 1 || fl.kaspa.payouts < 0 || fl.kaspa.refused < 0 {
		return fmt.Errorf("devnet: --deposits, --withdrawals, --kaspa-payouts and --kaspa-refused must be >= 0 and --executors >= 1")
	}
	if fl.dryRun || fl.chainOnly {
		// A dry run mints nothing to burn toward Kaspa; a served chain
		// leaves the traffic to `devnet traffic`.
		fl.kaspa.payouts, fl.kaspa.refused = 0, 0
	}
	dataDir := engineFlags.data
	cleared, err := prepareDevnetData(dataDir, fl.fresh)
	if err != nil {
		return err
	}
	if cleared {
		fmt.Fprintf(cmd.ErrOrStderr(), "devnet: --fresh: deleted the previous run's log and store in %s\n", dataDir)
	}
	// A chain served for a separate relay funds as many users as devnet
	// traffic sends from.
	users := maxDevUsers
	if !fl.chainOnly {
		users = max(1, min(maxDevUsers, fl.deposits))
	}
	chain, err := devchain.Start(devchain.Config{Port: fl.port, BlockInterval: fl.blockInterval, Accounts: devClaim0 + fl.executors + users,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer chain.Close()
	wallets, err := writeDevnetWallets(dataDir, fl.executors)
	if err != nil {
		return err
	}
	cfg := relayConfig{RPC: chain.URL(), ChainID: devchain.ChainID, Confirmations: domain.DefaultConfirmationDepth, DevChain: true,
		Wallets: wallets, BatchMaxWait: "1s", StuckAfter: "20s", PollInterval: "100ms"}
	// The claim wallets hold the relayer role on both contracts: they mint
	// too, so deposits mint in parallel.
	relayers := []common.Address{common.Address(wallets.Relayer.Address)}
	for _, w := range wallets.Claim {
		relayers = append(relayers, common.Address(w.Address))
	}
	br, err := chain.Deploy(ctx, devchain.DevKey(devAdmin), relayers...)
	if err != nil {
		return err
	}
	cfg.Distributor, cfg.Token = domain.Address(br.Distributor), domain.Address(br.Token)
	k, err := newDevnetKaspa(dataDir, fl.kaspa)
	if err != nil {
		return err
	}
	defer k.stop()
	// The signers index the chain from its first block; the relay
	// refunds what they refuse.
	if cfg.Signers, err = k.prepare(signerChain{RPC: chain.URL(), ChainID: devchain.ChainID, Token: cfg.Token,
		Confirmations: cfg.Confirmations, Poll: "100ms"}); err != nil {
		return err
	}
	cfgPath := filepath.Join(dataDir, "devnet.json")
	if err := writeRelayConfig(cfgPath, cfg); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "devnet: chain %s (id %d), distributor %s, token %s, relay config %s\n",
		chain.URL(), devchain.ChainID, br.Distributor.Hex(), br.Token.Hex(), cfgPath)
	if fl.chainOnly {
		printChainOnlyCommands(cmd.ErrOrStderr(), dataDir, cfgPath)
		<-ctx.Done()
		return nil
	}
	return runDevnetFlows(ctx, cmd, cfg, chain, br, users, k)
}

// maxDevUsers is how many user wallets devnet funds at most.
const maxDevUsers = 8

// printChainOnlyCommands says how to run a relay and traffic beside a
// served chain: the relay's data directory is --data, not the config's.
func printChainOnlyCommands(w io.Writer, dataDir, cfgPath string) {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir, cfgPath = abs, filepath.Join(abs, filepath.Base(cfgPath))
	}
	fmt.Fprintf(w, `devnet: serving the chain until interrupted. In another shell:
  bridgelog relay --config %[1]s --data %[2]s
  bridgelog devnet traffic --config %[1]s --deposits 20 --withdrawals 20
  bridgelog devnet check --config %[1]s
`, cfgPath, dataDir)
}

// runDevnetFlows runs the relay in this process while users send
// deposits and withdrawals, and k's Kaspa side starts and pays, until
// every one is done, then checks the chain and prints the summary.
func runDevnetFlows(ctx context.Context, cmd *cobra.Command, cfg relayConfig, chain *devchain.Chain, br devchain.Bridge, users int,
	k *devnetKaspa) error {
	fl := devnetFlags
	eng, err := openEngines(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	b, err := assemble(ctx, cfg, eng.Log, eng.Store, bridgeOptions{dryRun: fl.dryRun, logger: slog.Default(), signersUp: k.signersUp})
	if err != nil {
		return err
	}
	defer b.close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	relayDone := make(chan error, 1)
	go func() { relayDone <- b.run(runCtx) }()

	u := devchain.Users{Backend: chain.Client(), Bridge: br}
	flows := devchain.Flows{Users: u, Keys: devUserKeys(fl.executors, users), Deposits: fl.deposits, Withdrawals: fl.withdrawals}
	started := time.Now()
	deadline, cancelDeadline := context.WithTimeout(ctx, fl.timeout)
	defer cancelDeadline()
	k.relay = b.reader
	flows.KaspaPayouts = k.payouts
	total := flows.Total()
	// The Kaspa side starts beside the EVM traffic: its burns come only
	// once their deposits are minted.
	kaspaUp := make(chan error, 1)
	go func() { kaspaUp <- k.start(deadline, cmd.ErrOrStderr()) }()
	sent := make(chan error, 1)
	go func() { sent <- flows.Run(deadline) }()
	progress := newDevnetProgress(cmd.ErrOrStderr(), total.Locks, fl.withdrawals)
	err = waitFor(deadline, relayDone, sent, kaspaUp, b, progress, func(s projections.BridgeStats) bool {
		return s.Deposits[string(domain.StatusMinted)]+s.Deposits[string(domain.StatusFailed)] >= int64(total.Locks) &&
			s.Withdrawals[string(domain.StatusExecuted)]+s.Withdrawals[string(domain.StatusFailed)] >= int64(fl.withdrawals) &&
			k.allPaid(deadline, progress)
	})
	progress.finish()
	if err != nil {
		return err
	}
	stop()
	<-relayDone
	if err := b.projector.CatchUp(ctx); err != nil {
		return err
	}
	stats, err := b.reader.Stats(ctx)
	if err != nil {
		return err
	}
	audit, err := devchain.ReadAudit(ctx, u)
	if err != nil {
		return err
	}
	ok := printDevnetSummary(cmd.OutOrStdout(), stats, audit, total, time.Since(started))
	ok = k.summary(ctx, cmd.OutOrStdout(), audit) && ok
	printDevnetResult(cmd.OutOrStdout(), ok, len(k.owed), len(k.refused))
	if !ok {
		return &exitError{code: 1, err: errors.New("devnet: not every flow completed (see summary)")}
	}
	return nil
}

// devUserKeys are the wallets of n devnet users: the dev accounts after
// the claim executors'.
func devUserKeys(executors, n int) []*ecdsa.PrivateKey {
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		keys[i] = devchain.DevKey(devClaim0 + executors + i)
	}
	return keys
}

// quietLogger logs warnings and errors only, unless BRIDGELOG_VERBOSE is set.
func quietLogger() *slog.Logger {
	lvl := slog.LevelWarn
	if os.Getenv("BRIDGELOG_VERBOSE") != "" {
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
}

// waitFor polls the projections until the users have sent everything and
// done says so, the relay stops, sending fails, the Kaspa side cannot
// start (kaspaUp), or the deadline passes.
func waitFor(ctx context.Context, relayDone, sent, kaspaUp <-chan error, b *bridge, p *devnetProgress,
	done func(projections.BridgeStats) bool) error {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	allSent := false
	for {
		s, err := b.reader.Stats(ctx)
		if err == nil {
			p.show(s)
			if allSent && done(s) {
				return nil
			}
		}
		select {
		case err := <-relayDone:
			return fmt.Errorf("devnet: relay stopped: %v", err)
		case err := <-sent:
			if err != nil {
				return fmt.Errorf("devnet: %w", err)
			}
			allSent, sent = true, nil // a nil channel is never ready again
		case err := <-kaspaUp:
			if err != nil {
				return fmt.Errorf("devnet: the Kaspa side did not start: %w", err)
			}
			kaspaUp = nil
		case <-ctx.Done():
			return fmt.Errorf("devnet: flows did not complete in time: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// printDevnetSummary prints what the relay's projections and the chain
// say, and whether every flow completed once.
func printDevnetSummary(w io.Writer, s projections.BridgeStats, a devchain.Audit, sent devchain.Counts, took time.Duration) bool {
	deposits, withdrawals := sent.Locks, sent.Burns
	minted := s.Deposits[string(domain.StatusMinted)]
	executed := s.Withdrawals[string(domain.StatusExecuted)]
	failedD, failedW := s.Deposits[string(domain.StatusFailed)], s.Withdrawals[string(domain.StatusFailed)]
	fmt.Fprintf(w, "\nbridgelog devnet summary (%s)\n", took.Round(time.Millisecond))
	fmt.Fprintf(w, "  deposits minted        %d / %d   failed %d\n", minted, deposits, failedD)
	fmt.Fprintf(w, "  withdrawals claimed    %d / %d   failed %d\n", executed, withdrawals, failedW)
	fmt.Fprintf(w, "  %-22s %s\n", "batches", strings.TrimPrefix(batchWords(s.Batches), "batches "))
	claim, anchor, mint := s.Gas["claim"], s.Gas["anchor"], s.Gas["mint"]
	fmt.Fprintf(w, "  gas per mint           median %d, max %d (%d sent)\n", mint.Median, mint.Max, mint.Count)
	fmt.Fprintf(w, "  gas per claim          median %d, max %d (%d sent)\n", claim.Median, claim.Max, claim.Count)
	fmt.Fprintf(w, "  gas per anchored batch median %d, max %d (%d sent)\n", anchor.Median, anchor.Max, anchor.Count)
	if executed > 0 {
		fmt.Fprintf(w, "  gas per withdrawal     %d (claims and anchors / withdrawals)\n", (claim.Total+anchor.Total)/executed)
	}
	fmt.Fprintf(w, "  conflicting events     %d\n", s.Conflicts)
	fmt.Fprintf(w, "  on chain               %s\n", a.Summary())
	problems := a.Problems(sent)
	for _, p := range problems {
		fmt.Fprintf(w, "  chain differs          %s\n", p)
	}
	return minted == int64(deposits) && executed == int64(withdrawals) && failedD == 0 && failedW == 0 && len(problems) == 0
}

// printDevnetResult is the summary's last line.
func printDevnetResult(w io.Writer, ok bool, kaspa, refused int) {
	if !ok {
		fmt.Fprintln(w, "  result                 INCOMPLETE")
		return
	}
	line := "every deposit minted once, every withdrawal paid once"
	if kaspa > 0 {
		line += ", every Kaspa payout confirmed once"
	}
	if refused > 0 {
		line += ", every refused burn refunded once"
	}
	fmt.Fprintln(w, "  result                 "+line)
}

// ErrNotDevnetData: --data holds a log or a keystore that no devnet wrote.
var ErrNotDevnetData = errors.New("data directory holds a log or keystore that is not a devnet's")

// ErrPreviousDevnet: --data holds a previous devnet's run and --fresh was
// not given.
var ErrPreviousDevnet = errors.New("data directory holds a previous devnet run")

// prepareDevnetData makes dir ready for a new dev chain. A previous
// devnet's log and store describe a chain that died with its process:
// with fresh they are deleted (cleared says so), without it devnet
// refuses, so that nobody loses a run they meant to inspect. A directory
// with a log or a keystore but no devnet.json is someone's real data and
// is refused, untouched.
func prepareDevnetData(dir string, fresh bool) (cleared bool, err error) {
	logDir := filepath.Join(dir, "log")
	marker := filepath.Join(dir, "devnet.json")
	_, logErr := os.Stat(logDir)
	_, keysErr := os.Stat(filepath.Join(dir, devnetKeystoreDir))
	_, markErr := os.Stat(marker)
	if (logErr == nil || keysErr == nil) && markErr != nil {
		return false, fmt.Errorf("%w: %s (choose another --data)", ErrNotDevnetData, dir)
	}
	if markErr == nil && !fresh {
		return false, fmt.Errorf("%w: %s (its log, store and devnet.json; pass --fresh to delete them, or choose another --data)",
			ErrPreviousDevnet, dir)
	}
	if markErr == nil {
		for _, p := range []string{logDir, filepath.Join(dir, "projections.db"), filepath.Join(dir, "projections.db-wal"),
			filepath.Join(dir, "projections.db-shm"), filepath.Join(dir, "kaspa"), filepath.Join(dir, "signers"),
			filepath.Join(dir, devnetKeystoreDir), filepath.Join(dir, devnetPassphrase), marker} {
			if err := os.RemoveAll(p); err != nil {
				return false, fmt.Errorf("devnet: clear previous run: %w", err)
			}
		}
	}
	return markErr == nil, os.MkdirAll(dir, ownerfs.DirMode)
}
