package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/sqlitefile"
	"github.com/bridgelog/bridgelog/projections"
)

// WithBulkLoad makes the store load tables from zero outside SQLite's
// engine (see [projections.BulkLoader]): while the runner folds, their
// rows go to spill files beside the store; when the load is done each
// table is written once, in key order, as b-tree pages appended to the
// file, with its indexes, and registered in the schema. Inserting the
// rows through the engine, even without indexes, costs several times as
// much.
//
// Only for a store file that no other process opens while it is built:
// a scratch store (verify), or a new one built before it is moved into
// place. Until the load is done the file is in rollback-journal mode and
// its checkpoints are ahead of its rows; a store whose bulk load did not
// finish is refused by every later open ([ErrIncompleteBulkLoad]).
func WithBulkLoad() SQLiteOption { return func(c *sqliteConfig) { c.bulk = true } }

// WithWrittenDigests makes a bulk-loading store hash each table's rows as
// it writes them, so that [projections.DigestOf] takes those digests
// instead of reading every row back through SQLite: for a store built
// only to be digested (verify's scratch store). A later write to a table
// drops its digest.
func WithWrittenDigests() SQLiteOption { return func(c *sqliteConfig) { c.digests = true } }

// ErrIncompleteBulkLoad: the store was being loaded from zero by a bulk
// load that did not finish; it must be deleted and built again.
var ErrIncompleteBulkLoad = errors.New("store was left half-built by a bulk load")

// ErrBulkLoadFailed: an earlier step of this store's bulk load failed, so
// the store refuses further work.
var ErrBulkLoadFailed = errors.New("bulk load failed earlier")

// bulkEngineCacheKiB is SQLite's page cache while a bulk load is staged.
const bulkEngineCacheKiB = 4 << 10

// bulkMetaKey marks, in store_meta, a store whose bulk load is under way.
const bulkMetaKey = "bulk_load"

// stagePrefix starts the names of a store's spill files.
func stagePrefix(path string) string { return path + ".stage-" }

// removeSpills deletes spill files a killed bulk load left beside the
// store: nothing else may open a bulk-loaded store, so none is in use.
func removeSpills(path string) error {
	old, err := filepath.Glob(stagePrefix(path) + "*.spill")
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	return nil
}

// bulkStore is a SQLite store that stages from-zero loads.
type bulkStore struct {
	*store
	path     string
	cacheKiB int          // the store's page cache, set again after the load's check
	reopen   func() error // opens s.db again once the pages are appended (it is closed meanwhile)
	stages   map[string]*tableStage
	order    []projections.Table
	failed   error
	hashRows bool
	// digests of the tables written, while nothing else has written to
	// them (a transaction's statements may run on more than one goroutine)
	digestMu sync.Mutex
	digests  map[string]projections.TableDigest
}

var (
	_ projections.BulkLoader = (*bulkStore)(nil)
	_ projections.StagingTx  = (*bulkTx)(nil)
)

func (b *bulkStore) Begin(ctx context.Context) (projections.StoreTx, error) {
	if b.failed != nil {
		return nil, fmt.Errorf("store %s: %w: %w", b.where, ErrBulkLoadFailed, b.failed)
	}
	tx, err := b.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &bulkTx{StoreTx: tx, b: b}, nil
}

func (b *bulkStore) Close() error {
	for _, st := range b.stages {
		st.remove()
	}
	b.stages = nil
	return b.store.Close()
}

// fail records the first failure of a load under way (every caller is
// one: the mark is in, rows may be staged).
func (b *bulkStore) fail(err error) {
	if b.failed == nil {
		b.failed = err
	}
}

func (b *bulkStore) Abandon(err error) { b.fail(err) }

