package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
)

// runKeys runs a keys subcommand through cobra as the binary would and
// returns its standard output.
func runKeys(cmd *cobra.Command, stdin string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

// mustRunKeys runs a keys subcommand that must succeed.
func mustRunKeys(t *testing.T, cmd *cobra.Command, stdin string, args ...string) string {
	t.Helper()
	out, err := runKeys(cmd, stdin, args...)
	if err != nil {
		t.Fatalf("keys %s %v: %v", cmd.Name(), args, err)
	}
	return out
}

// outputField is the value of the output's line "name value".
func outputField(t *testing.T, out, name string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	t.Fatalf("no %q line in output %q", name, out)
	return ""
}

const keysPassphrase = "keys test passphrase"

// keysDir is a temporary directory with a passphrase file.
func keysDir(t *testing.T) (dir, passFile string) {
	dir = t.TempDir()
	passFile = filepath.Join(dir, "passphrase")
	if err := os.WriteFile(passFile, []byte(keysPassphrase+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, passFile
}

// A keystore account made by `keys new` is one the relay's wallets
// unlock with the same passphrase, and only with it.
func TestKeysNewEVM(t *testing.T) {
	dir, pass := keysDir(t)
	ks := filepath.Join(dir, "keystore")
	out := mustRunKeys(t, newKeysNewCmd(), "", "--keystore", ks, "--passphrase-file", pass, "--light-scrypt")
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("output %q, want the address line only", out)
	}
	addr, err := domain.ParseAddress(outputField(t, out, "address"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(ks); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("keystore directory: %v, mode %v; want 0700", err, fi.Mode())
	}
	spec := evmwallet.Spec{Name: "relayer", Address: addr, Keystore: ks, Passphrase: secrets.Passphrase{File: pass}}
	w, err := evmwallet.Open(context.Background(), spec, evmwallet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Address() != addr {
		t.Fatalf("wallet address %s, printed %s", w.Address(), addr)
	}
	t.Setenv("KEYS_TEST_WRONG", "not the passphrase")
	spec.Passphrase = secrets.Passphrase{Env: "KEYS_TEST_WRONG"}
	if _, err := evmwallet.Open(context.Background(), spec, evmwallet.Options{}); !errors.Is(err, secrets.ErrWrongPassphrase) {
		t.Fatalf("unlocked with another passphrase: %v", err)
	}
	// A second account lands beside the first.
	mustRunKeys(t, newKeysNewCmd(), "", "--keystore", ks, "--passphrase-file", pass, "--light-scrypt")
	list := mustRunKeys(t, newKeysListCmd(), "", "--keystore", ks)
	if strings.Count(list, "\n") != 2 || !strings.Contains(strings.ToLower(list), strings.ToLower(addr.String())) {
		t.Fatalf("keys list --keystore: %q, want two accounts, %s among them", list, addr)
	}
}

// Sealed Kaspa and identity keys made by `keys new` open under the
// passphrase to a key whose public key (and address) is what was
// printed, in a file of mode 600 that a second run does not replace.
func TestKeysNewSealed(t *testing.T) {
	dir, pass := keysDir(t)
	t.Setenv("KEYS_TEST_PASSPHRASE", keysPassphrase)
	payout := filepath.Join(dir, "payout.sealed")
	out := mustRunKeys(t, newKeysNewCmd(), "", "--kind", "kaspa", "--network", "kaspa-testnet", "--out", payout,
		"--passphrase-env", "KEYS_TEST_PASSPHRASE", "--light-scrypt")
	secret := openSealed(t, payout, kaspaPayoutKeyKind)
	public, err := kaspa.PublicKey(secret)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputField(t, out, "public"); got != hex.EncodeToString(public) {
		t.Fatalf("printed public key %s, the sealed secret's is %x", got, public)
	}
	wallet, err := kaspa.NewWallet("kaspa-testnet", secret)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputField(t, out, "address"); got != wallet.Address().String() {
		t.Fatalf("printed address %s, the key's is %s", got, wallet.Address())
	}

	identity := filepath.Join(dir, "identity.sealed")
	out = mustRunKeys(t, newKeysNewCmd(), "", "--kind", "identity", "--out", identity, "--passphrase-file", pass, "--light-scrypt")
	seed := openSealed(t, identity, identityKeyKind)
	if got := outputField(t, out, "public"); got != hex.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)) {
		t.Fatalf("printed identity key %s is not the sealed seed's", got)
	}
	if strings.Contains(out, hex.EncodeToString(seed)) {
		t.Fatal("the output holds the seed")
	}

	before, _ := os.ReadFile(identity)
	_, err = runKeys(newKeysNewCmd(), "", "--kind", "identity", "--out", identity, "--passphrase-file", pass, "--light-scrypt")
	if after, _ := os.ReadFile(identity); !errors.Is(err, ErrKeyExists) || !bytes.Equal(before, after) {
		t.Fatalf("second keys new at the same --out: %v; file unchanged: %v", err, bytes.Equal(before, after))
	}

	list := mustRunKeys(t, newKeysListCmd(), "", "--network", "kaspa-testnet", payout, identity)
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	want := []string{payout + " kaspa-payout " + hex.EncodeToString(public) + " " + wallet.Address().String(),
		identity + " ed25519-identity " + outputField(t, out, "public")}
	if !slices.Equal(lines, want) {
		t.Errorf("keys list:\n%s\nwant the lines\n%s", list, strings.Join(want, "\n"))
	}
}

// openSealed opens a sealed file with the test passphrase, checking its
// mode and kind.
func openSealed(t *testing.T, path string, kind keyKind) []byte {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("sealed file %s: %v, mode %v; want 0600", path, err, fi.Mode())
	}
	b, _ := os.ReadFile(path)
	secret, err := secrets.Open(kind.sealed, b, keysPassphrase)
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != kind.size {
		t.Fatalf("sealed secret of %d bytes", len(secret))
	}
	return secret
}

// `keys import` stores a plain key from an owner-only file or stdin:
// an EVM key into a keystore under its own address, a signer's plain
// identity and payout key files sealed.
func TestKeysImport(t *testing.T) {
	dir, pass := keysDir(t)
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	evmKey, _ := crypto.GenerateKey()
	evmHex := hex.EncodeToString(crypto.FromECDSA(evmKey))
	ks := filepath.Join(dir, "keystore")
	out := mustRunKeys(t, newKeysImportCmd(), "0x"+evmHex+"\n", "--keystore", ks, "--passphrase-file", pass, "--light-scrypt")
	if want := crypto.PubkeyToAddress(evmKey.PublicKey).Hex(); outputField(t, out, "address") != want {
		t.Fatalf("imported address %q, want %s", out, want)
	}
	_, err := runKeys(newKeysImportCmd(), evmHex, "--keystore", ks, "--passphrase-file", pass, "--light-scrypt")
	if !errors.Is(err, ErrKeyExists) {
		t.Fatalf("second import of the same key: %v", err)
	}

	// The signer's plain files, as writeDevSignerGroup writes them.
	seed := fixtureIdentity("s1").Seed()
	identityFile := write("identity.key", hex.EncodeToString(seed)+"\n", 0o600)
	sealed := filepath.Join(dir, "identity.sealed")
	out = mustRunKeys(t, newKeysImportCmd(), "", "--kind", "identity", "--key-file", identityFile, "--out", sealed,
		"--passphrase-file", pass, "--light-scrypt")
	if !bytes.Equal(openSealed(t, sealed, identityKeyKind), seed) {
		t.Fatal("the sealed identity seed is not the imported one")
	}
	if outputField(t, out, "public") != hex.EncodeToString(fixtureIdentity("s1").Public().(ed25519.PublicKey)) {
		t.Fatalf("printed %q, not s1's identity key", out)
	}
	secret, public, err := kaspa.NewKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	payoutFile := write("payout.key", hex.EncodeToString(secret)+"\n", 0o600)
	sealed = filepath.Join(dir, "payout.sealed")
	out = mustRunKeys(t, newKeysImportCmd(), "", "--kind", "kaspa", "--key-file", payoutFile, "--out", sealed,
		"--passphrase-file", pass, "--light-scrypt")
	if !bytes.Equal(openSealed(t, sealed, kaspaPayoutKeyKind), secret) || outputField(t, out, "public") != hex.EncodeToString(public) {
		t.Fatalf("the sealed payout key is not the imported one (printed %q)", out)
	}

	refused := []struct {
		name  string
		stdin string
		args  []string
		is    error
		want  string
	}{
		{"key file readable by others", "", []string{"--kind", "identity", "--key-file", write("open.key", hex.EncodeToString(seed), 0o644),
			"--out", filepath.Join(dir, "x"), "--passphrase-file", pass}, secrets.ErrFileMode, "has mode 0644"},
		{"missing key file", "", []string{"--kind", "identity", "--key-file", filepath.Join(dir, "nowhere"),
			"--out", filepath.Join(dir, "x"), "--passphrase-file", pass}, fs.ErrNotExist, "key file: open"},
		{"not hex", "zz" + evmHex[2:], []string{"--keystore", ks, "--passphrase-file", pass}, nil, "stdin: want an EVM private key as 64 hex digits"},
		{"a Kaspa secret above the group order", strings.Repeat("ff", 32), []string{"--kind", "kaspa",
			"--out", filepath.Join(dir, "x"), "--passphrase-file", pass}, kaspa.ErrKey, "not below the secp256k1 group order"},
		{"already sealed", "", []string{"--kind", "kaspa", "--key-file", sealed, "--out", filepath.Join(dir, "x"), "--passphrase-file", pass},
			ErrKeysUsage, "is already a sealed key file"},
		{"empty stdin", "", []string{"--kind", "identity", "--out", filepath.Join(dir, "x"), "--passphrase-file", pass},
			ErrKeysUsage, "stdin holds no key"},
		{"no passphrase", evmHex, []string{"--keystore", ks}, secrets.ErrNoPassphrase, "--passphrase-file or --passphrase-env"},
		{"empty passphrase", evmHex, []string{"--keystore", ks, "--passphrase-file", write("empty", "\n", 0o600)},
			ErrEmptyPassphrase, "--allow-empty-passphrase"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := runKeys(newKeysImportCmd(), c.stdin, c.args...)
			if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one that is %v and says %q", err, c.is, c.want)
			}
			if strings.Contains(err.Error(), evmHex[4:]) || strings.Contains(err.Error(), hex.EncodeToString(seed)[4:]) {
				t.Fatalf("the error quotes the key: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatal("a refused import wrote its --out file")
			}
		})
	}
	// Empty is taken when asked for, for a throwaway key.
	out = mustRunKeys(t, newKeysNewCmd(), "", "--keystore", filepath.Join(dir, "dev"), "--passphrase-file", filepath.Join(dir, "empty"),
		"--allow-empty-passphrase", "--light-scrypt")
	outputField(t, out, "address")
}

