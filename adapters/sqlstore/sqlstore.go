// Package sqlstore keeps projection tables in SQLite (the embedded
// default: one file, WAL) or PostgreSQL (pgx), behind [projections.Store].
//
// Both stores write a store_meta table with the store format; a store
// written by a newer binary is refused with a [projections.StoreTooNewError]
// before anything in it is changed.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/bridgelog/bridgelog/projections"
)

// store is the database/sql implementation shared by both engines.
type store struct {
	db      *sql.DB
	dialect projections.Dialect
	where   string
	lock    *storeLock // SQLite: held shared while open (see [storeLock])
	// tempTables: PostgreSQL lets this role create temporary tables.
	tempTables bool

	mu      sync.Mutex
	rebound map[string]string // ? → $n (PostgreSQL)
}

func (s *store) Dialect() projections.Dialect { return s.dialect }
func (s *store) Where() string                { return s.where }
func (s *store) Close() error {
	err := s.db.Close()
	s.lock.release()
	return err
}

// DB exposes the underlying handle for read-only tools (inspection, tests).
func (s *store) DB() *sql.DB { return s.db }

func (s *store) Begin(ctx context.Context) (projections.StoreTx, error) {
	if s.dialect != projections.Postgres {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("store %s: begin: %w", s.where, err)
		}
		return &storeTx{s: s, tx: tx}, nil
	}
	// PostgreSQL: on a connection of its own, which COPY reaches (CopyRows).
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("store %s: connect: %w", s.where, err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("store %s: begin: %w", s.where, err)
	}
	return &storeTx{s: s, tx: tx, conn: conn}, nil
}

// query returns the engine's text of q.
func (s *store) query(q string) string {
	if s.dialect != projections.Postgres {
		return q
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.rebound[q]; ok {
		return r
	}
	r := rebind(q)
	s.rebound[q] = r
	return r
}

// rebind turns ? placeholders into $1, $2, … outside quoted text.
func rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

type storeTx struct {
	s     *store
	tx    *sql.Tx
	conn  *sql.Conn            // PostgreSQL: the transaction's connection, for COPY
	twins map[string]bool      // temporary tables CopyRows made in this transaction
	stmts map[string]*sql.Stmt // tx-bound statements
	done  bool
}

func (t *storeTx) Dialect() projections.Dialect { return t.s.dialect }

func (t *storeTx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := t.stmts[q]; ok {
		return st, nil
	}
	// Prepared on the transaction's connection (a store-wide statement
	// would need a second connection, and SQLite has one writer): a batch
	// runs each statement shape thousands of times, so preparing per
	// transaction costs nothing that matters.
	st, err := t.tx.PrepareContext(ctx, t.s.query(q))
	if err != nil {
		return nil, fmt.Errorf("store %s: prepare %.200q: %w", t.s.where, q, err)
	}
	if t.stmts == nil {
		t.stmts = make(map[string]*sql.Stmt)
	}
	t.stmts[q] = st
	return st, nil
}

// isDDL says whether q changes the schema: such statements run
// unprepared, as nothing reuses them.
func isDDL(q string) bool {
	q = strings.TrimSpace(q)
	if len(q) < 6 {
		return false
	}
	switch strings.ToUpper(q[:6]) {
	case "CREATE", "DROP T", "DROP I", "ALTER ":
		return true
	}
	return false
}

func (t *storeTx) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if isDDL(q) {
		if _, err := t.tx.ExecContext(ctx, t.s.query(q), args...); err != nil {
			return 0, fmt.Errorf("store %s: %.200q: %w", t.s.where, q, err)
		}
		return 0, nil
	}
	st, err := t.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("store %s: %.200q: %w", t.s.where, q, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store %s: rows affected: %w", t.s.where, err)
	}
	return n, nil
}

func (t *storeTx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: %.200q: %w", t.s.where, q, err)
	}
	return rows, nil
}

