// Package clickhouse is the analytics warehouse on ClickHouse, over
// clickhouse-go's native protocol (the HTTP interface does not work with
// the 18.16 servers some distributions ship). It implements
// analytics.Warehouse.
package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/bridgelog/bridgelog/analytics"
)

// DefaultTimeout bounds every call to the server.
const DefaultTimeout = 30 * time.Second

// Warehouse is a connection pool to one ClickHouse database.
type Warehouse struct {
	conn    driver.Conn
	where   string
	timeout time.Duration
}

var _ analytics.Warehouse = (*Warehouse)(nil)

// Open connects to dsn (clickhouse://user:password@host:9000/database)
// and checks the server answers.
func Open(ctx context.Context, dsn string) (*Warehouse, error) {
	opts, err := ch.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: parse DSN: %w", err)
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = 5 * time.Second
	}
	where := fmt.Sprintf("clickhouse://%s/%s", strings.Join(opts.Addr, ","), opts.Auth.Database)
	conn, err := ch.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse %s: %w", where, err)
	}
	w := &Warehouse{conn: conn, where: where, timeout: DefaultTimeout}
	pctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("clickhouse %s: ping: %w", where, err)
	}
	return w, nil
}

// Where names the server and database (no password) for logs and errors.
func (w *Warehouse) Where() string { return w.where }

// Exec runs a statement that returns no rows (DDL).
func (w *Warehouse) Exec(ctx context.Context, query string, args ...any) error {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	return w.conn.Exec(ctx, query, args...)
}

// Insert sends rows as one native batch: ClickHouse writes a batch as one
// block, and the 18.16 server does not accept INSERT … VALUES through a
// plain statement.
func (w *Warehouse) Insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	return w.send(ctx, table, columns, func(batch driver.Batch) error {
		for _, r := range rows {
			if err := batch.Append(r...); err != nil {
				return err
			}
		}
		return nil
	})
}

// InsertColumns sends one native batch built column by column: each
// typed slice is copied into its column at once, where Insert converts
// every value of every row on its own.
func (w *Warehouse) InsertColumns(ctx context.Context, table string, columns []string, values []any) error {
	if len(values) != len(columns) {
		return fmt.Errorf("clickhouse: insert into %s: %d columns, %d slices of values", table, len(columns), len(values))
	}
	return w.send(ctx, table, columns, func(batch driver.Batch) error {
		for i, v := range values {
			if err := batch.Column(i).Append(v); err != nil {
				return fmt.Errorf("column %s: %w", columns[i], err)
			}
		}
		return nil
	})
}

// send prepares a batch into table's columns, has fill append to it, and
// sends it.
func (w *Warehouse) send(ctx context.Context, table string, columns []string, fill func(driver.Batch) error) (err error) {
	// After a batch that succeeded, the timeout is left to end at its
	// deadline instead of being cancelled as send returns. clickhouse-go's
	// Send watches the context on a goroutine that may run only after Send
	// returned and put the connection back in the pool; if the context is
	// done by then, it closes that connection, and the next call on it
	// fails with "use of closed network connection"
	// (ClickHouse/clickhouse-go#2032; TestInsertLeavesItsConnectionUsable).
	// By the deadline that goroutine has long seen Send end. A batch that
	// failed does not return its connection to the pool.
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	batch, err := w.conn.PrepareBatch(ctx, "INSERT INTO "+table+" ("+strings.Join(columns, ", ")+")")
	if err != nil {
		return err
	}
	if err := fill(batch); err != nil {
		batch.Abort()
		return err
	}
	return batch.Send()
}

// Query runs a query; the rows must be closed, which also ends the
// call's timeout.
func (w *Warehouse) Query(ctx context.Context, query string, args ...any) (analytics.Rows, error) {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	rows, err := w.conn.Query(ctx, query, args...)
	if err != nil {
		cancel()
		return nil, err
	}
	return &timedRows{Rows: rows, cancel: cancel}, nil
}

type timedRows struct {
	driver.Rows
	cancel context.CancelFunc
}

func (r *timedRows) Close() error {
	defer r.cancel()
	return r.Rows.Close()
}

// Close closes the pool.
func (w *Warehouse) Close() error { return w.conn.Close() }
