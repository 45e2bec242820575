package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// signerCmd groups the commands of one member of the signing group (seed
// 001); each reads the member's signer config.
var signerCmd = &cobra.Command{
	Use:   "signer",
	Short: "Commands of one member of the M-of-N signing group (its config: see signer admin --help)",
}

func init() { rootCmd.AddCommand(signerCmd) }

// signerConfig is what one signer must know: who it is, its group, where
// its keys and data are, who may administer it, and the protocol's
// parameters. Relative paths are relative to the config file.
type signerConfig struct {
	Self  string      `json:"self"`
	Group signerGroup `json:"group"`
	// IdentityKeyFile holds the signer's ed25519 identity key (its 32-byte
	// seed), PayoutKeyFile its Kaspa payout key (the 32-byte secret):
	// sealed files (`bridgelog keys new|import`), or plain hex on the
	// networks where plainKeysAllowed. On "sim" the payout key file is
	// the simulated network's key seed (see simPayoutKeys). Both must be
	// readable by their owner only.
	IdentityKeyFile string `json:"identityKeyFile"`
	PayoutKeyFile   string `json:"payoutKeyFile"`
	// Passphrase (passphraseFile or passphraseEnv) opens the sealed key
	// files; one passphrase serves both.
	secrets.Passphrase
	// Data is the signer's own data directory: its embedded log in
	// DATA/log and its SQLite store in DATA/projections.db, as a relay's.
	Data  string      `json:"data"`
	Admin signerAdmin `json:"admin"`
	// Console says who may read the console from another host.
	Console signerConsoleConfig `json:"console"`
	// Params and Policy: a zero field takes the default. Durations may be
	// written as Go durations ("5s") or nanoseconds.
	Params twophase.Params `json:"params"`
	Policy twophase.Policy `json:"policy"`
	// What only a running signer reads (`bridgelog signer --config`):
	// the admin commands work without it.
	signerNetConfig
}

// signerNetConfig is where a running signer meets its peers and its
// chains.
type signerNetConfig struct {
	// Listen is the host:port the signer accepts its peers' links on;
	// Peers maps other members' ids to theirs (the member with the
	// greater id waits to be dialled, so one address book serves all).
	Listen string            `json:"listen,omitempty"`
	Peers  map[string]string `json:"peers,omitempty"`
	// HTTP is the host:port of /metrics, /healthz, /status and
	// POST /signing-events (the authenticated entry point for external
	// requests); empty: none.
	HTTP   string       `json:"http,omitempty"`
	Kaspad *signerNode  `json:"kaspad,omitempty"`
	EVM    *signerChain `json:"evm,omitempty"`
}

// signerNode is the signer's own Kaspa node.
type signerNode struct {
	RPC string `json:"rpc"` // host:port of its gRPC server (kaspad --rpclisten)
	// Timeout bounds each call (default 10s); StallAfter is how long the
	// node's virtual DAA score may stand still before its views are
	// refused (default 60s; "0s": never); Poll is how often the signer
	// reads its view to notice new blocks (default 1s).
	Timeout    string `json:"timeout,omitempty"`
	StallAfter string `json:"stallAfter,omitempty"`
	Poll       string `json:"poll,omitempty"`
}

// signerChain is the signer's own EVM node and the token whose burns
// toward Kaspa the group pays.
type signerChain struct {
	RPC           string         `json:"rpc"`
	ChainID       uint64         `json:"chainId"`
	Token         domain.Address `json:"token"`
	Confirmations uint64         `json:"confirmations,omitempty"` // default domain.DefaultConfirmationDepth
	StartBlock    uint64         `json:"startBlock,omitempty"`
	Poll          string         `json:"poll,omitempty"` // pause between idle rounds, default 200ms
}

