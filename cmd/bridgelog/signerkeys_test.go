package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

const signerPassphrase = "signer fixture passphrase"

// sealedKaspaFixture is f's group on network with s1's identity and
// payout keys sealed by `keys import` from its plain files (the way an
// operator moves a signer onto sealed keys) under the passphrase in the
// file "passphrase", which the config names.
func sealedKaspaFixture(t *testing.T, network string) *signerFixture {
	t.Helper()
	f := newSignerFixture(t, 3, 2)
	kaspaFixtureOn(t, f, network)
	pass := f.writeSecret(t, "passphrase", signerPassphrase+"\n")
	for _, k := range []struct{ kind, plain, sealed string }{
		{keyKindIdentity, "s1.identity", "s1.identity.sealed"}, {keyKindKaspa, "s1.kaspa", "s1.kaspa.sealed"},
		{keyKindIdentity, "s2.identity", "s2.identity.sealed"},
	} {
		mustRunKeys(t, newKeysImportCmd(), "", "--kind", k.kind, "--key-file", filepath.Join(f.dir, k.plain),
			"--out", filepath.Join(f.dir, k.sealed), "--passphrase-file", pass, "--light-scrypt")
	}
	f.cfg.IdentityKeyFile, f.cfg.PayoutKeyFile = "s1.identity.sealed", "s1.kaspa.sealed"
	f.cfg.Passphrase = secrets.Passphrase{File: "passphrase"} // relative to the config
	return f
}

