package projections

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// RelayProjections are every projection the relay keeps (the runner adds
// processed_events): what it reads to decide, and what a replay of its
// log rebuilds; and a signer's ([SignerProjections], streams starting at
// nonce 0, and [BurnSourceProjections]), so that project, replay and
// verify fold one set whichever process wrote the log. Each log fills
// only its own tables (a relay's token also records its burns toward
// Kaspa, confirmed, for the audit trail; nothing of the relay acts on
// them).
func RelayProjections() []Projection {
	return append([]Projection{Deposits{}, Withdrawals{}, ChainCursors{}, WithdrawalsToKaspa{}, Batches{}, TxIntents{}, RelayBindings{}, Refunds{},
		RelayBrakes{}, KaspaDeposits{}},
		SignerProjections()...)
}

// ChainCursors is each chain indexer's cursor: the last scanned block,
// its hash, the tip seen then (lag = tip - scanned_to) and how many reorgs
// moved it back; and the hashes of the scanned blocks within the reorg
// window below it (chain_blocks), which a reorg is traced back through.
// All its events share the chain's partition, so plain log order applies.
type ChainCursors struct{}

func (ChainCursors) Name() string           { return "chain_cursors" }
func (ChainCursors) Version() int           { return 2 }
func (ChainCursors) Topics() []string       { return []string{topics.TopicChain} }
func (ChainCursors) KeepsNothingPastBatch() {} // every value goes to the store in Apply
func (p ChainCursors) Tables() []Table      { return []Table{cursorTable.Table, blockTable.Table} }

// cursorRow is one chain's row of chain_cursors.
type cursorRow struct {
	chainID, scannedTo, tip, reorgs, rejectedLogs int64
	toHash                                        string
	updatedAt                                     sql.NullString
}

var cursorTable = declareTable(Versioned("chain_cursors", ChainCursors{}.Version()), []string{"chain_id"}, nil,
	i64Col("chain_id", func(r *cursorRow) *int64 { return &r.chainID }),
	i64Col("scanned_to", func(r *cursorRow) *int64 { return &r.scannedTo }),
	strCol("to_hash", func(r *cursorRow) *string { return &r.toHash }),
	i64Col("tip", func(r *cursorRow) *int64 { return &r.tip }),
	i64Col("reorgs", func(r *cursorRow) *int64 { return &r.reorgs }),
	i64Col("rejected_logs", func(r *cursorRow) *int64 { return &r.rejectedLogs }),
	textCol("updated_at", func(r *cursorRow) *sql.NullString { return &r.updatedAt }),
)

// blockRow is a scanned block's hash. Only the window below each cursor
// is kept: rows older than a scan's KeepFrom, and rows above a rewound
// cursor, are deleted as the events are folded, so a replay keeps the
// same rows.
type blockRow struct {
	chainID, block int64
	hash           string
}

var blockTable = declareTable(Versioned("chain_blocks", ChainCursors{}.Version()), []string{"chain_id", "block"}, nil,
	i64Col("chain_id", func(r *blockRow) *int64 { return &r.chainID }),
	i64Col("block", func(r *blockRow) *int64 { return &r.block }),
	strCol("hash", func(r *blockRow) *string { return &r.hash }),
)

var (
	// A scan moves the cursor; a reorg moves it back and counts; a
	// rejected log only counts. The first fact about a chain makes its row.
	cursorScanned  = cursorTable.upsertSQL([]string{"scanned_to", "to_hash", "tip", "updated_at"})
	cursorReorged  = cursorTable.upsertSQL([]string{"scanned_to", "to_hash", "updated_at"}, "reorgs")
	cursorRejected = cursorTable.upsertSQL(nil, "rejected_logs")
	cursorRescan   = cursorTable.updateWhereSQL("chain_id = ? AND scanned_to > ?", "scanned_to", "to_hash", "updated_at")
	blockScanned   = blockTable.upsertSQL([]string{"hash"})
	blocksOutside  = blockTable.deleteSQL("chain_id = ? AND (block < ? OR block > ?)")
	blocksAbove    = blockTable.deleteSQL("chain_id = ? AND block > ?")
)

