package projections_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog/kafkatest"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// env is one combination of log engine and store engine; every behaviour
// test runs on each combination.
type env struct {
	name     string
	newLog   func(t *testing.T) topics.Log
	newStore func(t *testing.T) (projections.Store, func() projections.Store) // the store, and a reopen
}

// fastRebuild gives a runner the fast rebuild explicitly: tests of it
// (and the benchmarks) run it even when the package is built with
// nofastrebuild, under which runners fold in place by default.
var fastRebuild = projections.WithRebuilder(projections.NewFastRebuild)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func embeddedLog(t *testing.T) topics.Log {
	l, err := embeddedlog.Open(t.TempDir(), embeddedlog.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func kafkaLog(t *testing.T) topics.Log {
	return kafkatest.Open(t, kafkalog.Config{})
}

func sqliteStore(t *testing.T) (projections.Store, func() projections.Store) {
	path := filepath.Join(t.TempDir(), "projections.db")
	open := func() projections.Store {
		st, err := sqlstore.OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open
}

func postgresStore(c *pgtest.Cluster) func(t *testing.T) (projections.Store, func() projections.Store) {
	return func(t *testing.T) (projections.Store, func() projections.Store) {
		dsn := c.NewDB(t)
		open := func() projections.Store {
			st, err := sqlstore.OpenPostgres(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
		return open(), open
	}
}

// envs returns the matrix: both stores on the embedded log, and SQLite on
// the Kafka protocol (the store does not care which log fed it; the log
// engine does not care which store reads it).
func envs(t *testing.T) []env {
	pg := pgtest.Start(t)
	return []env{
		{"embedded+sqlite", embeddedLog, sqliteStore},
		{"embedded+postgres", embeddedLog, postgresStore(pg)},
		{"kafka+sqlite", kafkaLog, sqliteStore},
		{"kafka+postgres", kafkaLog, postgresStore(pg)},
	}
}

func forEachEnv(t *testing.T, f func(t *testing.T, e env)) {
	for _, e := range envs(t) {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var errNoRows = sql.ErrNoRows

var (
	t0  = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cat = topics.DefaultCatalog()
)

// appendEv wraps and appends domain events at given times.
func appendEv(t *testing.T, lg topics.Log, at time.Time, evs ...domain.Event) []topics.Position {
	t.Helper()
	var out []topics.Position
	for _, ev := range evs {
		env, topic, err := cat.Wrap(ev, topics.Meta{OccurredAt: at, RecordedAt: at.Add(time.Second)})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := env.Message(topics.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		pos, err := lg.Append(ctxT(t), topic, msg)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pos...)
	}
	return out
}

func builtins() []projections.Projection {
	return []projections.Projection{projections.Deposits{}, projections.Withdrawals{}}
}

func newRunner(t *testing.T, lg topics.Log, st projections.Store, ps []projections.Projection, opts ...projections.Option) *projections.Runner {
	t.Helper()
	opts = append([]projections.Option{projections.WithLogger(quiet())}, opts...)
	r, err := projections.NewRunner(ctxT(t), lg, st, ps, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func catchUp(t *testing.T, r *projections.Runner) projections.Summary {
	t.Helper()
	s, err := r.CatchUp(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func digests(t *testing.T, r *projections.Runner) map[string]string {
	t.Helper()
	ds, err := r.Digests(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range ds {
		out[d.Projection] = d.SHA
	}
	return out
}

// query runs a one-row query in a store transaction.
func query(t *testing.T, st projections.Store, q string, args []any, dest ...any) {
	t.Helper()
	tx, err := st.Begin(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow(ctxT(t), q, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func count(t *testing.T, st projections.Store, table string) int {
	var n int
	query(t, st, "SELECT count(*) FROM "+table, nil, &n)
	return n
}

func ref(b byte) domain.LogRef {
	return domain.LogRef{ChainID: 338, TxHash: domain.Hash32{0xab, b}, LogIndex: uint32(b % 4)}
}

func detected(r domain.LogRef, amount uint64) domain.DepositDetected {
	return domain.DepositDetected{Ref: r, Contract: domain.Address{9}, BlockNumber: 100, BlockHash: domain.Hash32{0xbb},
		OnChainID: 7, Depositor: domain.Address{1}, Amount: domain.AmountFromUint64(amount), Recipient: domain.Address{2}}
}
