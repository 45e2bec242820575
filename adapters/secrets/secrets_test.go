package secrets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFileRefusesOthersReadable(t *testing.T) {
	p := writeFile(t, "k", "abc\n", 0o644)
	_, err := ReadFile("key file", p)
	if !errors.Is(err, ErrFileMode) || !strings.Contains(err.Error(), "chmod 600 "+p) {
		t.Fatalf("err = %v, want ErrFileMode naming chmod 600 %s", err, p)
	}
	p = writeFile(t, "k", " abc\n", 0o600)
	b, err := ReadFile("key file", p)
	if err != nil || string(b) != "abc" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile("key file", filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestPassphraseSources(t *testing.T) {
	p := writeFile(t, "pass", "s3cret\nsecond line\n", 0o600)
	if got, err := (Passphrase{File: p, Env: "IGNORED"}).Read(); err != nil || got != "s3cret" {
		t.Fatalf("file passphrase = %q, %v", got, err)
	}
	t.Setenv("BRIDGELOG_TEST_PASS", "from env")
	if got, err := (Passphrase{Env: "BRIDGELOG_TEST_PASS"}).Read(); err != nil || got != "from env" {
		t.Fatalf("env passphrase = %q, %v", got, err)
	}
	if _, err := (Passphrase{Env: "BRIDGELOG_TEST_UNSET_VARIABLE"}).Read(); !errors.Is(err, ErrNoPassphrase) {
		t.Fatalf("unset variable: err = %v", err)
	}
	if _, err := (Passphrase{}).Read(); !errors.Is(err, ErrNoPassphrase) {
		t.Fatalf("no source: err = %v", err)
	}
	if _, err := (Passphrase{File: writeFile(t, "p", "x", 0o640)}).Read(); !errors.Is(err, ErrFileMode) {
		t.Fatalf("group-readable passphrase file: err = %v", err)
	}
}

func TestSealOpen(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, 32)
	b, err := Seal("kaspa-payout", secret, []byte{1, 2}, "pw", LightScrypt)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, secret) || strings.Contains(string(b), "0707070707") {
		t.Fatal("sealed file holds the secret in clear")
	}
	kind, pub, ok := Sealed(b)
	if !ok || kind != "kaspa-payout" || pub != "0102" {
		t.Fatalf("Sealed = %q %q %v", kind, pub, ok)
	}
	if _, _, ok := Sealed([]byte("0707")); ok {
		t.Fatal("a hex key file reported as sealed")
	}
	got, err := Open("kaspa-payout", b, "pw")
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %x, %v", got, err)
	}
	if _, err := Open("kaspa-payout", b, "wrong"); !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: err = %v", err)
	}
	if _, err := Open("ed25519-identity", b, "pw"); err == nil || !strings.Contains(err.Error(), "kaspa-payout") {
		t.Fatalf("wrong kind: err = %v", err)
	}
}
