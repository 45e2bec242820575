package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// devSignerGroup is a signing group written to disk for a devnet or a
// test: every member's keys sealed as an operator's are (mode 600, light
// scrypt), the passphrase that opens them, its config with loopback
// ports for its mesh and HTTP endpoints, and the admin credential.
type devSignerGroup struct {
	dir        string
	network    string
	quorum     int
	address    string // the group's multisig address
	rules      *kaspa.Rules
	members    []devSigner
	credential string // the admin credential's file
	passphrase string // the file of the passphrase that opens every member's keys (what a key scan looks for)
}

// devSigner is one member's files and addresses.
type devSigner struct {
	id     string
	dir    string // its data directory
	config string // its config file
	listen string
	http   string
	payout []byte // its Kaspa payout secret
}

// devGroupSpec says what group to write.
type devGroupSpec struct {
	dir       string // the group's directory (one subdirectory per member)
	network   string // default kaspa-simnet
	members   int
	quorum    int
	profile   twophase.Profile // default Profile A
	faults    int              // Profile B's f
	kaspadRPC []string         // each member's node; one entry serves all
	evm       signerChain
	params    twophase.Params
	policy    twophase.Policy // every member's
	// peerAddr, when set, is the address self dials peer at (a test's
	// proxy); nil: the peer's listen address.
	peerAddr func(self, peer devSigner) string
}

// devnetSignerParams are a devnet group's protocol parameters: the
// simnet miner makes about 20 blocks a second, so depths of a few dozen
// DAA scores take seconds, not the minutes mainnet's defaults mean. A
// Profile B group anchors its plans every 100 DAA scores (5 s of blocks;
// Profile A has no anchors): members read their views up to a few
// hundred milliseconds apart, and members on two sides of a step would
// build at different anchors from different outputs; an input waits for
// its depth at the anchor up to 5.5 s, so a group paying at once keeps
// that many seconds of payouts' worth of deep outputs.
func devnetSignerParams() twophase.Params {
	return twophase.Params{Tick: 200 * time.Millisecond, ProposalTimeout: 2 * time.Second, MinInputDepth: 10, PayoutDepth: 10,
		Retry:      twophase.RetryConfig{MaxRetries: 5, BaseDelay: time.Second, MaxDelay: 5 * time.Second},
		AnchorStep: 100}
}

// writeDevSignerGroup makes fresh keys for every member and writes the
// group to spec.dir.
func writeDevSignerGroup(spec devGroupSpec) (*devSignerGroup, error) {
	if spec.network == "" {
		spec.network = "kaspa-simnet"
	}
	if spec.profile == "" {
		spec.profile = twophase.ProfileA
	}
	g := &devSignerGroup{dir: spec.dir, network: spec.network, quorum: spec.quorum}
	if err := os.MkdirAll(spec.dir, 0o700); err != nil {
		return nil, err
	}
	if spec.peerAddr == nil {
		spec.peerAddr = func(_, peer devSigner) string { return peer.listen }
	}
	credential := make([]byte, 32)
	if _, err := rand.Read(credential); err != nil {
		return nil, err
	}
	g.credential = filepath.Join(spec.dir, "admin.credential")
	if err := os.WriteFile(g.credential, []byte(hex.EncodeToString(credential)+"\n"), 0o600); err != nil {
		return nil, err
	}
	credentialSum := sha256.Sum256([]byte(hex.EncodeToString(credential)))
	g.passphrase = filepath.Join(spec.dir, "passphrase")
	pass, err := writeDevPassphrase(g.passphrase)
	if err != nil {
		return nil, err
	}
	var members []signerMember
	var payoutKeys [][]byte
	for i := 0; i < spec.members; i++ {
		m, member, payoutPub, err := newDevSigner(spec.dir, fmt.Sprintf("s%d", i+1), pass)
		if err != nil {
			return nil, err
		}
		members = append(members, member)
		payoutKeys = append(payoutKeys, payoutPub)
		g.members = append(g.members, m)
	}
	rules, err := kaspa.NewRules(spec.network, payoutKeys, spec.quorum)
	if err != nil {
		return nil, err
	}
	g.rules, g.address = rules, rules.Address().String()
	for i, m := range g.members {
		peers := map[string]string{}
		for _, o := range g.members {
			if o.id != m.id {
				peers[o.id] = spec.peerAddr(m, o)
			}
		}
		node := spec.kaspadRPC[0]
		if i < len(spec.kaspadRPC) {
			node = spec.kaspadRPC[i]
		}
		evm := spec.evm
		cfg := signerConfig{Self: m.id, IdentityKeyFile: filepath.Join(m.id, "identity.key"), PayoutKeyFile: filepath.Join(m.id, "payout.key"),
			Passphrase: secrets.Passphrase{File: "passphrase"},
			Data:       filepath.Join(m.id, "data"), Admin: signerAdmin{CredentialSHA256: hex.EncodeToString(credentialSum[:])},
			Group: signerGroup{Profile: spec.profile, Quorum: spec.quorum, Faults: spec.faults, Network: spec.network,
				ChangeAddress: g.address, Members: members},
			Params: spec.params, Policy: spec.policy,
			signerNetConfig: signerNetConfig{Listen: m.listen, Peers: peers, HTTP: m.http,
				Kaspad: &signerNode{RPC: node, StallAfter: "30s", Poll: "250ms"}, EVM: &evm}}
		b, err := json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			return nil, err
		}
		g.members[i].config = filepath.Join(spec.dir, m.id+".json")
		if err := os.WriteFile(g.members[i].config, b, 0o600); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// newDevSigner makes member id's data directory, its identity and payout
// keys sealed under pass, and its two loopback addresses; it returns the
// member as the group lists it and its payout public key.
func newDevSigner(groupDir, id, pass string) (devSigner, signerMember, []byte, error) {
	m := devSigner{id: id, dir: filepath.Join(groupDir, id)}
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return m, signerMember{}, nil, err
	}
	pub, identity, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return m, signerMember{}, nil, err
	}
	secret, payoutPub, err := kaspa.NewKeyPair()
	if err != nil {
		return m, signerMember{}, nil, err
	}
	m.payout = secret
	for _, k := range []struct {
		file           string
		kind           keyKind
		secret, public []byte
	}{{"identity.key", identityKeyKind, identity.Seed(), pub}, {"payout.key", kaspaPayoutKeyKind, secret, payoutPub}} {
		b, err := secrets.Seal(k.kind.sealed, k.secret, k.public, pass, secrets.LightScrypt)
		if err != nil {
			return m, signerMember{}, nil, err
		}
		if err := os.WriteFile(filepath.Join(m.dir, k.file), b, 0o600); err != nil {
			return m, signerMember{}, nil, err
		}
	}
	if m.listen, err = childproc.FreeLoopbackAddr(); err != nil {
		return m, signerMember{}, nil, err
	}
	if m.http, err = childproc.FreeLoopbackAddr(); err != nil {
		return m, signerMember{}, nil, err
	}
	return m, signerMember{ID: id, IdentityKey: hex.EncodeToString(pub), PayoutKey: hex.EncodeToString(payoutPub)}, payoutPub, nil
}

// writeDevPassphrase writes a fresh random passphrase (mode 600) and
// returns it.
func writeDevPassphrase(path string) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	pass := hex.EncodeToString(b)
	if err := os.WriteFile(path, []byte(pass+"\n"), 0o600); err != nil {
		return "", err
	}
	return pass, nil
}
