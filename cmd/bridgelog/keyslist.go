package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/secrets"
)

func init() { keysCmd.AddCommand(newKeysListCmd()) }

func newKeysListCmd() *cobra.Command {
	var dir, network string
	cmd := &cobra.Command{
		Use:   "list (--keystore DIR | FILE...)",
		Short: "Print the addresses and public keys of a keystore's accounts or of key files (no passphrase needed)",
		Long: `Prints, without opening any key:
  --keystore DIR  every account of the keystore directory: its address and file.
  FILE...         for each sealed key file its kind and public key (with --network, a Kaspa payout
                  key's address on that network too), for each keystore file its address.
Plain key files are refused, not read out.`,
		RunE: func(cmd *cobra.Command, files []string) error {
			if (dir == "") == (len(files) == 0) {
				return fmt.Errorf("%w: give --keystore DIR or key files", ErrKeysUsage)
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			defer w.Flush()
			if dir != "" {
				return listKeystore(w, dir)
			}
			for _, path := range files {
				if err := listKeyFile(w, path, network); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "keystore", "", "keystore directory to list")
	cmd.Flags().StringVar(&network, "network", "", "Kaspa network to print payout keys' addresses on")
	return cmd
}

// listKeystore prints each account of a keystore directory.
func listKeystore(w io.Writer, dir string) error {
	if err := secrets.CheckOwnerOnly("keystore", dir); err != nil {
		return err
	}
	ks := keystore.NewKeyStore(dir, keystore.StandardScryptN, keystore.StandardScryptP)
	for _, a := range ks.Accounts() {
		fmt.Fprintf(w, "%s\t%s\n", a.Address.Hex(), a.URL.Path)
	}
	return nil
}

// listKeyFile prints a sealed key file's kind and public key, or a
// keystore file's address.
func listKeyFile(w io.Writer, path, network string) error {
	b, err := secrets.ReadFile("key file", path)
	if err != nil {
		return err
	}
	if kind, public, ok := secrets.Sealed(b); ok {
		line := fmt.Sprintf("%s\t%s\t%s", path, kind, public)
		if kind == kaspaPayoutKeyKind.sealed && network != "" {
			pub, err := hex.DecodeString(public)
			if err != nil {
				return fmt.Errorf("key file %s: public key: %w", path, err)
			}
			addr, err := kaspaKeyAddress(network, pub)
			if err != nil {
				return fmt.Errorf("key file %s: %w", path, err)
			}
			line += "\t" + addr
		}
		fmt.Fprintln(w, line)
		return nil
	}
	var account struct {
		Address string          `json:"address"`
		Crypto  json.RawMessage `json:"crypto"`
	}
	if json.Unmarshal(b, &account) == nil && common.IsHexAddress(account.Address) && account.Crypto != nil {
		fmt.Fprintf(w, "%s\t%s\t%s\n", path, keyKindEVM, common.HexToAddress(account.Address).Hex())
		return nil
	}
	return fmt.Errorf("%w: %s is neither a sealed key file nor a keystore file", ErrKeysUsage, path)
}