func (t *storeTx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := t.stmt(ctx, q)
	if err != nil {
		// *sql.Row cannot carry an error of ours; fall back to the
		// unprepared path, which reports the same failure on Scan.
		return t.tx.QueryRowContext(ctx, t.s.query(q), args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (t *storeTx) closeStmts() {
	for _, st := range t.stmts {
		st.Close()
	}
	t.stmts = nil
}

func (t *storeTx) Commit() error {
	t.closeStmts()
	t.done = true
	err := t.tx.Commit()
	t.release()
	if err != nil {
		return fmt.Errorf("store %s: commit: %w", t.s.where, err)
	}
	return nil
}

func (t *storeTx) Rollback() error {
	if t.done {
		return nil
	}
	t.closeStmts()
	t.done = true
	err := t.tx.Rollback()
	t.release()
	if err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("store %s: rollback: %w", t.s.where, err)
	}
	return nil
}

// release hands a PostgreSQL transaction's connection back to the pool.
func (t *storeTx) release() {
	if t.conn != nil {
		t.conn.Close()
	}
}

// metaDDL creates the store_meta table.
const metaDDL = `CREATE TABLE IF NOT EXISTS store_meta (meta_key TEXT NOT NULL PRIMARY KEY, meta_value TEXT NOT NULL)`

// checkFormat reads the store format without changing anything. A
// missing store_meta means a new, empty store (format 0).
func checkFormat(ctx context.Context, db *sql.DB, d projections.Dialect, where string) (int, error) {
	var exists int
	var q string
	switch d {
	case projections.Postgres:
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'store_meta'`
	default:
		q = `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'store_meta'`
	}
	if err := db.QueryRowContext(ctx, q).Scan(&exists); err != nil {
		return 0, fmt.Errorf("store %s: read schema: %w", where, err)
	}
	if exists == 0 {
		return 0, nil
	}
	var v string
	err := db.QueryRowContext(ctx, `SELECT meta_value FROM store_meta WHERE meta_key = 'format'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store %s: read store_meta: %w", where, err)
	}
	f, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("store %s: store_meta format %q is not a number", where, v)
	}
	if f > projections.StoreFormat {
		return f, &projections.StoreTooNewError{Where: where, Found: f, Supported: projections.StoreFormat}
	}
	var mark string
	err = db.QueryRowContext(ctx, `SELECT meta_value FROM store_meta WHERE meta_key = '`+bulkMetaKey+`'`).Scan(&mark)
	switch {
	case err == nil:
		return f, fmt.Errorf("store %s: %w (its rows are missing): delete it (and any %s*.spill beside it) and build it again; nothing was changed",
			where, ErrIncompleteBulkLoad, stagePrefix(where))
	case !errors.Is(err, sql.ErrNoRows):
		return f, fmt.Errorf("store %s: read store_meta: %w", where, err)
	}
	return f, nil
}

// initMeta creates store_meta and the runner's own tables and records the
// format.
func (s *store) initMeta(ctx context.Context) error {
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := []string{metaDDL}
	for _, t := range projections.SystemTables() {
		stmts = append(stmts, t.DDL(s.dialect)...)
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO store_meta (meta_key, meta_value) VALUES ('format', ?)
		ON CONFLICT (meta_key) DO UPDATE SET meta_value = excluded.meta_value`, strconv.Itoa(projections.StoreFormat)); err != nil {
		return err
	}
	return tx.Commit()
}

// SetFormatForTest overwrites the recorded store format: tests use it to
// fake a store written by a newer binary.
func SetFormatForTest(ctx context.Context, st projections.Store, format int) error {
	s, ok := st.(*store)
	if !ok {
		return fmt.Errorf("not a sqlstore store: %T", st)
	}
	_, err := s.db.ExecContext(ctx, s.query(`UPDATE store_meta SET meta_value = ? WHERE meta_key = 'format'`), strconv.Itoa(format))
	return err
}
