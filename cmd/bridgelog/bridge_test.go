package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/merkle"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// testBridge is a dev chain with the bridge deployed and a relay wired
// over an embedded log and a SQLite store, as devnet runs it.
type testBridge struct {
	t       *testing.T
	chain   *devchain.Chain
	users   devchain.Users
	cfg     relayConfig
	log     topics.Log
	store   projections.Store
	b       *bridge
	dir     string
	metrics *metrics.Registry
	engines testEngines
}

// testEngines opens the log and the store a test bridge runs on; a
// reopen must find what the previous opening left.
type testEngines struct {
	name  string
	log   func(tb *testBridge) topics.Log
	store func(tb *testBridge) projections.Store
}

// embeddedEngines are the embedded default: files in the test's directory.
var embeddedEngines = testEngines{
	name: "embedded+sqlite",
	log: func(tb *testBridge) topics.Log {
		lg, err := embeddedlog.Open(filepath.Join(tb.dir, "log"))
		if err != nil {
			tb.t.Fatal(err)
		}
		return lg
	},
	store: func(tb *testBridge) projections.Store {
		st, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(tb.dir, "projections.db"))
		if err != nil {
			tb.t.Fatal(err)
		}
		return st
	},
}

const testUsers = 3

func userKey(executors, i int) int { return devClaim0 + executors + i }

func newTestBridge(t *testing.T, blockInterval time.Duration, executors int, tweak func(*relayConfig)) *testBridge {
	t.Helper()
	return newTestBridgeOn(t, embeddedEngines, blockInterval, executors, tweak)
}

