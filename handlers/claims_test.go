package handlers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/adapters/watermilllog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/merkle"
	"github.com/bridgelog/bridgelog/topics"
)

// Claims by a swarm: claim executors of one consumer group, each with its
// own wallet, pay every leaf of an anchored batch exactly once, on both
// log engines, when members join, die and come back, and when two of them
// drive the same claim at once.

const (
	swarmLeaves = 24
	swarmGroup  = "claims-swarm"
	// swarmWait bounds every phase of a test (deploy, joins, payouts).
	swarmWait = 40 * time.Second
)

var quietLogger = slog.New(slog.DiscardHandler)

type claimEngine struct {
	name string
	open func(t *testing.T) topics.Log
}

func claimEngines() []claimEngine {
	return []claimEngine{
		{"embedded", func(t *testing.T) topics.Log {
			lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { lg.Close() })
			return lg
		}},
		{"kafka", func(t *testing.T) topics.Log {
			// Members learn of a join or a leave at their next heartbeat:
			// keep it short so rebalances take a fraction of a second.
			return kafkatest.Open(t, kafkalog.Config{FetchMaxWait: 100 * time.Millisecond, HeartbeatInterval: 250 * time.Millisecond,
				RebalanceTimeout: 5 * time.Second, JoinGroupBackoff: 100 * time.Millisecond})
		}},
	}
}

// joinLog counts consumer-group joins, so a test appends work only once
// the whole swarm is in the group (else the first member takes it all).
type joinLog struct {
	topics.Log
	joined atomic.Int32
}

func (l *joinLog) Subscribe(ctx context.Context, topic, group string) (topics.Subscription, error) {
	sub, err := l.Log.Subscribe(ctx, topic, group)
	if err == nil {
		l.joined.Add(1)
	}
	return sub, err
}

// claimSwarm is a dev chain with the bridge deployed and funded, a batch
// anchored on it, and a log the claim executors share.
type claimSwarm struct {
	t      *testing.T
	chain  *devchain.Chain
	users  devchain.Users
	client *evmchain.Client
	log    *joinLog
	app    *Appender
	calls  *evmchain.Calls
	batch  domain.BatchCreated
	lines  *lineSink
	drove  *driveRecord
}

// newClaimSwarm deploys with relayer wallets 1..wallets (wallet 1 anchors,
// the executors use 2 and up), funds the distributor with the batch's
// total and anchors a batch of leaves withdrawals.
func newClaimSwarm(t *testing.T, lg topics.Log, leaves, wallets int) *claimSwarm {
	t.Helper()
	ch, err := devchain.Start(devchain.Config{BlockInterval: 50 * time.Millisecond, Accounts: wallets + 1, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	admin := devchain.DevKey(0)
	var relayers []common.Address
	for i := 1; i <= wallets; i++ {
		relayers = append(relayers, crypto.PubkeyToAddress(devchain.DevKey(i).PublicKey))
	}
	b, err := ch.Deploy(ctx, admin, relayers...)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := evmchain.Dial(ctx, evmchain.Config{URL: ch.URL(), ChainID: devchain.ChainID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	s := &claimSwarm{t: t, chain: ch, users: devchain.Users{Backend: ch.Client(), Bridge: b}, client: cl, log: &joinLog{Log: lg},
		calls: evmchain.NewCalls(evmchain.Contracts{Distributor: domain.Address(b.Distributor), Token: domain.Address(b.Token)}),
		lines: &lineSink{}, drove: &driveRecord{byLeaf: map[domain.Hash32][]string{}}}
	s.app = &Appender{Log: s.log, Catalog: topics.DefaultCatalog()}
	t.Cleanup(func() { s.lines.dumpIfFailed(t) })
	s.batch = balancedBatch(t, domain.Settlement{ChainID: devchain.ChainID, Distributor: domain.Address(b.Distributor)}, leaves)

	tx, err := s.users.Lock(ctx, admin, s.batch.TotalAmount.Big(), crypto.PubkeyToAddress(admin.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	d := &TxDriver{Chain: s.signer(1), Appender: s.app, PollInterval: 25 * time.Millisecond, Logger: s.lines.logger("anchorer")}
	out, err := d.Drive(ctx, TxRequest{Purpose: domain.PurposeAnchor, Subject: s.batch.SourceKey(), Call: s.calls.Anchor(s.batch)})
	if err != nil || out.Status != domain.TxSucceeded {
		t.Fatalf("anchor batch %d: %+v %v", s.batch.BatchID, out, err)
	}
	return s
}

// balancedBatch builds batch 1 of n withdrawals with distinct ids,
// funders, recipients and amounts, picked so that every claims partition
// holds the same number of leaves: every member of a swarm of up to
// DefaultPartitions executors then owns claims.
func balancedBatch(t *testing.T, s domain.Settlement, n int) domain.BatchCreated {
	t.Helper()
	spec, err := topics.Spec(topics.TopicClaims)
	if err != nil {
		t.Fatal(err)
	}
	quota := (n + int(spec.Partitions) - 1) / int(spec.Partitions)
	perPart := make([]int, spec.Partitions)
	var pending []domain.PendingWithdrawal
	for id := uint64(1); len(pending) < n; id++ {
		if id > 100_000 {
			t.Fatalf("no balanced batch of %d leaves", n)
		}
		w := domain.PendingWithdrawal{
			Ref:       domain.LogRef{ChainID: 31337, TxHash: domain.Hash32(crypto.Keccak256Hash([]byte(fmt.Sprint("burn-", id)))), LogIndex: uint32(id % 3)},
			TxID:      id,
			Funder:    domain.Address(common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprint("funder-", id))))),
			Recipient: domain.Address(common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprint("recipient-", id))))),
			Amount:    domain.AmountFromUint64(1_000_000_000_000_000 + id*1_000_003),
		}
		leaf := merkle.BatchLeaf(s, 1, w)
		p := topics.PartitionFor([]byte(domain.ClaimID(s, leaf)), spec.Partitions)
		if perPart[p] >= quota {
			continue
		}
		perPart[p]++
		pending = append(pending, w)
	}
	b, err := domain.PlanBatch(s, domain.SequenceState{}, pending, domain.BatchPolicy{MaxSize: n}, time.Unix(0, 0), merkle.BatchLeaf, merkle.BatchRoot)
	if err != nil || b == nil || len(b.Leaves) != n {
		t.Fatalf("plan batch of %d: %+v %v", n, b, err)
	}
	return *b
}

