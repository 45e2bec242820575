package analytics_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// storyLog is a warehouse of real events: each wrapped as the relay or a
// signer records it and turned into the row the sink stores. A signer's
// facts carry its own log's name as their topic.
type storyLog struct {
	t       *testing.T
	at      time.Time
	rows    []analytics.Row
	offsets map[string]int64
}

func newStoryLog(t *testing.T) *storyLog {
	return &storyLog{t: t, at: t0, offsets: map[string]int64{}}
}

// add records events on the relay's log, one second apart.
func (l *storyLog) add(evs ...domain.Event) {
	for _, ev := range evs {
		l.addTo("", ev)
	}
}

// addTo records an event on the log named log ("" the relay's).
func (l *storyLog) addTo(log string, ev domain.Event) {
	l.t.Helper()
	l.at = l.at.Add(1500 * time.Millisecond)
	env, topic, err := topics.DefaultCatalog().Wrap(ev, topics.Meta{OccurredAt: l.at, RecordedAt: l.at})
	if err != nil {
		l.t.Fatal(err)
	}
	msg, err := env.Message(topics.Limits{})
	if err != nil {
		l.t.Fatal(err)
	}
	if log != "" {
		topic = log
	}
	rec := topics.Record{Topic: topic, Offset: l.offsets[topic], Value: msg.Value}
	l.offsets[topic]++
	l.rows = append(l.rows, analytics.RowOf(topics.DefaultCatalog(), &rec))
}

