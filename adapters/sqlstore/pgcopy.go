package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/bridgelog/bridgelog/projections"
)

var _ projections.CopyTx = (*storeTx)(nil)

// CopyRows loads rows with PostgreSQL's COPY, on the transaction's own
// connection: a multi-row INSERT makes client and server encode, parse and
// bind every value as a parameter (for processed_events-shaped rows COPY
// took a quarter of the INSERTs' time, COPY into a temporary table and
// INSERT … SELECT half). Without a conflict clause the rows go straight
// into table; with one they go through a temporary twin of it that the
// INSERT takes them from, so conflicts are handled as the INSERT would.
// On SQLite it does nothing (ok false), and neither does it with a
// conflict clause for a role denied temporary tables.
func (t *storeTx) CopyRows(ctx context.Context, table string, cols []string, rows []any, conflict string) (bool, error) {
	if t.conn == nil || (conflict != "" && !t.s.tempTables) {
		return false, nil
	}
	n := len(cols)
	if n == 0 || len(rows)%n != 0 {
		return true, fmt.Errorf("store %s: copy into %s: %d values for %d columns", t.s.where, table, len(rows), n)
	}
	err := t.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		into := table
		if conflict != "" {
			into = "bridgelog_copy_" + table
			if !t.twins[into] {
				// Per session; ON COMMIT DELETE ROWS empties it at the end
				// of every transaction, TRUNCATE after each use in one.
				q := fmt.Sprintf("CREATE TEMP TABLE IF NOT EXISTS %s (LIKE %s INCLUDING DEFAULTS) ON COMMIT DELETE ROWS",
					pgx.Identifier{into}.Sanitize(), pgx.Identifier{table}.Sanitize())
				if _, err := pc.Exec(ctx, q); err != nil {
					return fmt.Errorf("temporary table: %w", err)
				}
				if t.twins == nil {
					t.twins = map[string]bool{}
				}
				t.twins[into] = true
			}
		}
		if _, err := pc.CopyFrom(ctx, pgx.Identifier{into}, cols, &flatRows{vals: rows, width: n, at: -n}); err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		if conflict == "" {
			return nil
		}
		list := strings.Join(cols, ", ")
		q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s %s; TRUNCATE %s",
			pgx.Identifier{table}.Sanitize(), list, list, pgx.Identifier{into}.Sanitize(), conflict, pgx.Identifier{into}.Sanitize())
		if _, err := pc.Exec(ctx, q); err != nil {
			return fmt.Errorf("insert from the copy: %w", err)
		}
		return nil
	})
	if err != nil {
		return true, fmt.Errorf("store %s: copy %d rows into %s: %w", t.s.where, len(rows)/n, table, err)
	}
	return true, nil
}

// flatRows is a [pgx.CopyFromSource] over values laid out flat, width a row.
type flatRows struct {
	vals  []any
	width int
	at    int
}

func (r *flatRows) Next() bool {
	r.at += r.width
	return r.at < len(r.vals)
}

func (r *flatRows) Values() ([]any, error) { return r.vals[r.at : r.at+r.width], nil }

func (r *flatRows) Err() error { return nil }