func (s *claimSwarm) signer(wallet int) evmchain.Signer {
	return evmchain.Signer{Client: s.client, Wallet: evmwallet.NewKeySigner(devchain.DevKey(wallet))}
}

// requestClaims appends the batch's claim requests, as the anchorer does.
func (s *claimSwarm) requestClaims() {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	reqs, err := ClaimRequests(s.batch)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.app.Append(ctx, Cause{CorrelationID: s.batch.SourceKey()}, reqs...); err != nil {
		s.t.Fatal(err)
	}
}

// executor is a swarm member with wallet's own driver; its Calls record
// which claims it drove.
func (s *claimSwarm) executor(name string, wallet int) *ClaimExecutor {
	l := s.lines.logger(name)
	return &ClaimExecutor{Log: s.log, Consumer: claimsConsumer(s.log, l), Group: swarmGroup,
		Calls:  recordingCalls{ClaimCalls: s.calls, name: name, rec: s.drove},
		Driver: &TxDriver{Chain: s.signer(wallet), Appender: s.app, PollInterval: 25 * time.Millisecond, Logger: l}, Logger: l}
}

// claimsConsumer is the relay's wiring of an executor's records.
func claimsConsumer(lg topics.Log, logger *slog.Logger) watermilllog.Consumer {
	return watermilllog.Consumer{Log: lg, Topic: topics.TopicClaims, Name: "claims", Logger: logger}
}

type runningExecutor struct {
	name   string
	cancel context.CancelFunc
	exited chan struct{}
	err    error // set before exited closes
}

// run runs x until ctx ends or stop; it is stopped when the test ends at
// the latest, before the log and chain close.
func (s *claimSwarm) run(ctx context.Context, cancel context.CancelFunc, name string, x *ClaimExecutor) *runningExecutor {
	r := &runningExecutor{name: name, cancel: cancel, exited: make(chan struct{})}
	go func() {
		defer close(r.exited)
		r.err = x.Run(ctx)
	}()
	s.t.Cleanup(func() { _ = r.stop() })
	return r
}

func (s *claimSwarm) start(name string, wallet int) *runningExecutor {
	ctx, cancel := context.WithCancel(context.Background())
	return s.run(ctx, cancel, name, s.executor(name, wallet))
}

func (r *runningExecutor) stop() error {
	r.cancel()
	select {
	case <-r.exited:
		return r.err
	case <-time.After(swarmWait):
		return fmt.Errorf("executor %s still running %s after its context ended", r.name, swarmWait)
	}
}

// stopAll stops the executors, reporting any whose Run failed.
func (s *claimSwarm) stopAll(running []*runningExecutor) {
	s.t.Helper()
	for _, r := range running {
		if err := r.stop(); err != nil {
			s.t.Errorf("executor %s: %v", r.name, err)
		}
	}
}

