package main

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode/kaspadtest"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// TestMempoolSpentOutputNeverSelected: with the miner stopped, a
// transaction of the group's own keys spends the output the signers would
// take first and stays pending. The signers build, sign and submit a
// payout meanwhile: no proposal and not the payout spends that output.
// Once the miner runs again both are mined and the withdrawal is paid
// once.
func TestMempoolSpentOutputNeverSelected(t *testing.T) {
	const outputs = 6
	c := newSignerCluster(t, clusterOptions{fund: outputs})
	ledger := c.groupLedger()
	view := c.waitDeepGroupOutputs(ledger, outputs)

	c.node.StopMiner()
	target := c.firstSelected(view, payoutSompi(0))
	spender := c.spendGroupOutput(target, "s1", "s2")
	view = ledgerView(t, ledger)
	if by, ok := view.MempoolSpent[target.Outpoint]; !ok || by != spender {
		t.Fatalf("the signers' view: %s spent in the mempool by %s, %v; want by %s", target.Outpoint, by.Short(), ok, spender.Short())
	}

	c.burn(payoutSompi(0))
	c.waitFor("commit", 30*time.Second, func() bool { return c.anyFact(twophase.TypeCommitted, nil) })
	proposals := c.allProposals()
	if voters := distinctVoters(proposals); len(voters) < c.group.quorum {
		t.Fatalf("proposals from %v, want at least a quorum of %d", voters, c.group.quorum)
	}
	for _, p := range proposals {
		if slices.Contains(p.inputs, target.Outpoint) {
			t.Fatalf("%s's proposal %s in round %d spends %s, which %s spends in the mempool", p.voter, p.hash.Short(), p.round, target.Outpoint, spender.Short())
		}
	}
	c.waitFor("payout the node took into its mempool", 30*time.Second, func() bool {
		return c.anyFact(twophase.TypePayoutOutcome, func(f twophase.Fact) bool { return f.(*twophase.PayoutOutcome).Accepted })
	})
	if by, ok := ledgerView(t, ledger).MempoolSpent[target.Outpoint]; !ok || by != spender {
		t.Fatalf("%s is no longer spent by the pending %s (%s, %v): the payout was not built beside it", target.Outpoint, spender.Short(), by.Short(), ok)
	}

	c.node.StartMiner()
	c.waitPaid(2 * time.Minute)
	_, inputs := c.paidOnce()
	if slices.Contains(inputs, target.Outpoint) {
		t.Errorf("the payout spends %s, which %s spent", target.Outpoint, spender.Short())
	}
	if _, ok := ledgerView(t, ledger).Lookup(target.Outpoint); ok {
		t.Errorf("%s is still unspent: %s was never mined", target.Outpoint, spender.Short())
	}
	c.checkOneTemplatePerEvent()
}

