package projections

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// The fast rebuild: how a runner loads projections whose tables are
// empty, several times faster than folding them through SQL.
//
//   - Deferred indexes: a from-zero table's secondary indexes are dropped
//     before the load and built once after it, when the projection can do
//     without them meanwhile (processed_events, whose key cache holds
//     every key, and projections implementing [SessionFolder]).
//   - Staging: a store implementing [BulkLoader] keeps those tables' rows
//     out of SQL until the load is done and writes each once, in key
//     order, with its indexes (see staging.go; SQLite spills them to
//     files).
//   - The fold pipeline: with every table staged, the projections fold a
//     batch on a goroutine of their own while the judge takes the next
//     (see [foldPipe]).
//   - Read buffers: when every projection is [BatchScoped] and the log
//     reads into buffers it is given, batches share a pool of them (see
//     readbuffers.go).

// GCPercent is the collector target (as GOGC) the bridgelog binary's
// rebuilding commands (replay, verify, project, demo) run with unless GOGC
// is set, and the rebuild benchmarks with it: the heap may grow by 70% of
// what is live between collections, not Go's 100%. A rebuild's memory is
// mostly live (key cache, slabs, stages) and, on the VMs measured, memory
// taken anew costs more than collecting: a rebuild of a million events
// peaks about 35 MB lower and is no slower (BENCHMARKS.md). The Runner
// does not set it: it is the process's.
const GCPercent = 70

// NewFastRebuild makes a runner's fast [Rebuilder] (see [WithRebuilder]).
func NewFastRebuild() Rebuilder {
	return &fastRebuild{indexless: map[*state]bool{}, staged: map[*state]bool{}}
}

type fastRebuild struct {
	r *Runner
	// recycle: every projection is [BatchScoped], so a catch-up may reuse
	// its read and decode memory batch after batch.
	recycle bool
	pipe    *foldPipe // during a catch-up whose folds run beside the judge
	// indexless: a from-zero catch-up dropped the tables' secondary
	// indexes and has not built them again yet.
	indexless map[*state]bool
	// staged: this catch-up loads the tables from zero through the
	// store's [BulkLoader], which builds them with their indexes.
	staged map[*state]bool
}

func (f *fastRebuild) attach(r *Runner, all []Projection) {
	f.r, f.recycle = r, true
	for _, p := range all {
		if _, ok := p.(BatchScoped); !ok {
			f.recycle = false
			r.cfg.logger.Info("catch-ups read the log into fresh memory: a projection does not declare that it keeps nothing past a batch",
				"projection", p.Name(), "version", p.Version())
		}
	}
}

// batchMemory shares a pool of read buffers between the catch-up's
// batches when the log reads into buffers it is given and no projection
// keeps an event past its batch; the pool ends with the catch-up.
func (f *fastRebuild) batchMemory() func() batchMemory {
	into, ok := f.r.log.(intoReader)
	if !ok || !f.recycle {
		return nil
	}
	slabs := newSlabPool()
	return func() batchMemory { return &readArena{pool: slabs, into: into} }
}

// pipeline runs the batches with the folds beside the judge when it may
// (see [fastRebuild.pipelined]).
func (f *fastRebuild) pipeline(batches func() error) (err error) {
	if !f.pipelined() {
		return batches()
	}
	f.r.cfg.logger.Debug("projections fold beside the dedup judge", "projections", f.r.names())
	f.pipe = newFoldPipe()
	defer func() {
		f.pipe.stop()
		f.pipe = nil
		// A fold or flush may fail after its batch committed (the last
		// commit's flush always runs after it): no transaction is left to
		// roll back, so the load is failed here, whatever failed.
		if err != nil {
			f.r.store.(BulkLoader).Abandon(err)
		}
	}()
	return batches()
}

// finish writes the staged tables and builds the dropped indexes.
func (f *fastRebuild) finish(ctx context.Context) error {
	if len(f.indexlessStates()) > 0 {
		// Nor is the dedup key cache needed (32 MB a million keys): once
		// the load is done the table has its source_hash index, through
		// which any later batch finds its keys, as on a store that was
		// not empty.
		f.r.cache.drop()
		// Hand the load's garbage back before the tables are written or
		// SQLite sorts the indexes: the two would otherwise add up in the
		// peak resident set.
		debug.FreeOSMemory()
	}
	if err := f.materialize(ctx); err != nil {
		return err
	}
	return f.buildIndexes(ctx, f.indexlessStates())
}

