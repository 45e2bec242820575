package projections

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/domain"
)

// Helpers shared by the deposit and withdrawal projections: both keep one
// row per chain log (the seed's UNIQUE(chain_id, tx_hash, log_index)),
// keyed by the log position of the first event that created it, and fold
// a batch in memory: load the touched rows, apply the events, write the
// changed rows back in bulk.

// rowID is a lifecycle row's identity: the position of the first event
// that created the row, packed by [PositionID] into the primary key.
// Unlike the seed's SERIAL it is the same on every rebuild.
type rowID struct {
	id   int64
	part int32
	off  int64
}

func newRowID(ev *Event) (rowID, error) {
	id, err := PositionID(ev.Position)
	return rowID{id: id, part: ev.Position.Partition, off: ev.Position.Offset}, err
}

// lifecycleKeyCols are the leading columns of both tables (see
// [lifecycleTable]), a row's log, which never changes; lifecycleLookup is
// the one a batch's stored rows are found by, which the unique index
// leads with. lifecycleTable checks both when it declares a table.
var lifecycleKeyCols = []string{"id", "first_partition", "first_offset", "chain_id", "tx_hash", "log_index"}

const lifecycleLookup = "tx_hash"

// lifecycleIndexes: the seed's uniqueness of a chain log (tx_hash first, as
// lookups go by it) and its status index.
func lifecycleIndexes() []Index {
	return []Index{
		{Columns: []string{"tx_hash", "log_index", "chain_id"}, Unique: true},
		{Columns: []string{"status"}},
	}
}

// lifecycleUpsert writes a lifecycle table's rows: on the id, it sets
// every column but the key columns. Those never change once a row exists,
// and leaving them out spares SQLite rewriting the row's entry in the
// (tx_hash, log_index, chain_id) unique index on every update.
func lifecycleUpsert(t Table) Bulk {
	return Bulk{Table: t.Name, Columns: t.ColumnNames(), OnConflict: t.PrimaryKey, Update: t.except(lifecycleKeyCols...)}
}

// refOf builds a LogRef from scanned key columns.
func refOf(chainID int64, txHash string, logIndex int64) (domain.LogRef, error) {
	h, err := domain.ParseHash32(txHash)
	if err != nil {
		return domain.LogRef{}, err
	}
	return domain.LogRef{ChainID: uint64(chainID), TxHash: h, LogIndex: uint32(logIndex)}, nil
}

// eventTime is when the event happened: OccurredAt (chain or sender time),
// or RecordedAt when the producer did not know. Never the wall clock.
func eventTime(ev *Event) sql.NullString {
	t := ev.Envelope.OccurredAt
	if t.IsZero() {
		t = ev.Envelope.RecordedAt
	}
	return nullTime(t)
}

func nullTime(t time.Time) sql.NullString {
	if t.IsZero() {
		return sql.NullString{}
	}
	return sql.NullString{String: formatTime(t), Valid: true}
}

func nullText(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

// nullUint stores a uint64 in a BIGINT column; values past int64 are a
// malformed event, not something to wrap silently.
func nullUint(v uint64, what string, ev *Event) (sql.NullInt64, error) {
	if v > math.MaxInt64 {
		return sql.NullInt64{}, fmt.Errorf("event %s at %s: %s %d overflows BIGINT", ev.Envelope.ID, FormatPosition(ev.Position), what, v)
	}
	return sql.NullInt64{Int64: int64(v), Valid: true}, nil
}

// advance moves status forward only (see [domain.Advances]), which makes
// the fold independent of how partitions interleave.
func advance(cur *string, next domain.Status) {
	if domain.Advances(domain.Status(*cur), next) {
		*cur = string(next)
	}
}

// lifecycleBase is what every lifecycle row has: its key, and whether it
// was read from the table (rather than created by this batch).
type lifecycleBase struct {
	id     rowID
	ref    domain.LogRef
	loaded bool
	// ref's columns (a row's log does not change)
	chainID, logIndex int64
	txHex             string
}

func newLifecycleBase(id rowID, ref domain.LogRef) lifecycleBase {
	return lifecycleBase{id: id, ref: ref, chainID: int64(ref.ChainID), logIndex: int64(ref.LogIndex), txHex: ref.TxHash.Hex()}
}

// refHash is a 64-bit FNV-1a of a chain log's identity.
func refHash(r domain.LogRef) int64 {
	h := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], r.ChainID)
	h.Write(b[:])
	h.Write(r.TxHash[:])
	binary.BigEndian.PutUint32(b[:4], r.LogIndex)
	h.Write(b[:4])
	return int64(h.Sum64())
}

// storedAs is the row's id and whether it was read from the table.
func (b *lifecycleBase) storedAs() (int64, bool) { return b.id.id, b.loaded }