// waitFor polls cond until it holds. It fails the test when cond errs, when
// a running executor exits on its own, or after swarmWait.
func (s *claimSwarm) waitFor(what string, running []*runningExecutor, cond func() (bool, string, error)) {
	s.t.Helper()
	deadline := time.Now().Add(swarmWait)
	for {
		ok, state, err := cond()
		if err != nil {
			s.t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		for _, r := range running {
			select {
			case <-r.exited:
				s.t.Fatalf("waiting for %s: executor %s exited early: %v (%s)", what, r.name, r.err, state)
			default:
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %s within %s: %s", what, swarmWait, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *claimSwarm) waitJoined(n int, running []*runningExecutor) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%d members in group %s", n, swarmGroup), running, func() (bool, string, error) {
		j := int(s.log.joined.Load())
		return j >= n, fmt.Sprintf("%d joined", j), nil
	})
}

// waitExecuted waits until every withdrawal of the batch has an executed
// event on the log; a failed one fails the test at once.
func (s *claimSwarm) waitExecuted(running []*runningExecutor) {
	s.t.Helper()
	s.waitFor("withdrawal.executed for every leaf", running, func() (bool, string, error) {
		exec, failed := s.verdicts()
		if len(failed) > 0 {
			return false, "", fmt.Errorf("withdrawals failed: %+v", failed)
		}
		missing := 0
		for _, l := range s.batch.Leaves {
			if len(exec[executedKey(l)]) == 0 {
				missing++
			}
		}
		return missing == 0, fmt.Sprintf("%d of %d leaves not executed", missing, len(s.batch.Leaves)), nil
	})
}

func executedKey(l domain.BatchLeaf) string {
	return domain.WithdrawalExecuted{Ref: l.Withdrawal}.SourceKey()
}

// verdicts reads the bridge topic: the distinct contents of every
// withdrawal.executed source key, and every withdrawal.failed.
func (s *claimSwarm) verdicts() (map[string]map[string]domain.WithdrawalExecuted, []domain.WithdrawalFailed) {
	exec := map[string]map[string]domain.WithdrawalExecuted{}
	var failed []domain.WithdrawalFailed
	for _, e := range events(s.t, s.log, topics.TopicBridge) {
		switch e.Type {
		case domain.TypeWithdrawalExecuted:
			var w domain.WithdrawalExecuted
			if err := topics.DecodePayload(e.Payload, &w); err != nil {
				s.t.Fatal(err)
			}
			if exec[e.SourceKey] == nil {
				exec[e.SourceKey] = map[string]domain.WithdrawalExecuted{}
			}
			exec[e.SourceKey][string(e.Payload)] = w
		case domain.TypeWithdrawalFailed:
			var w domain.WithdrawalFailed
			if err := topics.DecodePayload(e.Payload, &w); err != nil {
				s.t.Fatal(err)
			}
			failed = append(failed, w)
		}
	}
	return exec, failed
}

// claimTxs reads the claims topic: intents and outcomes per claim.
func (s *claimSwarm) claimTxs() (intents map[string][]domain.TxIntent, outs map[string][]domain.TxOutcome) {
	intents, outs = map[string][]domain.TxIntent{}, map[string][]domain.TxOutcome{}
	for _, e := range events(s.t, s.log, topics.TopicClaims) {
		switch e.Type {
		case domain.TypeClaimIntent:
			var in domain.TxIntent
			if err := topics.DecodePayload(e.Payload, &in); err != nil {
				s.t.Fatal(err)
			}
			intents[in.Subject] = append(intents[in.Subject], in)
		case domain.TypeClaimOutcome:
			var o domain.TxOutcome
			if err := topics.DecodePayload(e.Payload, &o); err != nil {
				s.t.Fatal(err)
			}
			outs[o.Subject] = append(outs[o.Subject], o)
		}
	}
	return intents, outs
}

// claimed reads the distributor's Claimed events, by leaf.
func (s *claimSwarm) claimed() map[domain.Hash32][]*contracts.BatchDistributorClaimed {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	tip, err := s.client.Tip(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	logs, err := s.client.Logs(ctx, 0, tip, []domain.Address{domain.Address(s.users.Bridge.Distributor)})
	if err != nil {
		s.t.Fatal(err)
	}
	d := contracts.NewBatchDistributor()
	id := d.GetABI().Events["Claimed"].ID
	out := map[domain.Hash32][]*contracts.BatchDistributorClaimed{}
	for i := range logs {
		if len(logs[i].Topics) == 0 || logs[i].Topics[0] != id {
			continue
		}
		ev, err := d.UnpackClaimedEvent(&logs[i])
		if err != nil {
			s.t.Fatal(err)
		}
		out[domain.Hash32(ev.Leaf)] = append(out[domain.Hash32(ev.Leaf)], ev)
	}
	return out
}

// checkPaidOnce checks one leaf: processed on chain, one Claimed event
// with its recipient and amount, the recipient's balance grown by exactly
// its amount, and one succeeded claim outcome on the log, for the very
// transaction that emitted the event. It returns the paying transaction.
func (s *claimSwarm) checkPaidOnce(l domain.BatchLeaf, claimed map[domain.Hash32][]*contracts.BatchDistributorClaimed,
	outs map[string][]domain.TxOutcome) domain.Hash32 {
	t := s.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	name := fmt.Sprintf("leaf %d (tx id %d)", l.Index, l.TxID)
	ok, err := s.users.Processed(ctx, l.Leaf)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Errorf("%s: processedLeaves false on chain", name)
	}
	evs := claimed[l.Leaf]
	if len(evs) != 1 {
		t.Errorf("%s: %d Claimed events, want exactly 1", name, len(evs))
		return domain.Hash32{}
	}
	if domain.Address(evs[0].Recipient) != l.Recipient || evs[0].Amount.Cmp(l.Amount.Big()) != 0 || evs[0].TxId.Uint64() != l.TxID {
		t.Errorf("%s: Claimed pays %s %s for tx id %s, leaf says %s %s", name, evs[0].Recipient, evs[0].Amount, evs[0].TxId, l.Recipient, l.Amount)
	}
	bal, err := s.chain.Client().BalanceAt(ctx, common.Address(l.Recipient), nil)
	if err != nil {
		t.Fatal(err)
	}
	if bal.Cmp(l.Amount.Big()) != 0 {
		t.Errorf("%s: recipient balance %s, want exactly %s", name, bal, l.Amount)
	}
	paid := domain.Hash32(evs[0].Raw.TxHash)
	subject := domain.ClaimID(s.batch.Settlement, l.Leaf)
	succeeded := map[domain.Hash32]bool{}
	for _, o := range outs[subject] {
		if o.Status == domain.TxSucceeded {
			succeeded[o.TxHash] = true
		}
	}
	if len(succeeded) != 1 || !succeeded[paid] {
		t.Errorf("%s: succeeded claim outcomes for %v on the log, chain paid in %s", name, keysOf(succeeded), paid.Hex())
	}
	return paid
}

// verifyPaidOnce checks every leaf of the batch (see checkPaidOnce), that
// no other leaf was paid, and that the log holds exactly one executed
// source key per withdrawal and no failure. It returns the executed keys
// with more than one content (conflicting verdicts), for the caller to
// judge.
func (s *claimSwarm) verifyPaidOnce() map[string][]domain.WithdrawalExecuted {
	t := s.t
	t.Helper()
	claimed := s.claimed()
	_, outs := s.claimTxs()
	total := 0
	for _, evs := range claimed {
		total += len(evs)
	}
	if total != len(s.batch.Leaves) {
		t.Errorf("%d Claimed events on chain, want %d (one per leaf)", total, len(s.batch.Leaves))
	}
	for _, l := range s.batch.Leaves {
		s.checkPaidOnce(l, claimed, outs)
	}
	// The pool held exactly the batch's total: all of it went out.
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	if left, err := s.users.TotalLocked(ctx); err != nil || left.Sign() != 0 {
		t.Errorf("distributor keeps %v wei (%v) after paying a batch it was funded for exactly", left, err)
	}
	exec, failed := s.verdicts()
	if len(failed) > 0 {
		t.Errorf("withdrawal.failed on the log: %+v", failed)
	}
	want := map[string]bool{}
	for _, l := range s.batch.Leaves {
		want[executedKey(l)] = true
		if len(exec[executedKey(l)]) == 0 {
			t.Errorf("leaf %d: no withdrawal.executed for %s", l.Index, executedKey(l))
		}
	}
	conflicts := map[string][]domain.WithdrawalExecuted{}
	for key, contents := range exec {
		if !want[key] {
			t.Errorf("withdrawal.executed for %s, which is not in the batch", key)
		}
		if len(contents) > 1 {
			for _, w := range contents {
				conflicts[key] = append(conflicts[key], w)
			}
		}
	}
	return conflicts
}

func keysOf[K comparable, V any](m map[K]V) []K {
	var out []K
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestClaimSwarmPaysEveryLeafOnce: E executors with their own wallets in
// one group split the claims partitions and pay each of 24 leaves exactly
// once, on both log engines.
func TestClaimSwarmPaysEveryLeafOnce(t *testing.T) {
	for _, eng := range claimEngines() {
		for _, n := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/E=%d", eng.name, n), func(t *testing.T) {
				s := newClaimSwarm(t, eng.open(t), swarmLeaves, n+1)
				var running []*runningExecutor
				for i := range n {
					running = append(running, s.start(fmt.Sprintf("x%d", i), i+2))
				}
				s.waitJoined(n, running)
				s.requestClaims()
				s.waitExecuted(running)
				s.stopAll(running)
				for key, cs := range s.verifyPaidOnce() {
					// Without rebalances a leaf has one owner; report it.
					t.Logf("conflicting withdrawal.executed contents for %s: %+v", key, cs)
				}
				// The partitions were split: every member drove claims, and
				// each leaf was driven by one member only.
				perExecutor := s.drove.perExecutor()
				for _, r := range running {
					if perExecutor[r.name] == 0 {
						t.Errorf("executor %s drove no claim: partitions not split (claims per executor %v)", r.name, perExecutor)
					}
				}
				for leaf, names := range s.drove.snapshot() {
					if len(names) != 1 {
						t.Errorf("leaf %s driven by %v: one owner per partition expected", leaf.Hex(), names)
					}
				}
				t.Logf("claims driven per executor: %v", perExecutor)
			})
		}
	}
}

