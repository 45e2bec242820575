package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/kaspanet/kaspad/util"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// migrationStreamPrefix names the stream of a group's transfers to one
// address: "migrate:" and the address. Every member derives the same
// request from the same flags, and a transfer run again after it was paid
// finds its nonce done and pays nothing.
const migrationStreamPrefix = "migrate:"

var migrateFlags struct {
	adminFlags
	to      string
	toGroup string
	amount  uint64
	all     bool
	nonce   uint64
}

var signerMigrateCmd = &cobra.Command{
	Use:   "migrate --config FILE (--to-group NEW.json | --to ADDR) (--amount SOMPI | --all) [--nonce N] --operator NAME --reason TEXT --credential FILE",
	Short: "Move the group's funds to another multisig address (a replaced payout key) through the signing protocol",
	Long: `migrate re-injects, as reinject does, a request to pay the group's funds to
ADDR, the multisig address of the group with a member's new payout key. The
group then proposes, validates and signs it as any payout, with a quorum of
the current payout keys; change, if any, returns to the current address.

--to-group NEW.json names the new group by a signer config of it (this
member's new config, say): ADDR is derived from its group section, the
members' payout keys and the quorum, as the new signers derive their own
address; its key files and passphrase are not read. The new group must be
on this group's network, must not be this group, and its
group.changeAddress must be its multisig address (a config the new signer
would refuse is refused here too). The command prints the derived address
("new group … address=ADDR"): compare it across the members before
starting them. --to ADDR alone trusts ADDR; with --to-group, --to must equal the
derived address.

The request is the same on every member: stream "migrate:ADDR", nonce N
(default 1: the first transfer to ADDR; give 2, 3, … for later transfers,
of funds that arrived after the first), ADDR and the amount. Run the same
command on every member, each stopped, and compare the event_id every run
prints: only members holding the same request sign it (a member that has
not got it votes against the others' proposals). A transfer run again once
it was paid finds its nonce done and records nothing.

--amount pays exactly SOMPI (the fee is paid on top, out of the group's
outputs). --all reads the group's outputs from this member's Kaspa node
(kaspad.rpc in the config) and asks for every eligible output (at least
minInputDepth deep; at most maxUtxosPerProposal, within the ledger's mass)
less the fee, so the payout has no change output; it says how many outputs
one payout leaves for a later transfer. The members' nodes must show the
same outputs, so stop funding the address and let every event finish first.

ADDR must be a multisig (P2SH) address of the group's network and not the
group's own. --to alone cannot tell whether ADDR is the new group's: prefer
--to-group. The policy applies: a config with allowedDestinations must
list ADDR, and maxAmount must cover the amount.

Example:
  bridgelog signer admin migrate --config s1.json --to-group s1-new.json --all \
    --operator alice --reason "s2's payout key replaced" --credential ~/.bridgelog/admin`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if err := signerDataFlagsUnset(cmd); err != nil {
			return err
		}
		f := migrateFlags
		if (f.amount == 0) == !f.all {
			return fmt.Errorf("%w: give either --amount SOMPI or --all", twophase.ErrAdmin)
		}
		if f.nonce < twophase.FirstNonce {
			return fmt.Errorf("%w: --nonce starts at %d", twophase.ErrAdmin, twophase.FirstNonce)
		}
		to, err := migrationTargetOf(f.to, f.toGroup)
		if err != nil {
			return err
		}
		res, err := runSignerAdmin(cmd.Context(), f.adminFlags, migrateAction(cmd.Context(), to, f.nonce, f.amount, f.all))
		if err != nil {
			return err
		}
		to.print(cmd.OutOrStdout())
		return res.print(cmd.OutOrStdout())
	},
}

func init() {
	migrateFlags.register(signerMigrateCmd)
	f := signerMigrateCmd.Flags()
	f.StringVar(&migrateFlags.to, "to", "", "the multisig address to move the funds to (with --to-group: must be the derived address)")
	f.StringVar(&migrateFlags.toGroup, "to-group", "", "a signer config of the new group: move the funds to that group's multisig address")
	f.Uint64Var(&migrateFlags.amount, "amount", 0, "the amount to move, in sompi (the fee is paid on top)")
	f.BoolVar(&migrateFlags.all, "all", false, "move every eligible output, less the fee")
	f.Uint64Var(&migrateFlags.nonce, "nonce", twophase.FirstNonce, "the transfer's number among those to this address")
	signerAdminCmd.AddCommand(signerMigrateCmd)
}

// ErrMigrationAddress: a transfer's destination that cannot be another
// group's address.
var ErrMigrationAddress = errors.New("not a migration address")

// migrationEvent is the request every member derives from the same flags.
func migrationEvent(to string, nonce, amount uint64) twophase.SigningEvent {
	return twophase.SigningEvent{Stream: migrationStreamPrefix + to, Nonce: nonce, Destination: to, Amount: amount}
}

// migrationTarget is a transfer's destination: --to as given, or the
// multisig address of the group of --to-group's config.
type migrationTarget struct {
	address string
	// Set by --to-group: the config and its group.
	groupConfig string
	group       twophase.Group
}