func (b *bulkStore) Stage(ctx context.Context, tables []projections.Table) error {
	if b.failed != nil {
		return fmt.Errorf("%w: %w", ErrBulkLoadFailed, b.failed)
	}
	if b.stages == nil {
		b.stages = map[string]*tableStage{}
	}
	// The mark goes in before any row is staged: from now on a crash
	// leaves checkpoints without their rows, and the mark makes every
	// later open refuse the file.
	if _, err := b.db.ExecContext(ctx, `INSERT INTO store_meta (meta_key, meta_value) VALUES (?, 'incomplete')
		ON CONFLICT (meta_key) DO UPDATE SET meta_value = excluded.meta_value`, bulkMetaKey); err != nil {
		return fmt.Errorf("store %s: mark bulk load: %w", b.where, err)
	}
	// The load's own commits (checkpoints only; the rows are in the
	// spills) need not reach the disk: until Materialize clears the mark
	// (on a reopened connection, synchronous again), an interrupted load
	// leaves a store that every open refuses, whether marked or torn by a
	// power loss. Not syncing them spared up to 30% of a rebuild while
	// fsyncs were slow here, nothing when they were fast.
	if _, err := b.db.ExecContext(ctx, `PRAGMA synchronous = OFF`); err != nil {
		return fmt.Errorf("store %s: %w", b.where, err)
	}
	// Meanwhile SQLite's engine keeps only the checkpoints and the tables
	// that are not staged: a small page cache serves them (the OS caches
	// the file as well), where the store's full one would fill with an
	// unstaged table's pages on top of the load's own memory.
	if _, err := b.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, min(b.cacheKiB, bulkEngineCacheKiB))); err != nil {
		return fmt.Errorf("store %s: %w", b.where, err)
	}
	for _, t := range tables {
		if _, dup := b.stages[t.Name]; dup {
			err := fmt.Errorf("store %s: table %s staged twice", b.where, t.Name)
			b.fail(err)
			return err
		}
		st, err := newTableStage(stagePrefix(b.path), t)
		if err != nil {
			b.fail(err)
			return err
		}
		b.stages[t.Name] = st
		b.order = append(b.order, t)
	}
	return nil
}

func (b *bulkStore) Materialize(ctx context.Context) (err error) {
	if b.failed != nil {
		return fmt.Errorf("%w: %w", ErrBulkLoadFailed, b.failed)
	}
	defer func() {
		if err != nil {
			b.fail(err)
		}
	}()
	if len(b.stages) == 0 {
		return nil
	}
	// The empty tables the runner created go (their pages to the free
	// list); the built ones are registered under the same names.
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range b.order {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+t.Name); err != nil {
			tx.Rollback()
			return fmt.Errorf("drop %s: %w", t.Name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// No connection may hold the file's pages while pages are appended.
	if err := b.db.Close(); err != nil {
		return err
	}
	entries, counts, digests, err := b.write()
	if rerr := b.reopen(); rerr != nil {
		return errors.Join(err, rerr)
	}
	if err != nil {
		return err
	}
	if err := sqlitefile.Register(ctx, b.db, entries); err != nil {
		return fmt.Errorf("register built tables: %w", err)
	}
	// A cheap check that SQLite sees what was written: every table's rows.
	// Counting walks a whole index; through a small page cache, so the
	// check does not leave the store's full cache behind it.
	if _, err := b.db.ExecContext(ctx, `PRAGMA cache_size = -2048`); err != nil {
		return err
	}
	defer b.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, b.cacheKiB))
	for name, want := range counts {
		var got int
		if err := b.db.QueryRowContext(ctx, `SELECT count(*) FROM `+name).Scan(&got); err != nil {
			return fmt.Errorf("count %s: %w", name, err)
		}
		if got != want {
			return fmt.Errorf("table %s: SQLite reads %d rows, %d were written", name, got, want)
		}
	}
	if _, err := b.db.ExecContext(ctx, `DELETE FROM store_meta WHERE meta_key = ?`, bulkMetaKey); err != nil {
		return fmt.Errorf("clear bulk load mark: %w", err)
	}
	for _, st := range b.stages {
		st.remove()
	}
	b.stages, b.order = nil, nil
	if digests != nil {
		b.digestMu.Lock()
		if b.digests == nil {
			b.digests = map[string]projections.TableDigest{}
		}
		maps.Copy(b.digests, digests)
		b.digestMu.Unlock()
	}
	return nil
}

