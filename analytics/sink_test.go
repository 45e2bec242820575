package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/clickhouse"
	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fixture is a log with a synthetic bridge history, transaction outcomes,
// a failure and an undecodable record, and a migrated warehouse.
type fixture struct {
	lg topics.Log
	wh *clickhouse.Warehouse
}

// engines are the log engines the sink is tested on.
var engines = []struct {
	name string
	open func(t *testing.T) topics.Log
}{
	{"embedded", func(t *testing.T) topics.Log {
		lg, err := embeddedlog.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lg.Close() })
		return lg
	}},
	{"kafka", func(t *testing.T) topics.Log { return kafkatest.Open(t, kafkalog.Config{}) }},
}

func newFixture(t *testing.T, srv *chtest.Server) fixture {
	return newFixtureOn(t, srv, engines[0].open(t))
}

func newFixtureOn(t *testing.T, srv *chtest.Server, lg topics.Log) fixture {
	t.Helper()
	ctx := ctxT(t)
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 3000, Seed: 11, InFlight: 50}, nil); err != nil {
		t.Fatal(err)
	}
	cat := topics.DefaultCatalog()
	outcome := func(p domain.Purpose, subject string, h byte, status domain.TxStatus, gas uint64, reason string) domain.Event {
		return domain.TxOutcome{Purpose: p, Subject: subject, TxHash: domain.Hash32{h}, Status: status, GasUsed: gas, Reason: reason}
	}
	for i, ev := range []domain.Event{
		outcome(domain.PurposeMint, "deposit:a", 1, domain.TxSucceeded, 51_000, ""),
		outcome(domain.PurposeMint, "deposit:b", 2, domain.TxSucceeded, 53_000, ""),
		outcome(domain.PurposeClaim, "withdrawal:c", 3, domain.TxReverted, 30_000, "execution reverted: boom"),
		outcome(domain.PurposeAnchor, "batch:1", 4, domain.TxSucceeded, 70_000, ""),
		domain.RelayStepFailed{Step: "mint", Reason: "rpc down"},
	} {
		at := t0.Add(time.Duration(i) * time.Minute)
		env, topic, err := cat.Wrap(ev, topics.Meta{OccurredAt: at, RecordedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := env.Message(topics.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lg.Append(ctx, topic, msg); err != nil {
			t.Fatal(err)
		}
	}
	// Bytes that are no envelope: kept, with the reason.
	if _, err := lg.Append(ctx, topics.TopicBridge, topics.Message{Key: []byte("junk"), Value: []byte("not an envelope")}); err != nil {
		t.Fatal(err)
	}
	return fixture{lg: lg, wh: newWarehouse(t, srv)}
}

// newWarehouse is a migrated warehouse in a new database of srv.
func newWarehouse(t testing.TB, srv *chtest.Server) *clickhouse.Warehouse {
	t.Helper()
	return warehouseAt(t, srv.NewDB(t))
}

// warehouseAt is a migrated warehouse in the database dsn names.
func warehouseAt(t testing.TB, dsn string) *clickhouse.Warehouse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wh, err := clickhouse.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	return wh
}

// logRecord is one record of the log, decoded independently of the sink.
type logRecord struct {
	rec  topics.Record
	env  topics.Envelope
	body domain.Event
	bad  bool
}

func readLog(t *testing.T, lg topics.Log) []logRecord {
	t.Helper()
	ctx := ctxT(t)
	var out []logRecord
	for _, spec := range topics.Topics() {
		ends, err := lg.EndOffsets(ctx, spec.Name)
		if err != nil {
			t.Fatal(err)
		}
		for p, end := range ends {
			for from := int64(0); from < end; {
				recs, err := lg.Read(ctx, spec.Name, int32(p), from, 1000)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) == 0 {
					break
				}
				for _, r := range recs {
					lr := logRecord{rec: r}
					env, err := topics.DecodeEnvelope(r.Value)
					lr.env, lr.bad = env, err != nil
					if err == nil {
						lr.body, _ = projections.DecodeBody(&env)
					}
					out = append(out, lr)
				}
				from = recs[len(recs)-1].Offset + 1
			}
		}
	}
	return out
}

func countFinal(t *testing.T, wh analytics.Warehouse, final string) uint64 {
	t.Helper()
	rows, err := wh.Query(ctxT(t), `SELECT count() FROM `+analytics.EventsTable+` `+final)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n uint64
	if !rows.Next() {
		t.Fatal("count: no row")
	}
	if err := rows.Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSinkAndQueries sinks a log and checks every row is there once and
// that gas, latency, error and audit answers equal what the log says,
// computed here from the log directly.
func TestSinkAndQueries(t *testing.T) {
	srv := chtest.Start(t)
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { testSinkAndQueries(t, newFixtureOn(t, srv, e.open(t))) })
	}
}

