package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/secrets"
)

func init() { keysCmd.AddCommand(newKeysImportCmd()) }

func newKeysImportCmd() *cobra.Command {
	var f keyStoreFlags
	var keyFile string
	cmd := &cobra.Command{
		Use:   "import [--kind evm|kaspa|identity] [--key-file FILE] (--keystore DIR | --out FILE) (--passphrase-file F | --passphrase-env VAR)",
		Short: "Store a plain hex key encrypted, and print its address or public key",
		Long: `Reads a plain hex key (64 hex digits, 0x optional) from --key-file FILE, which must be readable by
its owner only, or else from stdin (never from a flag's value or an argument, which ps shows), and
stores it as 'keys new' does: --kind evm into the keystore --keystore DIR (a relay config's
relayerKey, claimKeys or mintKeys), --kind kaspa or identity sealed at --out FILE. A signer's plain
payoutKeyFile and identityKeyFile are in this format: import them, point the signer config at the
sealed files, set its passphraseFile or passphraseEnv, and delete the plain files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			text, source, err := readPlainKey(keyFile, cmd.InOrStdin())
			if err != nil {
				return err
			}
			if f.kind == keyKindEVM {
				// crypto.ToECDSA checks the scalar; its errors do not quote it.
				b, err := hex.DecodeString(trim0x(string(text)))
				if err != nil || len(b) != 32 {
					return fmt.Errorf("%s: want an EVM private key as 64 hex digits", source)
				}
				key, err := crypto.ToECDSA(b)
				if err != nil {
					return fmt.Errorf("%s: %w", source, err)
				}
				pass, err := f.readPassphrase()
				if err != nil {
					return err
				}
				return f.storeEVM(cmd.OutOrStdout(), key, pass)
			}
			kind := f.sealedKind()
			secret, err := kind.decodePlain(text)
			if err != nil {
				return fmt.Errorf("%s: %w", source, err)
			}
			if _, err := kind.public(secret); err != nil {
				return fmt.Errorf("%s: %w", source, err)
			}
			pass, err := f.readPassphrase()
			if err != nil {
				return err
			}
			return f.storeSealed(cmd.OutOrStdout(), secret, pass)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&keyFile, "key-file", "", "file holding the plain hex key, readable by its owner only (default: stdin)")
	return cmd
}

// readPlainKey reads the key's text from path, or stdin when path is
// empty, and names where it came from for errors.
func readPlainKey(path string, stdin io.Reader) (text []byte, source string, err error) {
	if path != "" {
		b, err := secrets.ReadFile("key file", path)
		if err != nil {
			return nil, "", err
		}
		text, source = b, "key file "+path
	} else {
		const limit = 1 << 12 // a hex key and its line end; more is not a key
		b, err := io.ReadAll(io.LimitReader(stdin, limit))
		if err != nil {
			return nil, "", fmt.Errorf("stdin: %w", err)
		}
		text, source = bytes.TrimSpace(b), "stdin"
	}
	if _, _, sealed := secrets.Sealed(text); sealed {
		return nil, "", fmt.Errorf("%w: %s is already a sealed key file", ErrKeysUsage, source)
	}
	if len(text) == 0 {
		return nil, "", fmt.Errorf("%w: %s holds no key", ErrKeysUsage, source)
	}
	return text, source, nil
}
