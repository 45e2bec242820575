package projections

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Loading from zero outside the SQL engine. Even with its indexes
// dropped, inserting a million rows through SQLite's engine costs more
// than the whole rebuild may take. A store that implements [BulkLoader]
// keeps the rows of a from-zero load itself ("stages" them) while the
// runner folds, and writes each table once, in key order, with its
// indexes, when the load is done. The folds do not change: [Bulk] writes
// and by-id reads of a staged table go to its [TableStage] instead of SQL.

// BulkLoader is a store that can stage from-zero loads.
type BulkLoader interface {
	// Stage makes transactions keep the rows of tables (empty, their
	// secondary indexes dropped) outside the SQL engine until Materialize.
	// Tables must have a single integer primary key.
	Stage(ctx context.Context, tables []Table) error
	// Materialize writes every staged table, with its indexes, into the
	// store. Once anything is staged, an error anywhere (a rolled-back
	// transaction included) leaves the store unusable: it was being built
	// from zero, and is built again.
	Materialize(ctx context.Context) error
	// Abandon fails the load for err where no transaction is left to roll
	// back (a staged write that failed after its batch committed): the
	// store then refuses it as it does after a rollback.
	Abandon(err error)
}

// StagingTx is a transaction of a store that stages tables.
type StagingTx interface {
	// Staged returns the stage of a staged table, nil for other tables.
	Staged(table string) TableStage
}

// TableStage holds a staged table's rows by primary key.
type TableStage interface {
	// Put stores rows laid out flat in cols, which must be the table's
	// columns in order, as [Bulk] inserts them: a row whose key is stored
	// already is an error without onConflict (which can only be the
	// primary key), is ignored without update, and else takes the update
	// columns from the new row. Values are those Bulk binds, or a *int64
	// or *string (nil: NULL) read before Put returns, which spares the
	// caller boxing each value.
	Put(cols []string, rows []any, onConflict, update []string) error
	// Add adds delta to the integer column col of row id.
	Add(id int64, col string, delta int64) error
	// Get calls each, with the columns cols, for every stored row whose
	// key is in ids.
	Get(ids []int64, cols []string, each func(RowScanner) error) error
}

// RowScanner reads one row's columns, as *sql.Rows does.
type RowScanner interface {
	Scan(dest ...any) error
}

// stageOf returns table's stage if tx stages it.
func stageOf(tx Tx, table string) TableStage {
	if s, ok := tx.(StagingTx); ok {
		return s.Staged(table)
	}
	return nil
}

// selectByID calls each for every row of table whose integer primary key
// id is in ids, with the columns cols: from the table's stage when it is
// staged, else with SELECT … WHERE id IN (…).
func selectByID(ctx context.Context, tx Tx, table string, cols []string, ids []int64, each func(RowScanner) error) error {
	if len(ids) == 0 {
		return nil
	}
	if st := stageOf(tx, table); st != nil {
		return st.Get(ids, cols, each)
	}
	keys := make([]any, len(ids))
	for i, id := range ids {
		keys[i] = id
	}
	return queryIn(ctx, tx, `SELECT `+strings.Join(cols, ", ")+` FROM `+table, "id", keys, each)
}

// StageLayout checks that t can be staged and returns the position of its
// primary key column.
func StageLayout(t Table) (int, error) {
	if len(t.PrimaryKey) != 1 || t.column(t.PrimaryKey[0]).Type != Integer {
		return 0, fmt.Errorf("table %s: only a single integer primary key can be staged", t.Name)
	}
	return slices.Index(t.ColumnNames(), t.PrimaryKey[0]), nil
}
