package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// Default rate limits of contracts deploy: at most this much ether per
// window through mints, and through claims. Size them to what the bridge
// may lose to a stolen key before an operator acts (OPERATIONS.md).
const (
	defaultRateLimitEther  = "100"
	defaultRateLimitWindow = 24 * time.Hour
)

// rateLimitFlags are "at most --<name>-limit ether per --<name>-window".
type rateLimitFlags struct {
	ether  string
	window time.Duration
}

// flagSet is the part of a command's flags register needs.
type flagSet interface {
	StringVar(p *string, name, value, usage string)
	DurationVar(p *time.Duration, name string, value time.Duration, usage string)
}

func (r *rateLimitFlags) register(f flagSet, name, what string) {
	f.StringVar(&r.ether, name+"-limit", defaultRateLimitEther,
		"most ether "+what+" per --"+name+"-window (the bucket's capacity; it refills evenly over the window)")
	f.DurationVar(&r.window, name+"-window", defaultRateLimitWindow, "the window of --"+name+"-limit (at least 1s)")
}

// limit is the flags' RateLimit; prefix ("mint-", "claim-" or "") names
// the flags in errors, which wrap contracts.ErrBadRateLimit.
func (r rateLimitFlags) limit(prefix string) (contracts.RateLimit, error) {
	wei, err := parseEther(r.ether)
	if err != nil {
		return contracts.RateLimit{}, fmt.Errorf("--%slimit %q: %w", prefix, r.ether, err)
	}
	l, err := contracts.PerWindow(wei, r.window)
	if err != nil {
		return contracts.RateLimit{}, fmt.Errorf("--%slimit %s per --%swindow %s: %w", prefix, r.ether, prefix, r.window, err)
	}
	return l, nil
}

// ErrSetRateLimit wraps every error of contracts set-rate-limit.
var ErrSetRateLimit = errors.New("contracts set-rate-limit")

// parseEther reads a positive decimal amount of ether ("100", "0.5") as
// wei; more than 18 decimals, a sign, an exponent or zero is refused.
func parseEther(s string) (*big.Int, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || len(frac) > 18 || strings.Trim(whole+frac, "0123456789") != "" {
		return nil, fmt.Errorf("%w: want a positive decimal amount of ether with at most 18 decimals", contracts.ErrBadRateLimit)
	}
	wei, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", 18-len(frac)), 10)
	if wei.Sign() <= 0 {
		return nil, fmt.Errorf("%w: want more than 0", contracts.ErrBadRateLimit)
	}
	return wei, nil
}

// rateLimitOptions are contracts set-rate-limit's flags.
type rateLimitOptions struct {
	rpc, contract, from string
	keystore, external  string
	passphrase          secrets.Passphrase
	limit               rateLimitFlags
	show                bool
	callTimeout         time.Duration
	confirmTimeout      time.Duration
	poll                time.Duration
}

func init() {
	var o rateLimitOptions
	cmd := &cobra.Command{
		Use:   "set-rate-limit",
		Short: "Set (or show) the rate limit of a deployed BridgeToken or BatchDistributor",
		Long: `Sends the admin's setRateLimit to --contract (the token limits what it mints, the distributor what
claims pay): at most --limit ether per --window, the bucket refilling evenly over the window. Only the
contracts' admin (the deployer of contracts deploy) may; it signs with --keystore or --external like
contracts deploy. The bucket is first refilled at the old rate, then cut to the new capacity. With --show
it only prints the limit and what may move now.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSetRateLimit(cmd.Context(), o, cmd.OutOrStdout(), slog.Default())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.rpc, "rpc", "", "JSON-RPC URL of the contract's chain (required)")
	f.StringVar(&o.contract, "contract", "", "address of the BridgeToken or BatchDistributor (required)")
	f.StringVar(&o.from, "from", "", "address of the admin wallet")
	f.StringVar(&o.keystore, "keystore", "", "keystore directory holding the admin account")
	f.StringVar(&o.passphrase.File, "passphrase-file", "", "file (owner-only) whose first line unlocks the keystore account")
	f.StringVar(&o.passphrase.Env, "passphrase-env", "", "environment variable holding the keystore passphrase")
	f.StringVar(&o.external, "external", "", "external signer (clef protocol) that signs for --from, instead of --keystore")
	f.StringVar(&o.limit.ether, "limit", "", "most ether per --window (required unless --show)")
	f.DurationVar(&o.limit.window, "window", defaultRateLimitWindow, "the window of --limit")
	f.BoolVar(&o.show, "show", false, "print the limit and send nothing")
	f.DurationVar(&o.callTimeout, "timeout", 10*time.Second, "timeout of each RPC call and of the signer")
	f.DurationVar(&o.confirmTimeout, "confirm-timeout", 10*time.Minute, "how long to wait for the transaction to be mined")
	o.poll = time.Second
	contractsCmd.AddCommand(cmd)
}

func runSetRateLimit(ctx context.Context, o rateLimitOptions, stdout io.Writer, log *slog.Logger) error {
	if o.rpc == "" || !common.IsHexAddress(o.contract) {
		return fmt.Errorf("%w: --rpc and --contract (a 0x address) are required", ErrSetRateLimit)
	}
	contract := common.HexToAddress(o.contract)
	ch, err := dialDeployChain(ctx, o.rpc, o.callTimeout)
	if err != nil {
		return err
	}
	defer ch.cl.Close()
	if o.show {
		return printRateLimit(ctx, ch, contract, o.callTimeout, stdout)
	}
	limit, err := o.limit.limit("")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSetRateLimit, err)
	}
	if !common.IsHexAddress(o.from) || (o.keystore == "") == (o.external == "") {
		return fmt.Errorf("%w: give the admin as --from and exactly one of --keystore or --external", ErrSetRateLimit)
	}
	octx, cancel := context.WithTimeout(ctx, o.callTimeout)
	wallet, err := evmwallet.Open(octx, evmwallet.Spec{Name: "admin", Address: domain.Address(common.HexToAddress(o.from)),
		Keystore: o.keystore, External: o.external, Passphrase: o.passphrase}, evmwallet.Options{ExternalTimeout: o.callTimeout})
	cancel()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSetRateLimit, err)
	}
	sctx, cancel := context.WithTimeout(ctx, o.callTimeout)
	tx, err := contracts.SetRateLimit(evmwallet.TransactOpts(sctx, wallet, ch.id), ch.cl, contract, limit)
	cancel()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSetRateLimit, err)
	}
	wctx, cancel := context.WithTimeout(ctx, o.confirmTimeout)
	defer cancel()
	if _, err := contracts.WaitConfirmed(wctx, ch.cl, tx.Hash(), contracts.Confirmation{Depth: 1, Poll: o.poll, CallTimeout: o.callTimeout}); err != nil {
		return fmt.Errorf("%w: setRateLimit %s: %w", ErrSetRateLimit, tx.Hash(), err)
	}
	log.Info("rate limit set", "contract", contract, "capacity_wei", limit.Capacity, "wei_per_second", limit.PerSecond, "tx", tx.Hash())
	return printRateLimit(ctx, ch, contract, o.callTimeout, stdout)
}

func printRateLimit(ctx context.Context, ch *deployChain, contract common.Address, timeout time.Duration, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := contracts.ReadRateLimit(ctx, ch.cl, contract)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSetRateLimit, err)
	}
	fmt.Fprintf(stdout, "%s  capacity %s wei  refill %s wei/s (full in %s)  available now %s wei\n",
		contract, st.Capacity, st.PerSecond, st.Window(), st.Available)
	return nil
}
