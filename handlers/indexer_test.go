package handlers

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

const testChainID = 1337

// forkedChain is a chain of blocks whose hashes name the fork that mined
// them; a reorg replaces the blocks above a height with a new fork's.
type forkedChain struct {
	mu        sync.Mutex
	blocks    []forkedBlock // by number
	hashReads int
	tipAhead  uint64 // the tip it reports is that far ahead of its blocks
}

type forkedBlock struct {
	hash domain.Hash32
	txs  []common.Hash // one watched log each
}

func blockHash(fork byte, n uint64) domain.Hash32 { return domain.Hash32{fork, byte(n >> 8), byte(n)} }

// mine appends n empty blocks of fork.
func (c *forkedChain) mine(n int, fork byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range n {
		c.blocks = append(c.blocks, forkedBlock{hash: blockHash(fork, uint64(len(c.blocks)))})
	}
}

// send puts a transaction with a watched log into the tip block.
func (c *forkedChain) send(tx common.Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := &c.blocks[len(c.blocks)-1]
	b.txs = append(b.txs, tx)
}

// reorg replaces the last depth blocks with depth+1 blocks of fork; their
// transactions are mined again in the first new block, as a node does.
func (c *forkedChain) reorg(depth uint64, fork byte) {
	c.mu.Lock()
	keep := uint64(len(c.blocks)) - depth
	var moved []common.Hash
	for _, b := range c.blocks[keep:] {
		moved = append(moved, b.txs...)
	}
	c.blocks = c.blocks[:keep]
	c.mu.Unlock()
	c.mine(int(depth)+1, fork)
	c.mu.Lock()
	c.blocks[keep].txs = moved
	c.mu.Unlock()
}

func (c *forkedChain) tipNumber() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return uint64(len(c.blocks) - 1)
}

func (c *forkedChain) hashOf(n uint64) domain.Hash32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blocks[n].hash
}

func (c *forkedChain) reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hashReads
}

func (c *forkedChain) ChainID() uint64 { return testChainID }
func (c *forkedChain) Tip(context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return uint64(len(c.blocks)-1) + c.tipAhead, nil
}
func (c *forkedChain) BlockTime(context.Context, uint64) (time.Time, error) {
	return time.Unix(1_700_000_000, 0), nil
}

func (c *forkedChain) HashAt(_ context.Context, n uint64) (domain.Hash32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hashReads++
	if n >= uint64(len(c.blocks)) {
		return domain.Hash32{}, nil
	}
	return c.blocks[n].hash, nil
}

func (c *forkedChain) Logs(_ context.Context, from, to uint64, _ []domain.Address) ([]types.Log, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []types.Log
	for n := from; n <= to && n < uint64(len(c.blocks)); n++ {
		for _, tx := range c.blocks[n].txs {
			out = append(out, types.Log{BlockNumber: n, BlockHash: common.Hash(c.blocks[n].hash), TxHash: tx})
		}
	}
	return out, nil
}

// depositDecoder reads every log as a deposit.
type depositDecoder struct{}

func (depositDecoder) Decode(l *types.Log) (domain.Event, error) {
	return domain.DepositDetected{Ref: domain.LogRef{ChainID: testChainID, TxHash: domain.Hash32(l.TxHash), LogIndex: uint32(l.Index)},
		BlockNumber: l.BlockNumber, BlockHash: domain.Hash32(l.BlockHash), Amount: domain.AmountFromUint64(1)}, nil
}

// gaugeMetrics records counters and the last value of each gauge.
type gaugeMetrics struct {
	countingMetrics
	gauges map[string]float64
}

func (m *gaugeMetrics) StoppedBeyondWindow(_ uint64, stopped bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gauges == nil {
		m.gauges = map[string]float64{}
	}
	m.gauges["indexer_reorg_beyond_window"] = map[bool]float64{true: 1}[stopped]
}

