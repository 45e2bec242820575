package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// contractsCmd groups the contract commands.
var contractsCmd = &cobra.Command{
	Use:   "contracts",
	Short: "Deploy the bridge's contracts to a network",
}

// ErrDeploy wraps every error of contracts deploy.
var ErrDeploy = errors.New("contracts deploy")

// deployOptions are contracts deploy's flags.
type deployOptions struct {
	rpc, execRPC      string
	from, relayer     string
	minters, claimers []string
	keystore          string
	external          string
	passphrase        secrets.Passphrase
	confirmations     uint64
	out               string
	tokenName         string
	tokenSymbol       string
	kaspaPrefix       string
	kaspaMinSompi     uint64
	mintLimit         rateLimitFlags
	claimLimit        rateLimitFlags
	callTimeout       time.Duration
	confirmTimeout    time.Duration
	poll              time.Duration
}

func init() {
	var o deployOptions
	deploy := &cobra.Command{
		Use:   "deploy",
		Short: "Deploy the distributor and the token, check their code, and write a relay config for them",
		Long: `Deploys the BatchDistributor (the lock side, on --rpc) and the BridgeToken (the execution side:
on --execution-rpc, else the same chain) from the deployer wallet --from, which becomes both contracts'
admin; --relayer (default: the deployer) gets the relayer role of both, each --minter the token's relayer
role. The deployer is an account of an encrypted keystore (--keystore DIR with --passphrase-file or
--passphrase-env) or an external signer (--external URL, the clef protocol). Before sending anything it
checks that the deployer can pay for both creations. It waits until they are --confirmations blocks deep,
checks that the code at each address is what the committed artifacts create, grants the minters their
role, reads back the rate limits (--mint-limit per --mint-window, --claim-limit per --claim-window), and then writes a relay config (--out) naming the chains, the contracts, the start blocks and the
wallets' addresses, and no key: add each wallet's keystore or external signer before running the relay.
On any error nothing is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDeploy(cmd.Context(), o, cmd.OutOrStdout(), slog.Default())
		},
	}
	f := deploy.Flags()
	f.StringVar(&o.rpc, "rpc", "", "JSON-RPC URL of the lock-side chain (required)")
	f.StringVar(&o.execRPC, "execution-rpc", "", "JSON-RPC URL of the chain the token goes on (default: --rpc)")
	f.StringVar(&o.from, "from", "", "address of the deployer wallet, the contracts' admin (required)")
	f.StringVar(&o.keystore, "keystore", "", "keystore directory holding the deployer account")
	f.StringVar(&o.passphrase.File, "passphrase-file", "", "file (owner-only) whose first line unlocks the keystore account")
	f.StringVar(&o.passphrase.Env, "passphrase-env", "", "environment variable holding the keystore passphrase")
	f.StringVar(&o.external, "external", "", "external signer (clef protocol) that signs for --from, instead of --keystore")
	f.StringVar(&o.relayer, "relayer", "", "address of the relay's relayer wallet: it may anchor roots and mint (default: --from)")
	f.StringArrayVar(&o.minters, "minter", nil, "address of a further wallet the relay mints with (wallets.mint); granted the token's relayer role; repeatable")
	f.StringArrayVar(&o.claimers, "claimer", nil, "address of a claim wallet (wallets.claim); claims need no role; repeatable")
	f.Uint64Var(&o.confirmations, "confirmations", domain.DefaultConfirmationDepth,
		"blocks the creations must be deep before their code is checked; also the relay config's confirmation depth (0: the default)")
	f.StringVar(&o.out, "out", "relay.json", "relay config to write (must not exist)")
	f.StringVar(&o.tokenName, "token-name", "Bridged Ether", "the token's ERC-20 name")
	f.StringVar(&o.tokenSymbol, "token-symbol", "bETH", "the token's ERC-20 symbol")
	f.StringVar(&o.kaspaPrefix, "kaspa-prefix", "kaspa",
		"address prefix of the Kaspa network burns are paid on (kaspa, kaspatest, kaspadev, kaspasim): the token refuses a burn toward another")
	f.Uint64Var(&o.kaspaMinSompi, "kaspa-min-sompi", domain.MinKaspaPayoutSompi,
		"least burn toward Kaspa in sompi: the token refuses a smaller one (the default is the least payout a Kaspa node relays)")
	o.mintLimit.register(f, "mint", "the token mints (and refunds)")
	o.claimLimit.register(f, "claim", "the distributor's claims pay")
	f.DurationVar(&o.callTimeout, "timeout", 10*time.Second, "timeout of each RPC call and of the signer")
	f.DurationVar(&o.confirmTimeout, "confirm-timeout", 10*time.Minute, "how long to wait for the transactions to be mined and confirmed")
	o.poll = time.Second
	contractsCmd.AddCommand(deploy)
	rootCmd.AddCommand(contractsCmd)
}

// kaspaPrefixes are the address prefixes of Kaspa's networks.
var kaspaPrefixes = []string{"kaspa", "kaspatest", "kaspadev", "kaspasim"}

// deployWallets are the addresses contracts deploy is given.
type deployWallets struct {
	from, relayer     common.Address
	minters, claimers []common.Address
}

func runDeploy(ctx context.Context, o deployOptions, stdout io.Writer, log *slog.Logger) error {
	w, err := o.wallets()
	if err != nil {
		return err
	}
	o.confirmations = domain.ConfirmationDepth(o.confirmations)
	if !slices.Contains(kaspaPrefixes, o.kaspaPrefix) {
		return fmt.Errorf("%w: --kaspa-prefix %q: want one of %v", ErrDeploy, o.kaspaPrefix, kaspaPrefixes)
	}
	if o.kaspaMinSompi < domain.MinKaspaPayoutSompi {
		return fmt.Errorf("%w: --kaspa-min-sompi %d: under %d sompi a payout's storage mass is over what a Kaspa node relays",
			ErrDeploy, o.kaspaMinSompi, domain.MinKaspaPayoutSompi)
	}
	mints, err := o.mintLimit.limit("mint-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDeploy, err)
	}
	claims, err := o.claimLimit.limit("claim-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDeploy, err)
	}
	if _, err := os.Stat(o.out); err == nil {
		return fmt.Errorf("%w: --out %s exists; move it away or name another file", ErrDeploy, o.out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: --out %s: %v", ErrDeploy, o.out, err)
	}
	lock, err := dialDeployChain(ctx, o.rpc, o.callTimeout)
	if err != nil {
		return err
	}
	defer lock.cl.Close()
	exec := lock
	if o.execRPC != "" && o.execRPC != o.rpc {
		if exec, err = dialDeployChain(ctx, o.execRPC, o.callTimeout); err != nil {
			return err
		}
		defer exec.cl.Close()
	}
	octx, cancel := context.WithTimeout(ctx, o.callTimeout)
	wallet, err := evmwallet.Open(octx, evmwallet.Spec{Name: "deployer", Address: domain.Address(w.from), Keystore: o.keystore,
		External: o.external, Passphrase: o.passphrase}, evmwallet.Options{ExternalTimeout: o.callTimeout})
	cancel()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDeploy, err)
	}

	d := &deployment{o: o, signer: wallet, log: log,
		dist: &deployed{creation: contracts.DistributorCreation(w.from, w.relayer, claims), limit: claims, chain: lock},
		token: &deployed{creation: contracts.TokenCreation(o.tokenName, o.tokenSymbol, w.from, w.relayer,
			contracts.KaspaBurnRules{MinSompi: o.kaspaMinSompi, Prefix: o.kaspaPrefix}, mints), limit: mints, chain: exec}}
	if err := d.run(ctx, w); err != nil {
		return err
	}
	if err := writeRelayConfig(o.out, d.relayConfig(w)); err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrDeploy, o.out, err)
	}
	for _, c := range []*deployed{d.dist, d.token} {
		fmt.Fprintf(stdout, "%-16s %s  chain %s  block %d  tx %s\n", c.creation.Name, c.addr, c.chain.id, c.receipt.BlockNumber, c.tx.Hash())
	}
	fmt.Fprintf(stdout, "relay config written to %s: add the key source (keystore and passphrase source, or external signer) "+
		"of each wallet under wallets (relayer %s)\n", o.out, w.relayer)
	return nil
}

// wallets parses the addresses and checks the key source flags.
func (o deployOptions) wallets() (deployWallets, error) {
	var w deployWallets
	switch {
	case o.rpc == "":
		return w, fmt.Errorf("%w: --rpc is required", ErrDeploy)
	case (o.keystore == "") == (o.external == ""):
		return w, fmt.Errorf("%w: give the deployer wallet as exactly one of --keystore or --external", ErrDeploy)
	}
	addr := func(flag, s string) (common.Address, error) {
		if !common.IsHexAddress(s) {
			return common.Address{}, fmt.Errorf("%w: --%s %q: want a 0x address", ErrDeploy, flag, s)
		}
		return common.HexToAddress(s), nil
	}
	var err error
	if w.from, err = addr("from", o.from); err != nil {
		return w, err
	}
	w.relayer = w.from
	if o.relayer != "" {
		if w.relayer, err = addr("relayer", o.relayer); err != nil {
			return w, err
		}
	}
	for _, s := range o.minters {
		a, err := addr("minter", s)
		if err != nil {
			return w, err
		}
		w.minters = append(w.minters, a)
	}
	for _, s := range o.claimers {
		a, err := addr("claimer", s)
		if err != nil {
			return w, err
		}
		w.claimers = append(w.claimers, a)
	}
	return w, nil
}
