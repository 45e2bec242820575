package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
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
	rpc, execRPC   string
	from, relayer  string
	keystore       string
	external       string
	passphrase     secrets.Passphrase
	confirmations  uint64
	out            string
	tokenName      string
	tokenSymbol    string
	callTimeout    time.Duration
	confirmTimeout time.Duration
	poll           time.Duration
}

func init() {
	var o deployOptions
	deploy := &cobra.Command{
		Use:   "deploy",
		Short: "Deploy the distributor and the token, check their code, and write a relay config for them",
		Long: `Deploys the BatchDistributor (the lock side, on --rpc) and the BridgeToken (the execution side:
on --execution-rpc, else the same chain) from the deployer wallet --from, which becomes both contracts'
admin; --relayer (default: the deployer) gets the relayer role of both. The deployer is an account of an
encrypted keystore (--keystore DIR with --passphrase-file or --passphrase-env) or an external signer
(--external URL, the clef protocol). Before sending anything it checks that the deployer can pay for
both. It waits until both creations are --confirmations blocks deep, checks that the code at each
address is what the committed artifacts create, and then writes a relay config (--out) naming the chains,
the contracts, the start blocks and the relayer's address, and no key: add the relayer wallet's keystore
or external signer under wallets.relayer before running the relay. On any error nothing is written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDeploy(cmd.Context(), o, cmd.OutOrStdout(), slog.Default())
		},
	}
	f := deploy.Flags()
	f.StringVar(&o.rpc, "rpc", "", "JSON-RPC URL of the lock-side chain (required)")
	f.StringVar(&o.execRPC, "execution-rpc", "", "JSON-RPC URL of the chain the token goes on (default: --rpc)")
	f.StringVar(&o.from, "from", "", "address of the deployer wallet (required)")
	f.StringVar(&o.keystore, "keystore", "", "keystore directory holding the deployer account")
	f.StringVar(&o.passphrase.File, "passphrase-file", "", "file (owner-only) whose first line unlocks the keystore account")
	f.StringVar(&o.passphrase.Env, "passphrase-env", "", "environment variable holding the keystore passphrase")
	f.StringVar(&o.external, "external", "", "external signer (clef protocol) that signs for --from, instead of --keystore")
	f.StringVar(&o.relayer, "relayer", "", "address of the relay's relayer wallet: it may anchor roots and mint (default: --from)")
	f.Uint64Var(&o.confirmations, "confirmations", domain.DefaultConfirmationDepth,
		"blocks the creations must be deep before their code is checked; also the relay config's confirmation depth (0: the default)")
	f.StringVar(&o.out, "out", "relay.json", "relay config to write (must not exist)")
	f.StringVar(&o.tokenName, "token-name", "Bridged Ether", "the token's ERC-20 name")
	f.StringVar(&o.tokenSymbol, "token-symbol", "bETH", "the token's ERC-20 symbol")
	f.DurationVar(&o.callTimeout, "timeout", 10*time.Second, "timeout of each RPC call and of the signer")
	f.DurationVar(&o.confirmTimeout, "confirm-timeout", 10*time.Minute, "how long to wait for the creations to be mined and confirmed")
	o.poll = time.Second
	contractsCmd.AddCommand(deploy)
	rootCmd.AddCommand(contractsCmd)
}

// deployChain is one chain deployed to.
type deployChain struct {
	url string
	id  *big.Int
	cl  *ethclient.Client
	// sent is the nonce after the deployer's last transaction sent here.
	sent uint64
}

// deployed is one contract sent and confirmed.
type deployed struct {
	creation contracts.Creation
	chain    *deployChain
	addr     common.Address
	tx       *types.Transaction
	receipt  *types.Receipt
}

func runDeploy(ctx context.Context, o deployOptions, stdout io.Writer, log *slog.Logger) error {
	from, relayer, err := o.addresses()
	if err != nil {
		return err
	}
	o.confirmations = domain.ConfirmationDepth(o.confirmations)
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
	wallet, err := evmwallet.Open(octx, evmwallet.Spec{Name: "deployer", Address: domain.Address(from), Keystore: o.keystore,
		External: o.external, Passphrase: o.passphrase}, evmwallet.Options{})
	cancel()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDeploy, err)
	}

	dist := &deployed{creation: contracts.DistributorCreation(from, relayer), chain: lock}
	token := &deployed{creation: contracts.TokenCreation(o.tokenName, o.tokenSymbol, from, relayer), chain: exec}
	if err := o.deploy(ctx, wallet, from, dist, token, log); err != nil {
		return err
	}
	cfg := o.relayConfig(dist, token, relayer)
	if err := writeRelayConfig(o.out, cfg); err != nil {
		return fmt.Errorf("%w: writing %s: %v", ErrDeploy, o.out, err)
	}
	for _, d := range []*deployed{dist, token} {
		fmt.Fprintf(stdout, "%-16s %s  chain %s  block %d  tx %s\n", d.creation.Name, d.addr, d.chain.id, d.receipt.BlockNumber, d.tx.Hash())
	}
	fmt.Fprintf(stdout, "relay config written to %s: add the relayer wallet %s (keystore and passphrase source, or external signer) under wallets.relayer\n",
		o.out, relayer)
	return nil
}

// deploy sends both creations once the deployer is known to afford them,
// waits until they are confirmed, and checks their code.
func (o deployOptions) deploy(ctx context.Context, wallet evmwallet.TxSigner, from common.Address, dist, token *deployed, log *slog.Logger) error {
	all := []*deployed{dist, token}
	if err := checkDeployFunds(ctx, o, from, all); err != nil {
		return err
	}
	for _, d := range all {
		if err := o.send(ctx, wallet, d); err != nil {
			if d != dist {
				return fmt.Errorf("%w (the %s creation %s was sent already, to %s)", err, dist.creation.Name, dist.tx.Hash(), dist.addr)
			}
			return err
		}
		log.Info("contract creation sent", "contract", d.creation.Name, "chain_id", d.chain.id, "address", d.addr, "tx", d.tx.Hash())
	}
	ctx, cancel := context.WithTimeout(ctx, o.confirmTimeout)
	defer cancel()
	wait := contracts.Confirmation{Depth: o.confirmations, Poll: o.poll, CallTimeout: o.callTimeout}
	for _, d := range all {
		var err error
		if d.receipt, err = contracts.WaitConfirmed(ctx, d.chain.cl, d.tx.Hash(), wait); err != nil {
			return fmt.Errorf("%w: %s at %s: %w", ErrDeploy, d.creation.Name, d.addr, err)
		}
	}
	for _, d := range all {
		vctx, cancel := context.WithTimeout(ctx, o.callTimeout)
		err := contracts.VerifyCode(vctx, d.chain.cl, from, d.addr, d.creation)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDeploy, err)
		}
		log.Info("contract deployed", "contract", d.creation.Name, "chain_id", d.chain.id, "address", d.addr,
			"block", d.receipt.BlockNumber, "confirmations", o.confirmations)
	}
	return nil
}

// addresses parses --from and --relayer, and checks the key source flags.
func (o deployOptions) addresses() (from, relayer common.Address, err error) {
	switch {
	case o.rpc == "":
		return from, relayer, fmt.Errorf("%w: --rpc is required", ErrDeploy)
	case !common.IsHexAddress(o.from):
		return from, relayer, fmt.Errorf("%w: --from %q: want the deployer's 0x address", ErrDeploy, o.from)
	case (o.keystore == "") == (o.external == ""):
		return from, relayer, fmt.Errorf("%w: give the deployer wallet as exactly one of --keystore or --external", ErrDeploy)
	case o.relayer != "" && !common.IsHexAddress(o.relayer):
		return from, relayer, fmt.Errorf("%w: --relayer %q: want the relayer wallet's 0x address", ErrDeploy, o.relayer)
	}
	from = common.HexToAddress(o.from)
	relayer = from
	if o.relayer != "" {
		relayer = common.HexToAddress(o.relayer)
	}
	return from, relayer, nil
}

// dialDeployChain connects to url and reads its chain id, failing within
// timeout on a node that does not answer.
func dialDeployChain(ctx context.Context, url string, timeout time.Duration) (*deployChain, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%w: RPC %s: %v", ErrDeploy, url, err)
	}
	id, err := cl.ChainID(ctx)
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("%w: RPC %s does not answer (chain id): %w", ErrDeploy, url, err)
	}
	return &deployChain{url: url, id: id, cl: cl}, nil
}

// checkDeployFunds refuses a deployer that cannot pay for its creations
// on each chain, before anything is sent.
func checkDeployFunds(ctx context.Context, o deployOptions, from common.Address, all []*deployed) error {
	byChain := map[*deployChain][]contracts.Creation{}
	for _, d := range all {
		byChain[d.chain] = append(byChain[d.chain], d.creation)
	}
	for ch, cs := range byChain {
		fctx, cancel := context.WithTimeout(ctx, o.callTimeout)
		err := contracts.CheckFunds(fctx, ch.cl, from, cs...)
		cancel()
		if err != nil {
			return fmt.Errorf("%w: deployer on chain %s (%s): %w", ErrDeploy, ch.id, ch.url, err)
		}
	}
	return nil
}

// send signs and sends d's creation through the deployer wallet.
func (o deployOptions) send(ctx context.Context, wallet evmwallet.TxSigner, d *deployed) error {
	sctx, cancel := context.WithTimeout(ctx, o.callTimeout)
	defer cancel()
	auth := evmwallet.TransactOpts(sctx, wallet, d.chain.id)
	// The pending nonce, asked afresh: a creation just sent on the same
	// chain may not show in it yet.
	nonce, err := d.chain.cl.PendingNonceAt(sctx, auth.From)
	if err != nil {
		return fmt.Errorf("%w: nonce of %s on chain %s: %w", ErrDeploy, auth.From, d.chain.id, err)
	}
	if d.chain.sent > nonce {
		nonce = d.chain.sent
	}
	auth.Nonce = new(big.Int).SetUint64(nonce)
	d.addr, d.tx, err = contracts.Send(auth, d.chain.cl, d.creation)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDeploy, err)
	}
	d.chain.sent = nonce + 1
	return nil
}

// relayConfig is the relay config for the deployed contracts: the
// relayer's address without a key source, which the operator adds.
func (o deployOptions) relayConfig(dist, token *deployed, relayer common.Address) relayConfig {
	cfg := relayConfig{RPC: dist.chain.url, ChainID: dist.chain.id.Uint64(), Distributor: domain.Address(dist.addr),
		Token: domain.Address(token.addr), StartBlock: dist.receipt.BlockNumber.Uint64(), Confirmations: o.confirmations,
		Wallets: &relayWallets{Relayer: evmwallet.Spec{Address: domain.Address(relayer)}}}
	if token.chain == dist.chain {
		cfg.StartBlock = min(cfg.StartBlock, token.receipt.BlockNumber.Uint64())
		return cfg
	}
	cfg.Execution = &executionChain{RPC: token.chain.url, ChainID: token.chain.id.Uint64(),
		StartBlock: token.receipt.BlockNumber.Uint64(), Confirmations: o.confirmations}
	return cfg
}
