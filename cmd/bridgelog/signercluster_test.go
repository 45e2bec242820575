package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/topics"
)

// signerCluster is a signing group of separate signer processes (this
// package's binary, `bridgelog signer --config`) on a real kaspad simnet
// node and an in-process EVM dev chain: each burn toward Kaspa on the
// chain is a payout the group owes.
type signerCluster struct {
	t     testing.TB
	bin   string
	chain *devchain.Chain
	users devchain.Users
	token contracts.BridgeToken
	// minter holds the token's relayer role: tests mint users' tokens
	// directly, the relay's deposits being beside the point here.
	minter *ecdsa.PrivateKey
	// senders are the users who burn (burnFrom): a Profile B group's
	// streams are per sender.
	senders []*ecdsa.PrivateKey
	node    *kaspadtest.Node // mines to the faucet
	faucet  *kaspadtest.Key
	group   *devSignerGroup
	// kaspa pays and checks payouts as the devnet does (fund, paid).
	kaspa *devnetKaspa
	procs map[string]*childproc.Process
	// proxies carry each link between two members (the lower id dials
	// the higher); cut one to partition them.
	proxies map[[2]string]*linkProxy
}

// clusterOptions shape a cluster.
type clusterOptions struct {
	members, quorum int
	// profile and faults are the group's fault model (default Profile A).
	profile twophase.Profile
	faults  int
	// senders is how many users burn (default 1).
	senders int
	// nodes, once the mining node runs, gives members their own kaspad
	// node (a peer of the mining one), by id; the others share the
	// mining node.
	nodes func(mining *kaspadtest.Node) map[string]*kaspadtest.Node
	// evmRPC, when set, is the EVM endpoint the members dial instead of
	// the chain's own (a test's proxy in front of it).
	evmRPC func(chainURL string) string
	// params are the group's protocol parameters (zero: the devnet's).
	params twophase.Params
	// stallAfter bounds how long a signer's node may stand still.
	stallAfter string
	// fund is how many group outputs the faucet pays (default 8).
	fund int
	// skip lists members whose process the test runs itself, or not at
	// all (their config is written; they are not started).
	skip []string
}

