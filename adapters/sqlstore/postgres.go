package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/bridgelog/bridgelog/projections"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// OpenPostgres opens the PostgreSQL store at dsn (a URL or key=value
// string, as pgx accepts). Errors name the DSN without its password.
func OpenPostgres(ctx context.Context, dsn string) (projections.Store, error) {
	s, err := connectPostgres(ctx, dsn, false)
	if err != nil {
		return nil, err
	}
	db, where := s.db, s.where
	if err := s.initMeta(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// COPY with a conflict clause goes through a temporary table (see
	// CopyRows), which a role may be denied: such a store inserts those
	// rows with multi-row INSERT statements instead.
	qctx, qcancel := context.WithTimeout(ctx, 15*time.Second)
	defer qcancel()
	if err := db.QueryRowContext(qctx, `SELECT has_database_privilege(current_database(), 'TEMPORARY')`).Scan(&s.tempTables); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: check the TEMPORARY privilege: %w", where, err)
	}
	return s, nil
}

// OpenPostgresReadOnly opens the PostgreSQL store at dsn for reading: it
// creates and migrates nothing, and every transaction is read-only
// (default_transaction_read_only), so nothing in it can change the store.
func OpenPostgresReadOnly(ctx context.Context, dsn string) (projections.Store, error) {
	return connectPostgres(ctx, dsn, true)
}

// connectPostgres connects and checks the store's format.
func connectPostgres(ctx context.Context, dsn string, readOnly bool) (*store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store postgres: parse dsn: %w", err)
	}
	where := fmt.Sprintf("postgres://%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(4)
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", where, err)
	}
	if _, err := checkFormat(pctx, db, projections.Postgres, where); err != nil {
		db.Close()
		return nil, err
	}
	return &store{db: db, dialect: projections.Postgres, where: where, rebound: map[string]string{}}, nil
}
