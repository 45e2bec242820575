package main

import "github.com/spf13/cobra"

// keysCmd groups the key commands: each subcommand adds itself in its
// file's init.
var keysCmd = &cobra.Command{
	Use:   "keys",
	Short: "Create, import, list and rotate the relay's and the signers' keys (encrypted at rest)",
	Long: `Keys are kept encrypted: EVM wallets in keystore directories (go-ethereum's scrypt JSON files,
which geth and clef read), Kaspa payout and signer identity keys sealed in the same scrypt JSON layout.
Passphrases come from a file readable by its owner only (--passphrase-file) or an environment variable
(--passphrase-env), never from a flag's value.`,
}

func init() { rootCmd.AddCommand(keysCmd) }