func (p ChainCursors) Apply(ctx context.Context, tx Tx, ev *Event) error {
	at := nullTime(ev.Envelope.RecordedAt)
	switch e := ev.Body.(type) {
	case *domain.ChainScanned:
		r := cursorRow{chainID: int64(e.ChainID), scannedTo: int64(e.To), toHash: e.ToHash.Hex(), tip: int64(e.Tip), updatedAt: at}
		if _, err := tx.Exec(ctx, cursorScanned, cursorTable.args(&r, nil, false)...); err != nil {
			return err
		}
		var args []any
		for _, b := range e.Blocks() {
			args = blockTable.args(&blockRow{chainID: int64(e.ChainID), block: int64(b.Number), hash: b.Hash.Hex()}, args[:0], false)
			if _, err := tx.Exec(ctx, blockScanned, args...); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, blocksOutside, int64(e.ChainID), int64(e.KeepFrom()), int64(e.To))
		return err
	case *domain.ChainReorged:
		r := cursorRow{chainID: int64(e.ChainID), scannedTo: int64(e.RewindTo), reorgs: 1, updatedAt: at}
		if !e.RewindHash.IsZero() {
			r.toHash = e.RewindHash.Hex()
		}
		if _, err := tx.Exec(ctx, cursorReorged, cursorTable.args(&r, nil, false)...); err != nil {
			return err
		}
		return p.forgetAbove(ctx, tx, e.ChainID, e.RewindTo)
	case *domain.ChainRescanRequested:
		rewind := uint64(0)
		if e.From > 0 {
			rewind = e.From - 1
		}
		if _, err := tx.Exec(ctx, cursorRescan, int64(rewind), "", at, int64(e.ChainID), int64(rewind)); err != nil {
			return err
		}
		return p.forgetAbove(ctx, tx, e.ChainID, rewind)
	case *domain.ChainLogRejected:
		r := cursorRow{chainID: int64(e.Ref.ChainID), rejectedLogs: 1, updatedAt: at}
		_, err := tx.Exec(ctx, cursorRejected, cursorTable.args(&r, nil, false)...)
		return err
	}
	return nil
}

// forgetAbove drops the kept hashes above a rewound cursor: those blocks
// are scanned again.
func (ChainCursors) forgetAbove(ctx context.Context, tx Tx, chainID, block uint64) error {
	_, err := tx.Exec(ctx, blocksAbove, int64(chainID), int64(block))
	return err
}

// Batches is seed 000's batches and batch_leaves tables for every
// settlement sequence. A batch is CREATED, then ANCHORED (or
// ANCHOR_FAILED). Whether all its leaves were claimed is read by joining
// batch_leaves with the withdrawals' status, not stored here: claims come
// from other partitions, and a stored count would depend on replay order.
type Batches struct{}

func (Batches) Name() string           { return "batches" }
func (Batches) Version() int           { return 1 }
func (Batches) Topics() []string       { return []string{topics.TopicBatches} }
func (Batches) KeepsNothingPastBatch() {} // every value goes to the store in Apply

func (p Batches) Tables() []Table { return []Table{batchTable.Table, leafTable.Table} }

// Statuses of a batches row.
const (
	batchCreated      = "CREATED"
	batchAnchored     = "ANCHORED"
	batchAnchorFailed = "ANCHOR_FAILED"
)

// batchRow is one row of batches.
type batchRow struct {
	sequenceID, merkleRoot, totalAmount, status string
	id, leafCount                               int64
	createdAt, anchoredAt, anchorTx, errReason  sql.NullString
	anchorGas                                   sql.NullInt64
}

var batchTable = declareTable(Versioned("batches", Batches{}.Version()), []string{"sequence_id", "id"},
	[]Index{{Columns: []string{"merkle_root"}, Unique: true}, {Columns: []string{"status"}}},
	strCol("sequence_id", func(r *batchRow) *string { return &r.sequenceID }),
	i64Col("id", func(r *batchRow) *int64 { return &r.id }),
	strCol("merkle_root", func(r *batchRow) *string { return &r.merkleRoot }),
	strCol("total_amount", func(r *batchRow) *string { return &r.totalAmount }),
	i64Col("leaf_count", func(r *batchRow) *int64 { return &r.leafCount }),
	textCol("created_at", func(r *batchRow) *sql.NullString { return &r.createdAt }),
	textCol("anchored_at", func(r *batchRow) *sql.NullString { return &r.anchoredAt }),
	strCol("status", func(r *batchRow) *string { return &r.status }),
	textCol("anchor_tx_hash", func(r *batchRow) *sql.NullString { return &r.anchorTx }),
	intCol("anchor_gas_used", func(r *batchRow) *sql.NullInt64 { return &r.anchorGas }),
	textCol("error_reason", func(r *batchRow) *sql.NullString { return &r.errReason }),
)

