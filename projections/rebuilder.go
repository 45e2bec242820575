package projections

import (
	"context"

	"github.com/bridgelog/bridgelog/topics"
)

// Rebuilder is how a [Runner] loads projections whose tables are empty:
// the one seam between catch-ups and the fast rebuild (see
// [NewFastRebuild]). A runner without one folds every batch in place,
// through the store's SQL and indexes, which is correct and slower.
//
// Its methods are the runner's hooks into one catch-up; a Rebuilder is
// made for one runner (see [WithRebuilder]) and keeps what it needs
// between catch-ups.
type Rebuilder interface {
	// attach binds the rebuilder to r, once, before NewRunner plans the
	// versions of all (processed_events first, then every registered
	// projection).
	attach(r *Runner, all []Projection)
	// prepare starts a catch-up that reads up to end (total records):
	// it starts each projection's session and readies the tables of
	// those loaded from zero.
	prepare(ctx context.Context, end map[tp]int64, total int64) error
	// batchMemory returns what makes one batch's read memory, nil for
	// memory of its own for every read.
	batchMemory() func() batchMemory
	// pipeline runs a catch-up's batches (folds) and ends the load if
	// they fail.
	pipeline(batches func() error) error
	// beside runs a fold job of the current transaction: now, or on a
	// goroutine of its own (returning an earlier job's error, if any).
	beside(job func() error) error
	// settle waits for the jobs beside took.
	settle() error
	// finish completes the load after the catch-up's last batch.
	finish(ctx context.Context) error
}

// batchMemory holds one batch's records and decoded events until the
// batch is folded.
type batchMemory interface {
	// read reads up to max records of k from offset from.
	read(ctx context.Context, k tp, from int64, max int) ([]topics.Record, error)
	// newEvents returns n zero events.
	newEvents(n int) []Event
	// release hands the memory back: nothing may use the batch's events
	// afterwards.
	release()
}

// WithRebuilder sets how the runner loads projections from zero: newR
// makes the runner's own [Rebuilder] (as [NewFastRebuild] does); nil
// folds every batch in place. Without this option the runner uses the
// fast rebuild, unless built with the tag nofastrebuild.
func WithRebuilder(newR func() Rebuilder) Option {
	return func(cfg *config) { cfg.rebuilder, cfg.rebuilderSet = newR, true }
}

// inPlace folds every batch through the store's SQL, one transaction at a
// time, with the tables' indexes in place.
type inPlace struct{ r *Runner }

func (p *inPlace) attach(r *Runner, _ []Projection) { p.r = r }

func (p *inPlace) prepare(context.Context, map[tp]int64, int64) error {
	for _, s := range p.r.all() {
		if s.folder != nil {
			s.session = s.folder.NewSession(false)
		}
	}
	return nil
}

func (*inPlace) batchMemory() func() batchMemory     { return nil }
func (*inPlace) pipeline(batches func() error) error { return batches() }
func (*inPlace) beside(job func() error) error       { return job() }
func (*inPlace) settle() error                       { return nil }
func (*inPlace) finish(context.Context) error        { return nil }