// signerGroup is twophase.Group as an operator writes it: keys in hex,
// the change returning to an address.
type signerGroup struct {
	Profile twophase.Profile `json:"profile"` // "a" (default) or "b"
	Quorum  int              `json:"quorum"`
	// Faults is Profile B's f, the Byzantine members the group tolerates:
	// it needs N >= 3f+1 members and a quorum of at least
	// twophase.ProfileBQuorum(N, f) (2f+1 at N = 3f+1). Profile A: 0.
	Faults        int            `json:"faults,omitempty"`
	Network       string         `json:"network"` // "sim", or kaspa-mainnet, -testnet, -simnet, -devnet
	ChangeAddress string         `json:"changeAddress"`
	Members       []signerMember `json:"members"`
}

type signerMember struct {
	ID          string `json:"id"`
	IdentityKey string `json:"identityKey"` // ed25519 public key, hex
	PayoutKey   string `json:"payoutKey"`   // the network's payout public key, hex
}

// signerAdmin says who may run admin actions: whoever holds the
// credential whose SHA-256 (hex) is CredentialSHA256. Empty: none.
type signerAdmin struct {
	CredentialSHA256 string `json:"credentialSha256"`
}

// signerConsoleConfig: the console's pages (GET /, /status, /audit) show
// every event's destination and amount. From a loopback address anyone on
// the host may read them; from any other, only a client presenting the
// viewer credential whose SHA-256 (hex) is ViewerCredentialSHA256
// ("Authorization: Bearer CREDENTIAL", or as the password of HTTP Basic
// for a browser). Empty: the pages are for loopback only. It must differ
// from the admin credential: a viewer cannot act.
type signerConsoleConfig struct {
	ViewerCredentialSHA256 string `json:"viewerCredentialSha256,omitempty"`
}

// Errors of a signer config that must not start.
var (
	ErrSignerConfig = errors.New("invalid signer config")
	// ErrSignerNetwork: a network this binary cannot pay on.
	ErrSignerNetwork = errors.New("network not supported")
	// ErrNotMember: self is not one of the group's members.
	ErrNotMember = errors.New("signer is not a member of its group")
	// ErrKeyMismatch: a key file that does not hold the key the group
	// lists for the member.
	ErrKeyMismatch = errors.New("key does not match the group")
	// ErrKeyFileMode: a secret file that others than its owner can read.
	ErrKeyFileMode = secrets.ErrFileMode
)

// networkSim is the simulated ledger of adapters/simledger: a group on
// it can only be run by the simulator and tests, all its members in one
// process.
const networkSim = "sim"

// signerSetup is a loaded and checked signer config: the protocol's
// configuration with its keys, and where the signer keeps its data.
type signerSetup struct {
	path       string
	protocol   twophase.Config
	data       string // absolute
	adminHash  []byte // nil: admin actions are disabled
	viewerHash []byte // nil: the console's pages are for loopback only
	net        signerNetConfig
	rules      twophase.LedgerRules
}

// logDir is the signer's embedded log, where a relay keeps its own.
func (s *signerSetup) logDir() string { return filepath.Join(s.data, "log") }