// indexerRig is an indexer over a forked chain, a log and the
// chain_cursors projection it reads.
type indexerRig struct {
	t       *testing.T
	chain   *forkedChain
	log     topics.Log
	runner  *projections.Runner
	reader  projections.BridgeReader
	ix      *Indexer
	metrics *gaugeMetrics
}

func newIndexerRig(t *testing.T, chain *forkedChain, cfg IndexerConfig) *indexerRig {
	t.Helper()
	ctx := context.Background()
	lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	run, err := projections.NewRunner(ctx, lg, st, []projections.Projection{projections.ChainCursors{}}, projections.WithLogger(quietLogger))
	if err != nil {
		t.Fatal(err)
	}
	r := &indexerRig{t: t, chain: chain, log: lg, runner: run, reader: projections.BridgeReader{Store: st}, metrics: &gaugeMetrics{}}
	r.ix = &Indexer{Chain: chain, Decoder: depositDecoder{}, Cursors: r.reader, Appender: r.appender(), Config: cfg,
		Metrics: r.metrics, Logger: quietLogger}
	return r
}

func (r *indexerRig) appender() *Appender {
	return &Appender{Log: r.log, Catalog: topics.DefaultCatalog()}
}

func (r *indexerRig) catchUp() {
	r.t.Helper()
	if _, err := r.runner.CatchUp(context.Background()); err != nil {
		r.t.Fatal(err)
	}
}

// poll polls once, with the projection caught up before.
func (r *indexerRig) poll() (ScanResult, error) {
	r.catchUp()
	return r.ix.Poll(context.Background())
}

// follow polls until the indexer reached the tip, as a relay round does.
func (r *indexerRig) follow() {
	r.t.Helper()
	for i := 0; i < 100; i++ {
		res, err := r.poll()
		if err != nil {
			r.t.Fatalf("poll: %v", err)
		}
		if res.To >= res.Tip {
			r.catchUp()
			return
		}
	}
	r.t.Fatal("indexer never caught up")
}

