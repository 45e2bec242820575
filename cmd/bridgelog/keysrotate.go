package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// rotation replaces one claim or mint wallet of a relay config by another.
type rotation struct {
	role     string // claim or mint
	old, new domain.Address
	spec     evmwallet.Spec // where the new wallet's key is (keystore or external)
}

// rotateWallet marks the old wallet retiring and adds the new one, in the
// relay config at path. The relay, restarted on it, sends the old
// wallet's new requests from the new one, sees the old one's open
// intents through and records it retired (relay.wallet_retired).
func rotateWallet(path string, r rotation) (relayConfig, error) {
	c, err := loadRelayConfig(path)
	if err != nil {
		return c, err
	}
	specs, err := c.walletSpecs()
	if err != nil {
		return c, err
	}
	var list []evmwallet.Spec
	switch r.role {
	case "claim":
		list = specs.claim
	case "mint":
		list = specs.mint
	default:
		return c, fmt.Errorf("%w: --role %q: want claim or mint (the relayer wallet anchors the batch sequence and is not rotated this way)",
			ErrConfig, r.role)
	}
	old := -1
	for i, s := range list {
		a, err := evmwallet.SpecAddress(s)
		if err != nil {
			return c, err
		}
		switch a {
		case r.old:
			old = i
		case r.new:
			return c, fmt.Errorf("%w: %s: %s is already a %s wallet", ErrConfig, path, r.new, r.role)
		}
	}
	if old < 0 {
		return c, fmt.Errorf("%w: %s: no %s wallet %s", ErrConfig, path, r.role, r.old)
	}
	if list[old].Retiring {
		return c, fmt.Errorf("%w: %s: %s wallet %s is already retiring", ErrConfig, path, r.role, r.old)
	}
	next := r.spec
	next.Name, next.Address = fmt.Sprintf("%s %d", r.role, len(list)), r.new
	if next.Keystore != "" && next.Passphrase == (secrets.Passphrase{}) {
		next.Passphrase = list[old].Passphrase
	}
	if next.Keystore != "" && next.Passphrase == (secrets.Passphrase{}) {
		return c, fmt.Errorf("%w %s: %w: give --passphrase-file or --passphrase-env for its keystore",
			evmwallet.ErrWallet, next.Name, secrets.ErrNoPassphrase)
	}
	if err := next.Check(c.walletOptions()); err != nil {
		return c, err
	}
	if err := evmwallet.CheckHeld(next, c.walletOptions()); err != nil {
		return c, err
	}
	list = slices.Clone(list)
	list[old].Retiring = true
	list = append(list, next)
	// The role is written as wallet specs: a plain key can carry no
	// retiring mark.
	w := relayWallets{}
	if c.Wallets != nil {
		w = *c.Wallets
	}
	if r.role == "claim" {
		w.Claim, c.ClaimKeys = list, nil
	} else {
		w.Mint, c.MintKeys = list, nil
	}
	c.Wallets = &w
	tmp := path + ".rotate"
	if err := writeRelayConfig(tmp, c); err != nil {
		return c, err
	}
	return c, os.Rename(tmp, path)
}

var rotateFlags struct {
	config, role, old, new, keystore, external string
	passphrase                                 struct{ file, env string }
}

var keysRotateCmd = &cobra.Command{
	Use:   "rotate --config FILE --role claim|mint --old ADDRESS --new-address ADDRESS (--keystore DIR | --external URL)",
	Short: "Replace a claim or mint wallet: the relay drains the old wallet's transactions, then retires it",
	Long: `rotate edits a relay config: the old wallet is marked "retiring": true and the new one is added
after it (a keystore account, checked to be in the keystore, or an external signer). Restart the relay
on the edited config: new requests go to the other wallets, the old wallet's open transactions are seen
through to their outcomes, and then the relay records relay.wallet_retired for it and logs "wallet
retired". Remove the old entry from the config after that. The new wallet needs the bridge's relayer
role on the contracts (and gas) before the relay uses it.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := rotateFlags
		r := rotation{role: f.role, spec: evmwallet.Spec{Keystore: f.keystore, External: f.external,
			Passphrase: secrets.Passphrase{File: f.passphrase.file, Env: f.passphrase.env}}}
		var err error
		if r.old, err = addressFlag("--old", f.old); err != nil {
			return err
		}
		if r.new, err = addressFlag("--new-address", f.new); err != nil {
			return err
		}
		if _, err := rotateWallet(f.config, r); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s: %s wallet %s retiring, %s added; restart the relay on it\n", f.config, f.role, r.old, r.new)
		return nil
	},
}

func addressFlag(flag, v string) (domain.Address, error) {
	a, err := domain.ParseAddress(v)
	if err != nil {
		return a, fmt.Errorf("%w: %s %q: %v", ErrConfig, flag, v, err)
	}
	return a, nil
}

func init() {
	f := keysRotateCmd.Flags()
	f.StringVar(&rotateFlags.config, "config", "", "relay config file to edit")
	f.StringVar(&rotateFlags.role, "role", "", "claim or mint")
	f.StringVar(&rotateFlags.old, "old", "", "address of the wallet to retire")
	f.StringVar(&rotateFlags.new, "new-address", "", "address of the wallet that replaces it")
	f.StringVar(&rotateFlags.keystore, "keystore", "", "keystore directory holding the new wallet")
	f.StringVar(&rotateFlags.external, "external", "", "external signer (clef protocol) holding the new wallet, instead of --keystore")
	f.StringVar(&rotateFlags.passphrase.file, "passphrase-file", "", "file holding the new keystore's passphrase (default: the old wallet's)")
	f.StringVar(&rotateFlags.passphrase.env, "passphrase-env", "", "environment variable holding the new keystore's passphrase")
	for _, name := range []string{"config", "role", "old", "new-address"} {
		_ = keysRotateCmd.MarkFlagRequired(name)
	}
	keysCmd.AddCommand(keysRotateCmd)
}
