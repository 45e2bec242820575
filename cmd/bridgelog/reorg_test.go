package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// sealing commits a block every 20 ms until stop is called, so that the
// relay's transactions are mined while a test waits for its flows.
func (tb *testBridge) sealing() (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				tb.chain.Commit()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func (tb *testBridge) commit(n int) {
	for range n {
		tb.chain.Commit()
	}
}

func (tb *testBridge) tip() uint64 {
	tb.t.Helper()
	n, err := tb.chain.Client().BlockNumber(context.Background())
	if err != nil {
		tb.t.Fatal(err)
	}
	return n
}

// sendLock and sendBurn send user i's deposit or withdrawal without
// waiting for it to be mined: the test places them in blocks.
func (tb *testBridge) sendLock(i int, amount *big.Int) common.Hash {
	tb.t.Helper()
	k, addr := tb.user(i)
	tx, err := tb.users.Lock(context.Background(), devchain.DevKey(k), amount, addr)
	if err != nil {
		tb.t.Fatal(err)
	}
	return tx.Hash()
}

func (tb *testBridge) sendBurn(i int, amount *big.Int) common.Hash {
	tb.t.Helper()
	k, addr := tb.user(i)
	tx, err := tb.users.Burn(context.Background(), devchain.DevKey(k), amount, addr)
	if err != nil {
		tb.t.Fatal(err)
	}
	return tx.Hash()
}

// minedIn is the block a transaction is in now.
func (tb *testBridge) minedIn(h common.Hash) uint64 {
	tb.t.Helper()
	r, err := tb.chain.Client().TransactionReceipt(context.Background(), h)
	if err != nil {
		tb.t.Fatalf("receipt of %s: %v", h, err)
	}
	return r.BlockNumber.Uint64()
}

// decoded are the events of one type on a topic, decoded, in log order
// per partition.
func decoded[E any](t *testing.T, lg topics.Log, topic, typ string) []E {
	t.Helper()
	ctx := context.Background()
	ends, err := lg.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []E
	for p, end := range ends {
		recs, err := lg.Read(ctx, topic, int32(p), 0, int(end))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			env, err := topics.DecodeEnvelope(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			if env.Type != typ {
				continue
			}
			var e E
			if err := topics.DecodePayload(env.Payload, &e); err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
	}
	return out
}

// detected says whether the indexer detected tx's deposit or withdrawal
// in block n.
func (tb *testBridge) detected(tx common.Hash, n uint64) bool {
	tb.t.Helper()
	for _, d := range decoded[domain.DepositDetected](tb.t, tb.log, topics.TopicBridge, domain.TypeDepositDetected) {
		if d.Ref.TxHash == domain.Hash32(tx) && d.BlockNumber == n {
			return true
		}
	}
	for _, w := range decoded[domain.WithdrawalDetected](tb.t, tb.log, topics.TopicBridge, domain.TypeWithdrawalDetected) {
		if w.Ref.TxHash == domain.Hash32(tx) && w.BlockNumber == n {
			return true
		}
	}
	return false
}

// settled: no observation waits for confirmation (a replaced one was
// recorded as reorged).
func (tb *testBridge) settled() bool {
	tb.t.Helper()
	pending, err := tb.b.reader.Unconfirmed(context.Background(), devchain.ChainID)
	return err == nil && len(pending) == 0
}

// assertBalance checks user i's token balance.
func (tb *testBridge) assertBalance(i int, want *big.Int) {
	tb.t.Helper()
	_, addr := tb.user(i)
	if bal, err := tb.users.TokenBalance(context.Background(), addr); err != nil || bal.Cmp(want) != 0 {
		tb.t.Fatalf("user %d token balance %v (%v), want %v", i, bal, err, want)
	}
}

// TestReorgWithinConfirmationDepth: on a chain with 12 confirmations,
// reorgs of depth 1, 5, 11 (confirmations-1) and 12 each move a deposit
// and a withdrawal the indexer had detected into other blocks. Depth 1
// moves both into a later block. Deeper ones replace the blocks from the
// one of the first transaction (a withdrawal at depth 11, a deposit at 5
// and 12) to the tip, which holds the other, and mine the first again in
// the deepest replaced block: below the fixed 10 blocks the indexer
// rewound before it traced reorgs to their fork point. The indexer
// rescans from the fork point; every deposit is minted once and every
// withdrawal paid once, none missed.
func TestReorgWithinConfirmationDepth(t *testing.T) {
	const confirmations = 12
	tb := newTestBridge(t, -1, 1, func(c *relayConfig) { c.Confirmations = confirmations; c.BatchMaxSize = 1 })
	ctx := context.Background()
	stop := tb.sealing()
	tb.lock(0, ether(1000)) // the tokens user 0 burns
	tb.until("first deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	stop()
	depths := []uint64{1, 5, confirmations - 1, confirmations}
	deposited := new(big.Int)
	for i, depth := range depths {
		fork := tb.tip()
		send := []func() common.Hash{
			func() common.Hash { return tb.sendLock(1, ether(int64(10+i))) },
			func() common.Hash { return tb.sendBurn(0, ether(5)) },
		}
		if i%2 == 0 {
			send[0], send[1] = send[1], send[0]
		}
		var deep, top common.Hash // mined low in the replaced blocks and in the tip
		wantDeep := fork + 1
		if depth == 1 {
			deep, top = send[0](), send[1]()
			tb.commit(1)
		} else {
			tb.commit(1) // the first replaced block stays empty
			deep, wantDeep = send[0](), fork+2
			tb.commit(int(depth) - 2)
			top = send[1]()
			tb.commit(1)
		}
		deposited.Add(deposited, ether(int64(10+i)))
		deepAt, topAt := tb.minedIn(deep), tb.minedIn(top)
		if deepAt != wantDeep || topAt != fork+depth || tb.tip() != fork+depth {
			t.Fatalf("depth %d: mined in %d and %d, tip %d; want %d and %d", depth, deepAt, topAt, tb.tip(), wantDeep, fork+depth)
		}
		if err := tb.b.relay.Round(ctx); err != nil {
			t.Fatal(err)
		}
		if !tb.detected(deep, deepAt) || !tb.detected(top, topAt) {
			t.Fatalf("depth %d: deposit or withdrawal not detected before the reorg", depth)
		}
		delay := uint64(0)
		if depth == 1 {
			delay = 1 // into a block of another number
		}
		if err := tb.chain.ReorgWith(ctx, devchain.ReorgOptions{Depth: depth, Delay: delay}); err != nil {
			t.Fatal(err)
		}
		stop := tb.sealing()
		tb.until(fmt.Sprintf("depth %d: deposit minted and withdrawal paid", depth), 90*time.Second, func(s projections.BridgeStats) bool {
			return statusCount(s.Deposits, domain.StatusMinted) == int64(2+i) && statusCount(s.Withdrawals, domain.StatusExecuted) == int64(1+i) &&
				tb.settled()
		})
		stop()
		// The deep one is mined again in the first new block (after the
		// delay); the other where its fee cap allows: it was sent when the
		// base fee had fallen for depth-2 empty blocks.
		deepNow, topNow := tb.minedIn(deep), tb.minedIn(top)
		if deepNow != fork+1+delay || topNow == topAt || topNow <= fork || deepNow == deepAt {
			t.Fatalf("depth %d: moved from %d to %d and from %d to %d; want the first to %d", depth, deepAt, deepNow, topAt, topNow, fork+1+delay)
		}
		if !tb.detected(deep, deepNow) || !tb.detected(top, topNow) {
			t.Fatalf("depth %d: deposit or withdrawal not detected in its new block", depth)
		}
		reorgs := decoded[domain.ChainReorged](t, tb.log, topics.TopicChain, domain.TypeChainReorged)
		if len(reorgs) != i+1 || reorgs[i].RewindTo != fork || reorgs[i].Block != fork+depth {
			t.Fatalf("depth %d: reorg events %+v, want the %dth from block %d rewound to %d", depth, reorgs, i+1, fork+depth, fork)
		}
	}
	s, err := tb.b.reader.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A transaction mined again beside another one's logs has other log
	// indexes: its first observation is another deposit or withdrawal,
	// recorded as reorged and never acted on (status DETECTED).
	n := int64(len(depths))
	for st, c := range s.Deposits {
		if st != string(domain.StatusMinted) && st != string(domain.StatusDetected) || st == string(domain.StatusMinted) && c != n+1 {
			t.Fatalf("deposits %v: want %d minted, the others reorged", s.Deposits, n+1)
		}
	}
	for st, c := range s.Withdrawals {
		if st != string(domain.StatusExecuted) && st != string(domain.StatusDetected) || st == string(domain.StatusExecuted) && c != n {
			t.Fatalf("withdrawals %v: want %d executed, the others reorged", s.Withdrawals, n)
		}
	}
	if !tb.settled() || s.Conflicts != 0 || s.Gas["mint"].Count != n+1 {
		t.Fatalf("settled %v, conflicts %d, %d mints: want every flow done once", tb.settled(), s.Conflicts, s.Gas["mint"].Count)
	}
	assertChainPaidOnce(t, tb.users, int(n)+1, int(n))
	burned := new(big.Int).Mul(ether(5), big.NewInt(n))
	tb.assertBalance(1, deposited)
	tb.assertBalance(0, new(big.Int).Sub(ether(1000), burned))
	assertReplayEqual(t, tb)
}

// TestReorgBeyondTheWindow: a reorg one block deeper than the
// confirmation depth replaces every block the indexer kept. It is one
// chain.reorg_beyond_window event however many rounds see it, counted and
// gauged; the index step fails and the cursor stays. An operator's rescan
// from below the fork (bridgelog rescan) lets the indexer go on, and the
// deposit the reorg moved is minted once.
func TestReorgBeyondTheWindow(t *testing.T) {
	const confirmations = 12
	tb := newTestBridge(t, -1, 1, func(c *relayConfig) { c.Confirmations = confirmations })
	ctx := context.Background()
	tb.commit(confirmations + 2)
	lockTx := tb.sendLock(1, ether(7))
	tb.commit(1)
	lockAt := tb.minedIn(lockTx)
	tb.commit(confirmations - 1) // not deep enough to be confirmed
	if err := tb.b.relay.Round(ctx); err != nil {
		t.Fatal(err)
	}
	tip := tb.tip()
	if !tb.detected(lockTx, lockAt) {
		t.Fatal("deposit not detected before the reorg")
	}
	// The indexer kept blocks tip-12 .. tip; the reorg replaces them all.
	if err := tb.chain.ReorgWith(ctx, devchain.ReorgOptions{Depth: confirmations + 1}); err != nil {
		t.Fatal(err)
	}
	fork := tip - confirmations - 1
	if got := tb.minedIn(lockTx); got != fork+1 || got == lockAt {
		t.Fatalf("deposit moved from %d to %d, want %d", lockAt, got, fork+1)
	}
	for i := 0; i < 3; i++ {
		tb.commit(1)
		if err := tb.b.relay.Round(ctx); !errors.Is(err, handlers.ErrReorgBeyondWindow) {
			t.Fatalf("round %d after the reorg: %v, want ErrReorgBeyondWindow", i, err)
		}
	}
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeChainReorgBeyondWindow); n != 1 {
		t.Fatalf("%d reorg-beyond-window events, want 1", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeChainReorged); n != 0 {
		t.Fatalf("%d rewinds recorded, want none", n)
	}
	if c, err := tb.b.reader.Cursor(ctx, devchain.ChainID); err != nil || c.ScannedTo != tip {
		t.Fatalf("cursor %+v (%v): moved from %d", c, err, tip)
	}
	scrape := httptest.NewRecorder()
	tb.metrics.Handler().ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	for _, line := range []string{`bridgelog_reorgs_beyond_window_total{chain_id="1337"} 1`, `bridgelog_indexer_reorg_beyond_window{chain_id="1337"} 1`} {
		if !strings.Contains(scrape.Body.String(), line+"\n") {
			t.Errorf("metrics lack %q", line)
		}
	}

	// The operator's way on: stop the relay, request a rescan, start it.
	tb.close()
	var out strings.Builder
	rootCmd.SetOut(&out)
	rootCmd.SetArgs([]string{"rescan", "--data", tb.dir, "--chain-id", fmt.Sprint(devchain.ChainID), "--from", fmt.Sprint(fork + 1),
		"--reason", "reorg beyond the confirmation depth", "--by", "test"})
	defer rootCmd.SetArgs(nil)
	if err := rootCmd.ExecuteContext(ctx); err != nil || !strings.Contains(out.String(), "rescan of chain 1337 from block") {
		t.Fatalf("rescan: %v %s", err, out.String())
	}
	tb.open()
	stop := tb.sealing()
	s := tb.until("the moved deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	stop()
	if s.Gas["mint"].Count != 1 || !tb.detected(lockTx, fork+1) {
		t.Fatalf("deposits %v, %d mints: want the moved deposit detected and minted once", s.Deposits, s.Gas["mint"].Count)
	}
	tb.assertBalance(1, ether(7))
	if n := countEnvelopes(t, tb.log, topics.TopicChain, domain.TypeChainReorgBeyondWindow); n != 1 {
		t.Fatalf("%d reorg-beyond-window events after the rescan, want 1", n)
	}
}