// killOnSend passes a transaction to the node, then kills its executor
// before any outcome is known: the member dies with an open intent.
type killOnSend struct {
	TxChain
	kill context.CancelFunc
	once sync.Once
	sent atomic.Pointer[domain.Hash32]
}

func (k *killOnSend) SendRaw(ctx context.Context, raw []byte) error {
	err := k.TxChain.SendRaw(ctx, raw)
	k.once.Do(func() {
		var tx types.Transaction
		if derr := tx.UnmarshalBinary(raw); derr == nil {
			h := domain.Hash32(tx.Hash())
			k.sent.Store(&h)
		}
		k.kill()
	})
	return err
}

// TestClaimSwarmMemberKilledAndRestarted: a member dies right after
// broadcasting a claim, before its outcome; a new member with the same
// wallet joins. The open intent is reconciled (its transaction is the one
// that paid, and no second one is signed for that claim), every leaf is
// paid once, and the shared wallet's nonces never clash.
func TestClaimSwarmMemberKilledAndRestarted(t *testing.T) {
	for _, eng := range claimEngines() {
		t.Run(eng.name, func(t *testing.T) {
			s := newClaimSwarm(t, eng.open(t), swarmLeaves, 3)
			survivor := s.start("survivor", 2)
			s.waitJoined(1, []*runningExecutor{survivor})
			dctx, dcancel := context.WithCancel(context.Background())
			k := &killOnSend{TxChain: s.signer(3), kill: dcancel}
			dx := s.executor("doomed", 3)
			dx.Driver.Chain = k
			doomed := s.run(dctx, dcancel, "doomed", dx)
			s.waitJoined(2, []*runningExecutor{survivor, doomed})
			s.requestClaims()

			select {
			case <-doomed.exited:
			case <-time.After(swarmWait):
				t.Fatalf("doomed executor still running %s after its first send", swarmWait)
			}
			if doomed.err != nil {
				t.Errorf("killed executor's Run: %v, want nil (its context ended)", doomed.err)
			}
			killed := k.sent.Load()
			if killed == nil {
				t.Fatal("doomed executor exited without sending a claim")
			}
			restarted := s.start("restarted", 3)
			running := []*runningExecutor{survivor, restarted}
			s.waitExecuted(running)
			s.stopAll(running)
			for key, cs := range s.verifyPaidOnce() {
				t.Logf("conflicting withdrawal.executed contents for %s: %+v", key, cs)
			}

			intents, outs := s.claimTxs()
			var subject string
			for subj, ins := range intents {
				for _, in := range ins {
					if in.TxHash == *killed {
						subject = subj
					}
				}
			}
			if subject == "" {
				t.Fatalf("killed transaction %s has no intent on the log", killed.Hex())
			}
			if n := len(intents[subject]); n != 1 {
				t.Errorf("%d intents for %s, want only the killed member's: a second transaction was signed", n, subject)
			}
			for _, o := range outs[subject] {
				if o.Status != domain.TxSucceeded || o.TxHash != *killed {
					t.Errorf("outcome for %s: %s %s, want the killed member's %s succeeded", subject, o.Status, o.TxHash.Hex(), killed.Hex())
				}
			}
			if len(outs[subject]) == 0 {
				t.Errorf("the killed member's intent %s was never reconciled", killed.Hex())
			}
			for subj, os := range outs {
				for _, o := range os {
					if o.Status == domain.TxReplaced {
						t.Errorf("%s: transaction %s replaced (%s): the shared wallet's nonces clashed", subj, o.TxHash.Hex(), o.Reason)
					}
				}
			}
			reconcilers := s.lines.executorsLogging("reconciling open intents", subject)
			if len(reconcilers) == 0 {
				t.Errorf("no executor logged reconciling the open intent of %s", subject)
			}
			t.Logf("open intent %s of %s reconciled by %v; claims per executor %v", killed.Hex(), subject, reconcilers, s.drove.perExecutor())
		})
	}
}

