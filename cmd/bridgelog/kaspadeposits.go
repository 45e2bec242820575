package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/topics"
)

// ErrKaspaDeposits: a deposit-address request or a relay kaspa section
// that cannot be used.
var ErrKaspaDeposits = errors.New("kaspa deposits")

// relayKaspa is the relay config's optional kaspa section: the Kaspa
// indexer of deposits to the group's deposit addresses. Absent: off.
type relayKaspa struct {
	// Node is the host:port of a kaspad (or rusty-kaspa) gRPC server on
	// the group's network.
	Node string `json:"node"`
	// Group is a signer config of the group (any member's): its group
	// section (network, payout keys, quorum) makes the deposit addresses,
	// and its params' minInputDepth is the default depth.
	Group string `json:"group"`
	// Depth is how deep in DAA score a deposit's accepting chain block
	// must be before the deposit is confirmed (0: the signers' depth,
	// their minInputDepth, default 300).
	Depth uint64 `json:"depth,omitempty"`
	// MinSompi is the least deposit minted (0: 10,000,000 sompi, the
	// least payout the group can send back).
	MinSompi uint64 `json:"minSompi,omitempty"`
	// StartBlock is the chain block hash to follow from on a log without
	// a Kaspa cursor ("": the node's pruning point).
	StartBlock string `json:"startBlock,omitempty"`
	// Timeout bounds each call to the node (Go duration, default 10s).
	Timeout string `json:"timeout,omitempty"`
}

// kaspaGroup reads the group of a signer config: its deposit addresses
// and its signers' depth. A group on the simulated network has none.
func kaspaGroup(path string) (*kaspa.Deposits, uint64, error) {
	c, err := readSignerConfig(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: group: %w", ErrKaspaDeposits, err)
	}
	if !strings.HasPrefix(c.Group.Network, "kaspa-") {
		return nil, 0, fmt.Errorf("%w: group %s is on %q: deposit addresses exist on Kaspa networks only", ErrKaspaDeposits, path, c.Group.Network)
	}
	l, err := c.Group.publicLedger(twophase.PeerID(c.Self))
	if err != nil {
		return nil, 0, fmt.Errorf("%w: group %s: %w", ErrKaspaDeposits, path, err)
	}
	d, err := kaspa.DepositsForGroup(l.group)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: group %s: %w", ErrKaspaDeposits, path, err)
	}
	return d, c.Params.WithDefaults().MinInputDepth, nil
}

// parseRecipient reads an EVM recipient: 0x and 40 hex digits, not the
// zero address, and, when written in mixed case, with a valid EIP-55
// checksum (a mistyped address would mint to no one).
func parseRecipient(s string) (domain.Address, error) {
	a, err := domain.ParseAddress(s)
	if err != nil || !strings.HasPrefix(s, "0x") {
		return a, fmt.Errorf("%w: recipient %q is not an EVM address (0x and 40 hex digits)", ErrKaspaDeposits, s)
	}
	if a == (domain.Address{}) {
		return a, fmt.Errorf("%w: recipient is the zero address, which no one controls", ErrKaspaDeposits)
	}
	digits := s[2:]
	if digits != strings.ToLower(digits) && digits != strings.ToUpper(digits) && common.Address(a).Hex() != s {
		return a, fmt.Errorf("%w: recipient %q fails its EIP-55 checksum (mistyped?)", ErrKaspaDeposits, s)
	}
	return a, nil
}

var depositAddressFlags struct {
	recipient, group string
	register, json   bool
	by               string
}

var kaspaCmd = &cobra.Command{Use: "kaspa", Short: "KAS coming in: deposit addresses"}