// Find is the Finder's contract over the rows' audit keys.
func (l *storyLog) Find(_ context.Context, key string) ([]analytics.AuditMatch, error) {
	key = projections.NormalizeAuditKey(key)
	var out []analytics.AuditMatch
	for _, r := range l.rows {
		var kinds []string
		for _, k := range r.Keys {
			if k.Key == key {
				kinds = append(kinds, k.Kind)
			}
		}
		if len(kinds) > 0 {
			// The warehouse keeps recorded_at in whole seconds.
			out = append(out, analytics.AuditMatch{Kinds: kinds, AuditRow: analytics.AuditRow{Topic: r.Topic,
				Partition: r.Partition, Offset: r.Offset, RecordedAt: r.RecordedAt.Truncate(time.Second), RecordedMs: r.RecordedMs,
				Type: r.Type, SourceKey: r.SourceKey, EventID: r.EventID, AggregateID: r.AggregateID,
				Correlation: r.CorrelationID, Payload: r.Payload, DecodeError: r.DecodeError}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].RecordedMs < out[j].RecordedMs })
	return out, nil
}

func h32(name string) domain.Hash32 { return domain.Hash32(sha256.Sum256([]byte(name))) }

func amount(n int64) domain.Amount {
	a, err := domain.NewAmount(big.NewInt(n))
	if err != nil {
		panic(err)
	}
	return a
}

func story(t *testing.T, f analytics.Finder, key string) analytics.Story {
	t.Helper()
	st, err := analytics.BuildStory(context.Background(), f, key)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// printed is a story in one of its three forms.
func printed(t *testing.T, st analytics.Story, opt analytics.PrintOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := analytics.PrintStory(&b, st, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func kinds(sub analytics.StorySubject) []string {
	out := make([]string, len(sub.Steps))
	for i, s := range sub.Steps {
		out[i] = s.Kind
	}
	return out
}

func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("output lacks %q:\n%s", l, out)
		}
	}
}

// linksFind checks that every link of a story is a key that finds events.
func linksFind(t *testing.T, f analytics.Finder, st analytics.Story) {
	t.Helper()
	n := 0
	for _, sub := range st.Subjects {
		for _, s := range sub.Steps {
			for _, k := range s.Links {
				n++
				if ms, err := f.Find(context.Background(), k); err != nil || len(ms) == 0 {
					t.Errorf("link %s of %s finds nothing (%v)", k, s.Kind, err)
				}
			}
		}
	}
	if n == 0 {
		t.Error("a story without links")
	}
}

func fact(s analytics.StoryStep, name string) string {
	for _, f := range s.Facts {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

var settlement = domain.Settlement{ChainID: 338, Distributor: domain.Address{0xd1}}

// withdrawalLog records one withdrawal's whole story (its first claim
// reverts, the second pays it) beside another withdrawal of the same
// batch, whose claim is not part of the first's story.
func withdrawalLog(t *testing.T) (*storyLog, domain.LogRef, domain.Hash32) {
	l := newStoryLog(t)
	ref := domain.LogRef{ChainID: 338, TxHash: h32("burn tx"), LogIndex: 0}
	other := domain.LogRef{ChainID: 338, TxHash: h32("other burn tx"), LogIndex: 3}
	leaf, otherLeaf := h32("leaf"), h32("other leaf")
	seq := settlement.SequenceID()
	batchKey := projections.BatchKey(seq, 4)
	l.add(
		domain.WithdrawalDetected{Ref: ref, BlockNumber: 100, BlockHash: h32("block 100"), OnChainID: 9,
			Withdrawer: domain.Address{0xaa}, Recipient: domain.Address{0xbb}, Amount: amount(5000)},
		domain.WithdrawalDetected{Ref: other, BlockNumber: 101, BlockHash: h32("block 101"), Amount: amount(7)},
		domain.WithdrawalConfirmed{Ref: ref, AtBlock: 112, Confirmation: 12},
		domain.BatchCreated{Settlement: settlement, BatchID: 4, Root: h32("root"), TotalAmount: amount(5007),
			Leaves: []domain.BatchLeaf{{Index: 0, Withdrawal: other, Leaf: otherLeaf}, {Index: 1, Withdrawal: ref, Leaf: leaf}}},
		domain.WithdrawalBatched{Ref: ref, SequenceID: seq, BatchID: 4, LeafIndex: 1, Leaf: leaf,
			MerkleProof: []domain.Hash32{otherLeaf}},
		domain.WithdrawalBatched{Ref: other, SequenceID: seq, BatchID: 4, LeafIndex: 0, Leaf: otherLeaf,
			MerkleProof: []domain.Hash32{leaf}},
		domain.TxIntent{Purpose: domain.PurposeAnchor, Subject: batchKey, ChainID: 338, Nonce: 7, Gas: 90_000,
			TxHash: h32("anchor tx"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeAnchor, Subject: batchKey, TxHash: h32("anchor tx"), Nonce: 7,
			Status: domain.TxSucceeded, GasUsed: 70_059, BlockNumber: 120},
		domain.BatchAnchored{Settlement: settlement, BatchID: 4, Root: h32("root"), TxHash: h32("anchor tx"),
			GasUsed: 70_059, BlockNumber: 120},
		domain.ClaimRequested{Settlement: settlement, BatchID: 4, Root: h32("root"),
			LeafInfo: domain.BatchLeaf{Index: 0, Withdrawal: other, Leaf: otherLeaf}},
		domain.ClaimRequested{Settlement: settlement, BatchID: 4, Root: h32("root"),
			LeafInfo: domain.BatchLeaf{Index: 1, Withdrawal: ref, Leaf: leaf, Amount: amount(5000)}},
	)
	claim := domain.ClaimID(settlement, leaf)
	l.add(
		domain.TxIntent{Purpose: domain.PurposeClaim, Subject: claim, ChainID: 338, Nonce: 8, Gas: 40_000,
			TxHash: h32("claim 1"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: claim, TxHash: h32("claim 1"), Nonce: 8,
			Status: domain.TxReverted, GasUsed: 39_990, BlockNumber: 121, Reason: "out of gas"},
		domain.TxIntent{Purpose: domain.PurposeClaim, Subject: claim, ChainID: 338, Nonce: 9, Gas: 80_000,
			TxHash: h32("claim 2"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: claim, TxHash: h32("claim 2"), Nonce: 9,
			Status: domain.TxSucceeded, GasUsed: 61_234, BlockNumber: 122},
		domain.TxIntent{Purpose: domain.PurposeClaim, Subject: domain.ClaimID(settlement, otherLeaf), Nonce: 10,
			TxHash: h32("other claim"), Attempt: 1},
		domain.WithdrawalExecuted{Ref: ref, BatchID: 4, ClaimTxHash: h32("claim 2"), GasUsed: 61_234},
	)
	return l, ref, leaf
}

func TestStoryOfAWithdrawal(t *testing.T) {
	l, ref, leaf := withdrawalLog(t)
	want := []string{domain.TypeWithdrawalDetected, domain.TypeWithdrawalConfirmed, domain.TypeBatchCreated,
		domain.TypeWithdrawalBatched, domain.TypeAnchorIntent, domain.TypeAnchorOutcome, domain.TypeBatchAnchored,
		domain.TypeClaimRequested, domain.TypeClaimIntent, domain.TypeClaimOutcome, domain.TypeClaimIntent,
		domain.TypeClaimOutcome, domain.TypeWithdrawalExecuted}
	// The withdrawal is found the same by its id, its chain transaction,
	// its leaf and a claim transaction that reverted.
	for key, as := range map[string]string{ref.WithdrawalID(): projections.KeyAggregate, ref.TxHash.Hex(): projections.KeyEVMTx,
		leaf.Hex(): projections.KeyLeaf, h32("claim 1").Hex(): projections.KeyEVMTx} {
		st := story(t, l, key)
		if len(st.Subjects) != 1 || st.Ambiguous() {
			t.Fatalf("%s: %d subjects: %+v", key, len(st.Subjects), st.Subjects)
		}
		sub := st.Subjects[0]
		if sub.Kind != analytics.SubjectWithdrawal || sub.ID != ref.WithdrawalID() || sub.MatchedAs[0] != as {
			t.Fatalf("%s: subject %s %s matched as %v", key, sub.Kind, sub.ID, sub.MatchedAs)
		}
		if got := kinds(sub); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("%s: steps\n got %v\nwant %v", key, got, want)
		}
	}
	linksFind(t, l, story(t, l, ref.WithdrawalID()))
	sub := story(t, l, ref.WithdrawalID()).Subjects[0]
	if batched := sub.Steps[3]; fact(batched, "merkle_proof") != h32("other leaf").Hex() || fact(batched, "leaf") != leaf.Hex() {
		t.Fatalf("batched step: %+v", batched)
	}
	if req := sub.Steps[7]; fact(req, "withdrawal") != ref.WithdrawalID() {
		t.Fatalf("the other leaf's claim is in the story: %+v", req)
	}

	explain := printed(t, story(t, l, ref.TxHash.Hex()), analytics.PrintOptions{Explain: true})
	wantLines(t, explain,
		"the withdrawal was confirmed 12 blocks deep at block 112",
		"the withdrawal became leaf 1 ("+leaf.Hex()+") of batch 4, with a merkle proof of 1 hashes",
		"the relay sent anchor transaction "+h32("anchor tx").Hex()+" (attempt 1, nonce 7, gas limit 90000)",
		"batch 4's root was anchored by "+h32("anchor tx").Hex()+" in block 120 (70059 gas)",
		"the claim transaction "+h32("claim 1").Hex()+" reverted in block 121 (39990 gas): out of gas",
		"the claim transaction "+h32("claim 2").Hex()+" succeeded in block 122 (61234 gas)",
		"the withdrawal was paid by claim "+h32("claim 2").Hex()+" (61234 gas)")
	if n := strings.Count(explain, "\n"); n != 1+len(want) {
		t.Fatalf("explain has %d lines, want a heading and one per step:\n%s", n, explain)
	}

	table := printed(t, story(t, l, ref.TxHash.Hex()), analytics.PrintOptions{})
	for _, section := range []string{"-- chain", "-- confirmation", "-- batch", "-- anchor", "-- claim", "-- outcome"} {
		if strings.Count(table, "\n"+section+"\n") != 1 {
			t.Errorf("table lacks section %q once:\n%s", section, table)
		}
	}
	wantLines(t, table, "\n2026-03-01T12:00:01.500Z  withdrawal.detected  -  ", "== withdrawal "+ref.WithdrawalID()+" ("+ref.TxHash.Hex()+" matched as evm_tx)",
		"status=reverted  block=121  gas_used=39990  reason=out of gas",
		"depth=12  at_block=112")

	var doc analytics.Story
	if err := json.Unmarshal([]byte(printed(t, sub2story(sub), analytics.PrintOptions{JSON: true})), &doc); err != nil {
		t.Fatal(err)
	}
	anchored := doc.Subjects[0].Steps[6]
	if anchored.Kind != domain.TypeBatchAnchored || anchored.Section != analytics.SectionAnchor ||
		fact(anchored, "gas_used") != "70059" || anchored.Links[0] != h32("anchor tx").Hex() || anchored.Explain == "" {
		t.Fatalf("anchored step in JSON: %+v", anchored)
	}
}

func TestStoryOfABatch(t *testing.T) {
	l, _, _ := withdrawalLog(t)
	key := projections.BatchKey(settlement.SequenceID(), 4)
	st := story(t, l, key)
	if len(st.Subjects) != 1 || st.Subjects[0].Kind != analytics.SubjectBatch || st.Subjects[0].ID != key {
		t.Fatalf("a batch key names the batch, not each of its withdrawals: %+v", st.Subjects)
	}
	want := []string{domain.TypeBatchCreated, domain.TypeWithdrawalBatched, domain.TypeWithdrawalBatched,
		domain.TypeAnchorIntent, domain.TypeAnchorOutcome, domain.TypeBatchAnchored, domain.TypeClaimRequested,
		domain.TypeClaimRequested}
	if got := kinds(st.Subjects[0]); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("batch steps\n got %v\nwant %v", got, want)
	}
	wantLines(t, printed(t, st, analytics.PrintOptions{Explain: true}),
		"batch 4 was created with 2 leaves totalling 5007, root "+h32("root").Hex(),
		"the withdrawal became leaf 0 ("+h32("other leaf").Hex()+") of batch 4")
}

func sub2story(sub analytics.StorySubject) analytics.Story {
	return analytics.Story{Key: sub.ID, Subjects: []analytics.StorySubject{sub}}
}

func TestStoryOfADeposit(t *testing.T) {
	l := newStoryLog(t)
	ref := domain.LogRef{ChainID: 1, TxHash: h32("lock tx"), LogIndex: 2}
	l.add(
		domain.DepositDetected{Ref: ref, BlockNumber: 50, BlockHash: h32("block 50"), Depositor: domain.Address{1},
			Recipient: domain.Address{2}, Amount: amount(42)},
		domain.DepositConfirmed{Ref: ref, AtBlock: 62, Confirmation: 12},
		domain.TxIntent{Purpose: domain.PurposeMint, Subject: ref.DepositID(), ChainID: 338, Nonce: 3, Gas: 100_000,
			TxHash: h32("mint tx"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeMint, Subject: ref.DepositID(), TxHash: h32("mint tx"), Nonce: 3,
			Status: domain.TxSucceeded, GasUsed: 61_234, BlockNumber: 900},
		domain.DepositMinted{Ref: ref, MintTxHash: h32("mint tx"), GasUsed: 61_234, BlockNumber: 900},
	)
	st := story(t, l, h32("mint tx").Hex())
	if len(st.Subjects) != 1 || st.Subjects[0].Kind != analytics.SubjectDeposit || len(st.Subjects[0].Steps) != 5 {
		t.Fatalf("deposit story: %+v", st)
	}
	steps := st.Subjects[0].Steps
	if steps[0].MatchedAs != nil || steps[2].MatchedAs[0] != projections.KeyEVMTx || steps[2].Section != analytics.SectionMint {
		t.Fatalf("the mint's intent is the match, in the mint section: %+v", steps[2])
	}
	wantLines(t, printed(t, st, analytics.PrintOptions{Explain: true}),
		"the deposit of 42 by "+domain.Address{1}.Hex()+" for "+domain.Address{2}.Hex()+" was seen in block 50",
		"the deposit was confirmed 12 blocks deep at block 62",
		"the mint transaction "+h32("mint tx").Hex()+" succeeded in block 900 (61234 gas)",
		"the deposit was minted by "+h32("mint tx").Hex()+" in block 900 (61234 gas)")
	wantLines(t, printed(t, st, analytics.PrintOptions{}), "-- mint\n", "evm_tx\n")
}

// kaspaSigners are a group of three, each with its own log.
var kaspaSigners = []twophase.PeerID{"s1", "s2", "s3"}

func signerLogTopic(p twophase.PeerID) string {
	return analytics.StoredTopic(topics.TopicSigning, string(p))
}

// proposalEnvelope is p's signed proposal of a template paying 3000 sompi
// out of inputs of 3000+change+fee.
func proposalEnvelope(t *testing.T, p twophase.PeerID, ev twophase.SigningEvent, round uint32, fee uint64) (twophase.Hash, []byte) {
	tpl := twophase.Template{
		Inputs:  []twophase.TemplateInput{{Outpoint: twophase.Outpoint{TxID: twophase.Hash{byte(fee)}}, Amount: 5000 + fee}},
		Outputs: []twophase.TemplateOutput{{Amount: 3000}, {Amount: 2000}},
	}
	prop := twophase.Proposal{Event: ev, Round: round, TemplateHash: tpl.Hash(), Template: tpl.Encode(),
		Inputs: []twophase.InputMeta{{DAAScore: 10}}, Proposer: p}
	seed := sha256.Sum256([]byte(p))
	env := twophase.Envelope{Version: twophase.ProtocolVersion, Sender: p, Kind: twophase.KindProposal, Payload: prop.Encode()}
	return tpl.Hash(), twophase.Seal(ed25519.NewKeyFromSeed(seed[:]), &env)
}

// vote records v's vote in every signer's log (each records its own as Own).
func (l *storyLog) vote(v twophase.VoteAccepted) {
	for _, p := range kaspaSigners {
		v.Own = p == v.Voter
		l.addTo(signerLogTopic(p), v)
	}
}

func (l *storyLog) everySigner(f func(p twophase.PeerID) twophase.Fact) {
	for _, p := range kaspaSigners {
		l.addTo(signerLogTopic(p), f(p))
	}
}

// kaspaLog records a burn toward Kaspa and its payout: round 0.1 fails
// (two templates, a signer without deep outputs), round 0.2 commits on s1
// and s2's votes; s1 submits, the ledger accepts, it confirms.
func kaspaLog(t *testing.T) (*storyLog, domain.LogRef, twophase.Hash, twophase.Hash) {
	l := newStoryLog(t)
	ref := domain.LogRef{ChainID: 338, TxHash: h32("kaspa burn"), LogIndex: 1}
	det := domain.WithdrawalToKaspaDetected{Ref: ref, Contract: domain.Address{0xc0}, BlockNumber: 70, BlockHash: h32("block 70"),
		OnChainID: 5, Withdrawer: domain.Address{0xee}, Amount: amount(3000 * domain.WeiPerSompi), Recipient: "kaspa:qalice"}
	ev, err := det.SigningEvent()
	if err != nil {
		t.Fatal(err)
	}
	id := ev.ID()
	l.add(det, domain.WithdrawalToKaspaConfirmed{Ref: ref, BlockHash: h32("block 70"), AtBlock: 82, Confirmation: 12})
	l.everySigner(func(twophase.PeerID) twophase.Fact {
		return twophase.EventRequested{Event: ev, ID: id, Via: "source"}
	})
	t1, env1 := proposalEnvelope(t, "s1", ev, 1, 200)
	t2, env2 := proposalEnvelope(t, "s2", ev, 1, 300)
	l.everySigner(func(twophase.PeerID) twophase.Fact {
		return twophase.RoundStarted{EventID: id, Round: 1, Trigger: twophase.TriggerActivated}
	})
	l.vote(twophase.VoteAccepted{EventID: id, Round: 1, Voter: "s1", Hash: t1, Envelope: env1})
	l.vote(twophase.VoteAccepted{EventID: id, Round: 1, Voter: "s2", Hash: t2, Envelope: env2})
	l.vote(twophase.VoteAccepted{EventID: id, Round: 1, Voter: "s3", NoVote: true, Reason: twophase.ReasonNoDeepUTXOs})
	l.everySigner(func(twophase.PeerID) twophase.Fact {
		return twophase.RoundFailed{EventID: id, Round: 1, Reason: twophase.ReasonTimeoutNoQuorum, Detail: "no template has 2 votes"}
	})
	_, env1b := proposalEnvelope(t, "s1", ev, 2, 200)
	_, env2b := proposalEnvelope(t, "s2", ev, 2, 200)
	_, env3b := proposalEnvelope(t, "s3", ev, 2, 300)
	l.vote(twophase.VoteAccepted{EventID: id, Round: 2, Voter: "s1", Hash: t1, Envelope: env1b})
	l.vote(twophase.VoteAccepted{EventID: id, Round: 2, Voter: "s2", Hash: t1, Envelope: env2b})
	l.vote(twophase.VoteAccepted{EventID: id, Round: 2, Voter: "s3", Hash: t2, Envelope: env3b})
	l.everySigner(func(twophase.PeerID) twophase.Fact {
		return twophase.Committed{EventID: id, Round: 2, Hash: t1, Trigger: twophase.TriggerQuorum, Voters: []twophase.PeerID{"s1", "s2"}}
	})
	txid := twophase.Hash(h32("kaspa payout"))
	l.everySigner(func(twophase.PeerID) twophase.Fact {
		return twophase.TemplateSigned{EventID: id, Round: 2, Hash: t1, TxID: txid, Signature: []byte{1}}
	})
	l.addTo(signerLogTopic("s1"), twophase.PayoutSubmitted{EventID: id, Hash: t1, TxID: txid, Signers: []twophase.PeerID{"s1", "s2"},
		Tx: []byte("signed tx"), Attempt: 1})
	l.addTo(signerLogTopic("s1"), twophase.PayoutOutcome{EventID: id, TxID: txid, Attempt: 1, Accepted: true})
	l.everySigner(func(twophase.PeerID) twophase.Fact {
		return twophase.Completed{EventID: id, Hash: t1, TxID: txid, DAAScore: 4242}
	})
	return l, ref, id, t1
}

func TestStoryOfAKaspaPayout(t *testing.T) {
	l, ref, id, t1 := kaspaLog(t)
	det := domain.WithdrawalToKaspaDetected{Amount: amount(3000 * domain.WeiPerSompi)}
	txid := twophase.Hash(h32("kaspa payout"))
	// The payout is found the same by the burn's transaction, the burn's
	// id, the signing event and the Kaspa transaction.
	var first []string
	for _, key := range []string{ref.TxHash.Hex(), ref.WithdrawalToKaspaID(), id.Hex(), txid.Hex()} {
		st := story(t, l, key)
		if len(st.Subjects) != 1 || st.Subjects[0].Kind != analytics.SubjectKaspaPayout || st.Subjects[0].ID != ref.WithdrawalToKaspaID() {
			t.Fatalf("%s: %+v", key, st.Subjects)
		}
		if got := kinds(st.Subjects[0]); first == nil {
			first = got
		} else if strings.Join(got, " ") != strings.Join(first, " ") {
			t.Fatalf("%s: steps %v, by the burn's tx %v", key, got, first)
		}
	}
	st := story(t, l, ref.TxHash.Hex())
	linksFind(t, l, st)
	steps := st.Subjects[0].Steps
	// burn 2 + request 1 + round 1 + 3 failed + round 2 + 3 commits + 3 signatures + submit + outcome + 3 completed
	if len(steps) != 2+1+1+3+1+3+3+2+3 {
		t.Fatalf("%d steps: %v", len(steps), kinds(st.Subjects[0]))
	}
	commit := steps[8]
	if commit.Kind != twophase.TypeCommitted || commit.Signer != "s1" || commit.Log != signerLogTopic("s1") ||
		fact(commit, "quorum") != "2 of 3: s1, s2" || fact(commit, "fee_sompi") != "200" || fact(commit, "template") != t1.Hex() {
		t.Fatalf("s1's commit: %+v", commit)
	}
	explain := printed(t, st, analytics.PrintOptions{Explain: true})
	short := func(h twophase.Hash) string { return "0x" + h.Short() + "…" }
	wantLines(t, explain,
		"the burn of "+det.Amount.String()+" by "+domain.Address{0xee}.Hex()+" toward Kaspa address kaspa:qalice was seen in block 70",
		"the burn was confirmed 12 blocks deep at block 82",
		"signing event "+short(id)+" asks to pay 3000 sompi to kaspa:qalice (nonce 5 of evm:338:"+domain.Address{0xc0}.Hex()+"); learnt by s1 (source), s2 (source), s3 (source)",
		"round 0.1: signer s1 voted for template "+short(t1)+"; s2 for ",
		"; no vote from s3 (insufficient_deep_utxos)",
		"round 0.1 failed for signer s2: timeout_no_quorum (no template has 2 votes)",
		"round 0.2: signers s1 and s2 voted for template "+short(t1)+"; s3 for ",
		"signer s3 committed template "+short(t1)+" in round 0.2: quorum 2 of 3 (s1, s2) committed; fee 200 sompi",
		"signer s2 signed template "+short(t1)+" (payout "+short(txid)+")",
		"signer s1 submitted payout "+txid.Hex()+" (attempt 1) with the signatures of s1, s2; fee 200 sompi",
		"the ledger accepted payout "+short(txid)+" (attempt 1, submitted by signer s1)",
		"payout "+short(txid)+" is confirmed (accepted at DAA score 4242), as signer s3 records")

	table := printed(t, st, analytics.PrintOptions{})
	wantLines(t, table, "-- signing\n", "-- payout\n",
		"template="+t1.Hex()+" voted by s1, s2; 1 inputs, 2 outputs, fee 200 sompi")
	for _, line := range strings.Split(table, "\n") {
		if strings.Contains(line, twophase.TypePayoutSubmitted) && !strings.Contains(line, "  s1  ") {
			t.Errorf("the submission is not shown as s1's: %q", line)
		}
	}
}

func TestStoryOfAnAbandonedEvent(t *testing.T) {
	l := newStoryLog(t)
	ev := twophase.SigningEvent{Stream: "evm:338:0xc0", Nonce: 9, Destination: "kaspa:qbob", Amount: 77,
		Source: twophase.SourceRef{Chain: "evm:338", TxHash: twophase.Hash{0x51}, LogIndex: 0, Block: 3}}
	id := ev.ID()
	l.addTo(signerLogTopic("s1"), twophase.EventRequested{Event: ev, ID: id, Via: "rpc"})
	l.addTo(signerLogTopic("s1"), twophase.RoundStarted{EventID: id, Round: 5, Trigger: twophase.TriggerRetry})
	l.addTo(signerLogTopic("s1"), twophase.VoteRejected{EventID: id, Round: 5, Sender: "s2", Hash: twophase.Hash{0xbb},
		Reason: twophase.ReasonFeeOutOfBounds, Detail: "fee 9000"})
	l.addTo(signerLogTopic("s1"), twophase.VoteAccepted{EventID: id, Round: 5, Voter: "s3", Hash: twophase.Hash{0xcc}})
	l.addTo(signerLogTopic("s1"), twophase.Equivocation{EventID: id, Round: 5, Voter: "s3", FirstHash: twophase.Hash{0xcc},
		SecondHash: twophase.Hash{0xdd}})
	l.addTo(signerLogTopic("s1"), twophase.LockCertAccepted{EventID: id, Round: 5, TemplateHash: twophase.Hash{0xcc},
		Outpoints: []twophase.Outpoint{{Index: 1}}, Signers: []twophase.PeerID{"s1", "s3"}})
	l.addTo(signerLogTopic("s1"), twophase.RoundFailed{EventID: id, Round: 5, Reason: twophase.ReasonRevalidationFailed,
		Hash: twophase.Hash{0xcc}, Detail: "input spent"})
	l.addTo(signerLogTopic("s1"), twophase.Abandoned{EventID: id, Round: 5, Trigger: twophase.TriggerTimeout, Detail: "5 rounds without quorum"})
	st := story(t, l, id.Hex())
	if len(st.Subjects) != 1 || st.Subjects[0].ID != twophase.EventAggregate(id) || st.Subjects[0].MatchedAs[0] != projections.KeySigningEvent {
		t.Fatalf("abandoned event's story: %+v", st.Subjects)
	}
	last := st.Subjects[0].Steps[len(st.Subjects[0].Steps)-1]
	if last.Kind != twophase.TypeAbandoned || fact(last, "detail") != "5 rounds without quorum" {
		t.Fatalf("last step: %+v", last)
	}
	wantLines(t, printed(t, st, analytics.PrintOptions{Explain: true}),
		"round 0.5: signer s3 voted for template 0xcc000000…; s2's vote for 0xbb000000… refused by the signer of log "+
			signerLogTopic("s1")+": fee_out_of_bounds (fee 9000); equivocation: s3 voted for 0xcc000000… and then 0xdd000000…",
		"the signer of log "+signerLogTopic("s1")+" holds the lock certificate of template 0xcc000000…: quorum 2 of 3 (s1, s3), 1 outpoints reserved",
		"round 0.5 failed for the signer of log "+signerLogTopic("s1")+": revalidation_failed (input spent)",
		"the signer of log "+signerLogTopic("s1")+" abandoned the event after round 5 (timeout): 5 rounds without quorum; an operator decides")
}

func TestStoryOfAnAmbiguousKey(t *testing.T) {
	l, ref, leaf := withdrawalLog(t)
	// A withdrawal whose chain transaction hash is the first's leaf.
	twin := domain.LogRef{ChainID: 338, TxHash: leaf, LogIndex: 0}
	l.add(domain.WithdrawalDetected{Ref: twin, BlockNumber: 130, BlockHash: h32("block 130"), Amount: amount(1)})
	st := story(t, l, strings.ToUpper(strings.TrimPrefix(leaf.Hex(), "0x")))
	if !st.Ambiguous() || len(st.Subjects) != 2 {
		t.Fatalf("ambiguous key: %+v", st.Subjects)
	}
	if s := st.Subjects[0]; s.ID != ref.WithdrawalID() || strings.Join(s.MatchedAs, ",") != projections.KeyLeaf {
		t.Fatalf("first subject: %s as %v", s.ID, s.MatchedAs)
	}
	if s := st.Subjects[1]; s.ID != twin.WithdrawalID() || strings.Join(s.MatchedAs, ",") != projections.KeyEVMTx || len(s.Steps) != 1 {
		t.Fatalf("second subject: %s as %v", s.ID, s.MatchedAs)
	}
	for _, opt := range []analytics.PrintOptions{{}, {Explain: true}} {
		wantLines(t, printed(t, st, opt), leaf.Hex()+" is ambiguous: it names 2 things\n",
			"  withdrawal "+ref.WithdrawalID()+" (as leaf)\n",
			"  withdrawal "+twin.WithdrawalID()+" (as evm_tx)\n")
	}
}

// A claim whose withdrawal is not in the warehouse (a partial sink) is
// still told, under the withdrawal it names.
func TestStoryOfAClaimWithoutItsWithdrawal(t *testing.T) {
	l := newStoryLog(t)
	ref := domain.LogRef{ChainID: 338, TxHash: h32("unsunk burn")}
	leaf := h32("unsunk leaf")
	claim := domain.ClaimID(settlement, leaf)
	l.add(domain.ClaimRequested{Settlement: settlement, BatchID: 2, LeafInfo: domain.BatchLeaf{Withdrawal: ref, Leaf: leaf}},
		domain.TxIntent{Purpose: domain.PurposeClaim, Subject: claim, TxHash: h32("lone claim"), Attempt: 1},
		domain.TxOutcome{Purpose: domain.PurposeClaim, Subject: claim, TxHash: h32("lone claim"), Status: domain.TxAbandoned,
			Reason: "5 attempts"})
	st := story(t, l, h32("lone claim").Hex())
	if len(st.Subjects) != 1 || st.Subjects[0].ID != ref.WithdrawalID() || len(st.Subjects[0].Steps) != 3 {
		t.Fatalf("a lone claim's story: %+v", st.Subjects)
	}
	wantLines(t, printed(t, st, analytics.PrintOptions{Explain: true}),
		"the claim transaction "+h32("lone claim").Hex()+" ended abandoned: 5 attempts")
}

func TestStoryOfARejectedLog(t *testing.T) {
	l := newStoryLog(t)
	ref := domain.LogRef{ChainID: 338, TxHash: h32("stray tx"), LogIndex: 4}
	l.add(domain.ChainLogRejected{Ref: ref, Contract: domain.Address{0x99}, Block: 77, Reason: "unwatched contract"})
	st := story(t, l, ref.TxHash.Hex())
	if len(st.Subjects) != 1 || st.Subjects[0].Kind != analytics.SubjectOther || st.Subjects[0].ID != domain.ChainStreamID(338) {
		t.Fatalf("a rejected log's story: %+v", st.Subjects)
	}
	wantLines(t, printed(t, st, analytics.PrintOptions{Explain: true}),
		"the log "+ref.Key()+" of block 77 was rejected by the indexer: unwatched contract")
}

func TestStoryOfNothing(t *testing.T) {
	l, _, _ := withdrawalLog(t)
	st := story(t, l, h32("nothing").Hex())
	if !st.Empty() {
		t.Fatalf("a key that matches nothing: %+v", st)
	}
	if out := printed(t, st, analytics.PrintOptions{}); out != "no event matches "+h32("nothing").Hex()+"\n" {
		t.Fatalf("table of nothing: %q", out)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(printed(t, st, analytics.PrintOptions{JSON: true})), &doc); err != nil {
		t.Fatal(err)
	}
	if subs, ok := doc["subjects"].([]any); !ok || len(subs) != 0 || doc["key"] != h32("nothing").Hex() {
		t.Fatalf("JSON of nothing: %v", doc)
	}
}

type failingFinder struct{ err error }

func (f failingFinder) Find(context.Context, string) ([]analytics.AuditMatch, error) {
	return nil, f.err
}

func TestStoryFinderError(t *testing.T) {
	down := errors.New("warehouse down")
	if _, err := analytics.BuildStory(context.Background(), failingFinder{down}, "x"); !errors.Is(err, down) {
		t.Fatalf("error %v, want it to wrap %v", err, down)
	}
	if _, err := analytics.BuildStory(context.Background(), failingFinder{down}, "  "); !errors.Is(err, analytics.ErrNoAuditKey) {
		t.Fatalf("a blank key: %v", err)
	}
}