// lifecycleRow is a deposit or withdrawal row.
type lifecycleRow interface {
	heldRow
	base() *lifecycleBase
	obs() *observation
	fold(*Event) error
}

func (b *lifecycleBase) base() *lifecycleBase { return b }
func (o *observation) obs() *observation      { return o }

// lifecycleFold folds events into a lifecycle table: it loads the rows a
// batch touches, folds each event into its row (creating it, keyed by the
// event's position, when new) and holds the changed rows until Flush
// writes them in bulk, each once, in first-touch order. As a [Session]
// it holds rows across the batches of a transaction.
type lifecycleFold[R any, P interface {
	*R
	lifecycleRow
}] struct {
	heldRows[domain.LogRef, P] // keyed by the chain log; from zero, read back by id instead of through the tx_hash index
	subject                    func(*Event) (domain.LogRef, bool)
	rows                       *rowTable[R]
}

func newLifecycleFold[R any, P interface {
	*R
	lifecycleRow
}](t *rowTable[R], subject func(*Event) (domain.LogRef, bool), fromZero bool) *lifecycleFold[R, P] {
	return &lifecycleFold[R, P]{heldRows: newHeldRows[domain.LogRef, P](t.Name, lifecycleUpsert(t.Table),
		func(r P, dst []any, a colArgs) []any { return t.args((*R)(r), dst, a) }, refHash, fromZero),
		subject: subject, rows: t}
}

func (f *lifecycleFold[R, P]) ApplyBatch(ctx context.Context, tx Tx, evs []*Event) error {
	if err := f.load(ctx, tx, evs); err != nil {
		return err
	}
	for _, ev := range evs {
		ref, ok := f.subject(ev)
		if !ok {
			continue
		}
		r := f.held[ref]
		if r == nil {
			id, err := newRowID(ev)
			if err != nil {
				return err
			}
			r = P(new(R))
			*r.base() = newLifecycleBase(id, ref)
			f.hold(ref, r)
		}
		if err := r.fold(ev); err != nil {
			return err
		}
	}
	if len(f.held) >= maxHeldRows {
		return f.Flush(ctx, tx) // bound the memory a long transaction holds
	}
	return nil
}

// maxHeldRows bounds the rows a session holds between flushes.
var maxHeldRows = 8192

// load reads the stored rows the batch touches that are not held yet: by
// id from the session's own record when loading from zero (the table has
// no secondary index then), else through the tx_hash index.
func (f *lifecycleFold[R, P]) load(ctx context.Context, tx Tx, evs []*Event) error {
	refs := map[domain.LogRef]bool{}
	var ids []int64
	var hashes []any
	for _, ev := range evs {
		ref, ok := f.subject(ev)
		if !ok || refs[ref] || f.held[ref] != nil {
			continue
		}
		refs[ref] = true
		if f.fromZero {
			ids = append(ids, f.storedIDs(ref)...)
		} else {
			hashes = append(hashes, ref.TxHash.Hex())
		}
	}
	each := func(sr RowScanner) error {
		r := P(new(R))
		if err := f.rows.scan(sr, (*R)(r)); err != nil {
			return fmt.Errorf("%s: %w", f.table, err)
		}
		b := r.base()
		ref, err := refOf(b.chainID, b.txHex, b.logIndex)
		if err != nil {
			return fmt.Errorf("%s: %w", f.table, err)
		}
		b.ref = ref
		if refs[ref] && f.held[ref] == nil {
			b.loaded = true
			f.hold(ref, r)
		}
		return nil
	}
	cols := f.upsert.Columns
	if f.fromZero {
		return selectByID(ctx, tx, f.table, cols, ids, each)
	}
	return queryIn(ctx, tx, `SELECT `+strings.Join(cols, ", ")+` FROM `+f.table, lifecycleLookup, hashes, each)
}

// applyLifecycle folds one batch and writes it at once (the path without
// a session).
func applyLifecycle[R any, P interface {
	*R
	lifecycleRow
}](ctx context.Context, tx Tx, t *rowTable[R], evs []*Event, subject func(*Event) (domain.LogRef, bool)) error {
	f := newLifecycleFold[R, P](t, subject, false)
	if err := f.ApplyBatch(ctx, tx, evs); err != nil {
		return err
	}
	return f.Flush(ctx, tx)
}

