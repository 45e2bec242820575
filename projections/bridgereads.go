package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
)

// BridgeReader answers the relay handlers' questions from the live
// versions of the bridge projections. Each call reads in its own
// transaction, so it sees a committed state.
type BridgeReader struct {
	Store Store
}

// read runs f in a transaction that is rolled back afterwards.
func (r BridgeReader) read(ctx context.Context, f func(tx Tx) error) error {
	tx, err := r.Store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return f(tx)
}

// table is the live table of a projection, or "" when the projection was
// never built (nothing to read yet).
func table(ctx context.Context, tx Tx, projection, base string) (string, error) {
	v, err := LiveVersion(ctx, tx, projection)
	if errors.Is(err, ErrNoLiveVersion) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return Versioned(base, v), nil
}

// The reads' statements, built and checked once (see [liveSQL]).
var (
	cursorOf      = cursorTable.selectLive("chain_id = ?")
	cursorsAll    = cursorTable.queryLive("ORDER BY chain_id")
	blocksOf      = blockTable.selectLive("chain_id = ? ORDER BY block DESC")
	lastBatch     = batchTable.selectLive("sequence_id = ? ORDER BY id DESC LIMIT 1")
	lastBatchIn   = batchTable.selectLive("sequence_id = ? AND status = ? ORDER BY id DESC LIMIT 1")
	leavesOf      = leafTable.selectLive("sequence_id = ? AND batch_id = ? ORDER BY leaf_index")
	openIntentsOf = txIntentTable.selectLive("subject = ? AND status = ? ORDER BY nonce, attempt", "intent_json")
	openFrom      = txIntentTable.selectLive("chain_id = ? AND sender = ? AND status = ?", "COUNT(*)")
)

// Cursor reads chain chainID's cursor.
func (r BridgeReader) Cursor(ctx context.Context, chainID uint64) (domain.Cursor, error) {
	var c domain.Cursor
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, ChainCursors{}.Name(), "chain_cursors")
		if err != nil || t == "" {
			return err
		}
		var row cursorRow
		err = cursorTable.scan(tx.QueryRow(ctx, cursorOf.on(t), int64(chainID)), &row)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		c.ScannedTo, c.Tip, c.Reorgs, c.RejectedLogs = uint64(row.scannedTo), uint64(row.tip), row.reorgs, row.rejectedLogs
		if row.toHash != "" {
			if c.ToHash, err = domain.ParseHash32(row.toHash); err != nil {
				return fmt.Errorf("chain_cursors %d: %w", chainID, err)
			}
		}
		// Only a scan sets a tip; a cursor made only by rejected logs or a
		// rewind before any scan is no cursor.
		c.Found = row.tip > 0 || row.scannedTo > 0
		return nil
	})
	return c, err
}

// ScannedBlocks reads the hashes chain chainID's indexer kept of the
// blocks it scanned within its reorg window, newest first.
func (r BridgeReader) ScannedBlocks(ctx context.Context, chainID uint64) ([]domain.ScannedBlock, error) {
	var out []domain.ScannedBlock
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, ChainCursors{}.Name(), "chain_blocks")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, blocksOf.on(t), []any{int64(chainID)},
			func(rows RowScanner) error {
				var b blockRow
				if err := blockTable.scan(rows, &b); err != nil {
					return err
				}
				h, err := domain.ParseHash32(b.hash)
				if err != nil {
					return fmt.Errorf("chain_blocks %d/%d: %w", chainID, b.block, err)
				}
				out = append(out, domain.ScannedBlock{Number: uint64(b.block), Hash: h})
				return nil
			})
	})
	return out, err
}

// Sequence reads a settlement's last batch and whether it is anchored.
func (r BridgeReader) Sequence(ctx context.Context, s domain.Settlement) (domain.SequenceState, error) {
	var st domain.SequenceState
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, Batches{}.Name(), "batches")
		if err != nil || t == "" {
			return err
		}
		var b batchRow
		err = batchTable.scan(tx.QueryRow(ctx, lastBatch.on(t), s.SequenceID()), &b)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		st.LastBatchID, st.LastAnchored = uint64(b.id), b.status == batchAnchored
		return nil
	})
	return st, err
}