// TestInputSpentBetweenProposalAndCommit: s1 alone proposes a template
// and cannot reach a quorum, so its round fails; one of the template's
// inputs is then spent elsewhere and mined. When s2 and s3 join, the old
// template is never committed nor signed: they propose fresh inputs, s1
// commits that template (no signer gives it up), and the withdrawal is
// paid once by a transaction that does not spend the lost input.
func TestInputSpentBetweenProposalAndCommit(t *testing.T) {
	const outputs = 4
	c := newSignerCluster(t, clusterOptions{fund: outputs, skip: []string{"s2", "s3"}})
	ledger := c.groupLedger()
	// s1 alone abstains in every round after one it could not propose
	// in: its outputs must be deep before the burn.
	c.waitDeepGroupOutputs(ledger, outputs)
	c.burn(payoutSompi(0))

	var first seenProposal
	c.waitFor("s1's proposal", 30*time.Second, func() bool {
		for _, p := range c.proposals("s1") {
			if p.own && p.voter == "s1" {
				first = p
				return true
			}
		}
		return false
	})
	lost, ok := ledgerView(t, ledger).Lookup(first.inputs[0])
	if !ok {
		t.Fatalf("s1 proposed %s, whose input %s the node does not hold", first.hash.Short(), first.inputs[0])
	}
	spender := c.spendGroupOutput(lost, "s2", "s3")
	c.waitFor("the spend of s1's input mined", 30*time.Second, func() bool {
		_, unspent := ledgerView(t, ledger).Lookup(lost.Outpoint)
		return !unspent
	})
	c.waitFor("s1's failed round", 15*time.Second, func() bool {
		for _, f := range c.rawFacts("s1", twophase.TypeRoundFailed) {
			if f.(*twophase.RoundFailed).Round == first.round {
				return true
			}
		}
		return false
	})

	c.start("s2")
	c.start("s3")
	c.waitPaid(2 * time.Minute)
	paid, inputs := c.paidOnce()
	if slices.Contains(inputs, lost.Outpoint) {
		t.Errorf("payout %s spends %s, which %s spent", paid.TxID.Short(), lost.Outpoint, spender.Short())
	}
	for _, m := range c.group.members {
		for _, f := range c.rawFacts(m.id, twophase.TypeCommitted) {
			if cm := f.(*twophase.Committed); cm.Hash == first.hash {
				t.Errorf("%s committed %s, whose input %s was spent, in round %d", m.id, first.hash.Short(), lost.Outpoint, cm.Round)
			}
		}
		if slices.ContainsFunc(c.signedTemplates(m.id)[first.event], func(h twophase.Hash) bool { return h == first.hash }) {
			t.Errorf("%s signed %s, whose input %s was spent", m.id, first.hash.Short(), lost.Outpoint)
		}
	}
	// The withdrawal was paid by a template of fresh inputs, which s1
	// committed after it gave its own up, and which no signer gave up.
	if paid.Hash == first.hash {
		t.Fatalf("paid template %s is the one s1 proposed with the lost input", paid.Hash.Short())
	}
	commits := c.rawFacts("s1", twophase.TypeCommitted)
	if len(commits) == 0 || commits[0].(*twophase.Committed).Hash != paid.Hash {
		t.Errorf("s1's commits %v, want the paid template %s", commits, paid.Hash.Short())
	}
	proposed := false
	for _, p := range c.allProposals() {
		if p.hash != paid.Hash {
			continue
		}
		proposed = true
		if slices.Contains(p.inputs, lost.Outpoint) {
			t.Errorf("%s's proposal of the paid template %s spends the lost input %s", p.voter, p.hash.Short(), lost.Outpoint)
		}
	}
	if !proposed {
		t.Errorf("no log holds a proposal of the paid template %s", paid.Hash.Short())
	}
	for _, m := range c.group.members {
		for _, f := range c.rawFacts(m.id, twophase.TypeRoundFailed) {
			if rf := f.(*twophase.RoundFailed); rf.Hash == paid.Hash {
				t.Errorf("%s gave up the paid template %s in round %d: %s: %s", m.id, paid.Hash.Short(), rf.Round, rf.Reason, rf.Detail)
			}
		}
	}
	c.checkOneTemplatePerEvent()
}

// spendFee is what a test's own spend of a group output pays: well above
// its mass at the minimum relay fee.
const spendFee = 100_000