// TestClaimExecutorSurvivesRebalanceMidClaim: a member is driving a
// claim of a partition that a joining member takes over. Its commit of
// that record then fails on the embedded engine (not assigned); it must
// keep serving its other partitions, and the new owner finds the claim
// final.
func TestClaimExecutorSurvivesRebalanceMidClaim(t *testing.T) {
	for _, eng := range claimEngines() {
		t.Run(eng.name, func(t *testing.T) {
			s := newClaimSwarm(t, eng.open(t), 12, 3)
			spec, err := topics.Spec(topics.TopicClaims)
			if err != nil {
				t.Fatal(err)
			}
			var held atomic.Bool
			hold := func(r domain.ClaimRequested) {
				// The embedded engine gives odd partitions to the second
				// member: hold the first such claim until it has joined.
				p := topics.PartitionFor([]byte(r.AggregateID()), spec.Partitions)
				if p%2 == 0 || held.Swap(true) {
					return
				}
				deadline := time.Now().Add(swarmWait)
				for s.log.joined.Load() < 2 && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			x0 := s.executor("first", 2)
			x0.Calls = recordingCalls{ClaimCalls: s.calls, name: "first", rec: s.drove, before: hold}
			first := s.run(ctx, cancel, "first", x0)
			s.waitJoined(1, []*runningExecutor{first})
			s.requestClaims()
			s.waitFor("the first member to hold a claim", []*runningExecutor{first}, func() (bool, string, error) {
				return held.Load(), "", nil
			})
			second := s.start("second", 3)
			running := []*runningExecutor{first, second}
			s.waitExecuted(running)
			s.stopAll(running)
			for key, cs := range s.verifyPaidOnce() {
				t.Logf("conflicting withdrawal.executed contents for %s (both drove it across the rebalance): %+v", key, cs)
			}
			failed := s.lines.executorsLogging("commit failed", "topic="+topics.TopicClaims)
			if eng.name == "embedded" && !slices.Contains(failed, "first") {
				t.Errorf("the first member's commit of a partition it lost did not fail (executors logging a failed commit: %v): the test did not hold a claim across the rebalance", failed)
			}
			t.Logf("failed commits logged by %v; claims per executor %v", failed, s.drove.perExecutor())
		})
	}
}

// barrier holds its first n arrivals until all n are there (or a bound
// passes, which the test reports).
type barrier struct {
	n        int32
	count    atomic.Int32
	all      chan struct{}
	timedOut atomic.Bool
}

func newBarrier(n int32) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) arrive() {
	if b.count.Add(1) == b.n {
		close(b.all)
	}
	select {
	case <-b.all:
	case <-time.After(10 * time.Second):
		b.timedOut.Store(true)
	}
}