func newTestBridgeOn(t *testing.T, eng testEngines, blockInterval time.Duration, executors int, tweak func(*relayConfig)) *testBridge {
	t.Helper()
	ctx := context.Background()
	chain, err := devchain.Start(devchain.Config{BlockInterval: blockInterval, Accounts: devClaim0 + executors + testUsers, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	relayers := []common.Address{crypto.PubkeyToAddress(devchain.DevKey(devRelayer).PublicKey)}
	cfg := relayConfig{RPC: chain.URL(), ChainID: devchain.ChainID, Confirmations: 3, DevChain: true, RelayerKey: keyHex(devRelayer),
		BatchMaxWait: "300ms", StuckAfter: "10s", PollInterval: "50ms"}
	for i := 0; i < executors; i++ {
		relayers = append(relayers, crypto.PubkeyToAddress(devchain.DevKey(devClaim0+i).PublicKey))
		cfg.ClaimKeys = append(cfg.ClaimKeys, keyHex(devClaim0+i))
	}
	br, err := chain.Deploy(ctx, devchain.DevKey(devAdmin), relayers...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Distributor, cfg.Token = domain.Address(br.Distributor), domain.Address(br.Token)
	if tweak != nil {
		tweak(&cfg)
	}
	tb := &testBridge{t: t, chain: chain, users: devchain.Users{Backend: chain.Client(), Bridge: br}, cfg: cfg, dir: dataDir(t), engines: eng}
	tb.open()
	return tb
}

// open (re)opens the log, the store and the relay over the same files.
func (tb *testBridge) open() { tb.openWith(bridgeOptions{}) }

func (tb *testBridge) openWith(opt bridgeOptions) {
	t := tb.t
	ctx := context.Background()
	lg, st := tb.engines.log(tb), tb.engines.store(tb)
	tb.metrics = metrics.New()
	if opt.logger == nil {
		opt.logger = quietLogger()
	}
	opt.metrics, opt.projMetrics = tb.metrics.Handlers(), tb.metrics.Projections()
	if opt.inbox == "" {
		opt.inbox = refundInbox(tb.dir)
	}
	if opt.operatorInbox == "" {
		opt.operatorInbox = operatorInbox(tb.dir)
	}
	b, err := assemble(ctx, tb.cfg, lg, st, opt)
	if err != nil {
		t.Fatal(err)
	}
	tb.log, tb.store, tb.b = lg, st, b
	t.Cleanup(tb.close)
}

func (tb *testBridge) close() {
	if tb.b != nil {
		tb.b.close()
		tb.store.Close()
		tb.log.Close()
		tb.b = nil
	}
}

// keyHex is dev account i's key in hex, for configs that name plain
// keys (dev chains only).
func keyHex(i int) string { return hex.EncodeToString(crypto.FromECDSA(devchain.DevKey(i))) }

func (tb *testBridge) user(i int) (int, common.Address) {
	k := userKey(devnetClaimWallets(tb.cfg), i)
	return k, crypto.PubkeyToAddress(devchain.DevKey(k).PublicKey)
}

func (tb *testBridge) lock(i int, amount *big.Int) {
	tb.t.Helper()
	k, addr := tb.user(i)
	tx, err := tb.users.Lock(context.Background(), devchain.DevKey(k), amount, addr)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.mined(tx.Hash())
}

func (tb *testBridge) burn(i int, amount *big.Int) {
	tb.t.Helper()
	k, addr := tb.user(i)
	tx, err := tb.users.Burn(context.Background(), devchain.DevKey(k), amount, addr)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.mined(tx.Hash())
}

func (tb *testBridge) mined(h common.Hash) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := tb.chain.WaitMined(ctx, h); err != nil {
		tb.t.Fatal(err)
	}
}

// until runs relay rounds (and claim executors in the background) until
// cond holds on the projections.
func (tb *testBridge) until(what string, timeout time.Duration, cond func(projections.BridgeStats) bool) projections.BridgeStats {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tb.b.run(ctx) }()
	defer func() { cancel(); <-done }()
	for {
		s, err := tb.b.reader.Stats(context.Background())
		if err == nil && cond(s) {
			return s
		}
		select {
		case <-ctx.Done():
			tb.t.Fatalf("%s: not reached in %s; stats %+v (err %v)", what, timeout, s, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// assertChainPaidOnce: the chain itself shows every deposit minted once
// and every withdrawal paid once, and balances that add up.
func assertChainPaidOnce(t *testing.T, u devchain.Users, deposits, withdrawals int) {
	t.Helper()
	a, err := devchain.ReadAudit(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	if p := a.Problems(devchain.Counts{Locks: deposits, Burns: withdrawals}); len(p) > 0 {
		t.Fatalf("on chain (%s):\n%s", a.Summary(), strings.Join(p, "\n"))
	}
}

func statusCount(m map[string]int64, st domain.Status) int64 { return m[string(st)] }

func ether(milli int64) *big.Int { return new(big.Int).Mul(big.NewInt(milli), big.NewInt(1e15)) }

// TestFlowsEndToEnd follows deposits and withdrawals through every state
// of seed 000 on a live (ticking) chain and checks the chain itself.
func TestFlowsEndToEnd(t *testing.T) {
	t.Run(embeddedEngines.name, func(t *testing.T) { flowsEndToEnd(t, embeddedEngines) })
	t.Run("kafka+postgres", func(t *testing.T) { flowsEndToEnd(t, kafkaPostgresEngines(t)) })
}

// kafkaPostgresEngines are the production engines: the Kafka protocol
// (kfake in this process; production runs Apache Kafka) and PostgreSQL
// (a throwaway cluster).
func kafkaPostgresEngines(t *testing.T) testEngines {
	brokers := kafkatest.Start(t)
	dsn := pgtest.Start(t).NewDB(t)
	return testEngines{
		name: "kafka+postgres",
		log: func(tb *testBridge) topics.Log {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			lg, err := kafkalog.Open(ctx, kafkalog.Config{Brokers: brokers, ClientID: "bridgelog-test"})
			if err != nil {
				tb.t.Fatal(err)
			}
			return lg
		},
		store: func(tb *testBridge) projections.Store {
			st, err := sqlstore.OpenPostgres(context.Background(), dsn)
			if err != nil {
				tb.t.Fatal(err)
			}
			return st
		},
	}
}

func flowsEndToEnd(t *testing.T, eng testEngines) {
	tb := newTestBridgeOn(t, eng, 50*time.Millisecond, 2, func(c *relayConfig) {
		c.BatchMaxSize = 4
		c.MintKeys = c.ClaimKeys[:1] // a second mint wallet (it claims too: one driver serves both)
	})
	for i := 0; i < 6; i++ {
		tb.lock(i%testUsers, ether(int64(10+i)))
	}
	tb.until("6 deposits minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 6
	})
	if eng.name != embeddedEngines.name {
		// On a shared log, a second process adds a claim worker: executors
		// only, with its own wallet, and no projections of its own.
		startClaimWorker(t, tb)
	}
	for i := 0; i < 6; i++ {
		tb.burn(i%testUsers, ether(5))
	}
	s := tb.until("6 withdrawals executed", 90*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 6
	})
	if s.Batches["ANCHORED"] < 2 {
		t.Fatalf("6 withdrawals with batch size 4 should need 2 batches, got %v", s.Batches)
	}
	if s.Deposits[string(domain.StatusFailed)]+s.Withdrawals[string(domain.StatusFailed)] != 0 || s.Conflicts != 0 {
		t.Fatalf("failures or conflicts: %+v", s)
	}
	// 65,000 before the claim's rate limit (~8,000 more; BENCHMARKS.md).
	if g := s.Gas["claim"]; g.Count != 6 || g.Max > 73_000 {
		t.Fatalf("claim gas %+v: want 6 claims each <= 73000", g)
	}
	assertChainPaidOnce(t, tb.users, 6, 6)
	// Both mint wallets minted (the pool spreads deposits over wallets).
	if n := distinctSenders(t, tb, "mint"); n != 2 {
		t.Errorf("mints sent from %d wallets, want 2", n)
	}
	// Every withdrawal row carries its batch and a cached proof that
	// verifies against the batch's root (seed 000's batch_id, merkle_proof).
	assertCachedProofs(t, tb, 6)
	// The operator sees the same in the metrics (one relay process: with
	// a claim worker the counts are split between two registries).
	if eng.name != embeddedEngines.name {
		assertReplayEqual(t, tb)
		return
	}
	scrape := httptest.NewRecorder()
	tb.metrics.Handler().ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range []string{"bridgelog_deposits_minted_total 6", "bridgelog_withdrawals_executed_total 6", "bridgelog_batches_anchored_total 2"} {
		if !strings.Contains(scrape.Body.String(), line+"\n") {
			t.Errorf("metrics lack %q", line)
		}
	}
	// Replay: a rebuild from the log equals the live projections.
	assertReplayEqual(t, tb)
}

func assertReplayEqual(t *testing.T, tb *testBridge) {
	t.Helper()
	ctx := context.Background()
	// A claim worker may still be folding into the same store.
	tb.b.projector.mu.Lock()
	err := catchUpShared(ctx, tb.b.projector.r)
	tb.b.projector.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	live, err := tb.b.projector.r.Digests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "scratch.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer scratch.Close()
	r, err := projections.NewRunner(ctx, tb.log, scratch, projections.RelayProjections())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := r.Digests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) < len(projections.RelayProjections()) || len(live) != len(rebuilt) {
		t.Fatalf("digests: live %v rebuilt %v", live, rebuilt)
	}
	for i := range live {
		if live[i].Projection != rebuilt[i].Projection || live[i].SHA != rebuilt[i].SHA || live[i].Rows() != rebuilt[i].Rows() {
			t.Errorf("live %+v, rebuilt %+v", live[i], rebuilt[i])
		}
	}
}

// TestIdempotentIngestionAndMinting is seed 000's first two scenarios on
// a real chain: the indexer scans the same blocks again and the minter
// runs again; nothing is counted or minted twice.
func TestIdempotentIngestionAndMinting(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, nil)
	tb.lock(0, ether(100))
	tb.until("deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	tip, _ := tb.b.client.Tip(context.Background())
	app := &handlers.Appender{Log: tb.log, Catalog: topics.DefaultCatalog()}
	if _, err := app.Append(context.Background(), handlers.Cause{}, domain.ChainRescanRequested{ChainID: devchain.ChainID, From: 0,
		Reason: "test: ingest again", RequestID: "t1"}); err != nil {
		t.Fatal(err)
	}
	// Wait until the deposit's log has been ingested a second time.
	s := tb.until("deposit ingested twice", 60*time.Second, func(projections.BridgeStats) bool {
		return countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeDepositDetected) >= 2
	})
	s = tb.until("projections caught up", 10*time.Second, func(projections.BridgeStats) bool { return true })
	if n := statusCount(s.Deposits, domain.StatusMinted); n != 1 || len(s.Deposits) != 1 {
		t.Fatalf("deposits after rescan: %v, want exactly 1 minted", s.Deposits)
	}
	_, addr := tb.user(0)
	bal, err := tb.users.TokenBalance(context.Background(), addr)
	if err != nil || bal.Cmp(ether(100)) != 0 {
		t.Fatalf("recipient token balance %v (%v), want exactly one mint of %v", bal, err, ether(100))
	}
	if s.Gas["mint"].Count != 1 {
		t.Fatalf("%d mint transactions sent, want 1", s.Gas["mint"].Count)
	}
	// The operator's view says the same.
	tb.close()
	var out strings.Builder
	rootCmd.SetOut(&out)
	rootCmd.SetArgs([]string{"status", "--data", tb.dir, "--json"})
	defer rootCmd.SetArgs(nil)
	if err := rootCmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Chains []projections.ChainCursorRow
		Stats  projections.BridgeStats
	}
	if err := json.Unmarshal([]byte(out.String()), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out.String())
	}
	if len(st.Chains) != 1 || st.Chains[0].ScannedTo < tip || st.Stats.Deposits["MINTED"] != 1 {
		t.Fatalf("status: %s", out.String())
	}
}

