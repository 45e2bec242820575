package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/kafkalog"
	"github.com/bridgelog/bridgelog/adapters/metrics"
	"github.com/bridgelog/bridgelog/adapters/ownerfs"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// engineFlags choose the log and the projection store; every subcommand
// shares them. The defaults are the embedded engines in ./bridgelog-data,
// so a newcomer needs no server.
var engineFlags struct {
	data    string
	log     string
	brokers []string
	store   string
	pgDSN   string
}

func init() {
	f := rootCmd.PersistentFlags()
	f.StringVar(&engineFlags.data, "data", "./bridgelog-data", "data directory: the embedded log (DATA/log) and the SQLite store (DATA/projections.db)")
	f.StringVar(&engineFlags.log, "log", "embedded", "log engine: embedded (files in --data) or kafka (--brokers)")
	f.StringSliceVar(&engineFlags.brokers, "brokers", []string{"127.0.0.1:9092"}, "Kafka bootstrap brokers, host:port (with --log kafka)")
	f.StringVar(&engineFlags.store, "store", "sqlite", "projection store: sqlite (DATA/projections.db) or postgres (--pg-dsn)")
	f.StringVar(&engineFlags.pgDSN, "pg-dsn", os.Getenv("BRIDGELOG_PG_DSN"), "PostgreSQL DSN with --store postgres, e.g. postgres://user@host:5432/db (default $BRIDGELOG_PG_DSN)")
}

// engineMetrics, when set (relay --metrics-addr), receives the log
// engines' own counters: torn tails, corruption, refused appends.
var engineMetrics *metrics.Registry

// engines are the opened log and store.
type engines struct {
	Log   topics.Log
	Store projections.Store
}

// Close closes both engines, logging (not returning) failures: it runs on
// the way out.
func (e *engines) Close() {
	if e.Store != nil {
		if err := e.Store.Close(); err != nil {
			slog.Warn("close store", "err", err)
		}
	}
	if e.Log != nil {
		if err := e.Log.Close(); err != nil {
			slog.Warn("close log", "err", err)
		}
	}
}

// openEngines opens the log and the store the flags name; opts apply to
// an embedded log.
func openEngines(ctx context.Context, opts ...embeddedlog.Option) (*engines, error) {
	lg, err := openLog(ctx, opts...)
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx)
	if err != nil {
		lg.Close()
		return nil, err
	}
	return &engines{Log: lg, Store: st}, nil
}

// openLog opens the log engine the flags name; opts apply to an embedded
// log.
func openLog(ctx context.Context, opts ...embeddedlog.Option) (topics.Log, error) {
	switch engineFlags.log {
	case "embedded":
		dir := logDir()
		warnSharedData(engineFlags.data, dir)
		if engineMetrics != nil {
			opts = append(opts, embeddedlog.WithMetrics(engineMetrics.EmbeddedLog()))
		}
		// A signal during a long scan (a large log's first open, verify's
		// full scan) stops it instead of waiting for it.
		opts = append(opts, embeddedlog.WithContext(ctx))
		lg, err := embeddedlog.Open(dir, opts...)
		if err != nil {
			return nil, fmt.Errorf("open embedded log %s: %w", dir, err)
		}
		return lg, nil
	case "kafka":
		octx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cfg := kafkalog.Config{Brokers: engineFlags.brokers, ClientID: "bridgelog"}
		if engineMetrics != nil {
			cfg.Metrics = engineMetrics.KafkaLog()
		}
		lg, err := kafkalog.Open(octx, cfg)
		if err != nil {
			return nil, fmt.Errorf("open kafka log on %v: %w", engineFlags.brokers, err)
		}
		return lg, nil
	}
	return nil, fmt.Errorf("--log %q: want embedded or kafka", engineFlags.log)
}

// openReaders opens the log and the store the flags name for a command
// that only reads them: it creates, locks against writers and changes
// nothing (embeddedlog.OpenReadOnly, the stores' read-only opens), so it
// runs beside a relay, and where --data holds no data it says so and
// leaves --data as it was. opts apply to an embedded log.
func openReaders(ctx context.Context, opts ...embeddedlog.Option) (*engines, error) {
	lg, err := openLogReader(ctx, opts...)
	if err != nil {
		return nil, err
	}
	st, err := openStoreReader(ctx)
	if err != nil {
		lg.Close()
		return nil, err
	}
	return &engines{Log: lg, Store: st}, nil
}