// prepare starts the catch-up's sessions. A projection whose tables are
// empty (no checkpoint yet) is loaded from zero: its secondary indexes are
// dropped now and built once at the end (see [SessionFolder]). Only
// processed_events (when its key cache can hold every event) and
// projections with sessions can do without their indexes. An index-less
// projection that is not from zero any more (an earlier catch-up failed
// half-way) gets its indexes back first.
func (f *fastRebuild) prepare(ctx context.Context, end map[tp]int64, total int64) error {
	r := f.r
	var drop, restore []*state
	for _, s := range r.all() {
		fromZero := startsEmpty(s, end)
		if s == r.judge {
			if fromZero && total > int64(r.cache.room()) {
				fromZero = false
				r.cfg.logger.Warn("processed_events not loaded from zero: more records than its key cache holds; "+
					"it folds through the store's engine and index, several times slower (raise the bound: --dedup-cache-keys)",
					"records", total, "cache_keys", r.cache.room())
			}
			if fromZero {
				r.cache.reserve(int(total))
			}
		} else {
			fromZero = fromZero && s.folder != nil
		}
		if s.folder != nil {
			s.session = s.folder.NewSession(fromZero)
		}
		if fromZero && !f.indexless[s] {
			drop = append(drop, s)
		}
		if !fromZero && f.indexless[s] {
			restore = append(restore, s)
		}
	}
	if err := f.buildIndexes(ctx, restore); err != nil {
		return err
	}
	if err := f.indexDDL(ctx, drop, Table.DropIndexDDL); err != nil {
		return err
	}
	for _, s := range drop {
		f.indexless[s] = true
		r.cfg.logger.Debug("projection loading from zero without its indexes", "projection", s.p.Name(), "version", s.p.Version())
	}
	return f.stage(ctx, drop)
}

// stage hands the tables of from-zero loads to the store, if it can load
// them itself (see [BulkLoader]).
func (f *fastRebuild) stage(ctx context.Context, fromZero []*state) error {
	r := f.r
	bl, ok := r.store.(BulkLoader)
	if !ok || len(fromZero) == 0 {
		return nil
	}
	var tables []Table
	for _, s := range fromZero {
		tables = append(tables, s.p.Tables()...)
	}
	if err := bl.Stage(ctx, tables); err != nil {
		return fmt.Errorf("store %s: stage: %w", r.store.Where(), err)
	}
	for _, s := range fromZero {
		f.staged[s] = true
		r.cfg.logger.Debug("projection loading from zero through the store's bulk loader", "projection", s.p.Name(), "version", s.p.Version())
	}
	return nil
}

// materialize has the store write the staged tables, indexes included.
func (f *fastRebuild) materialize(ctx context.Context) error {
	r := f.r
	var staged []*state
	for _, s := range r.all() {
		if f.staged[s] {
			staged = append(staged, s)
		}
	}
	if len(staged) == 0 {
		return nil
	}
	start := time.Now()
	if err := r.store.(BulkLoader).Materialize(ctx); err != nil {
		for _, s := range staged {
			r.cfg.metrics.Error(s.label())
		}
		return fmt.Errorf("store %s: materialize: %w", r.store.Where(), err)
	}
	for _, s := range staged {
		delete(f.staged, s)
		delete(f.indexless, s)
		r.cfg.logger.Debug("projection tables written with their indexes", "projection", s.p.Name(), "version", s.p.Version(), "took", time.Since(start))
	}
	return nil
}

// indexDDL runs ddl's statements for every table of states, in one
// transaction.
func (f *fastRebuild) indexDDL(ctx context.Context, states []*state, ddl func(Table) []string) error {
	r := f.r
	if len(states) == 0 {
		return nil
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range states {
		for _, t := range s.p.Tables() {
			for _, q := range ddl(t) {
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("store %s: %s of %s: %w", r.store.Where(), q, s.label(), err)
				}
			}
		}
	}
	return tx.Commit()
}

// indexlessStates lists the projections whose secondary indexes prepare
// dropped.
func (f *fastRebuild) indexlessStates() []*state {
	var out []*state
	for _, s := range f.r.all() {
		if f.indexless[s] {
			out = append(out, s)
		}
	}
	return out
}

// buildIndexes creates the secondary indexes of todo again.
func (f *fastRebuild) buildIndexes(ctx context.Context, todo []*state) error {
	r := f.r
	for _, s := range todo {
		start := time.Now()
		if err := f.indexDDL(ctx, []*state{s}, Table.IndexDDL); err != nil {
			return err
		}
		delete(f.indexless, s)
		r.cfg.logger.Debug("projection indexes built", "projection", s.p.Name(), "version", s.p.Version(), "took", time.Since(start))
	}
	return nil
}

// pipelined says whether folds may run beside the judge (see [foldPipe]):
// only when every table of the catch-up is staged, so neither side runs
// SQL on the shared transaction, and every projection folds in sessions.
func (f *fastRebuild) pipelined() bool {
	if !f.staged[f.r.judge] {
		return false
	}
	for _, s := range f.r.states {
		if !f.staged[s] || s.session == nil {
			return false
		}
	}
	return true
}

// beside runs job on the folds' goroutine when the load is pipelined
// (returning an earlier job's error, if any), else now.
func (f *fastRebuild) beside(job func() error) error {
	if f.pipe != nil {
		return f.pipe.submit(job)
	}
	return job()
}

// settle waits for the folds submitted in this transaction.
func (f *fastRebuild) settle() error {
	if f.pipe == nil {
		return nil
	}
	return f.pipe.wait()
}