// catchUpShared catches r up with the log on a store that other runners
// (claim workers) may be writing: losing a commit to one of them
// (ErrCheckpointMoved) reloads the checkpoints, and the catch-up is tried
// again, up to 5 times.
func catchUpShared(ctx context.Context, r *projections.Runner) error {
	for attempt := 1; ; attempt++ {
		_, err := r.CatchUp(ctx)
		if err == nil || !errors.Is(err, projections.ErrCheckpointMoved) || attempt == 5 {
			return err
		}
	}
}

// countEnvelopes counts the envelopes of one type on a topic.
func countEnvelopes(t *testing.T, lg topics.Log, topic, typ string) int {
	t.Helper()
	return len(logEnvelopes(t, lg, topic, typ))
}

// TestReorgBeforeConfirmation: a deposit seen in a block that is then
// replaced is recorded as reorged and not acted on; its transaction, mined
// again in the new chain, is detected anew, confirmed and minted once.
func TestReorgBeforeConfirmation(t *testing.T) {
	tb := newTestBridge(t, -1, 1, nil) // blocks only when the test seals them
	ctx := context.Background()
	round := func() {
		t.Helper()
		if err := tb.b.relay.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tb.lock(0, ether(42))
	round() // detected at the tip, not confirmed
	s, _ := tb.b.reader.Stats(ctx)
	if statusCount(s.Deposits, domain.StatusDetected) != 1 {
		t.Fatalf("deposits %v, want 1 detected", s.Deposits)
	}
	if err := tb.chain.Reorg(ctx, 2); err != nil { // the deposit's block and the one before
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		tb.chain.Commit()
	}
	// The confirmer looks before the indexer notices: the observation's
	// block is deep enough but no longer canonical.
	if err := tb.b.projector.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := tb.b.relay.Confirmer[0].Poll(ctx)
	if err != nil || res.Reorged != 1 || res.Confirmed != 0 {
		t.Fatalf("confirmer after reorg: %+v %v, want 1 reorged, 0 confirmed", res, err)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent); n != 0 {
		t.Fatalf("%d mint intents before the re-mined deposit was confirmed", n)
	}
	// Rounds: the indexer notices the replaced block, rescans, finds the
	// re-mined deposit; it is confirmed and minted. Blocks now come on
	// their own so the mint can be mined while the minter waits.
	sealCtx, stopSealing := context.WithCancel(ctx)
	defer stopSealing()
	go func() {
		for sealCtx.Err() == nil {
			tb.chain.Commit()
			time.Sleep(30 * time.Millisecond)
		}
	}()
	for i := 0; i < 100; i++ {
		round()
		if s, _ = tb.b.reader.Stats(ctx); statusCount(s.Deposits, domain.StatusMinted) == 1 {
			break
		}
	}
	if statusCount(s.Deposits, domain.StatusMinted) != 1 || len(s.Deposits) != 1 {
		t.Fatalf("deposits %v, want exactly one, minted", s.Deposits)
	}
	if countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeChainReorged) < 1 ||
		countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeDepositReorged) != 1 {
		t.Fatal("reorg not recorded as events")
	}
	_, addr := tb.user(0)
	if bal, err := tb.users.TokenBalance(ctx, addr); err != nil || bal.Cmp(ether(42)) != 0 {
		t.Fatalf("balance %v (%v): want one mint of %v", bal, err, ether(42))
	}
}

