// Package simledger is a simulated UTXO ledger for the signing
// coordinator's simulator and tests: a DAA score that advances with
// (virtual) time, the group's outputs with their DAA scores and coinbase
// flags, a mempool, acceptance of signed payouts, per-signer views that
// lag, and reorgs that take outputs away. It implements the protocol's
// ledger rules and payout scheme for itself; adapters/kaspa implements
// them for Kaspa.
//
// Payout signatures here are keyed hashes that the simulated ledger can
// check because it holds every member's secret (it is the whole world of
// the simulation); they stand in for Kaspa's Schnorr signatures, whose
// cost a simulation of thousands of events need not pay.
package simledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// AddressPrefix starts every address of the simulated network.
const AddressPrefix = "sim:"

// ErrAddress: an address that is not of the simulated network.
var ErrAddress = errors.New("not a simulated-ledger address")

// Rules are the simulated ledger's [twophase.LedgerRules].
type Rules struct {
	// MaxMass is the mass above which a transaction is refused
	// (default 100,000, Kaspa's standard bound).
	MaxMass uint64
}

var _ twophase.LedgerRules = Rules{}

// ScriptFor maps sim:NAME to the script "pay:NAME".
func (Rules) ScriptFor(address string) (twophase.Script, error) {
	name, ok := strings.CutPrefix(address, AddressPrefix)
	if !ok || name == "" || len(name) > 100 {
		return twophase.Script{}, fmt.Errorf("%w: %q", ErrAddress, address)
	}
	return twophase.Script{Bytes: []byte("pay:" + name)}, nil
}

// GroupAddress is the simulated multisig address of a group named name.
func GroupAddress(name string) string { return AddressPrefix + "group-" + name }

// Mass is a linear model of Kaspa's compute mass: a base, each input and
// output, and the payload. Over MaxMass is refused as non-standard.
func (r Rules) Mass(t twophase.Template) (uint64, error) {
	m := uint64(1000 + 1100*len(t.Inputs) + 360*len(t.Outputs) + len(t.Payload))
	limit := r.MaxMass
	if limit == 0 {
		limit = 100_000
	}
	if m > limit {
		return 0, fmt.Errorf("mass %d over the standard maximum %d", m, limit)
	}
	return m, nil
}

// TxID hashes the template's canonical encoding (signatures are not part
// of it, as on Kaspa).
func (Rules) TxID(t twophase.Template) twophase.Hash {
	return twophase.Hash(sha256.Sum256(append([]byte("simledger/tx\x00"), t.Encode()...)))
}

// Input spends u.
func (Rules) Input(u twophase.UTXO) twophase.TemplateInput {
	return twophase.TemplateInput{Outpoint: u.Outpoint, Amount: u.Amount, Script: u.Script, SigOpCount: 1}
}

// Base is an empty version-0 transaction.
func (Rules) Base() twophase.Template { return twophase.Template{} }

// Keys holds every member's payout secret: a [twophase.PayoutScheme] that
// can check any member's signature, and a [twophase.PayoutSigner] per
// member.
type Keys struct {
	secrets map[string][]byte // by public payout key
	public  [][]byte
}

// NewKeys derives n payout secrets from seed; PublicKey(i) is member i's
// payout key.
func NewKeys(seed string, n int) *Keys {
	k := &Keys{secrets: map[string][]byte{}}
	for i := 0; i < n; i++ {
		sec := sha256.Sum256([]byte(fmt.Sprintf("simledger/secret/%s/%d", seed, i)))
		pub := publicKey(sec[:])
		k.secrets[string(pub)] = sec[:]
		k.public = append(k.public, pub)
	}
	return k
}

func publicKey(secret []byte) []byte {
	p := sha256.Sum256(append([]byte("simledger/public\x00"), secret...))
	return p[:]
}

// PublicKey returns member i's payout key.
func (k *Keys) PublicKey(i int) []byte { return k.public[i] }

// Signer returns the payout signer holding the secret of public key pub.
func (k *Keys) Signer(pub []byte) twophase.PayoutSigner {
	return signer{secret: k.secrets[string(pub)]}
}

type signer struct{ secret []byte }

func (s signer) SignPayout(t twophase.Template) ([]byte, error) {
	if s.secret == nil {
		return nil, errors.New("simledger: no secret for this payout key")
	}
	return mac(s.secret, Rules{}.TxID(t)), nil
}

func mac(secret []byte, txID twophase.Hash) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(txID[:])
	return h.Sum(nil)
}

// ErrSignature: a payout signature that does not check.
var ErrSignature = errors.New("payout signature invalid")

// VerifySignature checks member m's signature of t.
func (k *Keys) VerifySignature(t twophase.Template, m twophase.Member, sig []byte) error {
	sec, ok := k.secrets[string(m.PayoutKey)]
	if !ok {
		return fmt.Errorf("%w: %s has an unknown payout key", ErrSignature, m.ID)
	}
	if !hmac.Equal(sig, mac(sec, Rules{}.TxID(t))) {
		return fmt.Errorf("%w: %s", ErrSignature, m.ID)
	}
	return nil
}

// Assemble encodes the template with the quorum's signatures.
func (k *Keys) Assemble(t twophase.Template, g twophase.Group, sigs []twophase.MemberSignature) ([]byte, error) {
	if len(sigs) < g.Quorum {
		return nil, fmt.Errorf("%d signatures, the multisig needs %d", len(sigs), g.Quorum)
	}
	return encodeTx(t, sigs), nil
}