// groupLedger is a client of the mining node for the group's address: the
// view the signers read (outputs, pending spends, virtual DAA score).
func (c *signerCluster) groupLedger() *kaspanode.Client {
	c.t.Helper()
	l, err := kaspanode.New(context.Background(), kaspanode.Config{Node: c.node.RPC, Network: kaspadtest.Network,
		Address: c.group.rules.Address(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { l.Close() })
	return l
}

func ledgerView(t testing.TB, l *kaspanode.Client) twophase.LedgerView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v, err := l.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// anyFact reports whether a member's log holds a fact of type typ (that
// match accepts, when given).
func (c *signerCluster) anyFact(typ string, match func(twophase.Fact) bool) bool {
	for _, m := range c.group.members {
		for _, f := range c.rawFacts(m.id, typ) {
			if match == nil || match(f) {
				return true
			}
		}
	}
	return false
}

// waitFor polls cond until it holds, failing the test after timeout.
func (c *signerCluster) waitFor(what string, timeout time.Duration, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("no %s after %s", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitDeepGroupOutputs waits until the group holds count outputs deep
// enough to be selected, and returns the view that shows them.
func (c *signerCluster) waitDeepGroupOutputs(l *kaspanode.Client, count int) twophase.LedgerView {
	c.t.Helper()
	depth := devnetSignerParams().MinInputDepth
	var v twophase.LedgerView
	c.waitFor("deep group outputs", time.Minute, func() bool {
		v = ledgerView(c.t, l)
		deep := 0
		for _, u := range v.UTXOs {
			if u.DAAScore+depth <= v.VirtualDAAScore {
				deep++
			}
		}
		return deep >= count
	})
	return v
}

// firstSelected is the output the group's selection takes first for a
// payout of amount, as it would without pending spends.
func (c *signerCluster) firstSelected(v twophase.LedgerView, amount uint64) twophase.UTXO {
	c.t.Helper()
	to, err := kaspa.NewRandomWallet(kaspadtest.Network)
	if err != nil {
		c.t.Fatal(err)
	}
	cfg := c.setup("s1").protocol
	v.MempoolSpent = nil
	_, inputs, _, err := twophase.BuildTemplate(twophase.BuildRequest{Event: twophase.SigningEvent{Destination: to.Address().String(), Amount: amount},
		Group: cfg.Group, Params: cfg.Params, Policy: cfg.Policy, Rules: cfg.Rules}, v)
	if err != nil {
		c.t.Fatal(err)
	}
	return inputs[0]
}

func (c *signerCluster) setup(id string) *signerSetup {
	c.t.Helper()
	s, err := loadSignerConfig(c.member(id).config)
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

// spendGroupOutput spends u, a group output, to a fresh address with the
// payout keys of members by (a quorum of them) and submits the
// transaction; it returns its id.
func (c *signerCluster) spendGroupOutput(u twophase.UTXO, by ...string) twophase.Hash {
	c.t.Helper()
	to, err := kaspa.NewRandomWallet(kaspadtest.Network)
	if err != nil {
		c.t.Fatal(err)
	}
	rules := c.group.rules
	tpl := rules.Base()
	tpl.Inputs = []twophase.TemplateInput{rules.Input(u)}
	tpl.Outputs = []twophase.TemplateOutput{{Amount: u.Amount - spendFee, Script: to.Script()}}
	if mass, err := rules.Mass(tpl); err != nil || mass > spendFee {
		c.t.Fatalf("spend of %s: mass %d (%v), fee %d", u.Outpoint, mass, err, spendFee)
	}
	var group twophase.Group
	var sigs []twophase.MemberSignature
	for _, id := range by {
		cfg := c.setup(id).protocol
		sig, err := cfg.Payout.SignPayout(tpl)
		if err != nil {
			c.t.Fatal(err)
		}
		group, sigs = cfg.Group, append(sigs, twophase.MemberSignature{Signer: cfg.Self, Signature: sig})
	}
	raw, err := kaspa.Scheme{}.Assemble(tpl, group.Sorted(), sigs)
	if err != nil {
		c.t.Fatal(err)
	}
	tx, err := serialization.DeserializeDomainTransaction(raw)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := kaspanode.Open(ctx, c.node.RPC, 10*time.Second)
	if err != nil {
		c.t.Fatal(err)
	}
	defer s.Close()
	if err := s.Submit(ctx, tx); err != nil {
		c.t.Fatalf("spend of %s: %v", u.Outpoint, err)
	}
	return rules.TxID(tpl)
}

// seenProposal is a proposal a member's log holds as a vote.
type seenProposal struct {
	event  twophase.Hash
	voter  twophase.PeerID
	own    bool
	round  uint32
	hash   twophase.Hash
	inputs []twophase.Outpoint
}

// proposals decodes every proposal member id recorded as a vote, its own
// and its peers'.
func (c *signerCluster) proposals(id string) []seenProposal {
	c.t.Helper()
	cfg := c.setup(id).protocol
	opener := twophase.NewOpener(cfg.Group.Sorted(), nil)
	var out []seenProposal
	for _, f := range c.rawFacts(id, twophase.TypeVoteAccepted) {
		v := f.(*twophase.VoteAccepted)
		if v.NoVote {
			continue
		}
		env, err := opener.Open(v.Envelope)
		if err != nil {
			c.t.Fatalf("%s's vote of %s in round %d: %v", id, v.Voter, v.Round, err)
		}
		p, err := twophase.DecodeProposal(env.Payload, cfg.Params)
		if err != nil {
			c.t.Fatalf("%s's vote of %s in round %d: %v", id, v.Voter, v.Round, err)
		}
		tpl, err := twophase.DecodeTemplate(p.Template, cfg.Params.MaxUTXOsPerProposal, cfg.Params.MaxOutputsPerProposal)
		if err != nil {
			c.t.Fatalf("%s's vote of %s in round %d: %v", id, v.Voter, v.Round, err)
		}
		out = append(out, seenProposal{event: v.EventID, voter: v.Voter, own: v.Own, round: v.Round, hash: v.Hash, inputs: tpl.Outpoints()})
	}
	return out
}

// allProposals are the proposals on every member's log.
func (c *signerCluster) allProposals() []seenProposal {
	var out []seenProposal
	for _, m := range c.group.members {
		out = append(out, c.proposals(m.id)...)
	}
	return out
}

func distinctVoters(ps []seenProposal) []twophase.PeerID {
	var out []twophase.PeerID
	for _, p := range ps {
		if !slices.Contains(out, p.voter) {
			out = append(out, p.voter)
		}
	}
	return out
}

// paidOnce waits until every running member recorded its event completed,
// checks that all completed it with one payout, and returns that
// completion and the outpoints its transaction (as submitted) spends.
func (c *signerCluster) paidOnce() (*twophase.Completed, []twophase.Outpoint) {
	c.t.Helper()
	var done map[string][]*twophase.Completed
	c.waitFor("every running signer's completed event", 30*time.Second, func() bool {
		done = map[string][]*twophase.Completed{}
		for id := range c.procs {
			for _, f := range c.rawFacts(id, twophase.TypeCompleted) {
				done[id] = append(done[id], f.(*twophase.Completed))
			}
			if len(done[id]) == 0 {
				return false
			}
		}
		return true
	})
	var paid *twophase.Completed
	for id, cs := range done {
		for _, cm := range cs {
			if paid == nil {
				paid = cm
			}
			if cm.EventID != paid.EventID || cm.TxID != paid.TxID {
				c.t.Fatalf("%s completed event %s with payout %s, another signer event %s with %s", id, cm.EventID.Short(), cm.TxID.Short(), paid.EventID.Short(), paid.TxID.Short())
			}
		}
	}
	for _, m := range c.group.members {
		for _, f := range c.rawFacts(m.id, twophase.TypePayoutSubmitted) {
			sub := f.(*twophase.PayoutSubmitted)
			if sub.TxID != paid.TxID {
				continue
			}
			tx, err := serialization.DeserializeDomainTransaction(sub.Tx)
			if err != nil {
				c.t.Fatal(err)
			}
			var inputs []twophase.Outpoint
			for _, in := range tx.Inputs {
				inputs = append(inputs, twophase.Outpoint{TxID: twophase.Hash(*in.PreviousOutpoint.TransactionID.ByteArray()), Index: in.PreviousOutpoint.Index})
			}
			return paid, inputs
		}
	}
	c.t.Fatalf("no signer's log holds the submission of payout %s", paid.TxID.Short())
	return nil, nil
}
