package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
)

var trafficFlags struct {
	config                string
	deposits, withdrawals int
	burstSize             int
	burstEvery            time.Duration
	timeout               time.Duration
}

var devnetTrafficCmd = &cobra.Command{
	Use:   "traffic --config DATA/devnet.json [--deposits N] [--withdrawals N]",
	Short: "Send deposits and withdrawals to a devnet's bridge, for a relay running elsewhere",
	Long: `traffic sends a devnet's users' flows to the chain a 'devnet --chain-only'
serves: deposits (locks), then withdrawals (burns of what was minted to the
same users), --burst-size transactions every --burst-every. A withdrawal
waits until its user holds the tokens it burns, that is until a relay has
minted them: run 'bridgelog relay' beside it (or start it later, or kill it
and start it again meanwhile). It reads and writes only the chain.

Withdrawals that the users' balances and the deposits sent cannot pay for
are refused before anything is sent. Check the outcome with 'devnet check'.`,
	Args: cobra.NoArgs,
	RunE: runDevnetTraffic,
}

var checkFlags struct {
	config                string
	deposits, withdrawals int
	wait                  time.Duration
}

var devnetCheckCmd = &cobra.Command{
	Use:   "check --config DATA/devnet.json [--deposits N --withdrawals N] [--wait D]",
	Short: "Check a devnet's chain: every deposit minted once, every withdrawal paid once, balances",
	Long: `check reads the bridge's contracts on the chain of a devnet config, nothing of
the relay's log or store, and checks that every deposit locked was minted
exactly once (to its recipient, its amount), every withdrawal burned was
claimed exactly once, nothing was minted or claimed that no user sent, each
refund of a burn toward Kaspa returns that burn once, to its burner, and
the token supply, the locked pool and every holder's balance add up.
--deposits and --withdrawals, when given, are how many were sent.

With --wait it reads again until the chain passes or the time is up (a
relay may still be working). Exit status 0: the chain passes; 3: it
differs (each difference is printed); 1: it could not be read.`,
	Args: cobra.NoArgs,
	RunE: runDevnetCheck,
}

func init() {
	f := devnetTrafficCmd.Flags()
	f.StringVar(&trafficFlags.config, "config", "", "the devnet's relay config (DATA/devnet.json)")
	f.IntVar(&trafficFlags.deposits, "deposits", 20, "deposits to send")
	f.IntVar(&trafficFlags.withdrawals, "withdrawals", 20, "withdrawals to send, after the deposits")
	f.IntVar(&trafficFlags.burstSize, "burst-size", 4, "transactions per burst (0: all at once)")
	f.DurationVar(&trafficFlags.burstEvery, "burst-every", time.Second, "pause between bursts")
	f.DurationVar(&trafficFlags.timeout, "timeout", 10*time.Minute, "give up if not everything is sent by then")
	_ = devnetTrafficCmd.MarkFlagRequired("config")
	c := devnetCheckCmd.Flags()
	c.StringVar(&checkFlags.config, "config", "", "the devnet's relay config (DATA/devnet.json)")
	c.IntVar(&checkFlags.deposits, "deposits", -1, "deposits sent (-1: do not check the count)")
	c.IntVar(&checkFlags.withdrawals, "withdrawals", -1, "withdrawals sent (-1: do not check the count)")
	c.DurationVar(&checkFlags.wait, "wait", 0, "read again until the chain passes or this much time has passed")
	_ = devnetCheckCmd.MarkFlagRequired("config")
	devnetCmd.AddCommand(devnetTrafficCmd, devnetCheckCmd)
}

// devnetUsers connects to the bridge a devnet config names.
func devnetUsers(ctx context.Context, path string) (relayConfig, devchain.Users, func(), error) {
	cfg, err := loadRelayConfig(path)
	if err != nil {
		return cfg, devchain.Users{}, nil, err
	}
	if cfg.Execution != nil {
		return cfg, devchain.Users{}, nil, fmt.Errorf("%w: %s: devnet traffic and check serve one chain, this config names two", ErrConfig, path)
	}
	u, closeFn, err := devchain.Dial(ctx, cfg.RPC, devchain.Bridge{Distributor: common.Address(cfg.Distributor), Token: common.Address(cfg.Token)})
	return cfg, u, closeFn, err
}

func runDevnetTraffic(cmd *cobra.Command, _ []string) error {
	fl := trafficFlags
	if fl.deposits < 0 || fl.withdrawals < 0 || fl.burstSize < 0 {
		return errors.New("devnet traffic: --deposits, --withdrawals and --burst-size must be >= 0")
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), fl.timeout)
	defer cancel()
	cfg, u, closeFn, err := devnetUsers(ctx, fl.config)
	if err != nil {
		return err
	}
	defer closeFn()
	keys, err := devchain.FundedUsers(ctx, u.Backend, devClaim0+devnetClaimWallets(cfg), maxDevUsers)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	flows := devchain.Flows{Users: u, Keys: keys, Deposits: fl.deposits, Withdrawals: fl.withdrawals,
		BurstSize: fl.burstSize, BurstEvery: fl.burstEvery,
		Sent: func(s devchain.Counts) {
			fmt.Fprintf(out, "sent %d/%d deposits, %d/%d withdrawals\n", s.Locks, fl.deposits, s.Burns, fl.withdrawals)
		}}
	if err := flows.Run(ctx); err != nil {
		return fmt.Errorf("devnet traffic: %w", err)
	}
	fmt.Fprintf(out, "sent %d deposits and %d withdrawals from %d users; check with: bridgelog devnet check --config %s --wait 2m\n",
		fl.deposits, fl.withdrawals, len(keys), fl.config)
	return nil
}

func runDevnetCheck(cmd *cobra.Command, _ []string) error {
	fl := checkFlags
	ctx := cmd.Context()
	_, u, closeFn, err := devnetUsers(ctx, fl.config)
	if err != nil {
		return err
	}
	defer closeFn()
	a, problems, err := auditUntil(ctx, u, fl.deposits, fl.withdrawals, fl.wait)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "on chain: %s\n", a.Summary())
	if len(problems) == 0 {
		fmt.Fprintln(out, "ok: every deposit minted once, every withdrawal paid once, balances add up")
		return nil
	}
	for _, p := range problems {
		fmt.Fprintln(out, "DIFFERS:", p)
	}
	return &exitError{code: 3, err: fmt.Errorf("devnet check: the chain differs from what was sent in %d ways: %s",
		len(problems), strings.Join(problems, "; "))}
}

// auditUntil reads the chain until it passes or wait has passed, and
// returns the last reading.
func auditUntil(ctx context.Context, u devchain.Users, deposits, withdrawals int, wait time.Duration) (devchain.Audit, []string, error) {
	deadline := time.Now().Add(wait)
	for {
		a, err := devchain.ReadAudit(ctx, u)
		if err != nil {
			return a, nil, err
		}
		problems := a.Problems(devchain.Counts{Locks: deposits, Burns: withdrawals, KaspaBurns: -1})
		if len(problems) == 0 || !time.Now().Before(deadline) {
			return a, problems, nil
		}
		select {
		case <-ctx.Done():
			return a, problems, nil
		case <-time.After(time.Second):
		}
	}
}