// newSignerCluster starts the chain, the mining node, writes the group,
// funds it and starts every member's process.
func newSignerCluster(t testing.TB, opt clusterOptions) *signerCluster {
	t.Helper()
	if opt.members == 0 {
		opt.members, opt.quorum = 3, 2
	}
	if opt.params == (twophase.Params{}) {
		opt.params = devnetSignerParams()
	}
	if opt.fund == 0 {
		opt.fund = 8
	}
	opt.senders = max(opt.senders, 1)
	c := &signerCluster{t: t, bin: testBinary(t), procs: map[string]*childproc.Process{}, proxies: map[[2]string]*linkProxy{}}
	// Dev account 0 deploys, 1 mints, the senders follow.
	chain, err := devchain.Start(devchain.Config{BlockInterval: 50 * time.Millisecond, Accounts: max(4, 2+opt.senders),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	c.chain, c.minter = chain, devchain.DevKey(1)
	for i := range opt.senders {
		c.senders = append(c.senders, devchain.DevKey(2+i))
	}
	ctx := context.Background()
	br, err := chain.Deploy(ctx, devchain.DevKey(0), crypto.PubkeyToAddress(c.minter.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	c.users, c.token = devchain.Users{Backend: chain.Client(), Bridge: br}, *contracts.NewBridgeToken()

	c.faucet = kaspadtest.NewKey(t)
	c.node = kaspadtest.StartNode(t, kaspadtest.Options{MineTo: c.faucet.Address})
	dir := t.TempDir()
	var own map[string]*kaspadtest.Node
	if opt.nodes != nil {
		own = opt.nodes(c.node)
	}
	rpcs := make([]string, opt.members)
	for i := range rpcs {
		rpcs[i] = c.node.RPC
		if n := own[fmt.Sprintf("s%d", i+1)]; n != nil {
			rpcs[i] = n.RPC
		}
	}
	evmRPC := chain.URL()
	if opt.evmRPC != nil {
		evmRPC = opt.evmRPC(evmRPC)
	}
	c.group, err = writeDevSignerGroup(devGroupSpec{dir: dir, members: opt.members, quorum: opt.quorum,
		profile: opt.profile, faults: opt.faults, kaspadRPC: rpcs,
		evm:    signerChain{RPC: evmRPC, ChainID: devchain.ChainID, Token: domain.Address(br.Token), Confirmations: 2, Poll: "50ms"},
		params: opt.params,
		peerAddr: func(self, peer devSigner) string {
			if self.id > peer.id {
				return peer.listen // the higher id waits to be dialled
			}
			p := startLinkProxy(t, peer.listen)
			c.proxies[[2]string{self.id, peer.id}] = p
			return p.Addr()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if opt.stallAfter != "" {
		for _, m := range c.group.members {
			c.editConfig(m.id, func(cfg *signerConfig) { cfg.Kaspad.StallAfter = opt.stallAfter })
		}
	}
	c.kaspa = &devnetKaspa{rpc: c.node.RPC, faucet: c.faucet.Wallet, group: c.group}
	fctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := c.kaspa.fund(fctx, opt.fund); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.group.members {
		if !containsString(opt.skip, m.id) {
			c.start(m.id)
		}
	}
	t.Cleanup(func() {
		for id := range c.procs {
			c.stop(id)
		}
		if t.Failed() {
			for _, m := range c.group.members {
				t.Logf("signer %s output:\n%s", m.id, childproc.Tail(filepath.Join(m.dir, "signer.out"), 25))
			}
		}
	})
	return c
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// member is the member id's files and addresses.
func (c *signerCluster) member(id string) devSigner {
	for _, m := range c.group.members {
		if m.id == id {
			return m
		}
	}
	c.t.Fatalf("no member %s", id)
	return devSigner{}
}

// editConfig rewrites a member's config (before it starts).
func (c *signerCluster) editConfig(id string, edit func(*signerConfig)) {
	c.t.Helper()
	m := c.member(id)
	cfg, err := readSignerConfig(m.config)
	if err != nil {
		c.t.Fatal(err)
	}
	edit(&cfg)
	if err := writeJSONFile(m.config, cfg); err != nil {
		c.t.Fatal(err)
	}
}

// start starts (or restarts) a member's signer process; its output goes
// on after the previous run's.
func (c *signerCluster) start(id string) {
	c.t.Helper()
	m := c.member(id)
	out := filepath.Join(m.dir, "signer.out")
	// childproc truncates its output file: keep the previous runs'.
	if b, err := os.ReadFile(out); err == nil {
		f, _ := os.OpenFile(filepath.Join(m.dir, "signer.all.out"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		f.Write(b)
		f.Close()
	}
	p, err := childproc.Start(c.bin, []string{"signer", "--config", m.config, "--log-level", "debug"}, out, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	c.procs[id] = p
}

// stop stops a member's process (SIGINT, then SIGKILL).
func (c *signerCluster) stop(id string) {
	if p := c.procs[id]; p != nil {
		_ = p.Stop(10 * time.Second)
		delete(c.procs, id)
	}
}

// kill kills a member's process with SIGKILL: a crash at whatever point
// it had reached.
func (c *signerCluster) kill(id string) {
	if p := c.procs[id]; p != nil {
		p.Kill()
		delete(c.procs, id)
	}
}

// partition cuts (or heals) every link of member id.
func (c *signerCluster) partition(id string, cut bool) {
	for pair, p := range c.proxies {
		if pair[0] == id || pair[1] == id {
			if cut {
				p.Cut()
			} else {
				p.Heal()
			}
		}
	}
}

// burn is burnFrom the first sender.
func (c *signerCluster) burn(sompi uint64) int {
	c.t.Helper()
	return c.burnFrom(0, sompi)
}

// burnFrom mints amount sompi's worth of tokens to sender i and burns
// them toward a fresh Kaspa address, which the group then owes; it
// returns the burn's index among the cluster's payouts.
func (c *signerCluster) burnFrom(i int, sompi uint64) int {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recipient, err := kaspa.NewRandomWallet(kaspadtest.Network)
	if err != nil {
		c.t.Fatal(err)
	}
	wei := new(big.Int).Mul(new(big.Int).SetUint64(sompi), big.NewInt(weiPerSompi))
	sender := c.senders[i]
	user := crypto.PubkeyToAddress(sender.PublicKey)
	key := sha256.Sum256([]byte(fmt.Sprintf("cluster/mint/%d", len(c.kaspa.owed))))
	auth := bind.NewKeyedTransactor(c.minter, big.NewInt(devchain.ChainID))
	auth.Context = ctx
	tx, err := bind.Transact(c.token.Instance(c.users.Backend, c.users.Bridge.Token), auth, c.token.PackMint(user, wei, key))
	if err != nil {
		c.t.Fatalf("mint: %v", contracts.DecodeRevert(err))
	}
	c.mined(ctx, "mint", tx.Hash())
	c.holds(ctx, user, wei)
	btx, err := c.users.BurnToKaspa(ctx, sender, wei, recipient.Address().String())
	if err != nil {
		c.t.Fatal(err)
	}
	c.mined(ctx, "burn", btx.Hash())
	c.kaspa.owed = append(c.kaspa.owed, kaspaOwed{address: recipient.Address(), sompi: sompi})
	c.kaspa.payouts = append(c.kaspa.payouts, devchain.KaspaPayout{Recipient: recipient.Address().String(), Amount: wei})
	return len(c.kaspa.owed) - 1
}

// mined waits for what's transaction tx to be mined, and fails if it
// reverted, saying which and whether it ran out of gas (its gas limit
// was estimated on another state than it ran on).
func (c *signerCluster) mined(ctx context.Context, what string, tx [32]byte) {
	c.t.Helper()
	for {
		r, err := c.users.Backend.TransactionReceipt(ctx, tx)
		if err == nil {
			if r.Status != 1 {
				limit := "unknown"
				if t, _, err := c.users.Backend.TransactionByHash(ctx, tx); err == nil {
					limit = fmt.Sprint(t.Gas())
				}
				c.t.Fatalf("%s transaction %x reverted in block %v: gas used %d of limit %s", what, tx, r.BlockNumber, r.GasUsed, limit)
			}
			return
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("transaction %x not mined: %v", tx, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// holds waits until user's balance in the latest block covers wei: the
// burn's gas estimate reads that block, which the chain may not have
// made its head yet when the mint's receipt is already served.
func (c *signerCluster) holds(ctx context.Context, user common.Address, wei *big.Int) {
	c.t.Helper()
	for {
		have, err := c.users.TokenBalance(ctx, user)
		if err == nil && have.Cmp(wei) >= 0 {
			return
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("%s holds %v tokens, not %s (%v)", user, have, wei, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitPaid waits until every payout owed is confirmed on the node, and
// fails at once when a recipient holds something else than it is owed.
func (c *signerCluster) waitPaid(timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		paid, err := c.kaspa.paid(ctx, devnetSignerParams().PayoutDepth)
		cancel()
		if err == nil && len(paid.problems) > 0 {
			c.t.Fatalf("payouts wrong: %s", strings.Join(paid.problems, "; "))
		}
		if err == nil && paid.confirmed == len(c.kaspa.owed) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%d of %d payouts confirmed after %s (%v)", paid.confirmed, len(c.kaspa.owed), timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// signedTemplates reads a member's log, raw (repeated source keys
// included), for the hashes of every template it signed, by event.
func (c *signerCluster) signedTemplates(id string) map[twophase.Hash][]twophase.Hash {
	c.t.Helper()
	out := map[twophase.Hash][]twophase.Hash{}
	for _, f := range c.rawFacts(id, twophase.TypeTemplateSigned) {
		s := f.(*twophase.TemplateSigned)
		out[s.EventID] = append(out[s.EventID], s.Hash)
	}
	return out
}

// rawFacts reads every record of a fact type from a member's log,
// repeated source keys included.
func (c *signerCluster) rawFacts(id, typ string) []twophase.Fact {
	c.t.Helper()
	var out []twophase.Fact
	for _, env := range c.records(id, topics.TopicSigning, typ) {
		f := twophase.NewFact(env.Type)
		if err := topics.DecodePayload(env.Payload, f); err != nil {
			c.t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// records reads every record of an event type on a topic of a member's
// log (read-only: the member may be running), in log order per
// partition.
func (c *signerCluster) records(id, topic, typ string) []topics.Envelope {
	c.t.Helper()
	setup, err := loadSignerConfig(c.member(id).config)
	if err != nil {
		c.t.Fatal(err)
	}
	var out []topics.Envelope
	for _, r := range topicRecords(c.t, setup.logDir(), topic) {
		if r.env.Type == typ {
			out = append(out, r.env)
		}
	}
	return out
}

// loggedRecord is one decoded record of a log and where it sits.
type loggedRecord struct {
	env topics.Envelope
	at  topics.Position
}

// topicRecords reads every record of a topic of the embedded log in dir
// (read-only: its owner may be running), in log order per partition.
func topicRecords(t testing.TB, dir, topic string) []loggedRecord {
	t.Helper()
	lg, err := embeddedlog.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	ctx := context.Background()
	ends, err := lg.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []loggedRecord
	for p, end := range ends {
		for off := int64(0); off < end; {
			recs, err := lg.Read(ctx, topic, int32(p), off, 1024)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) == 0 {
				break
			}
			for _, r := range recs {
				off = r.Offset + 1
				env, err := topics.DecodeEnvelope(r.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, loggedRecord{env: env, at: r.Position()})
			}
		}
	}
	return out
}

// checkOneTemplatePerEvent fails the test when a member's log holds two
// different signed templates for one event.
func (c *signerCluster) checkOneTemplatePerEvent() {
	c.t.Helper()
	for _, m := range c.group.members {
		for ev, hashes := range c.signedTemplates(m.id) {
			for _, h := range hashes[1:] {
				if h != hashes[0] {
					c.t.Errorf("signer %s signed two templates for event %s: %s and %s", m.id, ev.Short(), hashes[0].Short(), h.Short())
				}
			}
		}
	}
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
