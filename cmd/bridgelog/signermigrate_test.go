package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// newGroupConfig writes a signer config of the group in the config from,
// edited by edit: its change address the edited group's multisig address
// (derived here as a new signer's operator would) and key files and a
// passphrase file that do not exist, as --to-group must not read them. It
// returns the file and the address.
func newGroupConfig(t *testing.T, from string, edit func(*signerGroup)) (string, string) {
	t.Helper()
	cfg, err := readSignerConfig(from)
	if err != nil {
		t.Fatal(err)
	}
	edit(&cfg.Group)
	var keys [][]byte
	for _, m := range cfg.Group.Members {
		k, err := hex.DecodeString(m.PayoutKey)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	rules, err := kaspa.NewRules(cfg.Group.Network, keys, cfg.Group.Quorum)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Group.ChangeAddress = rules.Address().String()
	cfg.IdentityKeyFile, cfg.PayoutKeyFile = "absent/identity.key", "absent/payout.key"
	cfg.Passphrase = secrets.Passphrase{File: "absent/passphrase"}
	return writeSignerConfig(t, cfg), cfg.Group.ChangeAddress
}

func writeSignerConfig(t *testing.T, cfg signerConfig) string {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "new.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// replacePayoutKey gives member id a fresh payout key.
func replacePayoutKey(t *testing.T, id string) func(*signerGroup) {
	return func(g *signerGroup) {
		_, fresh, err := kaspa.NewKeyPair()
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Members {
			if g.Members[i].ID == id {
				g.Members[i].PayoutKey = hex.EncodeToString(fresh)
			}
		}
	}
}

// TestSignerMigrateTarget: --to-group derives the new group's address
// from its config's group section alone, and refuses a new group on
// another network, the group itself, a config the new signer would
// refuse, and a --to that is not the derived address.
func TestSignerMigrateTarget(t *testing.T) {
	g, err := writeDevSignerGroup(devGroupSpec{dir: t.TempDir(), members: 3, quorum: 2, kaspadRPC: []string{"127.0.0.1:16110"}})
	if err != nil {
		t.Fatal(err)
	}
	s1 := g.members[0].config
	setup, err := loadSignerConfig(s1)
	if err != nil {
		t.Fatal(err)
	}
	newCfg, newAddr := newGroupConfig(t, s1, replacePayoutKey(t, "s2"))
	if newAddr == g.address {
		t.Fatal("a replaced payout key left the group's address as it was")
	}
	for _, to := range []string{"", newAddr} {
		target, err := migrationTargetOf(to, newCfg)
		if err != nil {
			t.Fatalf("--to %q: %v", to, err)
		}
		if target.address != newAddr {
			t.Fatalf("derived %s, want %s", target.address, newAddr)
		}
		if err := target.check(setup); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		target.print(&out)
		if !strings.Contains(out.String(), "address="+newAddr) {
			t.Errorf("printed %q, want the derived address", out.String())
		}
	}

	otherNet, _ := newGroupConfig(t, s1, func(g *signerGroup) { g.Network = "kaspa-testnet" })
	same, _ := newGroupConfig(t, s1, func(*signerGroup) {})
	stale, err := readSignerConfig(newCfg)
	if err != nil {
		t.Fatal(err)
	}
	stale.Group.ChangeAddress = g.address
	for _, bad := range []struct {
		name, to, toGroup string
		want              error
		text              string
	}{
		{"no destination", "", "", twophase.ErrAdmin, "give --to-group NEW.json or --to ADDR"},
		{"--to differs", g.address, newCfg, ErrMigrationAddress, "differs from the address of --to-group"},
		{"another network", "", otherNet, ErrMigrationAddress, "group.network kaspa-testnet, this group's is kaspa-simnet"},
		{"this group", "", same, ErrMigrationAddress, "is this group"},
		{"this group's own config", "", s1, ErrMigrationAddress, "is this group"},
		{"stale change address", "", writeSignerConfig(t, stale), ErrKeyMismatch, "is not the group's multisig address " + newAddr},
		{"no such file", "", filepath.Join(t.TempDir(), "none.json"), ErrSignerConfig, "no such file"},
	} {
		target, err := migrationTargetOf(bad.to, bad.toGroup)
		if err == nil {
			err = target.check(setup)
		}
		if !errors.Is(err, bad.want) || !strings.Contains(fmt.Sprint(err), bad.text) {
			t.Errorf("%s: %v, want %v: %q", bad.name, err, bad.want, bad.text)
		}
	}
}

// outputsAt reads an address's outputs and the virtual DAA score from the
// cluster's node.
func outputsAt(t *testing.T, c *signerCluster, addr string) ([]twophase.UTXO, uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := c.kaspa.session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	us, err := s.UTXOs(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	virtual, err := s.VirtualDAAScore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return us, virtual
}

var requestedLine = regexp.MustCompile(`recorded signing\.event_requested event_id=(0x[0-9a-f]{64}) .* amount=(\d+) via=admin`)

// migrate runs `signer admin migrate` on a stopped member and returns the
// event id and amount it requested, and its output.
func migrate(t *testing.T, c *signerCluster, id string, args ...string) (twophase.Hash, uint64, string) {
	t.Helper()
	stdout, stderr := runCommand(t, c.bin, 0, append([]string{"signer", "admin", "migrate", "--config", c.member(id).config,
		"--operator", "alice", "--reason", "s2's payout key replaced", "--credential", c.group.credential}, args...)...)
	m := requestedLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("migrate on %s requested nothing:\n%s\n%s", id, stdout, stderr)
	}
	h, err := twophase.ParseHash(m[1])
	if err != nil {
		t.Fatal(err)
	}
	amount, _ := strconv.ParseUint(m[2], 10, 64)
	return h, amount, stdout
}

func heldIn(us []twophase.UTXO) (s uint64) {
	for _, u := range us {
		s += u.Amount
	}
	return s
}

// TestSignerMigrateToReplacedPayoutKey: a 2-of-3 group on kaspad simnet
// whose member s2 replaces its payout key moves its funds to the new
// group's address with `signer admin migrate`: a part first, then all
// that is left, each signed by a quorum of the old keys. A transfer only
// one member's operator issued is not signed (the others vote against
// it); a member that did not issue a transfer signs nothing of it; each
// transfer is recorded with its operator and reason; and running the
// transfers again pays nothing twice.
func TestSignerMigrateToReplacedPayoutKey(t *testing.T) {
	c := newSignerCluster(t, clusterOptions{fund: 6})
	c.burn(payoutSompi(0))
	c.waitPaid(2 * time.Minute)
	newCfg, newAddr := newGroupConfig(t, c.member("s1").config, replacePayoutKey(t, "s2"))
	otherNet, _ := newGroupConfig(t, c.member("s1").config, func(g *signerGroup) { g.Network = "kaspa-testnet" })
	if newAddr == c.group.address {
		t.Fatal("a replaced payout key left the group's address as it was")
	}
	for _, m := range c.group.members {
		c.stop(m.id)
	}

	// Refused before anything is recorded.
	faucet := c.faucet.Address.String()
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", faucet, "--all"}, "not a multisig (P2SH) address"},
		{[]string{"--to", c.group.address, "--amount", "100000000"}, "this group's own address"},
		{[]string{"--to", "kaspa:qqqq", "--amount", "100000000"}, "not a kaspa-simnet address"},
		{[]string{"--to", newAddr}, "give either --amount SOMPI or --all"},
		{[]string{"--to", newAddr, "--amount", "1", "--all"}, "give either --amount SOMPI or --all"},
		{[]string{"--all"}, "give --to-group NEW.json or --to ADDR"},
		{[]string{"--to-group", c.member("s1").config, "--all"}, "is this group"},
		{[]string{"--to-group", otherNet, "--all"}, "this group's is kaspa-simnet"},
		{[]string{"--to", c.group.address, "--to-group", newCfg, "--all"}, "differs from the address of --to-group"},
	} {
		_, stderr := runCommand(t, c.bin, 1, append([]string{"signer", "admin", "migrate", "--config", c.member("s1").config,
			"--operator", "alice", "--reason", "r", "--credential", c.group.credential}, bad.args...)...)
		if !strings.Contains(stderr, bad.want) {
			t.Errorf("migrate %v: stderr %q, want %q", bad.args, stderr, bad.want)
		}
	}
	if n := len(c.rawFacts("s1", twophase.TypeAdminReinjected)); n != 0 {
		t.Fatalf("refused migrations recorded %d admin_reinjected facts", n)
	}
	// A policy that allows other destinations only refuses the transfer,
	// before anything is recorded (the stream's nonce stays free), until
	// the new address is listed.
	c.editConfig("s1", func(cfg *signerConfig) { cfg.Policy.AllowedDestinations = []string{faucet} })
	stdout, stderr := runCommand(t, c.bin, 1, "signer", "admin", "migrate", "--config", c.member("s1").config, "--to", newAddr,
		"--amount", "100000000", "--operator", "alice", "--reason", "policy", "--credential", c.group.credential)
	if strings.Contains(stdout, "recorded") || !strings.Contains(stderr, "is not allowed") {
		t.Fatalf("a transfer the policy forbids: stdout %q stderr %q", stdout, stderr)
	}
	if n := len(c.rawFacts("s1", twophase.TypeAdminReinjected)); n != 0 {
		t.Fatalf("a transfer the policy forbids recorded %d admin_reinjected facts", n)
	}
	c.editConfig("s1", func(cfg *signerConfig) { cfg.Policy.AllowedDestinations = []string{faucet, newAddr} })

	// Only s1's operator issues the first transfer: s3 does not have it and
	// votes against s1's proposal, so nothing is signed.
	const part = 25 * 100_000_000
	first, amount, _ := migrate(t, c, "s1", "--to", newAddr, "--amount", strconv.Itoa(part))
	if amount != part {
		t.Fatalf("requested %d, want %d", amount, part)
	}
	c.start("s1")
	c.start("s3")
	// An event s3 never confirmed costs it no record of its own: the
	// refusal is in s1's window of unknown_event refusals.
	c.waitFact("s3", "refusal of s1's proposal of the transfer", twophase.TypeMessageRejected, func(f twophase.Fact) bool {
		r := f.(*twophase.MessageRejected)
		return r.Sender == "s1" && r.Reason == twophase.ReasonUnknownEvent && strings.Contains(r.Detail, first.Short())
	})
	c.waitFact("s1", "round_failed of the transfer", twophase.TypeRoundFailed, func(f twophase.Fact) bool {
		return f.(*twophase.RoundFailed).EventID == first
	})
	c.stop("s1")
	if us, _ := outputsAt(t, c, newAddr); len(us) != 0 {
		t.Fatalf("a transfer one member issued was paid: the new address holds %v", us)
	}

	// s2's operator issues the same transfer, naming the new group by its
	// config: s1 and s2 are a quorum.
	id, _, stdout := migrate(t, c, "s2", "--to-group", newCfg, "--amount", strconv.Itoa(part))
	if id != first {
		t.Fatalf("s2 requested event %s, s1 %s: --to-group and the new group's --to must make the same request", id.Short(), first.Short())
	}
	if !strings.Contains(stdout, "address="+newAddr) {
		t.Fatalf("--to-group did not print the derived address %s: %s", newAddr, stdout)
	}
	c.start("s1")
	c.start("s2")
	c.waitFor("first transfer at the new address", time.Minute, func() bool {
		us, _ := outputsAt(t, c, newAddr)
		return len(us) == 1 && us[0].Amount == part
	})
	// The change stays at the old address; wait until all of it is deep
	// enough to spend, so every member sweeps the same outputs.
	c.waitFor("deep change at the old address", time.Minute, func() bool {
		us, virtual := outputsAt(t, c, c.group.address)
		for _, u := range us {
			if u.DAAScore+devnetSignerParams().MinInputDepth > virtual {
				return false
			}
		}
		return len(us) > 0
	})
	old, _ := outputsAt(t, c, c.group.address)
	for _, m := range c.group.members {
		c.stop(m.id)
	}

	// Then all that is left, on s1 and s2.
	rest, all, _ := migrate(t, c, "s1", "--to", newAddr, "--all", "--nonce", "2")
	if id, amount, _ := migrate(t, c, "s2", "--to", newAddr, "--to-group", newCfg, "--all", "--nonce", "2"); id != rest || amount != all {
		t.Fatalf("s2 requested %s of %d, s1 %s of %d", id.Short(), amount, rest.Short(), all)
	}
	if held := heldIn(old); all >= held || held-all > 1_000_000 {
		t.Fatalf("--all asks for %d of the %d the old address holds", all, held)
	}
	for _, m := range c.group.members {
		c.start(m.id)
	}
	c.waitFor("rest at the new address, none at the old", time.Minute, func() bool {
		us, _ := outputsAt(t, c, newAddr)
		left, _ := outputsAt(t, c, c.group.address)
		return len(us) == 2 && heldIn(us) == part+all && len(left) == 0
	})

	// Each transfer is recorded with who did it and why, and s3, which
	// was given neither, signed neither.
	for _, id := range []string{"s1", "s2"} {
		n := 0
		for _, f := range c.rawFacts(id, twophase.TypeAdminReinjected) {
			r := f.(*twophase.AdminReinjected)
			if r.Reason == "policy" {
				continue
			}
			if r.Operator != "alice" || r.Reason != "s2's payout key replaced" || r.Event.Stream != "migrate:"+newAddr {
				t.Errorf("%s recorded %+v", id, r)
			}
			n++
		}
		if n != 2 {
			t.Errorf("%s recorded %d transfers, want 2", id, n)
		}
	}
	signed := c.signedTemplates("s3")
	if len(signed[first]) != 0 || len(signed[rest]) != 0 {
		t.Errorf("s3 signed a transfer it was not given: %v", signed)
	}
	c.checkOneTemplatePerEvent()

	// Running the transfers again pays nothing twice.
	c.stop("s1")
	requested := len(c.rawFacts("s1", twophase.TypeEventRequested))
	stdout, _ = runCommand(t, c.bin, 0, "signer", "admin", "migrate", "--config", c.member("s1").config, "--to", newAddr,
		"--amount", strconv.Itoa(part), "--operator", "alice", "--reason", "again", "--credential", c.group.credential)
	// The event is known (completed), or collected and its nonce done.
	if !strings.Contains(stdout, "event "+first.Hex()) || !strings.Contains(stdout, "no new request recorded") {
		t.Errorf("the first transfer again: %s", stdout)
	}
	stdout, _ = runCommand(t, c.bin, 0, "signer", "admin", "reinject", "--config", c.member("s1").config,
		"--stream", "migrate:"+newAddr, "--nonce", "2", "--destination", newAddr, "--amount", strconv.FormatUint(all, 10),
		"--operator", "alice", "--reason", "again", "--credential", c.group.credential)
	if !strings.Contains(stdout, "event "+rest.Hex()) || !strings.Contains(stdout, "no new request recorded") {
		t.Errorf("the second transfer again, by reinject: %s", stdout)
	}
	_, stderr = runCommand(t, c.bin, 1, "signer", "admin", "migrate", "--config", c.member("s1").config, "--to", newAddr,
		"--all", "--nonce", "3", "--operator", "alice", "--reason", "again", "--credential", c.group.credential)
	if !strings.Contains(stderr, "no eligible outputs") {
		t.Errorf("--all of an empty address: %s", stderr)
	}
	if n := len(c.rawFacts("s1", twophase.TypeEventRequested)); n != requested {
		t.Errorf("running the transfers again requested %d more events", n-requested)
	}
}