var depositAddressCmd = &cobra.Command{
	Use:   "deposit-address --recipient 0x… --group SIGNER_CONFIG [--register]",
	Short: "Print where to send KAS to mint wrapped KAS to an EVM recipient",
	Long: `deposit-address prints the recipient's deposit address: the P2SH of
<recipient> OP_DROP followed by the group's M-of-N multisig script, made from
the group section of a signer config (public keys only). The same recipient
always gets the same address; send any number of deposits to it.

The relay sees deposits only to addresses registered on its log: --register
appends kaspa.deposit_address_issued to the log of --data (with the embedded
log, stop the relay first: one process holds the log). Register an address
before handing it out: the relay does not look back for deposits made before.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		r, err := parseRecipient(depositAddressFlags.recipient)
		if err != nil {
			return err
		}
		d, _, err := kaspaGroup(depositAddressFlags.group)
		if err != nil {
			return err
		}
		addr, _, err := d.Address(r)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrKaspaDeposits, err)
		}
		issued := domain.KaspaDepositAddressIssued{Network: d.Network(), GroupAddress: d.GroupAddress().String(), Recipient: r,
			Address: addr.String(), IssuedBy: depositAddressFlags.by}
		if depositAddressFlags.register {
			if err := registerDepositAddress(cmd.Context(), issued); err != nil {
				return err
			}
		}
		out := cmd.OutOrStdout()
		if !depositAddressFlags.json {
			fmt.Fprintln(out, addr.String())
			return nil
		}
		redeem, _ := d.RedeemScript(r)
		return json.NewEncoder(out).Encode(map[string]any{"address": addr.String(), "recipient": r.Hex(), "network": d.Network(),
			"groupAddress": d.GroupAddress().String(), "redeemScript": hex.EncodeToString(redeem), "registered": depositAddressFlags.register})
	},
}

// registerDepositAddress appends the address's issue to the log; issuing
// it again is the same fact and changes nothing.
func registerDepositAddress(ctx context.Context, ev domain.KaspaDepositAddressIssued) error {
	lg, err := openLog(ctx)
	if err != nil {
		return err
	}
	defer lg.Close()
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	_, err = app.Append(ctx, handlers.Cause{}, ev)
	return err
}

func init() {
	f := depositAddressCmd.Flags()
	f.StringVar(&depositAddressFlags.recipient, "recipient", "", "the EVM address (0x…) the wrapped KAS is minted to")
	f.StringVar(&depositAddressFlags.group, "group", "", "a signer config of the group (its group section is read: public keys only)")
	f.BoolVar(&depositAddressFlags.register, "register", false, "append the address to the relay's log (--data) so the relay watches it")
	f.BoolVar(&depositAddressFlags.json, "json", false, "print JSON: address, recipient, network, group address, redeem script")
	f.StringVar(&depositAddressFlags.by, "by", os.Getenv("USER"), "who issues it, for the audit trail (with --register)")
	_ = depositAddressCmd.MarkFlagRequired("recipient")
	_ = depositAddressCmd.MarkFlagRequired("group")
	kaspaCmd.AddCommand(depositAddressCmd)
	rootCmd.AddCommand(kaspaCmd)
}

// wireKaspa gives the relay its Kaspa indexer when the config has a
// kaspa section.
func (b *bridge) wireKaspa(ctx context.Context, cfg relayConfig, opt bridgeOptions) error {
	if cfg.Kaspa == nil {
		return nil
	}
	var err error
	b.relay.Kaspa, b.kaspa, err = kaspaIndexer(ctx, cfg.Kaspa, cfg.dir, b, opt)
	return err
}

// kaspaIndexer builds the relay's Kaspa indexer from its config section:
// the group's deposit addresses, a node client, the depth and minimum.
// The client is returned to be closed with the relay.
func kaspaIndexer(ctx context.Context, s *relayKaspa, dir string, b *bridge, opt bridgeOptions) (*handlers.KaspaIndexer, *kaspanode.Client, error) {
	if s.Node == "" || s.Group == "" {
		return nil, nil, fmt.Errorf("%w: kaspa.node and kaspa.group are required", ErrConfig)
	}
	d, depth, err := kaspaGroup(resolvePath(dir, s.Group))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: kaspa.group: %w", ErrConfig, err)
	}
	if s.Depth > 0 {
		depth = s.Depth
	}
	minSompi := s.MinSompi
	if minSompi == 0 {
		minSompi = domain.MinKaspaPayoutSompi
	}
	var start domain.Hash32
	if s.StartBlock != "" {
		if start, err = domain.ParseHash32(s.StartBlock); err != nil {
			return nil, nil, fmt.Errorf("%w: kaspa.startBlock: %w", ErrConfig, err)
		}
	}
	timeout, err := durationOr(s.Timeout, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	cl, err := kaspanode.New(ctx, kaspanode.Config{Node: s.Node, Network: d.Network(), Address: d.GroupAddress(),
		WithoutUTXOIndex: true, Timeout: timeout, Logger: opt.logger})
	if err != nil {
		return nil, nil, err
	}
	var m handlers.KaspaIndexerMetrics
	if km, ok := opt.metrics.(handlers.KaspaIndexerMetrics); ok {
		m = km
	}
	ix := &handlers.KaspaIndexer{Chain: kaspanode.DepositSource{Client: cl, Deposits: d}, Reader: b.reader, Appender: b.app,
		Config: handlers.KaspaIndexerConfig{Depth: depth, MinSompi: minSompi, Start: start}, Metrics: m, Logger: opt.logger}
	opt.logger.Info("kaspa deposits indexed", "node", s.Node, "network", d.Network(), "group_address", d.GroupAddress().String(),
		"depth", depth, "min_sompi", minSompi)
	return ix, cl, nil
}