// write appends every staged table, with its indexes, to the closed file,
// and returns their schema entries, row counts and (if the store hashes
// rows) digests.
func (b *bulkStore) write() ([]sqlitefile.SchemaEntry, map[string]int, map[string]projections.TableDigest, error) {
	// The runner logs the load; the appender's own info lines would
	// repeat it, its warnings (direct writes refused) would not.
	a, err := sqlitefile.Open(b.path, sqlitefile.WithLogger(slog.New(warnings{slog.Default().Handler()})))
	if err != nil {
		return nil, nil, nil, err
	}
	var entries []sqlitefile.SchemaEntry
	type writtenTable struct {
		t    projections.Table
		def  *sqlitefile.TableDef
		root uint32
		ix   *sqlitefile.PendingIndexes
	}
	var written []writtenTable
	// attach appends the indexes of the written tables, in order, that
	// are built (all: waiting for them), and their tables' schema entries.
	attach := func(all bool) error {
		for len(written) > 0 && (all || written[0].ix.Ready()) {
			w := written[0]
			written = written[1:]
			roots, err := w.ix.Attach()
			if err != nil {
				return fmt.Errorf("table %s: %w", w.t.Name, err)
			}
			entries = append(entries, schemaEntries(w.t, w.def, w.root, roots)...)
		}
		return nil
	}
	counts := map[string]int{}
	var digests map[string]projections.TableDigest
	if b.hashRows {
		digests = map[string]projections.TableDigest{}
	}
	for i, t := range b.order {
		st := b.stages[t.Name]
		lastTable := i == len(b.order)-1
		if lastTable {
			// No table follows for an index build to overlap with: the
			// earlier tables' indexes go first, and this one's are built
			// straight into the file. Holding index pages in memory while
			// the largest table's entries were sorted set the load's peak.
			if err := attach(true); err != nil {
				a.Abort()
				return nil, nil, nil, err
			}
		}
		tw, def, n, err := b.writeRows(a, t, st, digests)
		if err != nil {
			a.Abort()
			return nil, nil, nil, err
		}
		if lastTable {
			roots, err := tw.Finish()
			if err != nil {
				a.Abort()
				return nil, nil, nil, fmt.Errorf("table %s: %w", t.Name, err)
			}
			entries = append(entries, schemaEntries(t, def, roots.Table, roots.Indexes)...)
		} else {
			// The table's indexes are sorted and built on another goroutine
			// while the next table's rows are written (one core was idle
			// here), and appended at the first table boundary after that.
			root, ix, err := tw.FinishDeferred()
			if err != nil {
				a.Abort()
				return nil, nil, nil, fmt.Errorf("table %s: %w", t.Name, err)
			}
			written = append(written, writtenTable{t: t, def: def, root: root, ix: ix})
		}
		counts[t.Name] = n
		// The spill's key map is not needed any more; drop it before the
		// next table's index entries are sorted.
		st.at = stageIndex{}
		// Indexes already built are appended now, between tables, so
		// their pages are not held in memory any longer than that.
		if err := attach(false); err != nil {
			a.Abort()
			return nil, nil, nil, err
		}
	}
	if err := attach(true); err != nil {
		a.Abort()
		return nil, nil, nil, err
	}
	if err := a.Commit(); err != nil {
		return nil, nil, nil, err
	}
	return entries, counts, digests, nil
}

// writeRows writes the rows of staged table t in key order, their index
// entries kept for its writer's Finish; with digests, it takes the
// table's digest as it goes.
func (b *bulkStore) writeRows(a *sqlitefile.Appender, t projections.Table, st *tableStage,
	digests map[string]projections.TableDigest) (*sqlitefile.TableWriter, *sqlitefile.TableDef, int, error) {
	if err := st.flush(); err != nil {
		return nil, nil, 0, err
	}
	def := &sqlitefile.TableDef{Name: t.Name, Cols: len(st.cols), RowidCol: st.key, Rows: st.at.len()}
	for _, ix := range t.Indexes {
		d := sqlitefile.IndexDef{Name: t.IndexName(ix), Unique: ix.Unique}
		for _, c := range ix.Columns {
			d.Columns = append(d.Columns, slices.Index(st.cols, c))
		}
		def.Indexes = append(def.Indexes, d)
	}
	tw, err := a.Table(*def)
	if err != nil {
		return nil, nil, 0, err
	}
	var rh *rowHasher
	if digests != nil {
		rh = &rowHasher{th: projections.NewTableHasher(t), t: t, key: st.key}
	}
	n := 0
	err = st.readInOrder(func(id int64, rec []byte) error {
		if err := tw.AddRecord(id, rec); err != nil {
			return fmt.Errorf("table %s row %d: %w", t.Name, id, err)
		}
		if rh != nil {
			if err := rh.add(id, rec); err != nil {
				return fmt.Errorf("table %s row %d: %w", t.Name, id, err)
			}
		}
		n++
		return nil
	})
	if err != nil {
		return nil, nil, 0, err
	}
	if rh != nil {
		digests[t.Name] = rh.th.Digest()
	}
	return tw, def, n, nil
}