func testSinkAndQueries(t *testing.T, f fixture) {
	ctx := ctxT(t)
	log := readLog(t, f.lg)

	m := &countingMetrics{}
	st, err := analytics.NewSink(f.lg, f.wh, analytics.Config{Batch: 700, Metrics: m}).CatchUp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != len(log) || st.Undecodable != 1 {
		t.Fatalf("sunk %+v, the log has %d records, 1 undecodable", st, len(log))
	}
	if m.sunk != len(log) || m.undecodable[topics.TopicBridge] != 1 || len(m.undecodable) != 1 {
		t.Fatalf("metrics: %d sunk, undecodable %v", m.sunk, m.undecodable)
	}
	if n := countFinal(t, f.wh, "FINAL"); n != uint64(len(log)) {
		t.Fatalf("warehouse has %d events, log %d", n, len(log))
	}
	// A second sink over the same warehouse resumes at the checkpoints.
	if st, err := analytics.NewSink(f.lg, f.wh, analytics.Config{}).CatchUp(ctx); err != nil || st.Records != 0 {
		t.Fatalf("second catch-up: %+v, %v", st, err)
	}

	t.Run("gas", func(t *testing.T) {
		type key struct{ typ, status string }
		want := map[key]analytics.GasRow{}
		for _, r := range log {
			o, ok := r.body.(*domain.TxOutcome)
			if !ok {
				continue
			}
			k := key{r.env.Type, string(o.Status)}
			g := want[k]
			g.Type, g.Status = k.typ, k.status
			g.Txs++
			g.Total += o.GasUsed
			g.Max = max(g.Max, o.GasUsed)
			want[k] = g
		}
		got, err := analytics.Gas(ctx, f.wh)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) != 3 {
			t.Fatalf("gas rows %+v, want %+v", got, want)
		}
		for _, g := range got {
			w := want[key{g.Type, g.Status}]
			if g.Txs != w.Txs || g.Total != w.Total || g.Max != w.Max || g.Avg != float64(w.Total)/float64(w.Txs) {
				t.Errorf("gas %s/%s: %+v, want %+v", g.Type, g.Status, g, w)
			}
		}
	})

	t.Run("latency", func(t *testing.T) {
		type span struct{ start, done int64 }
		spans := map[string]map[string]*span{"deposit": {}, "withdrawal": {}}
		for _, r := range log {
			var flow string
			var isStart bool
			switch r.env.Type {
			case domain.TypeDepositDetected, domain.TypeDepositMinted:
				flow, isStart = "deposit", r.env.Type == domain.TypeDepositDetected
			case domain.TypeWithdrawalDetected, domain.TypeWithdrawalExecuted:
				flow, isStart = "withdrawal", r.env.Type == domain.TypeWithdrawalDetected
			default:
				continue
			}
			s := spans[flow][r.env.AggregateID]
			if s == nil {
				s = &span{}
				spans[flow][r.env.AggregateID] = s
			}
			ms := r.env.RecordedAt.UnixMilli()
			if isStart && (s.start == 0 || ms < s.start) {
				s.start = ms
			}
			if !isStart && (s.done == 0 || ms < s.done) {
				s.done = ms
			}
		}
		got, err := analytics.Latency(ctx, f.wh)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("latency rows %+v", got)
		}
		for _, g := range got {
			var n uint64
			var longest float64
			for _, s := range spans[g.Flow] {
				if s.start != 0 && s.done != 0 {
					n++
					longest = max(longest, float64(s.done-s.start)/1000)
				}
			}
			if n == 0 || g.Completed != n || g.Max != longest || !(g.P50 > 0 && g.P50 <= g.P90 && g.P90 <= g.P99 && g.P99 <= g.Max) {
				t.Errorf("latency %s: %+v, want %d completed, max %.3f s", g.Flow, g, n, longest)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		want := map[string]uint64{}
		for _, r := range log {
			switch {
			case r.bad:
				want["undecodable"]++
			case r.env.Type == domain.TypeDepositFailed, r.env.Type == domain.TypeWithdrawalFailed,
				r.env.Type == domain.TypeRelayStepFailed:
				want[r.env.Type]++
			default:
				if o, ok := r.body.(*domain.TxOutcome); ok && o.Status == domain.TxReverted {
					want[r.env.Type]++
				}
			}
		}
		got, err := analytics.Errors(ctx, f.wh)
		if err != nil {
			t.Fatal(err)
		}
		gotCounts := map[string]uint64{}
		var total uint64
		for _, g := range got {
			gotCounts[g.Kind] = g.Count
			total += g.Count
			if g.LastReason == "" {
				t.Errorf("error kind %s has no reason", g.Kind)
			}
		}
		if !reflect.DeepEqual(gotCounts, want) || want[domain.TypeDepositFailed] == 0 {
			t.Fatalf("errors %v, want %v", gotCounts, want)
		}
		hours, err := analytics.ErrorRates(ctx, f.wh, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		var events, errs uint64
		for _, h := range hours {
			events += h.Events
			errs += h.Errors
			if h.Rate() < 0 || h.Rate() > 1 {
				t.Errorf("hour %v: rate %f", h.Hour, h.Rate())
			}
		}
		if events != uint64(len(log)) || errs != total {
			t.Fatalf("hourly rates sum to %d events, %d errors; want %d, %d", events, errs, len(log), total)
		}
	})

	t.Run("audit", func(t *testing.T) {
		picked := checkFinder(t, f.wh, log, 10)
		if len(picked[projections.KeyAggregate]) == 0 || len(picked[projections.KeyEVMTx]) == 0 {
			t.Fatalf("keys found: %v; want aggregates and transactions", picked)
		}
	})
}

type countingMetrics struct {
	analytics.NopMetrics
	sunk        int
	undecodable map[string]int
}

func (c *countingMetrics) Sunk(_ string, n int) { c.sunk += n }
func (c *countingMetrics) Undecodable(topic string, n int) {
	if c.undecodable == nil {
		c.undecodable = map[string]int{}
	}
	c.undecodable[topic] += n
}

// failingCheckpoints fails the checkpoint insert once, after the rows
// went in: the sink "dies" between its two writes.
type failingCheckpoints struct {
	analytics.Warehouse
	failed bool
}

func (w *failingCheckpoints) Insert(ctx context.Context, table string, cols []string, rows [][]any) error {
	if table == analytics.CheckpointsTable && !w.failed {
		w.failed = true
		return errors.New("injected: connection lost")
	}
	return w.Warehouse.Insert(ctx, table, cols, rows)
}

// TestSinkDiesBetweenRowsAndCheckpoint: the rows written before the
// checkpoint failed are written again by the next run, and every query
// still counts each record once.
func TestSinkDiesBetweenRowsAndCheckpoint(t *testing.T) {
	srv := chtest.Start(t)
	f := newFixture(t, srv)
	ctx := ctxT(t)
	total := len(readLog(t, f.lg))
	_, err := analytics.NewSink(f.lg, &failingCheckpoints{Warehouse: f.wh}, analytics.Config{Batch: 500}).CatchUp(ctx)
	if err == nil || !strings.Contains(err.Error(), "injected") || !strings.Contains(err.Error(), "checkpoint") {
		t.Fatalf("catch-up with a failing checkpoint: %v", err)
	}
	st, err := analytics.NewSink(f.lg, f.wh, analytics.Config{Batch: 500}).CatchUp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != total {
		t.Fatalf("the rerun wrote %d records, want all %d (the first batch again)", st.Records, total)
	}
	if raw, final := countFinal(t, f.wh, ""), countFinal(t, f.wh, "FINAL"); final != uint64(total) || raw <= final {
		t.Fatalf("rows: %d stored, %d distinct; want %d distinct and the re-written batch stored twice", raw, final, total)
	}
	hours, err := analytics.ErrorRates(ctx, f.wh, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var events uint64
	for _, h := range hours {
		events += h.Events
	}
	if events != uint64(total) {
		t.Fatalf("error rates count %d events, want %d", events, total)
	}
}

// droppingConnections fails, once each, the read of the checkpoints and
// the second insert of rows, as a connection closed under the call does.
type droppingConnections struct {
	analytics.Warehouse
	queries, inserts int
}

var errDropped = fmt.Errorf("query processing: %w", &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed})

func (w *droppingConnections) Query(ctx context.Context, q string, args ...any) (analytics.Rows, error) {
	if w.queries++; w.queries == 1 {
		return nil, errDropped
	}
	return w.Warehouse.Query(ctx, q, args...)
}

func (w *droppingConnections) InsertColumns(ctx context.Context, table string, cols []string, values []any) error {
	if table == analytics.EventsTable {
		if w.inserts++; w.inserts == 2 {
			return errDropped
		}
	}
	return w.Warehouse.InsertColumns(ctx, table, cols, values)
}

// TestSinkTriesAgainOnTheNetwork: a catch-up that fails because the
// network failed under a call starts over from the checkpoints and
// finishes, counting every record it wrote; other errors are returned at
// once (TestSinkDiesBetweenRowsAndCheckpoint), and so is the network's
// third failure in a row.
func TestSinkTriesAgainOnTheNetwork(t *testing.T) {
	srv := chtest.Start(t)
	f := newFixture(t, srv)
	ctx := ctxT(t)
	total := len(readLog(t, f.lg))
	wh := &droppingConnections{Warehouse: f.wh}
	st, err := analytics.NewSink(f.lg, wh, analytics.Config{Batch: 500}).CatchUp(ctx)
	if err != nil {
		t.Fatalf("catch-up over dropped connections: %v", err)
	}
	if wh.queries < 2 || wh.inserts < 3 {
		t.Fatalf("%d queries and %d inserts: the failures were not met", wh.queries, wh.inserts)
	}
	// The first try wrote one batch before its second insert failed; the
	// next try started from that batch's checkpoint.
	if st.Records != total {
		t.Fatalf("wrote %d records, want %d", st.Records, total)
	}
	if final := countFinal(t, f.wh, "FINAL"); final != uint64(total) {
		t.Fatalf("%d distinct rows, want %d", final, total)
	}

	// Migrating again (as every analytics command does) also tries again.
	mig := &droppingConnections{Warehouse: f.wh}
	if err := analytics.Migrate(ctx, mig, t0); err != nil || mig.queries != 2 {
		t.Fatalf("migration over a dropped connection: %v after %d queries", err, mig.queries)
	}

	always := &alwaysDropping{Warehouse: f.wh}
	if _, err := analytics.NewSink(f.lg, always, analytics.Config{Attempts: 3}).CatchUp(ctx); !errors.Is(err, net.ErrClosed) || always.calls != 3 {
		t.Fatalf("a network that keeps failing: %v after %d tries, want net.ErrClosed after 3", err, always.calls)
	}
}

type alwaysDropping struct {
	analytics.Warehouse
	calls int
}

func (w *alwaysDropping) Query(context.Context, string, ...any) (analytics.Rows, error) {
	w.calls++
	return nil, errDropped
}

// TestFollowSinksNewEvents: a following sink picks up appends.
func TestFollowSinksNewEvents(t *testing.T) {
	srv := chtest.Start(t)
	f := newFixture(t, srv)
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan error, 1)
	go func() {
		done <- analytics.NewSink(f.lg, f.wh, analytics.Config{Poll: 20 * time.Millisecond}).Follow(ctx, nil)
	}()
	if _, err := synth.Generate(ctx, f.lg, synth.Config{Events: 500, Seed: 12, InFlight: 50}, nil); err != nil {
		t.Fatal(err)
	}
	total := uint64(len(readLog(t, f.lg)))
	deadline := time.Now().Add(time.Minute)
	for countFinal(t, f.wh, "FINAL") != total {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute the warehouse has %d of %d events", countFinal(t, f.wh, "FINAL"), total)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Follow: %v", err)
	}
}