// lifecycleTable declares a deposit or withdrawal table: the key
// columns, the observation's (party names the depositor or withdrawer
// column), the table's own, the observation's failure and reorg, then
// columns the table added later (after, at the end so that the layout of
// the columns before stays as it was).
func lifecycleTable[T any, P interface {
	*T
	lifecycleRow
}](name, party string, own []rowColumn[T], after ...rowColumn[T]) rowTable[T] {
	cols := []rowColumn[T]{
		i64Col("id", func(r *T) *int64 { return &P(r).base().id.id }),
		i32Col("first_partition", func(r *T) *int32 { return &P(r).base().id.part }),
		i64Col("first_offset", func(r *T) *int64 { return &P(r).base().id.off }),
		i64Col("chain_id", func(r *T) *int64 { return &P(r).base().chainID }),
		strCol("tx_hash", func(r *T) *string { return &P(r).base().txHex }),
		i64Col("log_index", func(r *T) *int64 { return &P(r).base().logIndex }),
		strCol("status", func(r *T) *string { return &P(r).obs().status }),
		textCol("contract", func(r *T) *sql.NullString { return &P(r).obs().contract }),
		textCol(party, func(r *T) *sql.NullString { return &P(r).obs().party }),
		textCol("amount", func(r *T) *sql.NullString { return &P(r).obs().amount }), // decimal base units
		textCol("recipient", func(r *T) *sql.NullString { return &P(r).obs().recipient }),
		intCol("block_number", func(r *T) *sql.NullInt64 { return &P(r).obs().blockNumber }),
		textCol("block_hash", func(r *T) *sql.NullString { return &P(r).obs().blockHash }),
		intCol("onchain_id", func(r *T) *sql.NullInt64 { return &P(r).obs().onchainID }),
		textCol("detected_at", func(r *T) *sql.NullString { return &P(r).obs().detectedAt }),
		textCol("confirmed_at", func(r *T) *sql.NullString { return &P(r).obs().confirmedAt }),
		intCol("confirmed_block", func(r *T) *sql.NullInt64 { return &P(r).obs().confirmedBlock }),
	}
	cols = append(cols, own...)
	cols = append(cols,
		textCol("failed_at", func(r *T) *sql.NullString { return &P(r).obs().failedAt }),
		textCol("error_reason", func(r *T) *sql.NullString { return &P(r).obs().errorReason }),
		textCol("reorged_block_hash", func(r *T) *sql.NullString { return &P(r).obs().reorgedBlockHash }),
	)
	t := declareTable(name, []string{"id"}, lifecycleIndexes(), append(cols, after...)...)
	t.mustHave(append(slices.Clip(lifecycleKeyCols), lifecycleLookup)...) // the columns lifecycleFold names
	return t
}

// colArgs passes a row's columns as its table takes them. SQL binds the
// plain values (nil for NULL; a boxed sql.Null* would cost an allocation
// per column per row, and its conversion another). A staged table
// (colArgs true) is handed pointers to them, which it reads before Put
// returns, sparing the boxing of each value.
type colArgs bool

// observation is what deposit and withdrawal rows share: the chain log
// that made them, its confirmation, a failure and a reorg. party is the
// depositor or the withdrawer.
type observation struct {
	status                                  string
	contract, party, amount, recipient      sql.NullString
	blockNumber                             sql.NullInt64
	blockHash                               sql.NullString
	onchainID                               sql.NullInt64
	detectedAt, confirmedAt                 sql.NullString
	confirmedBlock                          sql.NullInt64
	failedAt, errorReason, reorgedBlockHash sql.NullString
}

// detected folds the sighting of the log. A later sighting (after a
// reorg, in another block) overwrites the block it was seen in.
func (o *observation) detected(ev *Event, contract, party domain.Address, amount domain.Amount, recipient domain.Address,
	block uint64, blockHash domain.Hash32, onchainID uint64) error {
	var err error
	o.contract = nullText(contract.Hex())
	o.party = nullText(party.Hex())
	o.amount = nullText(amount.String())
	o.recipient = nullText(recipient.Hex())
	o.blockHash = nullText(blockHash.Hex())
	o.detectedAt = eventTime(ev)
	if o.blockNumber, err = nullUint(block, "block_number", ev); err != nil {
		return err
	}
	if o.onchainID, err = nullUint(onchainID, "onchain_id", ev); err != nil {
		return err
	}
	advance(&o.status, domain.StatusDetected)
	return nil
}

func (o *observation) confirmed(ev *Event, atBlock uint64) error {
	var err error
	o.confirmedAt = eventTime(ev)
	if o.confirmedBlock, err = nullUint(atBlock, "at_block", ev); err != nil {
		return err
	}
	advance(&o.status, domain.StatusConfirmed)
	return nil
}

func (o *observation) failed(ev *Event, reason string) {
	o.failedAt = eventTime(ev)
	o.errorReason = nullText(reason)
	advance(&o.status, domain.StatusFailed)
}

func (o *observation) reorged(blockHash domain.Hash32) {
	o.reorgedBlockHash = nullText(blockHash.Hex())
}