// schemaEntries are the sqlite_schema entries of a written table t and
// its indexes (roots by index name).
func schemaEntries(t projections.Table, def *sqlitefile.TableDef, root uint32, roots map[string]uint32) []sqlitefile.SchemaEntry {
	ddl := t.DDL(projections.SQLite)
	entries := []sqlitefile.SchemaEntry{{Type: "table", Name: t.Name, Table: t.Name, Root: root, SQL: schemaSQL(ddl[0]), Def: def}}
	for i, ix := range t.Indexes {
		name := t.IndexName(ix)
		entries = append(entries, sqlitefile.SchemaEntry{Type: "index", Name: name, Table: t.Name,
			Root: roots[name], SQL: schemaSQL(ddl[1+i])})
	}
	return entries
}

// rowHasher feeds a table's records, as they are written, to its digest.
type rowHasher struct {
	th   *projections.TableHasher
	t    projections.Table
	key  int // the integer primary key: NULL in the record, the rowid in SQL
	vals []sqlitefile.RecordValue
}

func (h *rowHasher) add(id int64, rec []byte) error {
	var err error
	if h.vals, err = sqlitefile.RecordValues(rec, h.vals[:0]); err != nil {
		return err
	}
	if len(h.vals) != len(h.t.Columns) {
		return fmt.Errorf("%d values for %d columns", len(h.vals), len(h.t.Columns))
	}
	for i, v := range h.vals {
		switch {
		case i == h.key:
			err = h.th.Int(id)
		case v.Kind == sqlitefile.NullValue:
			h.th.Null()
		case v.Kind == sqlitefile.IntValue:
			err = h.th.Int(v.Int)
		case v.Kind == sqlitefile.TextValue:
			err = h.th.TextBytes(v.Bytes)
		default: // the stage takes no floats or blobs
			err = fmt.Errorf("column %s: a value of kind %d", h.t.Columns[i].Name, v.Kind)
		}
		if err != nil {
			return err
		}
	}
	return h.th.EndRow()
}

// warnings passes on the records of level Warn and above.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}
func (w warnings) WithAttrs(as []slog.Attr) slog.Handler { return warnings{w.Handler.WithAttrs(as)} }
func (w warnings) WithGroup(name string) slog.Handler    { return warnings{w.Handler.WithGroup(name)} }

// schemaSQL is a CREATE statement as SQLite keeps it in sqlite_schema:
// without IF NOT EXISTS.
func schemaSQL(ddl string) string {
	return strings.Replace(ddl, " IF NOT EXISTS", "", 1)
}

// bulkTx is a transaction of a bulk store.
type bulkTx struct {
	projections.StoreTx
	b    *bulkStore
	used atomic.Bool // something was staged in this transaction (the runner's judge and folds may stage side by side)
	done bool
}

// WrittenDigest returns the digest the load took of table as it wrote it.
func (t *bulkTx) WrittenDigest(table string) (projections.TableDigest, bool) {
	t.b.digestMu.Lock()
	defer t.b.digestMu.Unlock()
	d, ok := t.b.digests[table]
	return d, ok
}

// mayWrite drops the written digests of the tables a statement that may
// write names.
func (t *bulkTx) mayWrite(query string) {
	t.b.digestMu.Lock()
	defer t.b.digestMu.Unlock()
	for name := range t.b.digests {
		if strings.Contains(query, name) {
			delete(t.b.digests, name)
		}
	}
}

// readOnly says a query only reads (a SELECT).
func readOnly(query string) bool {
	q := strings.TrimSpace(query)
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

func (t *bulkTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	t.mayWrite(query)
	return t.StoreTx.Exec(ctx, query, args...)
}

func (t *bulkTx) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !readOnly(query) {
		t.mayWrite(query)
	}
	return t.StoreTx.Query(ctx, query, args...)
}

func (t *bulkTx) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if !readOnly(query) {
		t.mayWrite(query)
	}
	return t.StoreTx.QueryRow(ctx, query, args...)
}

func (t *bulkTx) Staged(table string) projections.TableStage {
	st := t.b.stages[table]
	if st == nil {
		return nil
	}
	t.used.Store(true)
	return st
}

// Rollback of a transaction that staged rows cannot take them back out
// of the spill: the load is over.
func (t *bulkTx) Rollback() error {
	if t.used.Load() && !t.done {
		t.b.fail(errors.New("a transaction that staged rows was rolled back"))
	}
	return t.StoreTx.Rollback()
}

func (t *bulkTx) Commit() error {
	err := t.StoreTx.Commit()
	t.done = true
	if err != nil && t.used.Load() {
		t.b.fail(err)
	}
	return err
}