// OpenIntents lists a subject's intents without an outcome, oldest first.
func (r BridgeReader) OpenIntents(ctx context.Context, subject string) ([]domain.TxIntent, error) {
	var out []domain.TxIntent
	err := r.read(ctx, func(tx Tx) error {
		var err error
		out, err = openIntents(ctx, tx, subject)
		return err
	})
	return out, err
}

func openIntents(ctx context.Context, tx Tx, subject string) ([]domain.TxIntent, error) {
	t, err := table(ctx, tx, TxIntents{}.Name(), "tx_intents")
	if err != nil || t == "" {
		return nil, err
	}
	var out []domain.TxIntent
	err = queryEach(ctx, tx, openIntentsOf.on(t),
		[]any{subject, TxOpen}, func(rows RowScanner) error {
			var js string
			if err := rows.Scan(&js); err != nil {
				return err
			}
			in, err := decodeIntent(js)
			if err != nil {
				return fmt.Errorf("tx_intents %s: %w", subject, err)
			}
			out = append(out, in)
			return nil
		})
	return out, err
}

// OpenIntentsFrom counts the intents sender signed on chainID that have
// no outcome yet.
func (r BridgeReader) OpenIntentsFrom(ctx context.Context, chainID uint64, sender domain.Address) (int, error) {
	var n int
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, TxIntents{}.Name(), "tx_intents")
		if err != nil || t == "" {
			return err
		}
		return tx.QueryRow(ctx, openFrom.on(t), int64(chainID), sender.Hex(), TxOpen).Scan(&n)
	})
	return n, err
}

// ToAnchor returns the sequence's last batch if it is created but not yet
// anchored, rebuilt from batches and batch_leaves, with its open anchor
// intents.
func (r BridgeReader) ToAnchor(ctx context.Context, s domain.Settlement) (*domain.AnchorTask, error) {
	var task *domain.AnchorTask
	err := r.read(ctx, func(tx Tx) error {
		bt, err := table(ctx, tx, Batches{}.Name(), "batches")
		if err != nil || bt == "" {
			return err
		}
		lt := "batch_leaves" + bt[len("batches"):]
		var row batchRow
		err = batchTable.scan(tx.QueryRow(ctx, lastBatchIn.on(bt), s.SequenceID(), batchCreated), &row)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		id := row.id
		b := domain.BatchCreated{Settlement: s, BatchID: uint64(id)}
		if b.Root, err = domain.ParseHash32(row.merkleRoot); err != nil {
			return err
		}
		if b.TotalAmount, err = domain.ParseAmount(row.totalAmount); err != nil {
			return err
		}
		err = queryEach(ctx, tx, leavesOf.on(lt),
			[]any{s.SequenceID(), id}, func(rows RowScanner) error {
				var r leafRow
				if err := leafTable.scan(rows, &r); err != nil {
					return err
				}
				l := domain.BatchLeaf{Index: uint32(r.leafIndex), TxID: uint64(r.txID)}
				var errs [5]error
				l.Withdrawal, errs[0] = domain.ParseLogRef(r.withdrawalKey)
				l.Funder, errs[1] = domain.ParseAddress(r.funder)
				l.Recipient, errs[2] = domain.ParseAddress(r.recipient)
				l.Amount, errs[3] = domain.ParseAmount(r.amount)
				l.Leaf, errs[4] = domain.ParseHash32(r.leafHash)
				if err := errors.Join(errs[:]...); err != nil {
					return fmt.Errorf("batch %d leaf %d: %w", id, r.leafIndex, err)
				}
				b.Leaves = append(b.Leaves, l)
				return nil
			})
		if err != nil {
			return err
		}
		open, err := openIntents(ctx, tx, b.SourceKey())
		if err != nil {
			return err
		}
		marked, err := markedLeaves(ctx, tx, lt, s, id)
		if err != nil {
			return err
		}
		task = &domain.AnchorTask{Batch: b, Open: open, Marked: marked}
		return nil
	})
	return task, err
}

// markedLeaf reads the leaf indexes of a batch whose withdrawal row holds
// the batch's mark: on(batch_leaves, withdrawals).
var markedLeaf = func() liveSQL {
	l, w := leafTable.as("l"), withdrawalTable.as("w")
	return liveSQL{"SELECT " + l.col("leaf_index") + " FROM ", " " + l.alias + ", ",
		" " + w.alias + " WHERE " + l.col("sequence_id") + " = ? AND " + l.col("batch_id") + " = ?" +
			" AND " + w.col("tx_hash") + " = " + l.col("w_tx_hash") + " AND " + w.col("log_index") + " = " + l.col("w_log_index") +
			" AND " + w.col("batch_sequence") + " = " + l.col("sequence_id") + " AND " + w.col("batch_id") + " = " + l.col("batch_id")}
}()