// TestClaimZombiesDriveOneClaim: two executors with different wallets
// drive the same claim at once (a partition's old owner still working
// after a rebalance). The distributor pays once; the other executor ends
// already processed, self-healing; both verdicts land on the log under
// one source key with different contents, which is expected and must be
// visible.
func TestClaimZombiesDriveOneClaim(t *testing.T) {
	for _, eng := range claimEngines() {
		t.Run(eng.name, func(t *testing.T) {
			s := newClaimSwarm(t, eng.open(t), 6, 3)
			s.requestClaims()
			ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
			defer cancel()
			rec := firstClaimRequest(t, s.log)
			// Both fold the partition before either sends: neither sees the
			// other's intent, so both send.
			b := newBarrier(2)
			hold := func(domain.ClaimRequested) { b.arrive() }
			names := []string{"zombie-a", "zombie-b"}
			xs := []*ClaimExecutor{s.executor(names[0], 2), s.executor(names[1], 3)}
			errs := make([]error, len(xs))
			var wg sync.WaitGroup
			for i, x := range xs {
				x.Calls = recordingCalls{ClaimCalls: s.calls, name: names[i], rec: s.drove, before: hold}
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = x.Handle(ctx, rec)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("executor %d Handle: %v", i, err)
				}
			}
			if b.timedOut.Load() {
				t.Fatal("the two executors did not drive the claim at the same time")
			}

			var req domain.ClaimRequested
			env, err := topics.DecodeEnvelope(rec.Value)
			if err != nil {
				t.Fatal(err)
			}
			if err := topics.DecodePayload(env.Payload, &req); err != nil {
				t.Fatal(err)
			}
			leaf := req.LeafInfo
			claimed := s.claimed()
			total := 0
			for _, evs := range claimed {
				total += len(evs)
			}
			if total != 1 {
				t.Errorf("%d Claimed events on chain, want 1", total)
			}
			_, outs := s.claimTxs()
			paid := s.checkPaidOnce(leaf, claimed, outs)
			var statuses []string
			for _, o := range outs[req.AggregateID()] {
				statuses = append(statuses, string(o.Status))
			}
			sort.Strings(statuses)
			if want := []string{string(domain.TxAlreadyProcessed), string(domain.TxSucceeded)}; !slices.Equal(statuses, want) {
				t.Errorf("claim outcomes %v, want %v: one pays, the other heals", statuses, want)
			}
			exec, failed := s.verdicts()
			if len(failed) > 0 {
				t.Errorf("withdrawal.failed on the log: %+v", failed)
			}
			contents := exec[executedKey(leaf)]
			var paidBy, healed int
			for _, w := range contents {
				switch {
				case !w.AlreadyDone && w.ClaimTxHash == paid:
					paidBy++
				case w.AlreadyDone:
					healed++
				}
			}
			if len(contents) != 2 || paidBy != 1 || healed != 1 || len(exec) != 1 {
				t.Errorf("withdrawal.executed contents %+v (keys %d), want the payer's and an already-done one under one key", contents, len(exec))
			}
		})
	}
}

