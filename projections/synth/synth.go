// Package synth writes realistic synthetic bridge logs: deposits and
// withdrawals going detected → confirmed → minted / executed (a few
// failed), interleaved as they would be on a busy bridge, with some exact
// duplicates (a relayer restarted and re-sent) and a few conflicting ones
// (same source key, different content). With RelayEvents it adds what a
// running relayer writes besides: the transaction intent and outcome of
// every mint and claim, the chain scans, and batches of withdrawals.
// Demos, tests and the rebuild benchmarks use it. The output is a pure
// function of the Config.
package synth

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// Config says what to generate. The zero value (plus Events) is a
// reasonable demo.
type Config struct {
	Events        int       // envelopes to append
	Seed          uint64    // same seed, same log
	DuplicateRate float64   // share of events re-sent identically (default 0.02)
	ConflictRate  float64   // share re-sent with different content (default 0.002)
	FailRate      float64   // share of lifecycles that fail (default 0.03)
	InFlight      int       // lifecycles open at once (default 1000)
	ChainID       uint64    // source chain (default 338, Cronos testnet)
	Start         time.Time // time of block 0 (default 2026-01-01 UTC)
	AppendBatch   int       // messages per Append to each topic (default 2000)
	Catalog       *topics.Catalog
	// RelayEvents adds the relayer's own events, as a live relay writes
	// them: a mint's intent and outcome (bridge topic) before the deposit
	// is minted, a chain scan (chain topic) every 16 events or so, and
	// for every BatchLeaves confirmed withdrawals a batch: created,
	// anchored with its transaction's intent and outcome (batches topic),
	// each withdrawal marked batched (bridge topic) and its claim
	// requested (claims topic). A confirmed withdrawal waits for its
	// batch; then its claim's intent and outcome (claims topic) come
	// before it is executed, or it fails.
	RelayEvents bool
	BatchLeaves int // leaves per batch with RelayEvents (default 128, the relay's)
}

func (c *Config) setDefaults() {
	if c.DuplicateRate == 0 {
		c.DuplicateRate = 0.02
	}
	if c.ConflictRate == 0 {
		c.ConflictRate = 0.002
	}
	if c.FailRate == 0 {
		c.FailRate = 0.03
	}
	if c.InFlight <= 0 {
		c.InFlight = 1000
	}
	if c.ChainID == 0 {
		c.ChainID = 338
	}
	if c.Start.IsZero() {
		c.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if c.AppendBatch <= 0 {
		c.AppendBatch = 2000
	}
	if c.Catalog == nil {
		c.Catalog = topics.DefaultCatalog()
	}
	if c.BatchLeaves <= 0 {
		c.BatchLeaves = 128
	}
}

// Stats counts what was written.
type Stats struct {
	Events      int
	Deposits    int // lifecycles started
	Withdrawals int
	Duplicates  int // identical re-sends
	Conflicts   int // conflicting re-sends
}

// flow is one deposit or withdrawal in flight.
type flow struct {
	withdrawal bool
	ref        domain.LogRef
	step       int // 0 detected, 1 confirmed, then (with relay events) intent and outcome, then done
	fail       bool
	block      uint64
	tx         domain.Hash32 // the mint's or claim's transaction (relay events)
	// With relay events, a withdrawal's batch and its leaf in it, once
	// the batch is written.
	batched bool
	batch   uint64
	leaf    domain.Hash32
}

// sends says whether f's lifecycle includes the relayer's transaction
// (its intent and outcome) before it is minted or executed.
func (g *gen) sends(f *flow) bool { return g.cfg.RelayEvents && !f.fail }

// steps is how many events f's lifecycle has.
func (g *gen) steps(f *flow) int {
	if g.sends(f) {
		return 5
	}
	return 3
}

type gen struct {
	cfg     Config
	rng     *rand.Rand
	block   uint64
	seq     uint64
	stats   Stats
	out     map[string][]topics.Message // by topic, until AppendBatch of them
	order   []string                    // topics in the order they were first written
	recent  []domain.Event              // for re-sends
	flows   []*flow                     // lifecycles that can take their next step
	scanTo  uint64                      // the last block a chain scan covered (relay events)
	leaves  []domain.BatchLeaf          // confirmed withdrawals not batched yet (relay events)
	waiting []*flow                     // their flows, leaf by leaf, out of flows until batched
	batch   uint64                      // the last batch's id (relay events)
}

// Generate appends cfg.Events envelopes to lg. progress, if not nil, is
// called after every Append with the count so far.
func Generate(ctx context.Context, lg topics.Log, cfg Config, progress func(done int)) (Stats, error) {
	cfg.setDefaults()
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), out: map[string][]topics.Message{}}
	g.flows = make([]*flow, 0, cfg.InFlight)
	for g.stats.Events < cfg.Events {
		var ev domain.Event
		if cfg.RelayEvents && g.block > g.scanTo+8 && g.rng.IntN(16) == 0 {
			ev = domain.ChainScanned{ChainID: cfg.ChainID, From: g.scanTo + 1, To: g.block, ToHash: blockHash(g.block),
				Tip: g.block + 5, Logs: g.rng.IntN(40)}
			g.scanTo = g.block
			if err := g.emit(ctx, lg, ev, progress); err != nil {
				return g.stats, err
			}
			continue
		}
		r := g.rng.Float64()
		var stepped *flow // nil: a re-send
		switch {
		case len(g.recent) > 0 && r < cfg.DuplicateRate:
			ev = g.recent[g.rng.IntN(len(g.recent))]
			g.stats.Duplicates++
		case len(g.recent) > 0 && r < cfg.DuplicateRate+cfg.ConflictRate:
			ev = g.conflicting(g.recent[g.rng.IntN(len(g.recent))])
			if ev == nil {
				continue
			}
			g.stats.Conflicts++
		case len(g.flows) < cfg.InFlight && (len(g.flows) == 0 || g.rng.IntN(3) == 0):
			stepped = g.newFlow()
			g.flows = append(g.flows, stepped)
			ev = g.next(stepped)
		default:
			i := g.rng.IntN(len(g.flows))
			stepped = g.flows[i]
			ev = g.next(stepped)
			// Done (detected, confirmed, (intent, outcome,) then minted,
			// executed or failed), or waiting for its batch.
			if stepped.step >= g.steps(stepped) || g.awaitsBatch(stepped) {
				g.flows[i] = g.flows[len(g.flows)-1]
				g.flows = g.flows[:len(g.flows)-1]
			}
		}
		if err := g.emit(ctx, lg, ev, progress); err != nil {
			return g.stats, err
		}
		if stepped != nil {
			if err := g.batchUp(ctx, lg, stepped, ev, progress); err != nil {
				return g.stats, err
			}
		}
	}
	for _, topic := range g.order {
		if err := g.flush(ctx, lg, topic, progress); err != nil {
			return g.stats, err
		}
	}
	return g.stats, nil
}