// TestBatchSequencing is seed 000's fourth scenario on the relay: while
// batch 1 is not anchored no batch 2 is cut, however many withdrawals
// wait; once it is, batch 2 follows, and the chain holds roots 1 and 2.
func TestBatchSequencing(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, func(c *relayConfig) { c.BatchMaxSize = 2; c.BatchMaxWait = "100ms" })
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		tb.lock(i, ether(100))
	}
	tb.until("deposits minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 2
	})
	anchorer := tb.b.relay.Anchorer
	tb.b.relay.Anchorer = nil // hold batch 1 unanchored
	for i := 0; i < 5; i++ {
		tb.burn(i%2, ether(10))
	}
	s := tb.until("batch 1 created, rest confirmed", 60*time.Second, func(s projections.BridgeStats) bool {
		return s.Batches["CREATED"] == 1 && statusCount(s.Withdrawals, domain.StatusConfirmed)+statusCount(s.Withdrawals, domain.StatusBatched) == 5
	})
	// Rounds go by; the sequence waits for the anchorer.
	for i := 0; i < 10; i++ {
		if err := tb.b.relay.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s, _ = tb.b.reader.Stats(ctx); s.Batches["CREATED"] != 1 || len(s.Batches) != 1 {
		t.Fatalf("batches while batch 1 is unanchored: %v, want only batch 1", s.Batches)
	}
	tb.b.relay.Anchorer = anchorer
	s = tb.until("5 withdrawals executed", 90*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 5
	})
	if s.Batches["ANCHORED"] != 3 {
		t.Fatalf("batches %v, want 3 anchored (2+2+1)", s.Batches)
	}
	seq, err := tb.b.reader.Sequence(ctx, tb.b.settle)
	if err != nil || seq.LastBatchID != 3 || !seq.LastAnchored {
		t.Fatalf("sequence %+v %v", seq, err)
	}
	for id := uint64(1); id <= 3; id++ {
		root, err := evmAnchors(tb).AnchoredRoot(ctx, id)
		if err != nil || root.IsZero() {
			t.Fatalf("batch %d root on chain: %v %v", id, root, err)
		}
	}
}