// firstClaimRequest returns the first claim request record on the log.
func firstClaimRequest(t *testing.T, lg topics.Log) topics.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	ends, err := lg.EndOffsets(ctx, topics.TopicClaims)
	if err != nil {
		t.Fatal(err)
	}
	for p, end := range ends {
		if end == 0 {
			continue
		}
		recs, err := lg.Read(ctx, topics.TopicClaims, int32(p), 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 1 {
			return recs[0]
		}
	}
	t.Fatal("no claim request on the log")
	return topics.Record{}
}

// recordingCalls records which executor drove which claim (ClaimExecutor
// packs the call right before driving it).
type recordingCalls struct {
	ClaimCalls
	name   string
	rec    *driveRecord
	before func(domain.ClaimRequested)
}

func (c recordingCalls) Claim(r domain.ClaimRequested) domain.ContractCall {
	c.rec.add(r.LeafInfo.Leaf, c.name)
	if c.before != nil {
		c.before(r)
	}
	return c.ClaimCalls.Claim(r)
}

type driveRecord struct {
	mu     sync.Mutex
	byLeaf map[domain.Hash32][]string
}

func (d *driveRecord) add(leaf domain.Hash32, name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.byLeaf[leaf], name) {
		d.byLeaf[leaf] = append(d.byLeaf[leaf], name)
	}
}

func (d *driveRecord) snapshot() map[domain.Hash32][]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[domain.Hash32][]string{}
	for k, v := range d.byLeaf {
		out[k] = slices.Clone(v)
	}
	return out
}

// perExecutor counts the claims each executor drove.
func (d *driveRecord) perExecutor() map[string]int {
	out := map[string]int{}
	for _, names := range d.snapshot() {
		for _, n := range names {
			out[n]++
		}
	}
	return out
}

// lineSink keeps the executors' log lines: tests look for state changes
// in them, and a failed test prints them.
type lineSink struct {
	mu    sync.Mutex
	lines []string
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, string(p))
	return len(p), nil
}

func (s *lineSink) logger(name string) *slog.Logger {
	return slog.New(slog.NewTextHandler(s, &slog.HandlerOptions{Level: slog.LevelInfo})).With("executor", name)
}

