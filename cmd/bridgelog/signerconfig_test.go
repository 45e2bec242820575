package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// signerFixture is a signing group of n members on the sim network in a
// temporary directory: every member's identity key file, the network's
// payout key seed, an admin credential, and member s1's config.
type signerFixture struct {
	dir        string
	cfg        signerConfig
	params     string // the config's params, as JSON
	credential string // the admin credential file
}

const (
	fixtureSimSeed    = "fixture-sim"
	fixtureCredential = "correct horse battery staple"
)

func newSignerFixture(t *testing.T, n, quorum int) *signerFixture {
	t.Helper()
	f := &signerFixture{dir: t.TempDir()}
	keys := simledger.NewKeys(fixtureSimSeed, n)
	f.writeSecret(t, "sim.payout", fixtureSimSeed+"\n")
	f.credential = f.writeSecret(t, "admin.credential", fixtureCredential+"\n")
	sum := sha256.Sum256([]byte(fixtureCredential))
	f.cfg = signerConfig{Self: "s1", IdentityKeyFile: "s1.identity", PayoutKeyFile: "sim.payout", Data: "s1-data",
		Group: signerGroup{Profile: twophase.ProfileA, Quorum: quorum, Network: "sim", ChangeAddress: simledger.GroupAddress("fixture")},
		Admin: signerAdmin{CredentialSHA256: hex.EncodeToString(sum[:])}}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%d", i+1)
		key := fixtureIdentity(id)
		f.writeSecret(t, id+".identity", hex.EncodeToString(key.Seed())+"\n")
		f.cfg.Group.Members = append(f.cfg.Group.Members, signerMember{ID: id,
			IdentityKey: hex.EncodeToString(key.Public().(ed25519.PublicKey)), PayoutKey: hex.EncodeToString(keys.PublicKey(i))})
	}
	// Durations as an operator writes them; one round, no retry.
	f.params = `{"proposalTimeout": "1s", "tick": "500ms", "retry": {"maxRetries": 0, "baseDelay": "1s", "maxDelay": "1s"}}`
	return f
}

func fixtureIdentity(id string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("fixture/identity/" + id))
	return ed25519.NewKeyFromSeed(seed[:])
}