// markedLeaves returns the leaf indexes of batch id whose withdrawal
// carries its withdrawal.batched mark (none while the withdrawals table
// was never built).
func markedLeaves(ctx context.Context, tx Tx, leaves string, s domain.Settlement, id int64) (map[uint32]bool, error) {
	wt, err := table(ctx, tx, Withdrawals{}.Name(), "withdrawals")
	if err != nil || wt == "" {
		return nil, err
	}
	marked := map[uint32]bool{}
	err = queryEach(ctx, tx, markedLeaf.on(leaves, wt), []any{s.SequenceID(), id}, func(rows RowScanner) error {
		var leaf int64
		if err := rows.Scan(&leaf); err != nil {
			return err
		}
		marked[uint32(leaf)] = true
		return nil
	})
	return marked, err
}

// unconfirmedFrom are the tables [BridgeReader.Unconfirmed] reads, each
// with its statement: the logs of a chain in a status, seen in a block
// they were not reorged out of.
var unconfirmedFrom = func() []unconfirmedSource {
	const where = "chain_id = ? AND status = ? AND block_hash IS NOT NULL" +
		" AND (reorged_block_hash IS NULL OR reorged_block_hash <> block_hash)" +
		" ORDER BY block_number, tx_hash, log_index"
	cols := []string{"tx_hash", "log_index", "block_number", "block_hash"}
	return []unconfirmedSource{
		{Deposits{}.Name(), domain.ObservedDeposit, depositTable.selectLive(where, cols...)},
		{Withdrawals{}.Name(), domain.ObservedWithdrawal, withdrawalTable.selectLive(where, cols...)},
		{WithdrawalsToKaspa{}.Name(), domain.ObservedWithdrawalToKaspa, burnTable.selectLive(where, cols...)},
	}
}()

type unconfirmedSource struct {
	projection string // and its table's name
	kind       domain.ObservationKind
	read       liveSQL
}