// openLogReader opens the log the flags name for reading only (see
// openReaders). A Kafka client only reads unless it appends.
func openLogReader(ctx context.Context, opts ...embeddedlog.Option) (topics.Log, error) {
	if engineFlags.log != "embedded" {
		return openLog(ctx, opts...)
	}
	if err := requireData(); err != nil {
		return nil, err
	}
	dir := logDir()
	warnSharedData(engineFlags.data, dir)
	lg, err := embeddedlog.OpenReadOnly(dir, append(opts, embeddedlog.WithContext(ctx))...)
	if errors.Is(err, embeddedlog.ErrNoLog) {
		return nil, noLogError(dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open embedded log %s: %w", dir, err)
	}
	return lg, nil
}

// openStoreReader opens the projection store the flags name for reading
// only (see openReaders).
func openStoreReader(ctx context.Context) (projections.Store, error) {
	switch engineFlags.store {
	case "sqlite":
		if err := requireData(); err != nil {
			return nil, err
		}
		warnSharedData(engineFlags.data)
		st, err := sqlstore.OpenSQLiteReadOnly(ctx, sqlitePath())
		if errors.Is(err, sqlstore.ErrNoStore) {
			return nil, noStoreError(sqlitePath(), err)
		}
		return st, err
	case "postgres":
		dsn, err := pgDSN()
		if err != nil {
			return nil, err
		}
		return sqlstore.OpenPostgresReadOnly(ctx, dsn)
	}
	return nil, fmt.Errorf("--store %q: want sqlite or postgres", engineFlags.store)
}

// noDataError: a command found nothing where it expected bridgelog's data
// (a mistyped --data, a store never built), and created nothing there.
type noDataError struct {
	what, path string
	run        string // the command that makes it
	err        error
}

func (e *noDataError) Error() string {
	return fmt.Sprintf("no %s %s: run %s first", e.what, e.path, e.run)
}

func (e *noDataError) Unwrap() error { return e.err }

func noLogError(dir string, err error) error {
	return &noDataError{what: "bridgelog data in", path: dir, run: "bridgelog devnet or relay", err: err}
}

func noStoreError(path string, err error) error {
	return &noDataError{what: "projection store at", path: path, run: "bridgelog project (or relay)", err: err}
}

// requireData refuses a --data directory that does not exist, where the
// flags keep data there (the embedded log, the SQLite store), for the
// commands that must not create one: every command but those that append
// to the log or build a store.
func requireData() error {
	if engineFlags.log != "embedded" && engineFlags.store != "sqlite" {
		return nil
	}
	_, err := os.Stat(engineFlags.data)
	if errors.Is(err, os.ErrNotExist) {
		return noLogError(engineFlags.data, err)
	}
	if err != nil {
		return fmt.Errorf("--data %s: %w", engineFlags.data, err)
	}
	return nil
}

// openStore opens the projection store the flags name.
func openStore(ctx context.Context) (projections.Store, error) {
	switch engineFlags.store {
	case "sqlite":
		warnSharedData(engineFlags.data)
		return sqlstore.OpenSQLite(ctx, sqlitePath())
	case "postgres":
		dsn, err := pgDSN()
		if err != nil {
			return nil, err
		}
		return sqlstore.OpenPostgres(ctx, dsn)
	}
	return nil, fmt.Errorf("--store %q: want sqlite or postgres", engineFlags.store)
}

func pgDSN() (string, error) {
	if engineFlags.pgDSN == "" {
		return "", errors.New("--store postgres needs --pg-dsn (or $BRIDGELOG_PG_DSN)")
	}
	return engineFlags.pgDSN, nil
}

// warnedData holds the data directories already warned about: a command
// opens the log and the store apart, and one warning a path is enough.
var warnedData sync.Map

// warnSharedData warns, once a path, about each existing data directory
// other local users can read (one a version before 0700 directories
// made). It refuses nothing: the operator is told how to close it.
func warnSharedData(dirs ...string) {
	for _, d := range dirs {
		if _, seen := warnedData.LoadOrStore(d, true); !seen {
			ownerfs.WarnShared(slog.Default(), "data directory", d)
		}
	}
}

// logDir is the embedded log's directory in --data.
func logDir() string { return filepath.Join(engineFlags.data, "log") }

// sqlitePath is the SQLite store's file in --data.
func sqlitePath() string { return filepath.Join(engineFlags.data, "projections.db") }

// openScratchStore opens an empty SQLite store for a rebuild that must
// not touch the live one (verify). Digests are engine-independent, so a
// SQLite scratch checks a PostgreSQL live store as well. The returned
// function closes and deletes it.
func openScratchStore(ctx context.Context, hashRows bool) (projections.Store, func(), error) {
	dir, err := os.MkdirTemp("", "bridgelog-scratch-")
	if err != nil {
		return nil, nil, err
	}
	// A scratch rebuild is thrown away: no need to survive a power loss.
	// Nothing else opens it, so it can load from zero in bulk. It is built
	// only to be digested, so the load may hash the rows as it writes them
	// instead of the digests reading them back (hashRows).
	opts := []sqlstore.SQLiteOption{sqlstore.WithSynchronous("OFF"), sqlstore.WithBulkLoad()}
	if hashRows {
		opts = append(opts, sqlstore.WithWrittenDigests())
	}
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(dir, "scratch.db"), opts...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return st, func() { st.Close(); os.RemoveAll(dir) }, nil
}

// projectionSet lists the projections that project, replay, verify and
// demo drive (processed_events is always added by the runner). Flows that
// add projections point it at their full list in an init function.
var projectionSet = func() []projections.Projection {
	return []projections.Projection{projections.Deposits{}, projections.Withdrawals{}}
}