// migrationTargetOf derives the destination from the flags: --to-group's
// address, which --to, if given too, must equal.
func migrationTargetOf(to, toGroup string) (migrationTarget, error) {
	if toGroup == "" {
		if to == "" {
			return migrationTarget{}, fmt.Errorf("%w: give --to-group NEW.json or --to ADDR", twophase.ErrAdmin)
		}
		return migrationTarget{address: to}, nil
	}
	c, err := readSignerConfig(toGroup)
	if err != nil {
		return migrationTarget{}, fmt.Errorf("%w: --to-group: %w", ErrMigrationAddress, err)
	}
	l, err := c.Group.publicLedger(twophase.PeerID(c.Self))
	if err != nil {
		return migrationTarget{}, fmt.Errorf("%w: --to-group %s: %w", ErrMigrationAddress, toGroup, err)
	}
	rules, ok := l.rules.(*kaspa.Rules)
	if !ok {
		return migrationTarget{}, fmt.Errorf("%w: --to-group %s: group.network %q: migrate moves funds to a Kaspa group", ErrMigrationAddress, toGroup, c.Group.Network)
	}
	derived := rules.Address().String()
	if to != "" && to != derived {
		return migrationTarget{}, fmt.Errorf("%w: --to %s differs from the address of --to-group %s's group, %s", ErrMigrationAddress, to, toGroup, derived)
	}
	return migrationTarget{address: derived, groupConfig: toGroup, group: l.group}, nil
}

// check refuses a new group on another network than s's or equal to s's
// group, then the address as checkMigrationAddress does.
func (m migrationTarget) check(s *signerSetup) error {
	if m.groupConfig != "" {
		cur := s.protocol.Group
		if m.group.Network != cur.Network {
			return fmt.Errorf("%w: --to-group %s: group.network %s, this group's is %s", ErrMigrationAddress, m.groupConfig, m.group.Network, cur.Network)
		}
		if own, ok := s.rules.(*kaspa.Rules); ok && own.Address().String() == m.address {
			return fmt.Errorf("%w: --to-group %s is this group (its address %s is this group's own)", ErrMigrationAddress, m.groupConfig, m.address)
		}
	}
	return checkMigrationAddress(s, m.address)
}

// print says which address --to-group derived, for the operators to
// compare across the members.
func (m migrationTarget) print(w io.Writer) {
	if m.groupConfig != "" {
		fmt.Fprintf(w, "new group %s: address=%s quorum=%d members=%v\n", m.groupConfig, m.address, m.group.Quorum, m.group.IDs())
	}
}

func migrateAction(ctx context.Context, to migrationTarget, nonce, amount uint64, all bool) adminAction {
	return func(s *signerSetup, st *twophase.State, f adminFlags, en twophase.Env) (twophase.Step, error) {
		if err := to.check(s); err != nil {
			return twophase.Step{}, err
		}
		ev := migrationEvent(to.address, nonce, amount)
		if all {
			sw, err := sweepFromNode(ctx, s, ev)
			if err != nil {
				return twophase.Step{}, err
			}
			ev.Amount = sw.Amount
			slog.Info("migration amount", "signer", s.protocol.Self, "outputs", sw.Inputs, "total", sw.Total, "fee", sw.Fee,
				"amount", sw.Amount, "outputs_left", sw.Left)
		}
		if err := checkReinjected(ev, s.protocol.Rules); err != nil {
			return twophase.Step{}, err
		}
		if err := checkPayable(st, ev); err != nil {
			return twophase.Step{}, err
		}
		return st.AdminReinject(ev, f.operator, f.reason, en)
	}
}

// checkMigrationAddress refuses a destination that is not a multisig
// address of the group's network, or is the group's own.
func checkMigrationAddress(s *signerSetup, to string) error {
	rules, ok := s.rules.(*kaspa.Rules)
	if !ok {
		return fmt.Errorf("%w: group.network %q: migrate moves a Kaspa group's funds; use reinject", ErrMigrationAddress, s.protocol.Group.Network)
	}
	a, err := kaspa.DecodeAddress(s.protocol.Group.Network, to)
	if err != nil {
		return fmt.Errorf("%w: --to: %w", ErrMigrationAddress, err)
	}
	if _, p2sh := a.(*util.AddressScriptHash); !p2sh {
		return fmt.Errorf("%w: --to %s is not a multisig (P2SH) address", ErrMigrationAddress, to)
	}
	if a.String() == rules.Address().String() {
		return fmt.Errorf("%w: --to %s is this group's own address", ErrMigrationAddress, to)
	}
	return nil
}

// sweepFromNode reads the group's outputs from the member's own node and
// computes the amount that moves every eligible one.
func sweepFromNode(ctx context.Context, s *signerSetup, ev twophase.SigningEvent) (twophase.Sweep, error) {
	set, err := s.settings()
	if err != nil {
		return twophase.Sweep{}, err
	}
	addr, err := kaspa.DecodeAddress(s.protocol.Group.Network, set.address)
	if err != nil {
		return twophase.Sweep{}, err
	}
	node, err := kaspanode.New(ctx, kaspanode.Config{Node: set.node, Network: s.protocol.Group.Network, Address: addr,
		Timeout: set.nodeTimeout, Logger: slog.Default()})
	if err != nil {
		return twophase.Sweep{}, fmt.Errorf("--all reads the group's outputs from kaspad.rpc %s: %w", set.node, err)
	}
	defer node.Close()
	view, err := node.View(ctx)
	if err != nil {
		return twophase.Sweep{}, fmt.Errorf("--all: read the group's outputs from %s: %w", set.node, err)
	}
	p := s.protocol
	req := twophase.BuildRequest{Event: ev, Group: p.Group, Params: p.Params, Policy: p.Policy, Rules: p.Rules}
	if p.Group.Profile == twophase.ProfileB {
		salt := ev.ID()
		req.Salt = &salt
	}
	return twophase.SweepAmount(req, view)
}
