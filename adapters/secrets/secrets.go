// Package secrets reads the files and variables that hold bridgelog's
// secrets: key files readable by their owner only, passphrases from a
// file or an environment variable (never a flag, which ps shows), and
// secrets sealed in the scrypt JSON layout of Ethereum keystores
// (go-ethereum's accounts/keystore), so one tool set reads them all.
package secrets

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

var (
	// ErrFileMode: a secret file that others than its owner can read.
	ErrFileMode = errors.New("secret file readable by others than its owner")
	// ErrNoPassphrase: neither a passphrase file nor a set environment
	// variable was given.
	ErrNoPassphrase = errors.New("no passphrase")
	// ErrTooLarge: a secret file larger than any key or credential.
	ErrTooLarge = errors.New("secret file too large")
)

// fileLimit bounds a secret file: a key or a credential is small, and
// anything larger is the wrong file.
const fileLimit = 1 << 16

// ReadFile reads a key or credential file, refusing one that its group or
// others can read, and returns its content without surrounding white
// space. what names the file in errors ("identity key file").
func ReadFile(what, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := ownerOnly(what, path, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, fileLimit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if len(b) > fileLimit {
		return nil, fmt.Errorf("%w: %s %s is larger than %d bytes", ErrTooLarge, what, path, fileLimit)
	}
	return bytes.TrimSpace(b), nil
}

// CheckOwnerOnly refuses a file or directory its group or others can
// read (a keystore directory, a key file).
func CheckOwnerOnly(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return ownerOnly(what, path, fi)
}

func ownerOnly(what, path string, fi os.FileInfo) error {
	if ownerfs.Shared(fi) {
		return fmt.Errorf("%w: %s %s %s", ErrFileMode, what, path, ownerfs.Hint(path, fi))
	}
	return nil
}

// Passphrase says where a passphrase is: a file readable by its owner
// only (its first line), or an environment variable. File wins when both
// are set.
type Passphrase struct {
	File string `json:"passphraseFile,omitempty"`
	Env  string `json:"passphraseEnv,omitempty"`
}

// IsZero reports whether no source is given.
func (p Passphrase) IsZero() bool { return p.File == "" && p.Env == "" }

// Read returns the passphrase. An empty passphrase is allowed (geth's dev
// accounts have one) only when it is given explicitly: an empty file or a
// variable set to the empty string.
func (p Passphrase) Read() (string, error) {
	switch {
	case p.File != "":
		b, err := ReadFile("passphrase file", p.File)
		if err != nil {
			return "", err
		}
		first, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(first, "\r"), nil
	case p.Env != "":
		v, ok := os.LookupEnv(p.Env)
		if !ok {
			return "", fmt.Errorf("%w: environment variable %s is not set", ErrNoPassphrase, p.Env)
		}
		return v, nil
	}
	return "", fmt.Errorf("%w: give a passphrase file or an environment variable", ErrNoPassphrase)
}