// writeSecret writes a file readable by its owner only and returns its path.
func (f *signerFixture) writeSecret(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// write writes the config (as s1.json) and returns its path.
func (f *signerFixture) write(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	top["params"] = json.RawMessage(f.params)
	if b, err = json.MarshalIndent(top, "", "  "); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.dir, "s1.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// load writes the config and loads it, failing the test if it is refused.
func (f *signerFixture) load(t *testing.T) *signerSetup {
	t.Helper()
	s, err := loadSignerConfig(f.write(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSignerConfigLoads(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	s := f.load(t)
	p := s.protocol
	if p.Self != "s1" || len(p.Group.Members) != 3 || p.Group.Quorum != 2 || p.Group.Network != "sim" {
		t.Fatalf("protocol config: self %s, %d members, quorum %d, network %q", p.Self, len(p.Group.Members), p.Group.Quorum, p.Group.Network)
	}
	if p.Params.ProposalTimeout != time.Second || p.Params.Tick != 500*time.Millisecond || p.Params.Retry.MaxRetries != 0 ||
		p.Params.Retry.BaseDelay != time.Second {
		t.Fatalf("params as written not taken: %+v", p.Params)
	}
	if p.Params.PayoutDepth != twophase.DefaultParams().PayoutDepth {
		t.Fatalf("unset payoutDepth %d, want the default %d", p.Params.PayoutDepth, twophase.DefaultParams().PayoutDepth)
	}
	if want := filepath.Join(f.dir, "s1-data", "log"); s.logDir() != want {
		t.Fatalf("log dir %s, want %s (data relative to the config)", s.logDir(), want)
	}
	if !p.Identity.Equal(fixtureIdentity("s1")) {
		t.Fatal("identity key not s1's")
	}
	// The loaded keys make a signer the protocol accepts, whose payout
	// signatures its peers' keys check.
	if _, err := twophase.NewState(p); err != nil {
		t.Fatal(err)
	}
	var tmpl twophase.Template
	sig, err := p.Payout.SignPayout(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := p.Group.Member("s1")
	if err := simledger.NewKeys(fixtureSimSeed, 3).VerifySignature(tmpl, self, sig); err != nil {
		t.Fatalf("s1's payout signature does not check with the network's keys: %v", err)
	}
}

// A Profile B group (N = 4, f = 1, quorum 2f+1) loads with its faults,
// and its members' states run Profile B.
func TestSignerConfigProfileB(t *testing.T) {
	f := newSignerFixture(t, 3, 3)
	f.cfg.Group.Members = append(f.cfg.Group.Members, f.extraMember(t, 4))
	f.cfg.Group.Profile, f.cfg.Group.Faults = twophase.ProfileB, 1
	p := f.load(t).protocol
	if p.Group.Profile != twophase.ProfileB || p.Group.Faults != 1 || p.Group.Quorum != twophase.ProfileBQuorum(4, 1) {
		t.Fatalf("group: profile %q, faults %d, quorum %d", p.Group.Profile, p.Group.Faults, p.Group.Quorum)
	}
	if _, err := twophase.NewState(p); err != nil {
		t.Fatal(err)
	}
	a := newSignerFixture(t, 3, 3)
	a.cfg.Group.Members = f.cfg.Group.Members
	if a.load(t).protocol.Group.ID() == p.Group.ID() {
		t.Fatal("the same members under Profile A make the same group id")
	}
}

func TestSignerConfigRefused(t *testing.T) {
	otherKeys := simledger.NewKeys("another-network", 3)
	cases := []struct {
		name   string
		mutate func(t *testing.T, f *signerFixture)
		is     error
		want   string
	}{
		{"quorum not a strict majority", func(t *testing.T, f *signerFixture) {
			f.cfg.Group.Members = append(f.cfg.Group.Members, f.extraMember(t, 4))
		},
			twophase.ErrQuorumNotMajority, "quorum 2 of 4 members, Profile A needs at least 3"},
		{"unknown self", func(_ *testing.T, f *signerFixture) { f.cfg.Self = "s9" },
			ErrNotMember, `"s9" is not among [s1 s2 s3]`},
		{"identity key of another member", func(_ *testing.T, f *signerFixture) { f.cfg.IdentityKeyFile = "s2.identity" },
			ErrKeyMismatch, "does not hold member s1's identity key"},
		{"payout key seed of another network", func(t *testing.T, f *signerFixture) {
			f.writeSecret(t, "other.payout", "another-network")
			f.cfg.PayoutKeyFile = "other.payout"
		}, ErrKeyMismatch, "does not hold member s1's payout key"},
		{"a member's payout key not of the network", func(_ *testing.T, f *signerFixture) {
			f.cfg.Group.Members[2].PayoutKey = hex.EncodeToString(otherKeys.PublicKey(2))
		}, ErrKeyMismatch, "member s3's payout key is not one of the simulated network's keys"},
		{"kaspa network with the sim's payout keys", func(_ *testing.T, f *signerFixture) { f.cfg.Group.Network = "kaspa-mainnet" },
			ErrSignerNetwork, "invalid Kaspa payout key"},
		{"unknown network", func(_ *testing.T, f *signerFixture) { f.cfg.Group.Network = "evm" },
			ErrSignerNetwork, `"evm", want "sim" or a Kaspa network`},
		{"identity key file world-readable", func(t *testing.T, f *signerFixture) { chmod(t, filepath.Join(f.dir, "s1.identity"), 0o644) },
			ErrKeyFileMode, "identity key file " + "%DIR%/s1.identity has mode 0644"},
		{"payout key file group-readable", func(t *testing.T, f *signerFixture) { chmod(t, filepath.Join(f.dir, "sim.payout"), 0o640) },
			ErrKeyFileMode, "payout key file " + "%DIR%/sim.payout has mode 0640"},
		{"change address of another network", func(_ *testing.T, f *signerFixture) { f.cfg.Group.ChangeAddress = "kaspa:qq" },
			simledger.ErrAddress, "group.changeAddress"},
		{"bad admin hash", func(_ *testing.T, f *signerFixture) { f.cfg.Admin.CredentialSHA256 = "abc" },
			ErrSignerConfig, "admin.credentialSha256 must be 64 hex digits"},
		{"bad viewer hash", func(_ *testing.T, f *signerFixture) { f.cfg.Console.ViewerCredentialSHA256 = "abc" },
			ErrSignerConfig, "console.viewerCredentialSha256 must be 64 hex digits"},
		{"viewer credential that is the admin's", func(_ *testing.T, f *signerFixture) {
			f.cfg.Console.ViewerCredentialSHA256 = f.cfg.Admin.CredentialSHA256
		}, ErrSignerConfig, "console.viewerCredentialSha256 is the admin credential's"},
		{"bad duration", func(_ *testing.T, f *signerFixture) { f.params = `{"retry": {"baseDelay": "soon"}}` },
			ErrSignerConfig, `params.retry.baseDelay: time: invalid duration "soon"`},
		{"params that cannot work", func(_ *testing.T, f *signerFixture) { f.params = `{"proposalTimeoutGrowth": 0.5}` },
			twophase.ErrParams, "growth 0.5 below 1"},
		{"no data directory", func(_ *testing.T, f *signerFixture) { f.cfg.Data = "" },
			ErrSignerConfig, "data is required"},
		{"unknown field", func(_ *testing.T, f *signerFixture) { f.params = `{"proposalTimout": "1s"}` },
			ErrSignerConfig, `unknown field "proposalTimout"`},
		{"profile b with fewer than 3f+1 members", func(_ *testing.T, f *signerFixture) {
			f.cfg.Group.Profile, f.cfg.Group.Faults = twophase.ProfileB, 1
		}, twophase.ErrTooFewForFaults, "3 members tolerate at most 0 Byzantine, not 1 (N >= 3f+1)"},
		{"profile b with a quorum two quorums of which share only f", func(t *testing.T, f *signerFixture) {
			f.cfg.Group.Members = append(f.cfg.Group.Members, f.extraMember(t, 4))
			f.cfg.Group.Profile, f.cfg.Group.Faults = twophase.ProfileB, 1
		}, twophase.ErrQuorumRange, "quorum 2 of 4 members: two quorums share 0 members, Profile B needs f+1 = 2 (quorum at least 3)"},
		{"profile b with a quorum out of reach with f silent", func(t *testing.T, f *signerFixture) {
			f.cfg.Group.Members = append(f.cfg.Group.Members, f.extraMember(t, 4))
			f.cfg.Group.Profile, f.cfg.Group.Faults, f.cfg.Group.Quorum = twophase.ProfileB, 1, 4
		}, twophase.ErrQuorumRange, "quorum 4 of 4 members is out of reach with 1 silent Byzantine members (at most 3)"},
		{"profile b without faults", func(t *testing.T, f *signerFixture) {
			f.cfg.Group.Members = append(f.cfg.Group.Members, f.extraMember(t, 4))
			f.cfg.Group.Profile, f.cfg.Group.Quorum = twophase.ProfileB, 3
		}, twophase.ErrTooFewForFaults, "Profile B needs faults f >= 1 (f = 0)"},
		{"profile a with faults", func(_ *testing.T, f *signerFixture) { f.cfg.Group.Faults = 1 },
			twophase.ErrProfileUnsupported, "Profile A tolerates no Byzantine member (faults 1); use profile b"},
		{"unknown profile", func(_ *testing.T, f *signerFixture) { f.cfg.Group.Profile = "c" },
			twophase.ErrProfileUnsupported, `"c", want "a" or "b"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newSignerFixture(t, 3, 2)
			c.mutate(t, f)
			_, err := loadSignerConfig(f.write(t))
			if err == nil {
				t.Fatal("config accepted")
			}
			want := strings.ReplaceAll(c.want, "%DIR%", f.dir)
			if !errors.Is(err, c.is) || !errors.Is(err, ErrSignerConfig) || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q\nwant one that is %v and says %q", err, c.is, want)
			}
		})
	}
}

// extraMember adds member i's identity key file and returns the member.
func (f *signerFixture) extraMember(t *testing.T, i int) signerMember {
	id := fmt.Sprintf("s%d", i)
	key := fixtureIdentity(id)
	f.writeSecret(t, id+".identity", hex.EncodeToString(key.Seed()))
	return signerMember{ID: id, IdentityKey: hex.EncodeToString(key.Public().(ed25519.PublicKey)),
		PayoutKey: hex.EncodeToString(simledger.NewKeys(fixtureSimSeed, i).PublicKey(i - 1))}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// kaspaFixture turns f's group into one on Kaspa simnet: each member's
// payout key a secp256k1 key, s1's secret in its payout key file, the
// change to the group's multisig address.
func kaspaFixture(t *testing.T, f *signerFixture) {
	t.Helper()
	kaspaFixtureOn(t, f, "kaspa-simnet")
}

// kaspaFixtureOn is kaspaFixture on another Kaspa network.
func kaspaFixtureOn(t *testing.T, f *signerFixture, network string) {
	t.Helper()
	var keys [][]byte
	for i := range f.cfg.Group.Members {
		secret := sha256.Sum256([]byte(fmt.Sprintf("fixture/kaspa/%d", i)))
		pub, err := kaspa.PublicKey(secret[:])
		if err != nil {
			t.Fatal(err)
		}
		f.writeSecret(t, fmt.Sprintf("s%d.kaspa", i+1), hex.EncodeToString(secret[:])+"\n")
		f.cfg.Group.Members[i].PayoutKey = hex.EncodeToString(pub)
		keys = append(keys, pub)
	}
	rules, err := kaspa.NewRules(network, keys, f.cfg.Group.Quorum)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Group.Network, f.cfg.Group.ChangeAddress, f.cfg.PayoutKeyFile = network, rules.Address().String(), "s1.kaspa"
}

func TestSignerConfigKaspa(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	kaspaFixture(t, f)
	p := f.load(t).protocol
	if p.Group.Network != "kaspa-simnet" {
		t.Fatalf("network %q", p.Group.Network)
	}
	if _, err := twophase.NewState(p); err != nil {
		t.Fatal(err)
	}
	// s1's payout signature on a template checks with the Kaspa scheme
	// under s1's listed key, and not under s2's.
	rules := p.Rules.(*kaspa.Rules)
	tmpl := rules.Base()
	tmpl.Inputs = []twophase.TemplateInput{rules.Input(twophase.UTXO{Outpoint: twophase.Outpoint{Index: 1}, Amount: 5_000_000_000,
		Script: rules.ChangeScript()})}
	tmpl.Outputs = []twophase.TemplateOutput{{Amount: 4_000_000_000, Script: rules.ChangeScript()}}
	sig, err := p.Payout.SignPayout(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := p.Group.Member("s1")
	s2, _ := p.Group.Member("s2")
	if err := p.Scheme.VerifySignature(tmpl, s1, sig); err != nil {
		t.Fatalf("s1's signature under s1's key: %v", err)
	}
	if err := p.Scheme.VerifySignature(tmpl, s2, sig); err == nil {
		t.Fatal("s1's signature verified under s2's key")
	}

	refused := []struct {
		name   string
		mutate func(f *signerFixture)
		is     error
		want   string
	}{
		{"change to another address", func(f *signerFixture) { f.cfg.Group.ChangeAddress = "kaspasim:qq" },
			ErrKeyMismatch, "is not the group's multisig address"},
		{"payout secret of another member", func(f *signerFixture) { f.cfg.PayoutKeyFile = "s2.kaspa" },
			ErrKeyMismatch, "does not hold member s1's payout key"},
		{"payout file holding the identity seed", func(f *signerFixture) { f.cfg.PayoutKeyFile = "s1.identity" },
			ErrKeyMismatch, "does not hold member s1's payout key"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			f := newSignerFixture(t, 3, 2)
			kaspaFixture(t, f)
			c.mutate(f)
			_, err := loadSignerConfig(f.write(t))
			if err == nil {
				t.Fatal("config accepted")
			}
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q\nwant one that is %v and says %q", err, c.is, c.want)
			}
		})
	}
}
