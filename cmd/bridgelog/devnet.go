package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
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
contracts, writes DATA/devnet.json (a relay config), generates deposits and
withdrawals, runs the relayer with its claim swarm until every deposit is
minted and every withdrawal claimed, checks the chain, prints a summary and
exits 0 when everything completed. The log and projections stay in --data for
replay, verify and log inspect.

With --chain-only it serves the chain and deployed contracts until
interrupted; run 'bridgelog relay --config DATA/devnet.json' beside it.`,
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
	f.BoolVar(&devnetFlags.dryRun, "dry-run", false, "run the relay in dry-run mode (nothing is minted or claimed; devnet then reports incomplete)")
	rootCmd.AddCommand(devnetCmd)
}

func keyHex(i int) string { return hex.EncodeToString(crypto.FromECDSA(devchain.DevKey(i))) }

func runDevnet(cmd *cobra.Command, _ []string) error {
	ctx := cmd.Context()
	fl := devnetFlags
	if !cmd.Flags().Changed("log-level") {
		// The live display is the output; the engines' INFO lines would
		// drown it. --log-level info brings them back.
		slog.SetDefault(quietLogger())
	}
	if fl.deposits < 0 || fl.withdrawals < 0 || fl.executors < 1 {
		return fmt.Errorf("devnet: --deposits and --withdrawals must be >= 0 and --executors >= 1")
	}
	users := max(1, min(8, fl.deposits))
	chain, err := devchain.Start(devchain.Config{Port: fl.port, BlockInterval: fl.blockInterval, Accounts: devClaim0 + fl.executors + users,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer chain.Close()
	relayers := []common.Address{crypto.PubkeyToAddress(devchain.DevKey(devRelayer).PublicKey)}
	cfg := relayConfig{RPC: chain.URL(), ChainID: devchain.ChainID, Confirmations: domain.DefaultConfirmationDepth,
		RelayerKey: keyHex(devRelayer), BatchMaxWait: "1s", StuckAfter: "20s", PollInterval: "100ms"}
	for i := 0; i < fl.executors; i++ {
		relayers = append(relayers, crypto.PubkeyToAddress(devchain.DevKey(devClaim0+i).PublicKey))
		cfg.ClaimKeys = append(cfg.ClaimKeys, keyHex(devClaim0+i))
	}
	// The claim wallets hold the relayer role on both contracts: they mint
	// too, so deposits mint in parallel.
	cfg.MintKeys = cfg.ClaimKeys
	br, err := chain.Deploy(ctx, devchain.DevKey(devAdmin), relayers...)
	if err != nil {
		return err
	}
	cfg.Distributor, cfg.Token = domain.Address(br.Distributor), domain.Address(br.Token)
	dataDir := engineFlags.data
	if err := prepareDevnetData(dataDir); err != nil {
		return err
	}
	cfgPath := filepath.Join(dataDir, "devnet.json")
	if err := writeRelayConfig(cfgPath, cfg); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "devnet: chain %s (id %d), distributor %s, token %s, relay config %s\n",
		chain.URL(), devchain.ChainID, br.Distributor.Hex(), br.Token.Hex(), cfgPath)
	if fl.chainOnly {
		<-ctx.Done()
		return nil
	}

	eng, err := openEngines(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	b, err := assemble(ctx, cfg, eng.Log, eng.Store, bridgeOptions{dryRun: fl.dryRun, logger: slog.Default()})
	if err != nil {
		return err
	}
	defer b.close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	relayDone := make(chan error, 1)
	go func() { relayDone <- b.run(runCtx) }()

	u := devchain.Users{Backend: chain.Client(), Bridge: br}
	userKeys := make([]int, users)
	for i := range userKeys {
		userKeys[i] = devClaim0 + fl.executors + i
	}
	started := time.Now()
	deadline, cancelDeadline := context.WithTimeout(ctx, fl.timeout)
	defer cancelDeadline()
	progress := newDevnetProgress(cmd.ErrOrStderr(), fl.deposits, fl.withdrawals)

	// Deposits: users lock ETH for themselves on the execution side.
	perUser := make([]*big.Int, users)
	for i := range perUser {
		perUser[i] = new(big.Int)
	}
	for i := 0; i < fl.deposits; i++ {
		k := i % users
		amt := depositAmount(i)
		perUser[k].Add(perUser[k], amt)
		key := devchain.DevKey(userKeys[k])
		if _, err := u.Lock(deadline, key, amt, crypto.PubkeyToAddress(key.PublicKey)); err != nil {
			return err
		}
	}
	if err := waitFor(deadline, relayDone, b, progress, func(s projections.BridgeStats) bool {
		return s.Deposits[string(domain.StatusMinted)]+s.Deposits[string(domain.StatusFailed)] >= int64(fl.deposits)
	}); err != nil {
		return err
	}
	// Withdrawals: users burn part of what was minted to them, paid back to
	// themselves on the lock side.
	for j := 0; j < fl.withdrawals; j++ {
		k := j % users
		key := devchain.DevKey(userKeys[k])
		share := (fl.withdrawals + users - 1 - k) / users // withdrawals this user makes
		amt := new(big.Int).Div(perUser[k], big.NewInt(int64(max(share, 1))))
		if amt.Sign() == 0 {
			return fmt.Errorf("devnet: user %d has nothing minted to withdraw (more withdrawals than deposits?)", k)
		}
		if _, err := u.Burn(deadline, key, amt, crypto.PubkeyToAddress(key.PublicKey)); err != nil {
			return err
		}
	}
	if err := waitFor(deadline, relayDone, b, progress, func(s projections.BridgeStats) bool {
		return s.Withdrawals[string(domain.StatusExecuted)]+s.Withdrawals[string(domain.StatusFailed)] >= int64(fl.withdrawals)
	}); err != nil {
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
	check, err := checkChain(ctx, u, fl.deposits, fl.withdrawals)
	if err != nil {
		return err
	}
	ok := printDevnetSummary(cmd.OutOrStdout(), stats, check, fl.deposits, fl.withdrawals, time.Since(started))
	if !ok {
		return &exitError{code: 1, err: errors.New("devnet: not every flow completed (see summary)")}
	}
	return nil
}

func depositAmount(i int) *big.Int {
	// 0.01 to 0.07 ether, varied so batches carry distinct amounts.
	return new(big.Int).Mul(big.NewInt(int64(1+i%7)), big.NewInt(1e16))
}

// quietLogger logs warnings and errors only, unless BRIDGELOG_VERBOSE is set.
func quietLogger() *slog.Logger {
	lvl := slog.LevelWarn
	if os.Getenv("BRIDGELOG_VERBOSE") != "" {
		lvl = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
}

// waitFor polls the projections until done says so, the relay stops, or
// the deadline passes.
func waitFor(ctx context.Context, relayDone <-chan error, b *bridge, p *devnetProgress, done func(projections.BridgeStats) bool) error {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		s, err := b.reader.Stats(ctx)
		if err == nil {
			p.show(s)
			if done(s) {
				return nil
			}
		}
		select {
		case err := <-relayDone:
			return fmt.Errorf("devnet: relay stopped: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("devnet: flows did not complete in time: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// chainCheck is what the chain itself says, independent of projections.
type chainCheck struct {
	mintedSupply  *big.Int // token total supply
	claimedEvents int      // distributor Claimed logs
	uniqueLeaves  int      // distinct leaves among them
	lockedLeft    *big.Int
}

func checkChain(ctx context.Context, u devchain.Users, deposits, withdrawals int) (chainCheck, error) {
	var c chainCheck
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cl := u.Backend
	t := contracts.NewBridgeToken()
	supply, err := bind.Call(t.Instance(cl, u.Bridge.Token), &bind.CallOpts{Context: ctx}, t.PackTotalSupply(), t.UnpackTotalSupply)
	if err != nil {
		return c, err
	}
	c.mintedSupply = supply
	d := contracts.NewBatchDistributor()
	claimed := d.GetABI().Events["Claimed"].ID
	logs, err := cl.FilterLogs(ctx, filterAll(u.Bridge.Distributor, claimed))
	if err != nil {
		return c, err
	}
	leaves := map[common.Hash]bool{}
	for i := range logs {
		ev, err := d.UnpackClaimedEvent(&logs[i])
		if err != nil {
			return c, err
		}
		leaves[ev.Leaf] = true
	}
	c.claimedEvents, c.uniqueLeaves = len(logs), len(leaves)
	if c.lockedLeft, err = u.TotalLocked(ctx); err != nil {
		return c, err
	}
	return c, nil
}

func printDevnetSummary(w io.Writer, s projections.BridgeStats, c chainCheck, deposits, withdrawals int, took time.Duration) bool {
	minted := s.Deposits[string(domain.StatusMinted)]
	executed := s.Withdrawals[string(domain.StatusExecuted)]
	failedD, failedW := s.Deposits[string(domain.StatusFailed)], s.Withdrawals[string(domain.StatusFailed)]
	fmt.Fprintf(w, "\nbridgelog devnet summary (%s)\n", took.Round(time.Millisecond))
	fmt.Fprintf(w, "  deposits minted        %d / %d   failed %d\n", minted, deposits, failedD)
	fmt.Fprintf(w, "  withdrawals claimed    %d / %d   failed %d\n", executed, withdrawals, failedW)
	fmt.Fprintf(w, "  batches                %d anchored (%v)\n", s.Batches["ANCHORED"], s.Batches)
	claim, anchor, mint := s.Gas["claim"], s.Gas["anchor"], s.Gas["mint"]
	fmt.Fprintf(w, "  gas per mint           median %d, max %d (%d sent)\n", mint.Median, mint.Max, mint.Count)
	fmt.Fprintf(w, "  gas per claim          median %d, max %d (%d sent)\n", claim.Median, claim.Max, claim.Count)
	fmt.Fprintf(w, "  gas per anchored batch median %d, max %d (%d sent)\n", anchor.Median, anchor.Max, anchor.Count)
	if executed > 0 {
		fmt.Fprintf(w, "  gas per withdrawal     %d (claims and anchors / withdrawals)\n", (claim.Total+anchor.Total)/executed)
	}
	fmt.Fprintf(w, "  conflicting events     %d\n", s.Conflicts)
	fmt.Fprintf(w, "  on chain               %d Claimed events, %d distinct leaves, token supply %s wei, locked left %s wei\n",
		c.claimedEvents, c.uniqueLeaves, c.mintedSupply, c.lockedLeft)
	ok := minted == int64(deposits) && executed == int64(withdrawals) && failedD == 0 && failedW == 0 &&
		c.claimedEvents == c.uniqueLeaves && c.claimedEvents == withdrawals
	if ok {
		fmt.Fprintln(w, "  result                 every deposit minted once, every withdrawal paid once")
	} else {
		fmt.Fprintln(w, "  result                 INCOMPLETE")
	}
	return ok
}

// ErrNotDevnetData: --data holds a log that no devnet wrote.
var ErrNotDevnetData = errors.New("data directory holds a log that is not a devnet's")

// prepareDevnetData makes dir ready for a new dev chain. A previous
// devnet's log and projections describe a chain that died with its
// process, so they are removed; a directory with a log but no devnet.json
// is someone's real data and is refused, untouched.
func prepareDevnetData(dir string) error {
	logDir := filepath.Join(dir, "log")
	marker := filepath.Join(dir, "devnet.json")
	_, logErr := os.Stat(logDir)
	_, markErr := os.Stat(marker)
	if logErr == nil && markErr != nil {
		return fmt.Errorf("%w: %s (choose another --data)", ErrNotDevnetData, dir)
	}
	if markErr == nil {
		for _, p := range []string{logDir, filepath.Join(dir, "projections.db"), filepath.Join(dir, "projections.db-wal"),
			filepath.Join(dir, "projections.db-shm"), marker} {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("devnet: clear previous run: %w", err)
			}
		}
	}
	return os.MkdirAll(dir, 0o755)
}
