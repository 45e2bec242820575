package projections

import (
	"context"
	"errors"
	"fmt"
)

// StoreFormat is the layout version of a store's own tables (store_meta,
// checkpoints, projection_versions). A store written with a higher format
// is refused, untouched, by [ErrStoreTooNew].
const StoreFormat = 1

// Store is where projection tables live: adapters/sqlstore opens SQLite
// (embedded default) and PostgreSQL ones.
type Store interface {
	// Begin starts a transaction; the runner commits one batch per
	// transaction, rows and checkpoints together.
	Begin(ctx context.Context) (StoreTx, error)
	Dialect() Dialect
	// Where names the store for errors and logs: a file path, or a DSN
	// without its password.
	Where() string
	Close() error
}

// StoreTx is a store transaction.
type StoreTx interface {
	Tx
	Commit() error
	Rollback() error
}

// ErrStoreTooNew: the store was written by a newer binary.
var ErrStoreTooNew = errors.New("store format newer than this binary")

// StoreTooNewError says which store has which format.
type StoreTooNewError struct {
	Where     string // file or DSN
	Found     int    // format in the store
	Supported int    // highest format this binary reads
}

func (e *StoreTooNewError) Error() string {
	return fmt.Sprintf("store %s has format %d, this binary supports up to %d: upgrade bridgelog (nothing was changed)",
		e.Where, e.Found, e.Supported)
}

func (e *StoreTooNewError) Unwrap() error { return ErrStoreTooNew }