// TestMigrateRefusesNewerSchema: a warehouse a newer binary migrated is
// refused, unchanged.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	srv := chtest.Start(t)
	ctx := ctxT(t)
	wh, err := clickhouse.Open(ctx, srv.NewDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	// Migrating again is a no-op.
	if err := analytics.Migrate(ctx, wh, t0); err != nil {
		t.Fatal(err)
	}
	next := analytics.SchemaVersion() + 1
	if err := wh.Insert(ctx, analytics.MigrationsTable, []string{"version", "applied_at"}, [][]any{{next, t0}}); err != nil {
		t.Fatal(err)
	}
	err = analytics.Migrate(ctx, wh, t0)
	var tooNew *analytics.ErrWarehouseTooNew
	if !errors.As(err, &tooNew) || tooNew.Found != next {
		t.Fatalf("migrating a newer warehouse: %v", err)
	}
}

// TestSinkRefusesAnotherLog: a warehouse filled from one log is not mixed
// with another, shorter or longer.
func TestSinkRefusesAnotherLog(t *testing.T) {
	srv := chtest.Start(t)
	f := newFixture(t, srv)
	ctx := ctxT(t)
	if _, err := analytics.NewSink(f.lg, f.wh, analytics.Config{}).CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	before := countFinal(t, f.wh, "FINAL")
	for _, events := range []int{100, 20_000} {
		other := engines[0].open(t)
		if _, err := synth.Generate(ctx, other, synth.Config{Events: events, Seed: 99}, nil); err != nil {
			t.Fatal(err)
		}
		_, err := analytics.NewSink(other, f.wh, analytics.Config{}).CatchUp(ctx)
		var wrong *analytics.WrongLogError
		if !errors.As(err, &wrong) {
			t.Fatalf("sinking another log of %d events: %v", events, err)
		}
		if n := countFinal(t, f.wh, "FINAL"); n != before {
			t.Fatalf("another log of %d events: rows went from %d to %d", events, before, n)
		}
	}
	// The right log still sinks what is new.
	if _, err := synth.Generate(ctx, f.lg, synth.Config{Events: 50, Seed: 100}, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := analytics.NewSink(f.lg, f.wh, analytics.Config{}).CatchUp(ctx); err != nil || st.Records != 50 {
		t.Fatalf("the same log after the refusals: %+v, %v", st, err)
	}
}