// Unconfirmed lists chain chainID's detected deposits, withdrawals and
// burns toward Kaspa that are neither confirmed nor known to be reorged
// out. A store folds only the projections of its process (a signer keeps
// no deposits); a table never built is skipped.
func (r BridgeReader) Unconfirmed(ctx context.Context, chainID uint64) ([]domain.Observed, error) {
	var out []domain.Observed
	err := r.read(ctx, func(tx Tx) error {
		for _, src := range unconfirmedFrom {
			t, err := table(ctx, tx, src.projection, src.projection)
			if err != nil {
				return err
			}
			if t == "" {
				continue
			}
			err = queryEach(ctx, tx, src.read.on(t), []any{int64(chainID), string(domain.StatusDetected)}, func(rows RowScanner) error {
				var txHash, blockHash string
				var logIndex, block int64
				if err := rows.Scan(&txHash, &logIndex, &block, &blockHash); err != nil {
					return err
				}
				o := domain.Observed{Kind: src.kind, BlockNumber: uint64(block)}
				var e1, e2 error
				o.Ref.TxHash, e1 = domain.ParseHash32(txHash)
				o.BlockHash, e2 = domain.ParseHash32(blockHash)
				if err := errors.Join(e1, e2); err != nil {
					return fmt.Errorf("%s: %w", t, err)
				}
				o.Ref.ChainID, o.Ref.LogIndex = chainID, uint32(logIndex)
				out = append(out, o)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// mintPending reads confirmed deposits in log order (see MintPending).
var mintPending = depositTable.selectLive("status = ? ORDER BY first_partition, first_offset LIMIT ?",
	"chain_id", "tx_hash", "log_index", "contract", "depositor", "amount", "recipient", "block_number", "block_hash", "onchain_id")

// MintPending lists confirmed deposits not yet minted or failed, oldest
// first, with their open mint intents.
func (r BridgeReader) MintPending(ctx context.Context, limit int) ([]domain.MintTask, error) {
	var out []domain.MintTask
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, Deposits{}.Name(), "deposits")
		if err != nil || t == "" {
			return err
		}
		err = queryEach(ctx, tx, mintPending.on(t),
			[]any{string(domain.StatusConfirmed), limit}, func(rows RowScanner) error {
				var chainID, logIndex, block, onchain int64
				var txHash, contract, depositor, amount, recipient, blockHash string
				if err := rows.Scan(&chainID, &txHash, &logIndex, &contract, &depositor, &amount, &recipient, &block, &blockHash, &onchain); err != nil {
					return err
				}
				d := domain.DepositDetected{BlockNumber: uint64(block), OnChainID: uint64(onchain)}
				var errs [7]error
				d.Ref, errs[0] = refOf(chainID, txHash, logIndex)
				d.Contract, errs[1] = domain.ParseAddress(contract)
				d.Depositor, errs[2] = domain.ParseAddress(depositor)
				d.Amount, errs[3] = domain.ParseAmount(amount)
				d.Recipient, errs[4] = domain.ParseAddress(recipient)
				d.BlockHash, errs[5] = domain.ParseHash32(blockHash)
				if err := errors.Join(errs[:]...); err != nil {
					return fmt.Errorf("%s %s:%d: %w", t, txHash, logIndex, err)
				}
				out = append(out, domain.MintTask{Deposit: d})
				return nil
			})
		if err != nil {
			return err
		}
		for i := range out {
			if out[i].Open, err = openIntents(ctx, tx, out[i].Deposit.AggregateID()); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// unbatched reads the confirmed withdrawals in no batch: on(withdrawals,
// batch_leaves); unbatchedAll, on(withdrawals), reads them all while no
// batch table was built.
var unbatched, unbatchedAll = func() (liveSQL, liveSQL) {
	w, l := withdrawalTable.as("w"), leafTable.as("l")
	head := "SELECT " + w.list("chain_id", "tx_hash", "log_index", "onchain_id", "withdrawer", "recipient", "amount", "confirmed_at") +
		" FROM "
	where := " " + w.alias + " WHERE " + w.col("status") + " = ?"
	order := " ORDER BY " + w.list("onchain_id", "tx_hash", "log_index") + " LIMIT ?"
	// A batch created but not yet marked on its withdrawals (a crash in
	// between) still owns them.
	notBatched := " " + l.alias + " WHERE " + l.col("w_tx_hash") + " = " + w.col("tx_hash") +
		" AND " + l.col("w_log_index") + " = " + w.col("log_index") + ")"
	return liveSQL{head, where + " AND NOT EXISTS (SELECT 1 FROM ", notBatched + order}, liveSQL{head, where + order}
}()

// Unbatched lists confirmed withdrawals that are in no batch yet, lowest
// on-chain id first.
func (r BridgeReader) Unbatched(ctx context.Context, limit int) ([]domain.PendingWithdrawal, error) {
	var out []domain.PendingWithdrawal
	err := r.read(ctx, func(tx Tx) error {
		wt, err := table(ctx, tx, Withdrawals{}.Name(), "withdrawals")
		if err != nil || wt == "" {
			return err
		}
		bt, err := table(ctx, tx, Batches{}.Name(), "batch_leaves")
		if err != nil {
			return err
		}
		q := unbatchedAll.on(wt)
		if bt != "" {
			q = unbatched.on(wt, bt)
		}
		return queryEach(ctx, tx, q,
			[]any{string(domain.StatusConfirmed), limit}, func(rows RowScanner) error {
				var chainID, logIndex, onchain int64
				var txHash, withdrawer, recipient, amount string
				var confirmedAt sql.NullString
				if err := rows.Scan(&chainID, &txHash, &logIndex, &onchain, &withdrawer, &recipient, &amount, &confirmedAt); err != nil {
					return err
				}
				w := domain.PendingWithdrawal{TxID: uint64(onchain)}
				var errs [5]error
				w.Ref, errs[0] = refOf(chainID, txHash, logIndex)
				w.Funder, errs[1] = domain.ParseAddress(withdrawer)
				w.Recipient, errs[2] = domain.ParseAddress(recipient)
				w.Amount, errs[3] = domain.ParseAmount(amount)
				if confirmedAt.Valid {
					w.ConfirmedAt, errs[4] = ParseTime(confirmedAt.String)
				}
				if err := errors.Join(errs[:]...); err != nil {
					return fmt.Errorf("%s %s:%d: %w", wt, txHash, logIndex, err)
				}
				out = append(out, w)
				return nil
			})
	})
	return out, err
}

// BridgeStats summarises the bridge for operators and the devnet summary.
type BridgeStats struct {
	Deposits    map[string]int64 // by status
	Withdrawals map[string]int64 // by status
	Batches     map[string]int64 // by status
	Conflicts   int64            // events recorded as conflicting duplicates
	// Gas used by settled transactions, per purpose (mint, anchor, claim):
	// what each costs, from the relay's own outcomes.
	Gas map[string]GasStats
}

// GasStats are the gas figures of one kind of transaction.
type GasStats struct {
	Count  int64
	Total  int64
	Median int64
	Max    int64
}

// The statements of Stats: rows by status, and settled transactions' gas.
var (
	depositsByStatus    = depositTable.countBy("status")
	withdrawalsByStatus = withdrawalTable.countBy("status")
	batchesByStatus     = batchTable.countBy("status")
	gasUsed             = txIntentTable.selectLive("status = ? AND gas_used > 0 ORDER BY purpose, gas_used", "purpose", "gas_used")
)

// Stats reads the bridge's counters.
func (r BridgeReader) Stats(ctx context.Context) (BridgeStats, error) {
	s := BridgeStats{Deposits: map[string]int64{}, Withdrawals: map[string]int64{}, Batches: map[string]int64{}, Gas: map[string]GasStats{}}
	err := r.read(ctx, func(tx Tx) error {
		count := func(projection, base string, byStatus liveSQL, into map[string]int64) error {
			t, err := table(ctx, tx, projection, base)
			if err != nil || t == "" {
				return err
			}
			return queryEach(ctx, tx, byStatus.on(t), nil, func(rows RowScanner) error {
				var k string
				var n int64
				if err := rows.Scan(&k, &n); err != nil {
					return err
				}
				into[k] = n
				return nil
			})
		}
		if err := errors.Join(
			count(Deposits{}.Name(), "deposits", depositsByStatus, s.Deposits),
			count(Withdrawals{}.Name(), "withdrawals", withdrawalsByStatus, s.Withdrawals),
			count(Batches{}.Name(), "batches", batchesByStatus, s.Batches),
		); err != nil {
			return err
		}
		if t, err := table(ctx, tx, ProcessedEventsName, "event_conflicts"); err != nil {
			return err
		} else if t != "" {
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM `+t).Scan(&s.Conflicts); err != nil {
				return err
			}
		}
		t, err := table(ctx, tx, TxIntents{}.Name(), "tx_intents")
		if err != nil || t == "" {
			return err
		}
		all := map[string][]int64{}
		err = queryEach(ctx, tx, gasUsed.on(t),
			[]any{string(domain.TxSucceeded)}, func(rows RowScanner) error {
				var p string
				var g int64
				if err := rows.Scan(&p, &g); err != nil {
					return err
				}
				all[p] = append(all[p], g)
				return nil
			})
		if err != nil {
			return err
		}
		for p, gs := range all {
			st := GasStats{Count: int64(len(gs)), Median: gs[len(gs)/2], Max: gs[len(gs)-1]}
			for _, g := range gs {
				st.Total += g
			}
			s.Gas[p] = st
		}
		return nil
	})
	return s, err
}

// ChainCursorRow is one chain's indexer cursor, for status displays.
type ChainCursorRow struct {
	ChainID uint64
	domain.Cursor
}

// Cursors lists every chain's indexer cursor.
func (r BridgeReader) Cursors(ctx context.Context) ([]ChainCursorRow, error) {
	var out []ChainCursorRow
	err := r.read(ctx, func(tx Tx) error {
		t, err := table(ctx, tx, ChainCursors{}.Name(), "chain_cursors")
		if err != nil || t == "" {
			return err
		}
		return queryEach(ctx, tx, cursorsAll.on(t), nil,
			func(rows RowScanner) error {
				var r cursorRow
				if err := cursorTable.scan(rows, &r); err != nil {
					return err
				}
				c := ChainCursorRow{ChainID: uint64(r.chainID)}
				c.ScannedTo, c.Tip, c.Reorgs, c.RejectedLogs, c.Found = uint64(r.scannedTo), uint64(r.tip), r.reorgs, r.rejectedLogs, true
				out = append(out, c)
				return nil
			})
	})
	return out, err
}