func evmAnchors(tb *testBridge) evmchain.Anchors {
	return evmchain.Anchors{Client: tb.b.client, Calls: evmchain.NewCalls(evmchain.Contracts{Distributor: tb.cfg.Distributor, Token: tb.cfg.Token})}
}

// flakyProxy forwards TCP to a target and can be switched off, dropping
// every connection, to play an RPC endpoint that goes away.
type flakyProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func newFlakyProxy(t *testing.T, target string) *flakyProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.setDown(true) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *flakyProxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		c.Close()
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
	c.Close()
}

func (p *flakyProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
		p.conns = map[net.Conn]bool{}
	}
}

func (p *flakyProxy) url() string { return "http://" + p.ln.Addr().String() }

// TestRPCOutageIsRecordedAndFlowResumes: while the relay's RPC endpoint
// is unreachable every step fails, the failure is recorded once as an
// event with its reason, nothing is sent or lost; when the endpoint comes
// back the relay records the recovery and finishes the deposit, once.
func TestRPCOutageIsRecordedAndFlowResumes(t *testing.T) {
	var proxy *flakyProxy
	tb := newTestBridge(t, 50*time.Millisecond, 1, func(c *relayConfig) {
		proxy = newFlakyProxy(t, strings.TrimPrefix(c.RPC, "http://"))
		c.RPC = proxy.url()
	})
	ctx := context.Background()
	tb.lock(0, ether(7))
	proxy.setDown(true)
	for i := 0; i < 5; i++ {
		if err := tb.b.relay.Round(ctx); err == nil {
			t.Fatal("a round succeeded with the RPC endpoint down")
		}
	}
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepFailed); n < 1 || n > 5 {
		t.Fatalf("%d relay.step_failed events for one outage, want one per failing step", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent); n != 0 {
		t.Fatalf("%d mint intents while the chain was unreachable", n)
	}
	proxy.setDown(false)
	tb.until("deposit minted after the outage", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	if countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepRecovered) < 1 {
		t.Fatal("no relay.step_recovered event after the endpoint came back")
	}
	_, addr := tb.user(0)
	if bal, err := tb.users.TokenBalance(ctx, addr); err != nil || bal.Cmp(ether(7)) != 0 {
		t.Fatalf("balance %v (%v), want one mint of %v", bal, err, ether(7))
	}
}

