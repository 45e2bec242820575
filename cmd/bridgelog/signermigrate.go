package main

import (
	"context"
	"errors"
	"fmt"
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
	to     string
	amount uint64
	all    bool
	nonce  uint64
}

var signerMigrateCmd = &cobra.Command{
	Use:   "migrate --config FILE --to ADDR (--amount SOMPI | --all) [--nonce N] --operator NAME --reason TEXT --credential FILE",
	Short: "Move the group's funds to another multisig address (a replaced payout key) through the signing protocol",
	Long: `migrate re-injects, as reinject does, a request to pay the group's funds to
ADDR, the multisig address of the group with a member's new payout key. The
group then proposes, validates and signs it as any payout, with a quorum of
the current payout keys; change, if any, returns to the current address.

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
group's own. The policy applies: a config with allowedDestinations must
list ADDR, and maxAmount must cover the amount.

Example:
  bridgelog signer admin migrate --config s1.json --to kaspa:pq… --all \
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
		res, err := runSignerAdmin(cmd.Context(), f.adminFlags, migrateAction(cmd.Context(), f.to, f.nonce, f.amount, f.all))
		if err != nil {
			return err
		}
		return res.print(cmd.OutOrStdout())
	},
}

func init() {
	migrateFlags.register(signerMigrateCmd)
	f := signerMigrateCmd.Flags()
	f.StringVar(&migrateFlags.to, "to", "", "the multisig address to move the funds to")
	f.Uint64Var(&migrateFlags.amount, "amount", 0, "the amount to move, in sompi (the fee is paid on top)")
	f.BoolVar(&migrateFlags.all, "all", false, "move every eligible output, less the fee")
	f.Uint64Var(&migrateFlags.nonce, "nonce", twophase.FirstNonce, "the transfer's number among those to this address")
	_ = signerMigrateCmd.MarkFlagRequired("to")
	signerAdminCmd.AddCommand(signerMigrateCmd)
}

// ErrMigrationAddress: a transfer's destination that cannot be another
// group's address.
var ErrMigrationAddress = errors.New("not a migration address")

// migrationEvent is the request every member derives from the same flags.
func migrationEvent(to string, nonce, amount uint64) twophase.SigningEvent {
	return twophase.SigningEvent{Stream: migrationStreamPrefix + to, Nonce: nonce, Destination: to, Amount: amount}
}

func migrateAction(ctx context.Context, to string, nonce, amount uint64, all bool) adminAction {
	return func(s *signerSetup, st *twophase.State, f adminFlags, en twophase.Env) (twophase.Step, error) {
		if err := checkMigrationAddress(s, to); err != nil {
			return twophase.Step{}, err
		}
		ev := migrationEvent(to, nonce, amount)
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