// loadSignerConfig reads and checks a signer config: a group that is
// safe (Profile A with a strict-majority quorum, or Profile B with
// N >= 3f+1 and its quorum), a self that is a member,
// key files readable by their owner only that hold that member's keys, a
// supported network, parameters that work.
func loadSignerConfig(path string) (*signerSetup, error) {
	c, err := readSignerConfig(path)
	if err != nil {
		return nil, err
	}
	bad := func(err error) error { return fmt.Errorf("%w: %s: %w", ErrSignerConfig, path, err) }
	for _, f := range []struct{ name, v string }{{"self", c.Self}, {"group.network", c.Group.Network},
		{"group.changeAddress", c.Group.ChangeAddress}, {"identityKeyFile", c.IdentityKeyFile},
		{"payoutKeyFile", c.PayoutKeyFile}, {"data", c.Data}} {
		if f.v == "" {
			return nil, bad(fmt.Errorf("%s is required", f.name))
		}
	}
	dir := filepath.Dir(path)
	pass := c.Passphrase
	pass.File = resolvePath(dir, pass.File)
	keys := &signerKeys{self: twophase.PeerID(c.Self), network: c.Group.Network, passphrase: pass}
	led, err := c.Group.ledger(keys, resolvePath(dir, c.PayoutKeyFile), twophase.PeerID(c.Self))
	if err != nil {
		return nil, bad(err)
	}
	group, self := led.group, led.self
	identity, err := loadIdentityKey(keys, resolvePath(dir, c.IdentityKeyFile), self)
	if err != nil {
		return nil, bad(err)
	}
	params := c.Params.WithDefaults()
	if err := params.Validate(); err != nil {
		return nil, bad(err)
	}
	s := &signerSetup{path: path, data: resolvePath(dir, c.Data),
		protocol: twophase.Config{Self: self.ID, Group: group, Params: params, Policy: c.Policy,
			Rules: led.rules, Scheme: led.scheme, Payout: led.payout, Identity: identity},
		net: c.signerNetConfig, rules: led.rules}
	if s.data, err = filepath.Abs(s.data); err != nil {
		return nil, bad(err)
	}
	if h := c.Admin.CredentialSHA256; h != "" {
		if s.adminHash, err = hex.DecodeString(trim0x(h)); err != nil || len(s.adminHash) != 32 {
			return nil, bad(errors.New("admin.credentialSha256 must be 64 hex digits (the SHA-256 of the admin credential)"))
		}
	}
	if h := c.Console.ViewerCredentialSHA256; h != "" {
		if s.viewerHash, err = hex.DecodeString(trim0x(h)); err != nil || len(s.viewerHash) != 32 {
			return nil, bad(errors.New("console.viewerCredentialSha256 must be 64 hex digits (the SHA-256 of the viewer credential)"))
		}
		if bytes.Equal(s.viewerHash, s.adminHash) {
			return nil, bad(errors.New("console.viewerCredentialSha256 is the admin credential's: a viewer credential must not be able to act"))
		}
	}
	return s, nil
}

// readSignerConfig decodes the file strictly: an unknown field is a typo
// that would otherwise leave a setting at its default.
func readSignerConfig(path string) (signerConfig, error) {
	var c signerConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%w: %w", ErrSignerConfig, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrSignerConfig, path, err)
	}
	if raw, ok := top["params"]; ok {
		if top["params"], err = durationStrings(raw, reflect.TypeFor[twophase.Params]()); err != nil {
			return c, fmt.Errorf("%w: %s: params.%w", ErrSignerConfig, path, err)
		}
	}
	if b, err = json.Marshal(top); err != nil {
		return c, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%w: %s: %w", ErrSignerConfig, path, err)
	}
	if c.Group.Profile == "" {
		c.Group.Profile = twophase.ProfileA
	}
	return c, nil
}

// durationStrings rewrites every time.Duration field of t that the JSON
// object raw gives as a string ("5s") into nanoseconds, the only form
// encoding/json reads into a Duration.
func durationStrings(raw json.RawMessage, t reflect.Type) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return raw, nil // not an object: the strict decode says what is wrong
	}
	for name, v := range obj {
		f, ok := jsonField(t, name)
		if !ok {
			continue // the strict decode refuses it
		}
		var s string
		switch {
		case f.Type == reflect.TypeFor[time.Duration]() && json.Unmarshal(v, &s) == nil:
			d, err := time.ParseDuration(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			obj[name] = json.RawMessage(strconv.FormatInt(int64(d), 10))
		case f.Type.Kind() == reflect.Struct:
			sub, err := durationStrings(v, f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%w", name, err)
			}
			obj[name] = sub
		}
	}
	return json.Marshal(obj)
}