func (g *gen) hash() domain.Hash32 {
	var h domain.Hash32
	for i := 0; i < 32; i += 8 {
		v := g.rng.Uint64()
		for j := 0; j < 8; j++ {
			h[i+j] = byte(v >> (8 * j))
		}
	}
	return h
}

func (g *gen) addr() domain.Address {
	var a domain.Address
	h := g.hash()
	copy(a[:], h[:20])
	return a
}

func blockHash(n uint64) domain.Hash32 {
	var h domain.Hash32
	for i := 0; i < 8; i++ {
		h[i] = byte(n >> (8 * i))
	}
	h[31] = 0xb1
	return h
}

func (g *gen) newFlow() *flow {
	g.block += uint64(g.rng.IntN(2))
	f := &flow{
		withdrawal: g.rng.IntN(2) == 0,
		ref:        domain.LogRef{ChainID: g.cfg.ChainID, TxHash: g.hash(), LogIndex: uint32(g.rng.IntN(4))},
		fail:       g.rng.Float64() < g.cfg.FailRate,
		block:      g.block,
	}
	if f.withdrawal {
		g.stats.Withdrawals++
	} else {
		g.stats.Deposits++
	}
	return f
}

// next returns the flow's next lifecycle event.
func (g *gen) next(f *flow) domain.Event {
	defer func() { f.step++ }()
	amount := domain.AmountFromUint64(g.rng.Uint64N(1_000_000) * 1_000_000_000_000)
	switch {
	case f.step == 0 && !f.withdrawal:
		return domain.DepositDetected{Ref: f.ref, Contract: domain.Address{0xde, 0x90}, BlockNumber: f.block,
			BlockHash: blockHash(f.block), OnChainID: g.seq, Depositor: g.addr(), Amount: amount, Recipient: g.addr()}
	case f.step == 0:
		return domain.WithdrawalDetected{Ref: f.ref, Contract: domain.Address{0x3d, 0x70}, BlockNumber: f.block,
			BlockHash: blockHash(f.block), OnChainID: g.seq, Withdrawer: g.addr(), Amount: amount, Recipient: g.addr()}
	case f.step == 1 && !f.withdrawal:
		return domain.DepositConfirmed{Ref: f.ref, AtBlock: f.block + 5, Confirmation: 5}
	case f.step == 1:
		return domain.WithdrawalConfirmed{Ref: f.ref, AtBlock: f.block + 5, Confirmation: 5}
	case f.step == 2 && g.sends(f):
		return g.intent(f)
	case f.step == 3 && g.sends(f):
		return g.outcome(f)
	case f.fail && !f.withdrawal:
		return domain.DepositFailed{Ref: f.ref, Reason: "mint reverted: insufficient allowance"}
	case f.fail:
		return domain.WithdrawalFailed{Ref: f.ref, Reason: "claim reverted: invalid proof"}
	case !f.withdrawal:
		return domain.DepositMinted{Ref: f.ref, MintTxHash: g.txHash(f), GasUsed: 60000 + g.rng.Uint64N(20000), BlockNumber: f.block + 7}
	default:
		batch := f.block / 100
		if f.batched {
			batch = f.batch
		}
		return domain.WithdrawalExecuted{Ref: f.ref, BatchID: batch, ClaimTxHash: g.txHash(f),
			GasUsed: 55000 + g.rng.Uint64N(20000), AlreadyDone: g.rng.IntN(50) == 0}
	}
}

