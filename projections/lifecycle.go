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

// lifecycleKeyCols are the leading columns of both tables.
var lifecycleKeyCols = Table{Columns: lifecycleKeyColumns()}.ColumnNames()

func lifecycleKeyColumns() []Column {
	return []Column{
		{Name: "id", Type: Integer},
		{Name: "first_partition", Type: Integer},
		{Name: "first_offset", Type: Integer},
		{Name: "chain_id", Type: Integer},
		{Name: "tx_hash", Type: Text},
		{Name: "log_index", Type: Integer},
	}
}

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
func lifecycleUpsert(table string, cols []string) Bulk {
	var update []string
	for _, c := range cols {
		if !slices.Contains(lifecycleKeyCols, c) {
			update = append(update, c)
		}
	}
	return Bulk{Table: table, Columns: cols, OnConflict: []string{"id"}, Update: update}
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
	// ref's columns, filled by refCols when the row is written
	chainID, logIndex int64
	txHex             string
}

// refCols fills the columns of b's chain log (once: a row's log does not
// change).
func (b *lifecycleBase) refCols() {
	if b.txHex == "" {
		b.chainID, b.logIndex, b.txHex = int64(b.ref.ChainID), int64(b.ref.LogIndex), b.ref.TxHash.Hex()
	}
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
	scan(RowScanner) (domain.LogRef, error)
	fold(*Event) error
}

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
}

func newLifecycleFold[R any, P interface {
	*R
	lifecycleRow
}](table string, cols []string, subject func(*Event) (domain.LogRef, bool), fromZero bool) *lifecycleFold[R, P] {
	return &lifecycleFold[R, P]{heldRows: newHeldRows[domain.LogRef, P](table, lifecycleUpsert(table, cols), refHash, fromZero),
		subject: subject}
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
			*r.base() = lifecycleBase{id: id, ref: ref}
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
		ref, err := r.scan(sr)
		if err != nil {
			return fmt.Errorf("%s: %w", f.table, err)
		}
		if refs[ref] && f.held[ref] == nil {
			r.base().loaded = true
			f.hold(ref, r)
		}
		return nil
	}
	cols := f.upsert.Columns
	if f.fromZero {
		return selectByID(ctx, tx, f.table, cols, ids, each)
	}
	return queryIn(ctx, tx, `SELECT `+strings.Join(cols, ", ")+` FROM `+f.table, "tx_hash", hashes, each)
}

// applyLifecycle folds one batch and writes it at once (the path without
// a session).
func applyLifecycle[R any, P interface {
	*R
	lifecycleRow
}](ctx context.Context, tx Tx, table string, cols []string, evs []*Event, subject func(*Event) (domain.LogRef, bool)) error {
	f := newLifecycleFold[R, P](table, cols, subject, false)
	if err := f.ApplyBatch(ctx, tx, evs); err != nil {
		return err
	}
	return f.Flush(ctx, tx)
}

// lifecycleColumns lays out a deposit or withdrawal table: the key
// columns, the observation's (party names the depositor or withdrawer
// column), the table's own, then the observation's failure and reorg.
func lifecycleColumns(party string, own ...Column) []Column {
	cols := append(lifecycleKeyColumns(),
		Column{Name: "status", Type: Text},
		Column{Name: "contract", Type: Text, Nullable: true},
		Column{Name: party, Type: Text, Nullable: true},
		Column{Name: "amount", Type: Text, Nullable: true}, // decimal base units
		Column{Name: "recipient", Type: Text, Nullable: true},
		Column{Name: "block_number", Type: Integer, Nullable: true},
		Column{Name: "block_hash", Type: Text, Nullable: true},
		Column{Name: "onchain_id", Type: Integer, Nullable: true},
		Column{Name: "detected_at", Type: Text, Nullable: true},
		Column{Name: "confirmed_at", Type: Text, Nullable: true},
		Column{Name: "confirmed_block", Type: Integer, Nullable: true},
	)
	cols = append(cols, own...)
	return append(cols,
		Column{Name: "failed_at", Type: Text, Nullable: true},
		Column{Name: "error_reason", Type: Text, Nullable: true},
		Column{Name: "reorged_block_hash", Type: Text, Nullable: true},
	)
}

// lifecycleArgs is a row's values in [lifecycleColumns] order, own being
// the table's own columns' values.
func lifecycleArgs(dst []any, a colArgs, b *lifecycleBase, o *observation, own ...any) []any {
	b.refCols()
	dst = append(dst, a.i64(&b.id.id), b.id.part, a.i64(&b.id.off), a.i64(&b.chainID), a.str(&b.txHex), a.i64(&b.logIndex),
		a.str(&o.status), a.text(&o.contract), a.text(&o.party), a.text(&o.amount), a.text(&o.recipient), a.int(&o.blockNumber),
		a.text(&o.blockHash), a.int(&o.onchainID), a.text(&o.detectedAt), a.text(&o.confirmedAt), a.int(&o.confirmedBlock))
	dst = append(dst, own...)
	return append(dst, a.text(&o.failedAt), a.text(&o.errorReason), a.text(&o.reorgedBlockHash))
}

// colArgs passes a row's columns as its table takes them. SQL binds the
// plain values (nil for NULL; a boxed sql.Null* would cost an allocation
// per column per row, and its conversion another). A staged table
// (colArgs true) is handed pointers to them, which it reads before Put
// returns, sparing the boxing of each value.
type colArgs bool

func (a colArgs) text(v *sql.NullString) any { return colArg(a, &v.String, v.Valid) }
func (a colArgs) int(v *sql.NullInt64) any   { return colArg(a, &v.Int64, v.Valid) }
func (a colArgs) str(v *string) any          { return colArg(a, v, true) }
func (a colArgs) i64(v *int64) any           { return colArg(a, v, true) }

// colArg is the value at v as a takes it, or nil when not valid.
func colArg[T any](a colArgs, v *T, valid bool) any {
	switch {
	case !valid:
		return nil
	case bool(a):
		return v
	}
	return *v
}

// scanLifecycle scans a row laid out by [lifecycleColumns] and returns
// its chain log: own are the destinations of the table's own columns,
// after those of columns the table adds at the end.
func scanLifecycle(sr RowScanner, b *lifecycleBase, o *observation, own []any, after ...any) (domain.LogRef, error) {
	var chainID, logIndex int64
	var txHash string
	dests := append([]any{&b.id.id, &b.id.part, &b.id.off, &chainID, &txHash, &logIndex,
		&o.status, &o.contract, &o.party, &o.amount, &o.recipient, &o.blockNumber, &o.blockHash, &o.onchainID,
		&o.detectedAt, &o.confirmedAt, &o.confirmedBlock}, own...)
	dests = append(dests, &o.failedAt, &o.errorReason, &o.reorgedBlockHash)
	dests = append(dests, after...)
	if err := sr.Scan(dests...); err != nil {
		return domain.LogRef{}, err
	}
	ref, err := refOf(chainID, txHash, logIndex)
	b.ref = ref
	return ref, err
}

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