// jsonField finds the field of struct type t that encoding/json decodes
// key into: its tag name, matched without regard to case as json does.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// groupLedger is a group with the ledger it pays on: the rules, the
// payout scheme and this signer's payout signer.
type groupLedger struct {
	group  twophase.Group
	self   twophase.Member
	rules  twophase.LedgerRules
	scheme twophase.PayoutScheme
	payout twophase.PayoutSigner
}

// ledger builds the group on its network (see publicLedger) and loads
// self's payout key through keyFiles.
func (g signerGroup) ledger(keyFiles *signerKeys, payoutKeyFile string, self twophase.PeerID) (groupLedger, error) {
	l, err := g.publicLedger(self)
	if err != nil {
		return l, err
	}
	if g.Network == networkSim {
		keys, payout, err := simPayoutKeys(payoutKeyFile, l.group, l.self)
		if err != nil {
			return l, fmt.Errorf("signer %s: %w", self, err)
		}
		l.scheme, l.payout = keys, payout
		return l, nil
	}
	payout, err := kaspaPayoutKey(keyFiles, payoutKeyFile, l.self)
	if err != nil {
		return l, err
	}
	l.scheme, l.payout = kaspa.Scheme{}, payout
	return l, nil
}

// publicLedger builds the group and its ledger rules on its network
// ("sim", or a Kaspa network: kaspa-mainnet, -testnet, -simnet, -devnet)
// from the group's public keys alone: no key file is read, so another
// group's config can be checked without its keys. On Kaspa the change
// address must be the group's own multisig address.
func (g signerGroup) publicLedger(self twophase.PeerID) (groupLedger, error) {
	var l groupLedger
	members, err := g.members()
	if err != nil {
		return l, err
	}
	switch {
	case g.Network == networkSim:
		rules := simledger.Rules{}
		change, err := rules.ScriptFor(g.ChangeAddress)
		if err != nil {
			return l, fmt.Errorf("group.changeAddress: %w", err)
		}
		if l.group, l.self, err = g.validated(members, change, self); err != nil {
			return l, err
		}
		l.rules = rules
	case strings.HasPrefix(g.Network, "kaspa-"):
		keys := make([][]byte, len(members))
		for i, m := range members {
			keys[i] = m.PayoutKey
		}
		rules, err := kaspa.NewRules(g.Network, keys, g.Quorum)
		if err != nil {
			return l, fmt.Errorf("%w: %w", ErrSignerNetwork, err)
		}
		if want := rules.Address().String(); g.ChangeAddress != want {
			return l, fmt.Errorf("%w: group.changeAddress %s is not the group's multisig address %s", ErrKeyMismatch, g.ChangeAddress, want)
		}
		if l.group, l.self, err = g.validated(members, rules.ChangeScript(), self); err != nil {
			return l, err
		}
		l.rules = rules
	default:
		return l, fmt.Errorf("%w: %q, want %q or a Kaspa network (kaspa-mainnet, kaspa-testnet, kaspa-simnet, kaspa-devnet)",
			ErrSignerNetwork, g.Network, networkSim)
	}
	return l, nil
}

// members decodes the written members' keys.
func (g signerGroup) members() ([]twophase.Member, error) {
	var out []twophase.Member
	for _, m := range g.Members {
		id, err := hex.DecodeString(trim0x(m.IdentityKey))
		if err != nil {
			return nil, fmt.Errorf("%w: member %q identityKey: %w", twophase.ErrMemberKey, m.ID, err)
		}
		payout, err := hex.DecodeString(trim0x(m.PayoutKey))
		if err != nil {
			return nil, fmt.Errorf("%w: member %q payoutKey: %w", twophase.ErrMemberKey, m.ID, err)
		}
		out = append(out, twophase.Member{ID: twophase.PeerID(m.ID), IdentityKey: id, PayoutKey: payout})
	}
	return out, nil
}