// awaitsBatch says whether f, a withdrawal just confirmed, waits for its
// batch before its claim (relay events): a relay claims a leaf only once
// its batch's root is anchored.
func (g *gen) awaitsBatch(f *flow) bool {
	return g.cfg.RelayEvents && f.withdrawal && f.step == 2 && !f.batched
}

// txHash is the flow's mint or claim transaction: the one its intent
// named, or (without relay events) a new one.
func (g *gen) txHash(f *flow) domain.Hash32 {
	if g.sends(f) {
		return f.tx
	}
	return g.hash()
}

// batchUp, with relay events, takes f, a withdrawal its event ev has
// just confirmed, into the next batch and writes the batch's events once
// it is full, if they fit in what is left of the log; the batch's
// withdrawals then go on to their claims.
func (g *gen) batchUp(ctx context.Context, lg topics.Log, f *flow, ev domain.Event, progress func(int)) error {
	c, ok := ev.(domain.WithdrawalConfirmed)
	if !g.cfg.RelayEvents || !ok {
		return nil
	}
	g.leaves = append(g.leaves, domain.BatchLeaf{Index: uint32(len(g.leaves)), Withdrawal: c.Ref, TxID: g.seq,
		Funder: g.addr(), Recipient: g.addr(), Amount: domain.AmountFromUint64(g.rng.Uint64N(1e6) * 1e12), Leaf: g.hash()})
	g.waiting = append(g.waiting, f)
	n := len(g.leaves)
	if n < g.cfg.BatchLeaves || g.cfg.Events-g.stats.Events < 2*n+4 {
		return nil
	}
	g.batch++
	total := domain.AmountFromUint64(0)
	for _, l := range g.leaves {
		total = total.Add(l.Amount)
	}
	seq := relaySettlement.SequenceID()
	created := domain.BatchCreated{Settlement: relaySettlement, BatchID: g.batch, Root: g.hash(), TotalAmount: total, Leaves: g.leaves}
	proof := func() []domain.Hash32 {
		p := make([]domain.Hash32, 0, 8)
		for w := 1; w < n; w *= 2 {
			p = append(p, g.hash())
		}
		return p
	}
	evs := []domain.Event{created}
	for _, l := range g.leaves {
		evs = append(evs, domain.WithdrawalBatched{Ref: l.Withdrawal, SequenceID: seq, BatchID: g.batch, LeafIndex: l.Index,
			Leaf: l.Leaf, MerkleProof: proof()})
	}
	tx := g.hash()
	evs = append(evs,
		g.sent(domain.PurposeAnchor, created.SourceKey(), relaySettlement.ChainID, tx, 90000, make([]byte, 150)),
		g.settled(domain.PurposeAnchor, created.SourceKey(), tx, 70059, g.block),
		domain.BatchAnchored{Settlement: relaySettlement, BatchID: g.batch, Root: created.Root, TxHash: tx, GasUsed: 70059,
			BlockNumber: g.block})
	for _, l := range g.leaves {
		evs = append(evs, domain.ClaimRequested{Settlement: relaySettlement, BatchID: g.batch, Root: created.Root, LeafInfo: l,
			Proof: proof()})
	}
	for i, f := range g.waiting {
		f.batched, f.batch, f.leaf = true, g.batch, g.leaves[i].Leaf
	}
	g.flows = append(g.flows, g.waiting...)
	g.leaves, g.waiting = nil, nil
	for _, ev := range evs {
		if err := g.emit(ctx, lg, ev, progress); err != nil {
			return err
		}
	}
	return nil
}

// relaySettlement is the claims' distributor.
var relaySettlement = domain.Settlement{ChainID: 338, Distributor: domain.Address{0xd1, 0x57}}