func (r *indexerRig) cursor() domain.Cursor {
	r.t.Helper()
	c, err := r.reader.Cursor(context.Background(), testChainID)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// events decodes every event of one type on the log.
func (r *indexerRig) events(topic, typ string) []domain.Event {
	r.t.Helper()
	ctx := context.Background()
	ends, err := r.log.EndOffsets(ctx, topic)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []domain.Event
	for p, end := range ends {
		recs, err := r.log.Read(ctx, topic, int32(p), 0, int(end))
		if err != nil {
			r.t.Fatal(err)
		}
		for _, rec := range recs {
			env, err := topics.DecodeEnvelope(rec.Value)
			if err != nil {
				r.t.Fatal(err)
			}
			if env.Type != typ {
				continue
			}
			ev, err := projections.DecodeBody(&env)
			if err != nil {
				r.t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	return out
}

// detectedIn says whether tx was detected in the block it is in now.
func (r *indexerRig) detectedIn(tx common.Hash, block uint64) bool {
	for _, ev := range r.events(topics.TopicBridge, domain.TypeDepositDetected) {
		d := ev.(*domain.DepositDetected)
		if d.Ref.TxHash == domain.Hash32(tx) && d.BlockNumber == block && d.BlockHash == r.chain.hashOf(block) {
			return true
		}
	}
	return false
}

// TestIndexerFindsTheForkPoint: with a window of 12 blocks, a reorg up to
// 12 deep that moves two transactions (one from the block under the
// cursor, one from the deepest replaced block) into the first new block
// is traced to its fork point, and both are detected again in their new
// block. Without a reorg a poll reads one hash for the cursor's block and
// one per new block; a trace reads hashes only down to the fork point.
func TestIndexerFindsTheForkPoint(t *testing.T) {
	for _, depth := range []uint64{1, 5, 11, 12} {
		chain := &forkedChain{}
		chain.mine(101, 1)
		r := newIndexerRig(t, chain, IndexerConfig{StartBlock: 40, MaxRange: 16, ReorgWindow: 12})
		r.follow()
		tip := chain.tipNumber()
		deep, top := common.Hash{0xde, byte(depth)}, common.Hash{0x70, byte(depth)}
		chain.mine(1, 1)
		chain.send(deep) // in block tip+1, the deepest one the reorg replaces
		chain.mine(int(depth)-1, 1)
		chain.send(top) // in the block under the cursor
		before := chain.reads()
		r.follow()
		if got, want := chain.reads()-before, 1+int(depth); got != want {
			t.Fatalf("depth %d: %d hash reads to scan %d new blocks, want %d", depth, got, depth, want)
		}
		tip = chain.tipNumber()
		if !r.detectedIn(deep, tip-depth+1) || !r.detectedIn(top, tip) {
			t.Fatalf("depth %d: transactions not detected before the reorg", depth)
		}

		chain.reorg(depth, 2)
		before = chain.reads()
		res, err := r.poll()
		if err != nil || !res.Reorged || res.To != tip-depth {
			t.Fatalf("depth %d: poll after the reorg %+v, %v; want a rewind to %d", depth, res, err, tip-depth)
		}
		// One read of each new block (the range after the cursor), then
		// the kept blocks walked down from the cursor to the fork point.
		if got, want := chain.reads()-before, 1+int(depth)+1; got > want {
			t.Fatalf("depth %d: %d hash reads to trace the reorg, want at most %d", depth, got, want)
		}
		r.follow()
		reorgs := r.events(topics.TopicChain, domain.TypeChainReorged)
		if len(reorgs) != 1 {
			t.Fatalf("depth %d: %d reorg events", depth, len(reorgs))
		}
		if e := reorgs[0].(*domain.ChainReorged); e.RewindTo != tip-depth || e.RewindHash != blockHash(1, tip-depth) ||
			e.Block != tip || e.OldHash != blockHash(1, tip) || e.NewHash != blockHash(2, tip) {
			t.Fatalf("depth %d: reorg event %+v", depth, e)
		}
		moved := tip - depth + 1
		if !r.detectedIn(deep, moved) || !r.detectedIn(top, moved) {
			t.Fatalf("depth %d: a moved transaction was not detected in block %d", depth, moved)
		}
		if c := r.cursor(); c.ScannedTo != chain.tipNumber() || c.ToHash != chain.hashOf(c.ScannedTo) || c.Reorgs != 1 {
			t.Fatalf("depth %d: cursor %+v", depth, c)
		}
		if n := r.metrics.n["reorgs_detected_total"]; n != 1 {
			t.Fatalf("depth %d: reorgs_detected_total %d", depth, n)
		}
	}
}

// TestIndexerStopsOnAReorgBeyondTheWindow: a reorg that replaces every
// kept block is one chain.reorg_beyond_window event, however many polls
// see it, a counter and a gauge; the cursor stays and every poll fails
// with ErrReorgBeyondWindow. The indexer goes on when the chain returns to
// the scanned blocks, or after an operator's rescan from below the fork,
// which finds the moved transaction.
func TestIndexerStopsOnAReorgBeyondTheWindow(t *testing.T) {
	ctx := context.Background()
	chain := &forkedChain{}
	chain.mine(60, 1)
	r := newIndexerRig(t, chain, IndexerConfig{StartBlock: 1, ReorgWindow: 12})
	r.follow()
	tx := common.Hash{0x13}
	chain.send(tx)
	chain.mine(12, 1)
	r.follow()
	tip := chain.tipNumber()
	kept, err := r.reader.ScannedBlocks(ctx, testChainID)
	if err != nil || len(kept) != 13 || kept[0].Number != tip || kept[12].Number != tip-12 {
		t.Fatalf("kept blocks %v (%v): want %d down to %d", kept, err, tip, tip-12)
	}
	original := append([]forkedBlock(nil), chain.blocks...)

	chain.reorg(13, 2)
	for i := 0; i < 3; i++ {
		res, err := r.poll()
		if !errors.Is(err, ErrReorgBeyondWindow) || res.Reorged || res.To != tip {
			t.Fatalf("poll %d after a reorg of 13: %+v, %v; want ErrReorgBeyondWindow", i, res, err)
		}
	}
	r.catchUp()
	evs := r.events(topics.TopicChain, domain.TypeChainReorgBeyondWindow)
	if len(evs) != 1 {
		t.Fatalf("%d reorg-beyond-window events, want 1", len(evs))
	}
	if e := evs[0].(*domain.ChainReorgBeyondWindow); e.Block != tip || e.OldHash != blockHash(1, tip) || e.NewHash != blockHash(2, tip) ||
		e.OldestKept != tip-12 || e.Window != 12 {
		t.Fatalf("event %+v", e)
	}
	if c := r.cursor(); c.ScannedTo != tip || c.Reorgs != 0 {
		t.Fatalf("cursor moved: %+v", c)
	}
	if r.metrics.n["reorgs_beyond_window_total"] != 1 || r.metrics.gauges["indexer_reorg_beyond_window"] != 1 {
		t.Fatalf("metrics %v %v", r.metrics.n, r.metrics.gauges)
	}

	// The chain returns to the blocks the indexer scanned: it goes on.
	chain.mu.Lock()
	chain.blocks = original
	chain.mu.Unlock()
	chain.mine(1, 1)
	r.follow()
	if r.metrics.gauges["indexer_reorg_beyond_window"] != 0 || r.cursor().ScannedTo != tip+1 {
		t.Fatalf("not resumed: gauge %v, cursor %+v", r.metrics.gauges, r.cursor())
	}

	// Past the window again, then an operator's rescan from the fork.
	tip = chain.tipNumber()
	chain.reorg(14, 3)
	if _, err := r.poll(); !errors.Is(err, ErrReorgBeyondWindow) {
		t.Fatalf("poll after a reorg of 14: %v", err)
	}
	fork := tip - 14
	if _, err := r.appender().Append(ctx, Cause{}, domain.ChainRescanRequested{ChainID: testChainID, From: fork + 1,
		Reason: "reorg beyond the window", RequestedBy: "test", RequestID: "r1"}); err != nil {
		t.Fatal(err)
	}
	r.follow()
	if !r.detectedIn(tx, fork+1) {
		t.Fatal("the moved transaction was not found by the rescan")
	}
	if n := len(r.events(topics.TopicChain, domain.TypeChainReorgBeyondWindow)); n != 2 || r.metrics.n["reorgs_beyond_window_total"] != 2 {
		t.Fatalf("%d events, counter %d: want one per reorg beyond the window", n, r.metrics.n["reorgs_beyond_window_total"])
	}
}

// TestIndexerChainShorterThanItsTip: a block of the range vanishes
// between the tip read and its hash (a node that went back to a shorter
// chain): the poll fails with ErrChainMoved and records nothing; the next
// one scans what the chain holds.
func TestIndexerChainShorterThanItsTip(t *testing.T) {
	chain := &forkedChain{}
	chain.mine(20, 1)
	r := newIndexerRig(t, chain, IndexerConfig{ReorgWindow: 12})
	r.follow()
	chain.mine(2, 1)
	chain.tipAhead = 1
	if _, err := r.poll(); !errors.Is(err, ErrChainMoved) {
		t.Fatalf("poll: %v, want ErrChainMoved", err)
	}
	r.catchUp()
	if c := r.cursor(); c.ScannedTo != 19 {
		t.Fatalf("cursor moved to %d", c.ScannedTo)
	}
	chain.tipAhead = 0
	r.follow()
	if c := r.cursor(); c.ScannedTo != 21 || c.ToHash != chain.hashOf(21) {
		t.Fatalf("cursor %+v, want block 21", c)
	}
}