// A signer on Kaspa testnet unlocks its sealed identity and payout keys
// with the config's one passphrase, from a file or the environment.
func TestSignerConfigSealedKeys(t *testing.T) {
	for _, source := range []string{"file", "env"} {
		t.Run(source, func(t *testing.T) {
			f := sealedKaspaFixture(t, "kaspa-testnet")
			if source == "env" {
				t.Setenv("SIGNER_TEST_PASSPHRASE", signerPassphrase)
				f.cfg.Passphrase = secrets.Passphrase{Env: "SIGNER_TEST_PASSPHRASE"}
			}
			p := f.load(t).protocol
			if !p.Identity.Equal(fixtureIdentity("s1")) {
				t.Fatal("identity key not s1's")
			}
			s1, _ := p.Group.Member("s1")
			if !bytes.Equal(p.Payout.(*kaspa.Signer).PublicKey(), s1.PayoutKey) {
				t.Fatal("payout key not s1's")
			}
			if _, err := twophase.NewState(p); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Sealed keys refused: each error is the config's, of its kind, and
// names the signer and the file.
func TestSignerConfigSealedKeysRefused(t *testing.T) {
	cases := []struct {
		name    string
		network string
		mutate  func(t *testing.T, f *signerFixture)
		is      error
		want    string
	}{
		{"plain identity key on testnet", "kaspa-testnet", func(_ *testing.T, f *signerFixture) { f.cfg.IdentityKeyFile = "s1.identity" },
			ErrPlainKeyFile, "signer s1: plain key file refused: identity key file %DIR%/s1.identity holds a plain key, and on kaspa-testnet keys must be sealed: " +
				"bridgelog keys import --kind identity --key-file %DIR%/s1.identity --out SEALED_FILE"},
		{"plain payout key on mainnet", "kaspa-mainnet", func(_ *testing.T, f *signerFixture) { f.cfg.PayoutKeyFile = "s1.kaspa" },
			ErrPlainKeyFile, "payout key file %DIR%/s1.kaspa holds a plain key, and on kaspa-mainnet keys must be sealed: bridgelog keys import --kind kaspa"},
		{"wrong passphrase", "kaspa-testnet", func(t *testing.T, f *signerFixture) {
			f.writeSecret(t, "other", "not the passphrase\n")
			f.cfg.Passphrase.File = "other"
		}, secrets.ErrWrongPassphrase, "signer s1: payout key file %DIR%/s1.kaspa.sealed: wrong passphrase"},
		{"no passphrase configured", "kaspa-testnet", func(_ *testing.T, f *signerFixture) { f.cfg.Passphrase = secrets.Passphrase{} },
			secrets.ErrNoPassphrase, "signer s1: no passphrase: payout key file %DIR%/s1.kaspa.sealed is sealed; set passphraseFile or passphraseEnv in the signer config"},
		{"passphrase variable unset", "kaspa-testnet", func(_ *testing.T, f *signerFixture) {
			f.cfg.Passphrase = secrets.Passphrase{Env: "SIGNER_TEST_UNSET_PASSPHRASE"}
		}, secrets.ErrNoPassphrase, "signer s1: payout key file %DIR%/s1.kaspa.sealed is sealed: no passphrase: environment variable SIGNER_TEST_UNSET_PASSPHRASE is not set"},
		{"passphrase file readable by others", "kaspa-testnet", func(t *testing.T, f *signerFixture) { chmod(t, filepath.Join(f.dir, "passphrase"), 0o640) },
			ErrKeyFileMode, "passphrase file %DIR%/passphrase has mode 0640"},
		{"sealed key file readable by others", "kaspa-testnet", func(t *testing.T, f *signerFixture) {
			chmod(t, filepath.Join(f.dir, "s1.identity.sealed"), 0o644)
		}, ErrKeyFileMode, "signer s1: secret file readable by others than its owner: identity key file %DIR%/s1.identity.sealed has mode 0644"},
		{"missing key file", "kaspa-testnet", func(_ *testing.T, f *signerFixture) { f.cfg.IdentityKeyFile = "s1.nowhere" },
			fs.ErrNotExist, "signer s1: identity key file: open %DIR%/s1.nowhere"},
		{"payout key sealed where the identity key belongs", "kaspa-testnet", func(_ *testing.T, f *signerFixture) {
			f.cfg.IdentityKeyFile = "s1.kaspa.sealed"
		}, ErrKeyMismatch, "identity key file %DIR%/s1.kaspa.sealed holds a sealed key of kind kaspa-payout, want ed25519-identity"},
		{"another member's sealed identity key", "kaspa-testnet", func(_ *testing.T, f *signerFixture) {
			f.cfg.IdentityKeyFile = "s2.identity.sealed"
		}, ErrKeyMismatch, "does not hold member s1's identity key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := sealedKaspaFixture(t, c.network)
			c.mutate(t, f)
			_, err := loadSignerConfig(f.write(t))
			if err == nil {
				t.Fatal("config accepted")
			}
			want := strings.ReplaceAll(c.want, "%DIR%", f.dir)
			if !errors.Is(err, c.is) || !errors.Is(err, ErrSignerConfig) || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q\nwant one that is %v and says %q", err, c.is, want)
			}
			if strings.Contains(err.Error(), signerPassphrase) {
				t.Fatalf("the error holds the passphrase: %v", err)
			}
		})
	}
}

// On the networks without value a plain and a sealed key file both do.
func TestSignerConfigPlainKeysOnDevNetworks(t *testing.T) {
	for _, network := range []string{"kaspa-simnet", "kaspa-devnet"} {
		t.Run(network, func(t *testing.T) {
			f := sealedKaspaFixture(t, network)
			f.cfg.IdentityKeyFile = "s1.identity" // plain beside a sealed payout key
			if p := f.load(t).protocol; !p.Identity.Equal(fixtureIdentity("s1")) {
				t.Fatal("identity key not s1's")
			}
		})
	}
}

// A dev group's members load their sealed keys with the group's
// passphrase, and no file of the group holds a key in plain.
func TestDevSignerGroupSealsKeys(t *testing.T) {
	g, err := writeDevSignerGroup(devGroupSpec{dir: t.TempDir(), members: 3, quorum: 2, kaspadRPC: []string{"127.0.0.1:16110"}})
	if err != nil {
		t.Fatal(err)
	}
	plain := map[string]string{}
	for _, m := range g.members {
		s, err := loadSignerConfig(m.config)
		if err != nil {
			t.Fatal(err)
		}
		public, _ := kaspa.PublicKey(m.payout)
		if !bytes.Equal(s.protocol.Payout.(*kaspa.Signer).PublicKey(), public) {
			t.Fatalf("%s's payout key is not the one written", m.id)
		}
		plain[m.id+"'s payout secret"] = hex.EncodeToString(m.payout)
		plain[m.id+"'s identity seed"] = hex.EncodeToString(s.protocol.Identity.Seed())
	}
	err = filepath.WalkDir(g.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		for what, key := range plain {
			if bytes.Contains(bytes.ToLower(b), []byte(key)) {
				t.Errorf("%s holds %s in plain", path, what)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