// subject and purpose are what the flow's transaction serves: a
// withdrawal's is the claim its batch requested.
func (f *flow) subject() (string, domain.Purpose) {
	if f.withdrawal {
		return domain.ClaimID(relaySettlement, f.leaf), domain.PurposeClaim
	}
	return f.ref.DepositID(), domain.PurposeMint
}

// intent is the relayer's signed transaction for the flow, before it is
// sent: a raw transaction of about the size of a mint's or a claim's.
func (g *gen) intent(f *flow) domain.Event {
	f.tx = g.hash()
	subject, purpose := f.subject()
	raw := make([]byte, 180+g.rng.IntN(200))
	for i := range raw {
		raw[i] = byte(g.rng.Uint32())
	}
	return g.sent(purpose, subject, g.cfg.ChainID, f.tx, 120000, raw)
}

// outcome is the receipt of the flow's transaction.
func (g *gen) outcome(f *flow) domain.Event {
	subject, purpose := f.subject()
	return g.settled(purpose, subject, f.tx, 55000+g.rng.Uint64N(25000), f.block+6)
}

// sent is the intent of the relayer's first attempt at transaction tx on
// chain, serving subject: from its one wallet, at the current sequence as
// nonce.
func (g *gen) sent(purpose domain.Purpose, subject string, chain uint64, tx domain.Hash32, gas uint64, raw []byte) domain.TxIntent {
	return domain.TxIntent{Purpose: purpose, Subject: subject, ChainID: chain, From: domain.Address{0x5e, 0x1d},
		Nonce: g.seq, Gas: gas, TxHash: tx, RawTx: raw, GasFeeCap: domain.AmountFromUint64(3_000_000_000),
		GasTipCap: domain.AmountFromUint64(1_000_000_000), Attempt: 1}
}

// settled is the successful outcome of transaction tx.
func (g *gen) settled(purpose domain.Purpose, subject string, tx domain.Hash32, gasUsed, block uint64) domain.TxOutcome {
	return domain.TxOutcome{Purpose: purpose, Subject: subject, TxHash: tx, Nonce: g.seq, Status: domain.TxSucceeded,
		GasUsed: gasUsed, BlockNumber: block}
}

// conflicting returns an event with ev's source key and other content.
func (g *gen) conflicting(ev domain.Event) domain.Event {
	switch e := ev.(type) {
	case domain.DepositDetected:
		e.Amount = e.Amount.Add(domain.AmountFromUint64(1))
		return e
	case domain.WithdrawalDetected:
		e.Recipient = g.addr()
		return e
	case domain.DepositMinted:
		e.MintTxHash = g.hash()
		return e
	case domain.WithdrawalExecuted:
		e.ClaimTxHash = g.hash()
		return e
	case domain.DepositConfirmed:
		e.AtBlock++
		return e
	case domain.WithdrawalConfirmed:
		e.AtBlock++
		return e
	}
	return nil
}

func (g *gen) emit(ctx context.Context, lg topics.Log, ev domain.Event, progress func(int)) error {
	g.seq++
	g.block += uint64(g.rng.IntN(2))
	var id [16]byte
	for i := 0; i < 16; i += 8 {
		v := g.rng.Uint64()
		for j := 0; j < 8; j++ {
			id[i+j] = byte(v >> (8 * j))
		}
	}
	occurred := g.cfg.Start.Add(time.Duration(g.block) * 2 * time.Second)
	env, topic, err := g.cfg.Catalog.Wrap(ev, topics.Meta{
		ID:         hex.EncodeToString(id[:]),
		OccurredAt: occurred,
		RecordedAt: occurred.Add(time.Duration(300+g.rng.IntN(700)) * time.Millisecond),
	})
	if err != nil {
		return err
	}
	msg, err := env.Message(topics.Limits{})
	if err != nil {
		return err
	}
	if _, seen := g.out[topic]; !seen {
		g.order = append(g.order, topic)
	}
	g.out[topic] = append(g.out[topic], msg)
	g.stats.Events++
	if len(g.recent) < 256 {
		g.recent = append(g.recent, ev)
	} else {
		g.recent[g.rng.IntN(len(g.recent))] = ev
	}
	if len(g.out[topic]) >= g.cfg.AppendBatch {
		return g.flush(ctx, lg, topic, progress)
	}
	return nil
}

// flush appends topic's pending messages. Topics are independent logs, so
// holding one topic's messages while another's are appended changes no
// order that matters.
func (g *gen) flush(ctx context.Context, lg topics.Log, topic string, progress func(int)) error {
	out := g.out[topic]
	if len(out) == 0 {
		return nil
	}
	if _, err := lg.Append(ctx, topic, out...); err != nil {
		return fmt.Errorf("synth: append %d messages to %s: %w", len(out), topic, err)
	}
	g.out[topic] = out[:0]
	if progress != nil {
		progress(g.stats.Events)
	}
	return nil
}