// validated is the protocol's group, checked (twophase.Group.Validate:
// size, profile, the profile's quorum and faults, distinct ids and
// keys), and self's member in it.
func (g signerGroup) validated(members []twophase.Member, change twophase.Script, self twophase.PeerID) (twophase.Group, twophase.Member, error) {
	out := twophase.Group{Profile: g.Profile, Quorum: g.Quorum, Faults: g.Faults, Network: g.Network, ChangeScript: change, Members: members}
	if err := out.Validate(); err != nil {
		return twophase.Group{}, twophase.Member{}, err
	}
	out = out.Sorted()
	m, ok := out.Member(self)
	if !ok {
		return twophase.Group{}, twophase.Member{}, fmt.Errorf("%w: %q is not among %v", ErrNotMember, self, out.IDs())
	}
	return out, m, nil
}

// kaspaPayoutKey reads self's Kaspa payout secret and checks it is the
// key the group lists for self.
func kaspaPayoutKey(keys *signerKeys, path string, self twophase.Member) (twophase.PayoutSigner, error) {
	secret, err := keys.read("payout key file", path, kaspaPayoutKeyKind)
	if err != nil {
		return nil, err
	}
	signer, err := kaspa.NewSigner(secret)
	if err != nil {
		return nil, fmt.Errorf("payout key file %s: %w", path, err)
	}
	if !bytes.Equal(signer.PublicKey(), self.PayoutKey) {
		return nil, fmt.Errorf("%w: payout key file %s does not hold member %s's payout key", ErrKeyMismatch, path, self.ID)
	}
	return signer, nil
}

// loadIdentityKey reads the signer's ed25519 key and checks it is the
// one the group lists for self.
func loadIdentityKey(keys *signerKeys, path string, self twophase.Member) (ed25519.PrivateKey, error) {
	seed, err := keys.read("identity key file", path, identityKeyKind)
	if err != nil {
		return nil, err
	}
	key := ed25519.NewKeyFromSeed(seed)
	if !self.IdentityKey.Equal(key.Public()) {
		return nil, fmt.Errorf("%w: identity key file %s does not hold member %s's identity key", ErrKeyMismatch, path, self.ID)
	}
	return key, nil
}

// simPayoutKeys reads the simulated network's payout key seed (see
// simledger.NewKeys). Payout signatures there are keyed hashes that only
// the secrets check, so a sim signer derives every member's secret from
// the seed: each member's payout key must be one of its keys, self's
// included.
func simPayoutKeys(path string, g twophase.Group, self twophase.Member) (*simledger.Keys, twophase.PayoutSigner, error) {
	b, err := secrets.ReadFile("payout key file", path)
	if err != nil {
		return nil, nil, err
	}
	if _, _, sealed := secrets.Sealed(b); sealed {
		return nil, nil, fmt.Errorf("payout key file %s is sealed: on the sim network it holds the simulated network's key seed in plain", path)
	}
	seed := string(b)
	if seed == "" {
		return nil, nil, fmt.Errorf("payout key file %s is empty: it holds the simulated network's key seed", path)
	}
	keys := simledger.NewKeys(seed, twophase.MaxMembers)
	derived := map[string]bool{}
	for i := 0; i < twophase.MaxMembers; i++ {
		derived[string(keys.PublicKey(i))] = true
	}
	if !derived[string(self.PayoutKey)] {
		return nil, nil, fmt.Errorf("%w: payout key file %s does not hold member %s's payout key", ErrKeyMismatch, path, self.ID)
	}
	for _, m := range g.Members {
		if !derived[string(m.PayoutKey)] {
			return nil, nil, fmt.Errorf("%w: member %s's payout key is not one of the simulated network's keys in %s, so its payout signatures could not be checked",
				ErrKeyMismatch, m.ID, path)
		}
	}
	return keys, keys.Signer(self.PayoutKey), nil
}

// resolvePath makes a config's relative path relative to the config's
// directory, so a config works from any working directory.
func resolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