// executorsLogging names the executors that logged a line containing
// every one of subs.
func (s *lineSink) executorsLogging(subs ...string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		match := true
		for _, sub := range subs {
			match = match && strings.Contains(l, sub)
		}
		if !match {
			continue
		}
		if i := strings.Index(l, "executor="); i >= 0 {
			name := strings.Fields(l[i+len("executor="):])[0]
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func (s *lineSink) dumpIfFailed(t *testing.T) {
	if !t.Failed() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	from := max(0, len(s.lines)-300)
	t.Logf("last %d executor log lines:\n%s", len(s.lines)-from, strings.Join(s.lines[from:], ""))
}

// TestClaimWithInvalidProofSendsNothing: a claim whose proof does not
// verify locally is closed with the reason and no transaction is sent.
func TestClaimWithInvalidProofSendsNothing(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	s := newClaimSwarm(t, lg, 4, 1)
	ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
	defer cancel()
	reqs, err := ClaimRequests(s.batch)
	if err != nil {
		t.Fatal(err)
	}
	bad := reqs[0].(domain.ClaimRequested)
	bad.Proof[0][0] ^= 0xff
	if _, err := s.app.Append(ctx, Cause{}, bad); err != nil {
		t.Fatal(err)
	}
	x := s.executor("x", 1)
	nonce, _, err := s.signer(1).WalletNonces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Handle(ctx, firstClaimRequest(t, s.log)); err != nil {
		t.Fatal(err)
	}
	_, outs := s.claimTxs()
	got := outs[bad.AggregateID()]
	if len(got) != 1 || got[0].Status != domain.TxReverted || !strings.Contains(got[0].Reason, "does not verify locally") || !got[0].TxHash.IsZero() {
		t.Fatalf("outcomes %+v, want one reverted outcome naming the local proof failure and no transaction", got)
	}
	if after, _, _ := s.signer(1).WalletNonces(ctx); after != nonce {
		t.Fatalf("wallet nonce %d -> %d: a transaction was sent", nonce, after)
	}
	if done, err := s.users.Processed(ctx, bad.LeafInfo.Leaf); err != nil || done {
		t.Fatalf("leaf processed on chain (%v)", err)
	}
	if _, failed := s.verdicts(); len(failed) != 1 {
		t.Fatalf("%d withdrawal.failed events, want 1", len(failed))
	}
}

// TestUndecodableClaimRecordIsDeadLettered: bytes on the claims topic that
// are no envelope go, after the router's retries, to the dead-letter
// topic with the reason and their raw bytes; the executor moves on and
// pays every leaf, including those after it in its partition.
func TestUndecodableClaimRecordIsDeadLettered(t *testing.T) {
	for _, eng := range claimEngines() {
		t.Run(eng.name, func(t *testing.T) {
			s := newClaimSwarm(t, eng.open(t), 4, 2)
			ctx, cancel := context.WithTimeout(context.Background(), swarmWait)
			defer cancel()
			junk := []byte("\xc1 not an envelope")
			pos, err := s.log.Append(ctx, topics.TopicClaims, topics.Message{Key: []byte("junk"), Value: junk})
			if err != nil {
				t.Fatal(err)
			}
			x := s.start("x", 2)
			s.waitJoined(1, []*runningExecutor{x})
			s.requestClaims()
			s.waitExecuted([]*runningExecutor{x})
			if err := x.stop(); err != nil {
				t.Fatal(err)
			}
			ends, err := s.log.EndOffsets(ctx, topics.TopicDeadLetter)
			if err != nil {
				t.Fatal(err)
			}
			var letters []watermilllog.DeadLetter
			for p, end := range ends {
				recs, err := s.log.Read(ctx, topics.TopicDeadLetter, int32(p), 0, int(end))
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					d, err := watermilllog.DecodeDeadLetter(r.Value, topics.Limits{})
					if err != nil {
						t.Fatal(err)
					}
					letters = append(letters, d)
				}
			}
			if len(letters) != 1 || !bytes.Equal(letters[0].Payload, junk) ||
				!strings.Contains(letters[0].Reason(), ErrNotAClaim.Error()) ||
				letters[0].Metadata[watermilllog.MetaLogOffset] != fmt.Sprint(pos[0].Offset) {
				t.Fatalf("dead letters %+v, want the junk record at offset %d with the reason", letters, pos[0].Offset)
			}
		})
	}
}

// TestClaimExecutorReportsALostLog: when the log under a running executor
// closes, Run returns an error instead of quietly serving nothing.
func TestClaimExecutorReportsALostLog(t *testing.T) {
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	x := &ClaimExecutor{Log: lg, Consumer: claimsConsumer(lg, quietLogger), Logger: quietLogger}
	done := make(chan error, 1)
	go func() { done <- x.Run(context.Background()) }()
	time.Sleep(100 * time.Millisecond) // usually subscribed by now; closed before or after, Run must say so
	lg.Close()
	select {
	case err := <-done:
		if !errors.Is(err, topics.ErrClosed) {
			t.Fatalf("Run after the log closed: %v, want ErrClosed", err)
		}
	case <-time.After(swarmWait):
		t.Fatal("Run still running after its log closed")
	}
}

// TestClaimExecutorWithoutConsumer: an executor wired without a consumer
// says so instead of serving nothing.
func TestClaimExecutorWithoutConsumer(t *testing.T) {
	if err := (&ClaimExecutor{Logger: quietLogger}).Run(context.Background()); !errors.Is(err, ErrNoClaimConsumer) {
		t.Fatalf("Run without a consumer: %v, want ErrNoClaimConsumer", err)
	}
}