func assertCachedProofs(t *testing.T, tb *testBridge, want int) {
	t.Helper()
	ctx := context.Background()
	tx, err := tb.store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(ctx, `SELECT w.leaf_hash, w.merkle_proof, b.merkle_root FROM `+projections.Withdrawals{}.Tables()[0].Name+` w
		JOIN batches_v1 b ON b.sequence_id = w.batch_sequence AND b.id = w.batch_id WHERE w.status = 'EXECUTED'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var leaf, proofJSON, root string
		if err := rows.Scan(&leaf, &proofJSON, &root); err != nil {
			t.Fatal(err)
		}
		var proof []common.Hash
		if err := json.Unmarshal([]byte(proofJSON), &proof); err != nil {
			t.Fatal(err)
		}
		if !merkle.Verify(common.HexToHash(root), common.HexToHash(leaf), proof) {
			t.Errorf("cached proof of leaf %s does not verify against root %s", leaf, root)
		}
		n++
	}
	if n != want {
		t.Fatalf("%d executed withdrawals with a batch and proof, want %d", n, want)
	}
}

// TestDryRunSendsNothing: a dry-run relay reads the chain, cuts batches
// and verifies every proof locally, logs what it would send, and sends
// no transaction.
func TestDryRunSendsNothing(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, func(c *relayConfig) { c.BatchMaxWait = "100ms" })
	ctx := context.Background()
	tb.lock(0, ether(50)) // minted for real, so there is something to withdraw
	tb.until("deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	tb.close()
	logs := &lockedWriter{}
	tb.openWith(bridgeOptions{dryRun: true, logger: slog.New(slog.NewTextHandler(logs, nil))})
	relayer := crypto.PubkeyToAddress(devchain.DevKey(devRelayer).PublicKey)
	nonceBefore, err := tb.chain.Client().NonceAt(ctx, relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb.lock(1, ether(20)) // a deposit the dry run must not mint
	tb.burn(0, ether(10))
	tb.burn(0, ether(15))
	tb.until("batch cut and its proofs verified", 60*time.Second, func(s projections.BridgeStats) bool {
		return s.Batches["CREATED"] == 1 && strings.Contains(logs.String(), "every proof of the batch verifies locally")
	})
	for _, want := range []string{"dry-run: would send", "dry-run: would claim", "purpose=mint", "purpose=anchor"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("dry-run log lacks %q", want)
		}
	}
	nonceAfter, err := tb.chain.Client().NonceAt(ctx, relayer, nil)
	if err != nil || nonceAfter != nonceBefore {
		t.Fatalf("relayer nonce %d -> %d (%v): the dry run sent a transaction", nonceBefore, nonceAfter, err)
	}
	if root, err := evmAnchors(tb).AnchoredRoot(ctx, 1); err != nil || !root.IsZero() {
		t.Fatalf("batch 1 anchored during a dry run: %v %v", root, err)
	}
	s, _ := tb.b.reader.Stats(ctx)
	if statusCount(s.Deposits, domain.StatusMinted) != 1 || s.Gas["claim"].Count != 0 {
		t.Fatalf("dry run changed the chain: %+v", s)
	}
}

// lockedWriter serialises writes from concurrent loggers.
type lockedWriter struct {
	mu sync.Mutex
	w  strings.Builder
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// startClaimWorker runs a claims-only member (relay --role claims) on the
// bridge's log with the last claim key, until the test ends.
func startClaimWorker(t *testing.T, tb *testBridge) {
	t.Helper()
	cfg := tb.cfg
	cfg.ClaimKeys = cfg.ClaimKeys[len(cfg.ClaimKeys)-1:]
	lg := tb.engines.log(tb)
	w, err := assemble(context.Background(), cfg, lg, nil, bridgeOptions{claimsOnly: true, logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if w.relay != nil || w.projector != nil || len(w.executors) != 1 {
		t.Fatalf("claims-only worker has a relay loop or projections, or %d executors", len(w.executors))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("claim worker: %v", err)
		}
		w.close()
		lg.Close()
	})
	// The main relay keeps one executor, so the group has two members.
	tb.close()
	tb.openWith(bridgeOptions{executors: 1})
}

// TestTwoChains: the lock side (distributor) and the execution side
// (token) on different chains, as a cross-chain bridge runs: a deposit
// locked on chain A is minted on chain B; a burn on chain B is paid on
// chain A; each chain is indexed and confirmed at its own depth.
func TestTwoChains(t *testing.T) {
	ctx := context.Background()
	start := func(id uint64) (*devchain.Chain, devchain.Bridge) {
		c, err := devchain.Start(devchain.Config{ChainID: id, BlockInterval: 50 * time.Millisecond, Accounts: devClaim0 + 1 + testUsers,
			Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		br, err := c.Deploy(ctx, devchain.DevKey(devAdmin), crypto.PubkeyToAddress(devchain.DevKey(devRelayer).PublicKey),
			crypto.PubkeyToAddress(devchain.DevKey(devClaim0).PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		return c, br
	}
	lockChain, lockBr := start(1337)
	execChain, execBr := start(2222)
	cfg := relayConfig{RPC: lockChain.URL(), ChainID: 1337, Confirmations: 3, DevChain: true, Distributor: domain.Address(lockBr.Distributor),
		Token: domain.Address(execBr.Token), RelayerKey: keyHex(devRelayer), ClaimKeys: []string{keyHex(devClaim0)},
		BatchMaxWait: "200ms", StuckAfter: "10s", PollInterval: "50ms",
		Execution: &executionChain{RPC: execChain.URL(), ChainID: 2222, Confirmations: 2}}
	tb := &testBridge{t: t, chain: lockChain, cfg: cfg, dir: dataDir(t), engines: embeddedEngines}
	tb.open()
	lockUsers := devchain.Users{Backend: lockChain.Client(), Bridge: lockBr}
	execUsers := devchain.Users{Backend: execChain.Client(), Bridge: execBr}
	k := userKey(1, 0)
	user := crypto.PubkeyToAddress(devchain.DevKey(k).PublicKey)
	tx, err := lockUsers.Lock(ctx, devchain.DevKey(k), ether(30), user)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockChain.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	tb.until("deposit minted on the execution chain", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	if bal, err := execUsers.TokenBalance(ctx, user); err != nil || bal.Cmp(ether(30)) != 0 {
		t.Fatalf("token balance on chain 2222: %v (%v), want %v", bal, err, ether(30))
	}
	lockedBefore, err := lockUsers.TotalLocked(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err = execUsers.Burn(ctx, devchain.DevKey(k), ether(12), user)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := execChain.WaitMined(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	s := tb.until("withdrawal paid on the lock chain", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 1
	})
	lockedAfter, err := lockUsers.TotalLocked(ctx)
	if err != nil || new(big.Int).Sub(lockedBefore, lockedAfter).Cmp(ether(12)) != 0 {
		t.Fatalf("locked pool %v -> %v (%v): want exactly %v paid out", lockedBefore, lockedAfter, err, ether(12))
	}
	cursors, err := tb.b.reader.Cursors(ctx)
	if err != nil || len(cursors) != 2 || cursors[0].ChainID != 1337 || cursors[1].ChainID != 2222 {
		t.Fatalf("cursors %+v (%v): want one per chain", cursors, err)
	}
	if s.Gas["mint"].Count != 1 || s.Gas["claim"].Count != 1 || s.Gas["anchor"].Count != 1 {
		t.Fatalf("transactions %+v", s.Gas)
	}
}

// distinctSenders counts the wallets that sent transactions of a purpose.
func distinctSenders(t *testing.T, tb *testBridge, purpose string) int {
	t.Helper()
	ctx := context.Background()
	tx, err := tb.store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(DISTINCT sender) FROM tx_intents_v2 WHERE purpose = ? AND sender <> ''`, purpose).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMintRefusedForTheRelayerWaits: the token refuses the relayer (its
// role was revoked): the relayer's configuration, not the deposit, is at
// fault. Nothing is sent and nothing final is recorded: every round's
// mint step fails naming the contract's refusal, the deposit stays
// CONFIRMED, and once the role is granted again it is minted once.
func TestMintRefusedForTheRelayerWaits(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, nil)
	ctx := context.Background()
	tok := contracts.NewBridgeToken()
	token := tok.Instance(tb.chain.Client(), common.Address(tb.cfg.Token))
	role, err := bind.Call(token, &bind.CallOpts{Context: ctx}, tok.PackRELAYERROLE(), tok.UnpackRELAYERROLE)
	if err != nil {
		t.Fatal(err)
	}
	admin := bind.NewKeyedTransactor(devchain.DevKey(devAdmin), big.NewInt(devchain.ChainID))
	admin.Context = ctx
	relayer := crypto.PubkeyToAddress(devchain.DevKey(devRelayer).PublicKey)
	tx, err := bind.Transact(token, admin, tok.PackRevokeRole(role, relayer))
	if err != nil {
		t.Fatal(err)
	}
	tb.mined(tx.Hash())
	nonce, err := tb.chain.Client().NonceAt(ctx, relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb.lock(0, ether(9))
	tb.until("deposit confirmed", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusConfirmed) == 1
	})
	for i := 0; i < 5; i++ {
		err := tb.b.relay.Round(ctx)
		if !errors.Is(err, domain.ErrCallDeferred) || !strings.Contains(err.Error(), "AccessControlUnauthorizedAccount") {
			t.Fatalf("round %d: %v, want the mint step deferred naming the contract's refusal", i, err)
		}
	}
	if after, _ := tb.chain.Client().NonceAt(ctx, relayer, nil); after != nonce {
		t.Fatalf("relayer nonce %d -> %d: a mint was sent", nonce, after)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintOutcome); n != 0 {
		t.Fatalf("%d mint outcomes, want none: nothing is decided while the relayer is refused", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeDepositFailed); n != 0 {
		t.Fatalf("%d deposit failures recorded for the relayer's missing role", n)
	}
	tx, err = bind.Transact(token, admin, tok.PackGrantRole(role, relayer))
	if err != nil {
		t.Fatal(err)
	}
	tb.mined(tx.Hash())
	s := tb.until("deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	if statusCount(s.Deposits, domain.StatusFailed) != 0 {
		t.Fatalf("deposits %v: one failed", s.Deposits)
	}
	assertChainPaidOnce(t, tb.users, 1, 0)
}

// TestAnchorConflictHaltsTheSequence: batch 1's id already holds another
// root on chain (say, a rogue or misconfigured relayer). The batcher asks
// the chain before it cuts: it cuts nothing, and every round's batch step
// fails with ErrBatchLost (recorded once as relay.step_failed, counted in
// batches_lost_total), no claims are requested, and the sequence waits for
// an operator. Should the root land between the cut and the anchor (here:
// a batcher that does not ask the chain), the anchorer records the
// anchoring as failed with the reason, requests no claims, and cuts no
// further batch.
func TestAnchorConflictHaltsTheSequence(t *testing.T) {
	tb := newTestBridge(t, 50*time.Millisecond, 1, func(c *relayConfig) { c.BatchMaxSize = 1; c.BatchMaxWait = "100ms" })
	ctx := context.Background()
	tb.lock(0, ether(40))
	tb.until("deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	// Someone else anchors batch 1 first, with a root no withdrawal has.
	d := contracts.NewBatchDistributor()
	relayer := bind.NewKeyedTransactor(devchain.DevKey(devRelayer), big.NewInt(devchain.ChainID))
	relayer.Context = ctx
	tx, err := bind.Transact(d.Instance(tb.chain.Client(), common.Address(tb.cfg.Distributor)), relayer,
		d.PackAnchor(big.NewInt(1), [32]byte{0xba, 0xd}))
	if err != nil {
		t.Fatal(err)
	}
	tb.mined(tx.Hash())
	tb.burn(0, ether(5))
	tb.burn(0, ether(6))
	tb.until("the batch step failing", 60*time.Second, func(s projections.BridgeStats) bool {
		return countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepFailed) >= 1
	})
	for i := 0; i < 5; i++ {
		if err := tb.b.relay.Round(ctx); !errors.Is(err, domain.ErrBatchLost) || !strings.Contains(err.Error(), "batch 1 has root 0xba0d") {
			t.Fatalf("round %d: %v, want ErrBatchLost naming batch 1 and the chain's root", i, err)
		}
	}
	s, _ := tb.b.reader.Stats(ctx)
	if len(s.Batches) != 0 || statusCount(s.Withdrawals, domain.StatusConfirmed) != 2 {
		t.Fatalf("batches %v, withdrawals %v: want no batch and both withdrawals waiting", s.Batches, s.Withdrawals)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeRelayStepFailed); n != 1 {
		t.Fatalf("%d relay.step_failed events, want 1 (one streak)", n)
	}
	scrape := httptest.NewRecorder()
	tb.metrics.Handler().ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	if strings.Contains(scrape.Body.String(), "bridgelog_batches_lost_total 0\n") ||
		!strings.Contains(scrape.Body.String(), "bridgelog_batches_lost_total ") {
		t.Fatal("batches_lost_total did not count the refused cuts")
	}

	// The anchorer's own check.
	tb.b.relay.Batcher.Chain = nil
	s = tb.until("anchoring failed", 60*time.Second, func(s projections.BridgeStats) bool { return s.Batches["ANCHOR_FAILED"] == 1 })
	for i := 0; i < 5; i++ {
		if err := tb.b.relay.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if s, _ = tb.b.reader.Stats(ctx); len(s.Batches) != 1 || s.Batches["ANCHOR_FAILED"] != 1 {
		t.Fatalf("batches %v: want only batch 1, failed (no batch 2 after a failed anchor)", s.Batches)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBatches, domain.TypeBatchFailed); n != 1 {
		t.Fatalf("%d batch.anchor_failed events, want 1", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicClaims, domain.TypeClaimRequested); n != 0 {
		t.Fatalf("%d claims requested for a batch whose root is not on chain", n)
	}
}
