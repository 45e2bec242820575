package handlers

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/merkle"
	"github.com/bridgelog/bridgelog/topics"
)

// fixedBatches is a BatchReader over a fixed sequence state and pending set.
type fixedBatches struct {
	seq     domain.SequenceState
	pending []domain.PendingWithdrawal
}

func (f fixedBatches) Sequence(context.Context, domain.Settlement) (domain.SequenceState, error) {
	return f.seq, nil
}
func (f fixedBatches) Unbatched(_ context.Context, limit int) ([]domain.PendingWithdrawal, error) {
	return f.pending[:min(limit, len(f.pending))], nil
}

// chainRoots is the chain's root per batch id, or an error for every call.
type chainRoots struct {
	roots map[uint64]domain.Hash32
	err   error
	calls int
}

func (c *chainRoots) AnchoredRoot(_ context.Context, id uint64) (domain.Hash32, error) {
	c.calls++
	return c.roots[id], c.err
}

// countingMetrics records the counters of the batcher and the indexer
// under their series' names.
type countingMetrics struct {
	NopMetrics
	mu sync.Mutex
	n  map[string]int
}

func (m *countingMetrics) count(name string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[string]int{}
	}
	m.n[name] += n
}
func (m *countingMetrics) BatchCreated()            { m.count("batches_created_total", 1) }
func (m *countingMetrics) BatchLost()               { m.count("batches_lost_total", 1) }
func (m *countingMetrics) BatchRecovered()          { m.count("batches_recovered_total", 1) }
func (m *countingMetrics) ReorgDetected(uint64)     { m.count("reorgs_detected_total", 1) }
func (m *countingMetrics) ReorgBeyondWindow(uint64) { m.count("reorgs_beyond_window_total", 1) }

// TestBatcherMatchesTheChain: before it cuts a batch, the batcher asks the
// chain for that batch id's root. None, or the cut's own: the cut stands.
// Another root (the log lost the batch): the batch is cut again to match
// it, or, when no cut of the pending withdrawals gives it, nothing is
// appended and the error says so (ErrBatchLost, counted).
func TestBatcherMatchesTheChain(t *testing.T) {
	ctx := context.Background()
	s := domain.Settlement{ChainID: 1337, Distributor: domain.Address{0xd1}}
	seq := domain.SequenceState{LastBatchID: 4, LastAnchored: true}
	var pending []domain.PendingWithdrawal
	for i := uint64(1); i <= 3; i++ {
		pending = append(pending, domain.PendingWithdrawal{Ref: domain.LogRef{ChainID: 1337, TxHash: domain.Hash32{byte(i)}, LogIndex: 1},
			TxID: i, Funder: domain.Address{byte(i)}, Recipient: domain.Address{0xee}, Amount: domain.AmountFromUint64(i * 1000)})
	}
	// The batch as it was cut when only the lowest withdrawal was pending.
	lost, err := domain.PlanBatch(s, seq, pending[:1], domain.BatchPolicy{MaxSize: 1}, time.Now(), merkle.BatchLeaf, merkle.BatchRoot)
	if err != nil {
		t.Fatal(err)
	}
	full, err := domain.PlanBatch(s, seq, pending, domain.BatchPolicy{MaxSize: 3}, time.Now(), merkle.BatchLeaf, merkle.BatchRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		chain    *chainRoots
		leaves   int
		wantErr  error
		counters map[string]int
	}{
		{"no root on chain", &chainRoots{}, 3, nil, map[string]int{"batches_created_total": 1}},
		{"the cut's own root", &chainRoots{roots: map[uint64]domain.Hash32{5: full.Root}}, 3, nil, map[string]int{"batches_created_total": 1}},
		{"the root of a lost batch", &chainRoots{roots: map[uint64]domain.Hash32{5: lost.Root}}, 1, nil,
			map[string]int{"batches_created_total": 1, "batches_recovered_total": 1}},
		{"a root no cut gives", &chainRoots{roots: map[uint64]domain.Hash32{5: {0xbb}}}, 0, domain.ErrBatchLost,
			map[string]int{"batches_lost_total": 1}},
		{"the chain unreachable", &chainRoots{err: errors.New("dial tcp: connection refused")}, 0, nil, map[string]int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lg, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quietLogger))
			if err != nil {
				t.Fatal(err)
			}
			defer lg.Close()
			m := &countingMetrics{}
			b := &Batcher{Settlement: s, Reader: fixedBatches{seq: seq, pending: pending}, Chain: c.chain,
				Appender: &Appender{Log: lg, Catalog: topics.DefaultCatalog()}, Metrics: m, Logger: quietLogger,
				Policy: domain.BatchPolicy{MaxSize: 8, MaxWait: time.Second}, Now: func() time.Time { return time.Now().Add(time.Hour) }}
			got, err := b.Poll(ctx)
			switch {
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("err %v, want %v", err, c.wantErr)
			case c.chain.err != nil && !errors.Is(err, c.chain.err):
				t.Fatalf("err %v, want the chain's", err)
			case c.leaves > 0 && (err != nil || got == nil || len(got.Leaves) != c.leaves || got.BatchID != 5):
				t.Fatalf("batch %+v, err %v: want batch 5 of %d leaves", got, err, c.leaves)
			case c.leaves == 0 && got != nil:
				t.Fatalf("a batch was cut: %+v", got)
			}
			if c.chain.calls != 1 {
				t.Fatalf("%d calls to the chain, want 1", c.chain.calls)
			}
			if c.leaves == 1 && got.Root != lost.Root {
				t.Fatalf("recovered root %s, want the chain's %s", got.Root.Hex(), lost.Root.Hex())
			}
			appended := logRecords(t, lg)
			if want := map[bool]int{true: 1 + c.leaves, false: 0}[c.leaves > 0]; appended != want {
				t.Fatalf("%d events appended, want %d (the batch and its marks)", appended, want)
			}
			for k, v := range m.n {
				if v != c.counters[k] {
					t.Errorf("counter %s = %d, want %d", k, v, c.counters[k])
				}
			}
			for k, v := range c.counters {
				if m.n[k] != v {
					t.Errorf("counter %s = %d, want %d", k, m.n[k], v)
				}
			}
		})
	}
}

// logRecords counts the records in every topic of lg.
func logRecords(t *testing.T, lg topics.Log) int {
	t.Helper()
	n := 0
	for _, spec := range topics.Topics() {
		ends, err := lg.EndOffsets(context.Background(), spec.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ends {
			n += int(e)
		}
	}
	return n
}