func TestKeysFlagsRefused(t *testing.T) {
	dir, pass := keysDir(t)
	cases := []struct {
		name string
		cmd  func() *cobra.Command
		args []string
		want string
	}{
		{"unknown kind", newKeysNewCmd, []string{"--kind", "btc", "--out", "x", "--passphrase-file", pass}, `--kind "btc", want evm, kaspa or identity`},
		{"evm to a file", newKeysNewCmd, []string{"--out", "x", "--passphrase-file", pass}, "--kind evm stores into --keystore DIR"},
		{"sealed kind into a keystore", newKeysImportCmd, []string{"--kind", "kaspa", "--keystore", dir, "--passphrase-file", pass},
			"--kind kaspa writes a sealed file at --out FILE"},
		{"network of an identity", newKeysNewCmd, []string{"--kind", "identity", "--network", "kaspa-mainnet", "--out", "x", "--passphrase-file", pass},
			"--network is for --kind kaspa"},
		{"unknown network", newKeysNewCmd, []string{"--kind", "kaspa", "--network", "kaspa-moon", "--out", "x", "--passphrase-file", pass},
			`"kaspa-moon"`},
		{"list of nothing", newKeysListCmd, nil, "give --keystore DIR or key files"},
		{"list of a plain key file", newKeysListCmd, []string{pass}, "is neither a sealed key file nor a keystore file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runKeys(c.cmd(), "", c.args...)
			if !errors.Is(err, ErrKeysUsage) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant one that is %v and says %q", err, ErrKeysUsage, c.want)
			}
		})
	}
}