// leafRow is one row of batch_leaves: a batch's leaf and the withdrawal
// it pays.
type leafRow struct {
	sequenceID, withdrawalKey, wTxHash, funder, recipient, amount, leafHash string
	batchID, leafIndex, wLogIndex, txID                                     int64
}

var leafTable = declareTable(Versioned("batch_leaves", Batches{}.Version()), []string{"sequence_id", "batch_id", "leaf_index"},
	[]Index{{Columns: []string{"sequence_id", "batch_id", "withdrawal_key"}, Unique: true}, {Columns: []string{"w_tx_hash", "w_log_index"}}},
	strCol("sequence_id", func(r *leafRow) *string { return &r.sequenceID }),
	i64Col("batch_id", func(r *leafRow) *int64 { return &r.batchID }),
	i64Col("leaf_index", func(r *leafRow) *int64 { return &r.leafIndex }),
	strCol("withdrawal_key", func(r *leafRow) *string { return &r.withdrawalKey }),
	strCol("w_tx_hash", func(r *leafRow) *string { return &r.wTxHash }),
	i64Col("w_log_index", func(r *leafRow) *int64 { return &r.wLogIndex }),
	i64Col("tx_id", func(r *leafRow) *int64 { return &r.txID }),
	strCol("funder", func(r *leafRow) *string { return &r.funder }),
	strCol("recipient", func(r *leafRow) *string { return &r.recipient }),
	strCol("amount", func(r *leafRow) *string { return &r.amount }),
	strCol("leaf_hash", func(r *leafRow) *string { return &r.leafHash }),
)

var (
	batchInsert   = batchTable.insertNewSQL()
	batchAnchor   = batchTable.update("status", "anchored_at", "anchor_tx_hash", "anchor_gas_used")
	batchNoAnchor = batchTable.updateWhereSQL("sequence_id = ? AND id = ? AND status = ?", "status", "error_reason")
	leafColumns   = leafTable.ColumnNames()
)

func (p Batches) Apply(ctx context.Context, tx Tx, ev *Event) error {
	at := nullTime(ev.Envelope.RecordedAt)
	switch e := ev.Body.(type) {
	case *domain.BatchCreated:
		seq := e.Settlement.SequenceID()
		r := batchRow{sequenceID: seq, id: int64(e.BatchID), merkleRoot: e.Root.Hex(), totalAmount: e.TotalAmount.String(),
			leafCount: int64(len(e.Leaves)), createdAt: at, status: batchCreated}
		if _, err := tx.Exec(ctx, batchInsert, batchTable.args(&r, nil, false)...); err != nil {
			return err
		}
		// The leaves go in multi-row statements (a batch has 128 by
		// default): one INSERT per leaf was most of a relay log's rebuild
		// time in this projection.
		args := make([]any, 0, len(e.Leaves)*len(leafColumns))
		for _, l := range e.Leaves {
			args = leafTable.args(&leafRow{sequenceID: seq, batchID: int64(e.BatchID), leafIndex: int64(l.Index),
				withdrawalKey: l.Withdrawal.Key(), wTxHash: l.Withdrawal.TxHash.Hex(), wLogIndex: int64(l.Withdrawal.LogIndex),
				txID: int64(l.TxID), funder: l.Funder.Hex(), recipient: l.Recipient.Hex(), amount: l.Amount.String(), leafHash: l.Leaf.Hex()},
				args, false)
		}
		b := Bulk{Table: leafTable.Name, Columns: leafColumns, OnConflict: leafTable.PrimaryKey}
		if err := b.Exec(ctx, tx, args); err != nil {
			return err
		}
	case *domain.BatchAnchored:
		r := batchRow{sequenceID: e.Settlement.SequenceID(), id: int64(e.BatchID), status: batchAnchored, anchoredAt: at,
			anchorTx: nullText(e.TxHash.Hex()), anchorGas: sql.NullInt64{Int64: int64(e.GasUsed), Valid: true}}
		_, err := tx.Exec(ctx, batchAnchor.sql, batchAnchor.args(&r)...)
		return err
	case *domain.BatchAnchorFailed:
		_, err := tx.Exec(ctx, batchNoAnchor, batchAnchorFailed, e.Reason, e.Settlement.SequenceID(), int64(e.BatchID), batchCreated)
		return err
	}
	return nil
}

// decodeIntent reads an intent back from its row.
func decodeIntent(js string) (domain.TxIntent, error) {
	var in domain.TxIntent
	err := json.Unmarshal([]byte(js), &in)
	return in, err
}
