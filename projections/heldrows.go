package projections

import "context"

// heldRows is what a session keeps of its table between flushes: the rows
// it changed, by key and in first-touch order, until Flush writes each
// once; and, when it loads the table from zero (no secondary index), a
// hash of the key of every row it flushed with the row's id, so a later
// batch reads the row back by id. The lifecycle and tx_intents folds
// share it.
type heldRows[K comparable, P heldRow] struct {
	table    string
	upsert   Bulk // on the id, setting the other columns
	encode   func(r P, dst []any, a colArgs) []any
	keyHash  func(K) int64
	fromZero bool
	stored   rowIndex
	held     map[K]P
	order    []P
}

// heldRow is a row a session holds; encode appends its values in the
// table's column order.
type heldRow interface {
	// storedAs is the row's id, and whether it was read from the table
	// (rather than created by this session).
	storedAs() (id int64, loaded bool)
}

func newHeldRows[K comparable, P heldRow](table string, upsert Bulk, encode func(P, []any, colArgs) []any, keyHash func(K) int64,
	fromZero bool) heldRows[K, P] {
	return heldRows[K, P]{table: table, upsert: upsert, encode: encode, keyHash: keyHash, fromZero: fromZero, held: map[K]P{}}
}

func (h *heldRows[K, P]) hold(k K, r P) {
	h.held[k] = r
	h.order = append(h.order, r)
}

// storedIDs are the ids of the flushed rows whose key hashes as k's
// (loading from zero only).
func (h *heldRows[K, P]) storedIDs(k K) []int64 { return h.stored.ids(h.keyHash(k)) }

// Flush writes the held rows and forgets them.
func (h *heldRows[K, P]) Flush(ctx context.Context, tx Tx) error {
	if len(h.order) == 0 {
		return nil
	}
	args := make([]any, 0, len(h.order)*len(h.upsert.Columns))
	staged := colArgs(stageOf(tx, h.table) != nil)
	for _, r := range h.order {
		args = h.encode(r, args, staged)
	}
	if err := h.upsert.Exec(ctx, tx, args); err != nil {
		return err
	}
	if h.fromZero {
		for k, r := range h.held {
			if id, loaded := r.storedAs(); !loaded {
				h.stored.add(h.keyHash(k), id)
			}
		}
	}
	clear(h.held)
	h.order = h.order[:0]
	return nil
}
