// Package projections keeps bridgelog's state tables as pure folds over the
// log. A [Projection] has a name and a version, declares its tables
// portably (SQLite and PostgreSQL), and folds one event at a time inside a
// store transaction; the [Runner] writes each projection's checkpoint in
// the same transaction as its rows, so a crash never applies an event twice
// or skips one.
//
// Idempotency: the built-in processed_events projection judges every event
// by its source key, first in log order wins. Other projections only ever
// see [First] events; [Duplicate]s are no-ops and [Conflict]s are recorded
// in event_conflicts and never applied. An index of the log itself rather
// than of what it means (audit_keys) sees every verdict: see [EveryVerdict].
//
// # Adding a projection
//
// Batches in bridgeflows.go is a complete one, and relay_bindings
// (bindings.go) a small one; in short:
//
//	type Batches struct{}
//	func (Batches) Name() string      { return "batches" }
//	func (Batches) Version() int      { return 1 }
//	func (Batches) Topics() []string  { return []string{topics.TopicBatches} }
//	func (Batches) Tables() []Table   { return []Table{batchTable.Table} }
//	func (Batches) KeepsNothingPastBatch() {} // see BatchScoped
//
//	type batchRow struct { sequenceID, status string; id int64 }
//	var batchTable = declareTable(Versioned("batches", Batches{}.Version()), []string{"sequence_id", "id"}, nil,
//		strCol("sequence_id", func(r *batchRow) *string { return &r.sequenceID }),
//		i64Col("id", func(r *batchRow) *int64 { return &r.id }),
//		strCol("status", func(r *batchRow) *string { return &r.status }),
//	)
//	var batchInsert = batchTable.insertNewSQL() // ON CONFLICT (sequence_id, id) DO NOTHING
//
//	func (b Batches) Apply(ctx context.Context, tx Tx, ev *Event) error {
//		switch e := ev.Body.(type) {
//		case *domain.BatchCreated:
//			r := batchRow{sequenceID: e.Settlement.SequenceID(), id: int64(e.BatchID), status: "CREATED"}
//			_, err := tx.Exec(ctx, batchInsert, batchTable.args(&r, nil, false)...)
//			return err
//		}
//		return nil // events a projection does not fold are ignored
//	}
//
// Then add it to the set the commands fold ([RelayProjections] or
// [SignerProjections]); NewRunner creates its tables and the next
// catch-up folds the log into them from offset 0. Changing what Apply or
// Tables mean is a new Version: the runner builds it beside the live one
// and switches readers to it once it is level (versions.go).
//
// Rules for Apply: be a pure function of the event and the projection's own
// rows (no clocks: times come from ev.Envelope.OccurredAt/RecordedAt; no
// randomness; no other projection's tables, whose progress differs), and
// make status changes order-independent across partitions (use
// [domain.Advances]), because a replay interleaves partitions differently
// from the live run. Then a rebuild equals the live tables, digest for
// digest ([DigestOf]). Keep nothing of an event past its batch, and say so
// by implementing [BatchScoped]: without it rebuilds are slower, never
// wrong. Write many rows with [Bulk]. A projection with many rows per
// event may fold whole batches instead ([SessionFolder]); it must give
// the rows Apply would.
//
// Every table is declared once, with declareTable (rowtable.go): each
// column binds its name and type to the field of the row struct that
// holds it, and the DDL, the order rows are written, staged, read back
// and digested in all come from that list. So do the statements
// (statements.go): insertSQL, insertNewSQL and upsertSQL write whole
// rows; update("a", "b") sets some columns of a row found by its key;
// selectSQL, updateWhereSQL and deleteSQL take a condition. A reader's
// statement (selectLive, queryLive, countBy) is built once too and
// completed per read with the live table's name (a [liveSQL]). SQL that
// no builder writes (a join, an aggregate, a staged counter) names its
// columns through the declaration: tbl.col("status"), or, in a join,
// tbl.as("w").col("status") for w.status; kept in package variables, so
// that the check runs at load. Every column a statement names is checked
// against the declaration when the package loads, so a misspelt one
// panics at start-up. Adding a column is then a line in the declaration,
// a field in the row, its case in the fold, and a new Version.
//
// # The runner
//
// A [Runner] drives every projection over one store: runner.go holds its
// options, set-up and live mode ([Runner.Follow]); catchup.go a catch-up
// (judge, fold, checkpoints, commit, one transaction per run of batches);
// readlog.go the reading and decoding of the log beside it; versions.go
// which versions run and when a new one goes live; admin.go rebuilds,
// rewinds, digests and checkpoints.
//
// Catch-ups from empty tables (a rebuild, a first build) go through the
// runner's [Rebuilder]. The fast one ([NewFastRebuild], fastrebuild.go,
// the default) defers indexes and has a store that implements
// [BulkLoader] load the tables outside SQL; a projection needs nothing of
// it beyond the optional [BatchScoped] and [SessionFolder]. Built with the
// tag nofastrebuild, or given [WithRebuilder](nil), a runner folds every
// batch in place, through SQL with the tables' indexes: the same tables,
// slower.
package projections
