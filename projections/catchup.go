package projections

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"golang.org/x/sync/errgroup"
)

// batch is a run of decoded events with the offsets it brings each
// partition to.
type batch struct {
	evs     []*Event
	mem     batchMemory // what evs were read into, if not memory of their own
	next    map[tp]int64
	records int64
	skipped int64
}

// CatchUp folds every event between the checkpoints and the log's end (as
// it was when CatchUp started), then switches building versions that are
// level to live.
func (r *Runner) CatchUp(ctx context.Context) (Summary, error) {
	sum := Summary{Applied: map[string]int64{}}
	from, end, total, err := r.bounds(ctx)
	if err != nil {
		return sum, err
	}
	if err := r.reloadIfEmpty(ctx, end); err != nil {
		return sum, err
	}
	if len(r.judge.cp) == 0 {
		// Nothing committed: the table is empty and the cache starts
		// afresh (an abort may have dropped it).
		r.cache = newDedupCache(true, r.cfg.cacheMax)
	}
	if err := r.rebuild.prepare(ctx, end, total); err != nil {
		return sum, err
	}
	defer r.endSessions()
	if total > 0 {
		g, gctx := errgroup.WithContext(ctx)
		batches := make(chan *batch, 1)
		g.Go(func() error {
			defer close(batches)
			return r.readLog(gctx, from, end, batches)
		})
		g.Go(func() error {
			return r.rebuild.pipeline(func() error { return r.foldBatches(gctx, batches, total, &sum) })
		})
		if err := g.Wait(); err != nil {
			return sum, err
		}
	}
	r.endSessions() // their memory is not needed to finish the load
	if err := r.rebuild.finish(ctx); err != nil {
		return sum, err
	}
	if err := r.switchLevel(ctx, end, &sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// foldBatches judges and folds the batches as they come, one transaction
// spanning batches up to commitEvery records.
func (r *Runner) foldBatches(ctx context.Context, batches <-chan *batch, total int64, sum *Summary) error {
	var done, committed int64
	var p *pending
	for b := range batches {
		if p == nil {
			var err error
			if p, err = r.begin(ctx); err != nil {
				return err
			}
		}
		if err := r.apply(ctx, p, b); err != nil {
			r.abort(p)
			return err
		}
		done += b.records
		// One transaction spans batches up to commitEvery records:
		// every commit rewrites the pages it dirtied, and random
		// index pages are dirtied again by every batch. Nothing
		// queued means the log is drained: commit now, so live
		// mode stays prompt.
		if p.sum.Records >= int64(r.cfg.commitEvery) || len(batches) == 0 {
			if err := r.commit(ctx, p, sum); err != nil {
				return err
			}
			p, committed = nil, done
		}
		if r.cfg.progress != nil {
			r.cfg.progress(Progress{Done: done, Total: total, Committed: committed})
		}
	}
	if p != nil {
		if err := r.commit(ctx, p, sum); err != nil {
			return err
		}
		if r.cfg.progress != nil {
			r.cfg.progress(Progress{Done: done, Total: total, Committed: done})
		}
	}
	return r.rebuild.settle() // the last commit's flush
}

// bounds computes, per partition, where reading starts (the lowest
// checkpoint of any projection reading it) and ends.
func (r *Runner) bounds(ctx context.Context) (from, end map[tp]int64, total int64, err error) {
	from, end = map[tp]int64{}, map[tp]int64{}
	for _, t := range r.read {
		ends, err := r.log.EndOffsets(ctx, t)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("end offsets of %s: %w", t, err)
		}
		if err := r.checkSameLog(ctx, t, ends); err != nil {
			return nil, nil, 0, err
		}
		for p, e := range ends {
			k := tp{t, int32(p)}
			if r.cfg.stopAt != nil {
				e = r.cfg.stopAt[k]
			}
			start := e
			for _, s := range r.all() {
				if s.reads(t) {
					start = min(start, s.cp[k])
				}
			}
			end[k], from[k] = e, start
			if e > start {
				total += e - start
			}
		}
	}
	return from, end, total, nil
}

// pending is an open transaction spanning one or more batches: rows,
// checkpoints and counts become visible together at commit.
type pending struct {
	tx      StoreTx
	moved   map[*state]checkpoint
	sum     Summary
	applied map[*state]int
	dups    int
	confl   int
}

func (r *Runner) begin(ctx context.Context) (*pending, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &pending{tx: tx, moved: map[*state]checkpoint{}, applied: map[*state]int{}}, nil
}

// abort rolls back; the dedup cache may hold keys of the lost batches.
func (r *Runner) abort(p *pending) {
	r.rebuild.settle() // no fold may still use the transaction
	p.tx.Rollback()
	r.cache.drop()
}

// apply folds one batch into the open transaction.
func (r *Runner) apply(ctx context.Context, p *pending, b *batch) error {
	// Events every projection has already folded (a lower checkpoint of
	// another one made the reader start earlier) are dropped here. The
	// committed checkpoints suffice: batches of one catch-up come in
	// offset order.
	all := r.all()
	filters := make([]pendingFilter, len(all))
	for i, s := range all {
		filters[i].s = s
	}
	evs := b.evs[:0:0]
	for _, ev := range b.evs {
		for i := range filters {
			if filters[i].admits(ev) {
				evs = append(evs, ev)
				break
			}
		}
	}
	tx := p.tx
	js, err := r.dedup.judge(ctx, tx, evs, r.judge.cp, r.cache)
	if err != nil {
		r.cfg.metrics.Error(r.judge.label())
		return fmt.Errorf("%s: %w", r.judge.label(), err)
	}
	// Once folded, the batch's events are done with: its memory is
	// handed back (a failed batch leaves it to the collector).
	if err := r.rebuild.beside(func() error {
		if err := r.fold(ctx, p, evs); err != nil {
			return err
		}
		if b.mem != nil {
			b.mem.release()
		}
		return nil
	}); err != nil {
		return err
	}
	for _, s := range all {
		for k, next := range b.next {
			if !s.reads(k.topic) || next <= s.cp[k] {
				continue
			}
			if p.moved[s] == nil {
				p.moved[s] = checkpoint{}
			}
			p.moved[s][k] = max(p.moved[s][k], next)
		}
	}
	p.sum.Records += b.records
	p.sum.Skipped += b.skipped
	p.sum.First += int64(js.first)
	p.sum.Duplicates += int64(js.duplicates)
	p.sum.Conflicts += int64(js.conflicts)
	p.dups += js.duplicates
	p.confl += js.conflicts
	return nil
}

// pendingFilter says which events a projection has not folded yet: those
// of topics it reads at or past its checkpoint. A batch holds long runs of
// one partition, so it looks the checkpoint up once per run, not once per
// event (two map look-ups hashing the topic, for every event and state).
type pendingFilter struct {
	s     *state
	topic string
	part  int32
	known bool // topic and part are the run's
	reads bool
	from  int64
}

func (f *pendingFilter) admits(ev *Event) bool {
	p := ev.Position
	if !f.known || p.Partition != f.part || p.Topic != f.topic {
		f.topic, f.part, f.known = p.Topic, p.Partition, true
		f.reads = f.s.reads(p.Topic)
		f.from = f.s.cp[tp{p.Topic, p.Partition}]
	}
	return f.reads && p.Offset >= f.from
}

// fold applies a judged batch to every projection but the dedup table.
func (r *Runner) fold(ctx context.Context, p *pending, evs []*Event) error {
	var mine []*Event
	for _, s := range r.states {
		mine = mine[:0]
		f := pendingFilter{s: s}
		for _, ev := range evs {
			if (ev.Verdict == First || s.everyVerdict) && f.admits(ev) {
				mine = append(mine, ev)
			}
		}
		if len(mine) == 0 {
			continue
		}
		var err error
		if s.session != nil {
			err = s.session.ApplyBatch(ctx, p.tx, mine)
		} else {
			for _, ev := range mine {
				if err = s.p.Apply(ctx, p.tx, ev); err != nil {
					err = fmt.Errorf("event %s (%s) at %s: %w", ev.Envelope.ID, ev.Envelope.Type, FormatPosition(ev.Position), err)
					break
				}
			}
		}
		if err != nil {
			r.cfg.metrics.Error(s.label())
			return fmt.Errorf("projection %s: %w", s.label(), err)
		}
		p.applied[s] += len(mine)
	}
	return nil
}

// commit writes the checkpoints into the transaction and commits it.
func (r *Runner) commit(ctx context.Context, p *pending, sum *Summary) error {
	if err := r.rebuild.settle(); err != nil {
		r.abort(p)
		return err
	}
	flush := func() error {
		for _, s := range r.states {
			if s.session == nil {
				continue
			}
			if err := s.session.Flush(ctx, p.tx); err != nil {
				r.cfg.metrics.Error(s.label())
				return fmt.Errorf("projection %s: %w", s.label(), err)
			}
		}
		return nil
	}
	// The rebuild may flush beside the next batch's judging when nothing
	// of the load counts before the whole of it is done; a failure then
	// stops the load at the next job or wait.
	if err := r.rebuild.beside(flush); err != nil {
		r.abort(p)
		return err
	}
	for s, cp := range p.moved {
		for k, next := range cp {
			prev, had := s.cp[k]
			if err := advanceCheckpoint(ctx, p.tx, s.p.Name(), s.p.Version(), k, prev, had, next); err != nil {
				r.abort(p)
				if errors.Is(err, ErrCheckpointMoved) {
					r.cfg.metrics.Error(s.label())
					r.cfg.logger.Warn("another runner committed to this store; batch rolled back, checkpoints reloaded",
						"projection", s.p.Name(), "version", s.p.Version(), "store", r.store.Where(), "err", err)
					if rerr := r.reloadCheckpoints(ctx); rerr != nil {
						return errors.Join(err, rerr)
					}
					return err
				}
				return fmt.Errorf("checkpoint %s: %w", s.label(), err)
			}
		}
	}
	if err := p.tx.Commit(); err != nil {
		r.cache.drop()
		return err
	}
	for s, cp := range p.moved {
		for k, v := range cp {
			s.cp[k] = v
		}
	}
	sum.Add(p.sum)
	for s, n := range p.applied {
		sum.Applied[s.label()] += int64(n)
		r.cfg.metrics.Applied(s.p.Name(), n)
	}
	r.cfg.metrics.Duplicate(p.dups)
	r.cfg.metrics.Conflict(p.confl)
	r.cfg.logger.Debug("batch committed", "records", p.sum.Records, "first", p.sum.First,
		"duplicates", p.dups, "conflicts", p.confl, "skipped", p.sum.Skipped)
	return nil
}

// reloadCheckpoints reads every checkpoint back from the store. If
// another runner has moved the dedup table's, the key cache no longer
// knows every key in it and is dropped.
func (r *Runner) reloadCheckpoints(ctx context.Context) error {
	committed, err := r.committedCheckpoints(ctx)
	if err != nil {
		return err
	}
	for s, cp := range committed {
		if s == r.judge && !maps.Equal(cp, s.cp) {
			r.cache.drop()
		}
		s.cp = cp
	}
	return nil
}

// committedCheckpoints reads every projection's checkpoint from the store.
func (r *Runner) committedCheckpoints(ctx context.Context) (map[*state]checkpoint, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	committed := map[*state]checkpoint{}
	for _, s := range r.all() {
		cp, err := loadCheckpoint(ctx, tx, s.p.Name(), s.p.Version())
		if err != nil {
			return nil, fmt.Errorf("store %s: checkpoint of %s: %w", r.store.Where(), s.label(), err)
		}
		committed[s] = cp
	}
	return committed, nil
}

func (r *Runner) endSessions() {
	for _, s := range r.states {
		s.session = nil
	}
}

// startsEmpty says whether s starts this catch-up (reading up to end)
// with empty tables and records to fold: one whose topics are still
// empty has nothing to load.
func startsEmpty(s *state, end map[tp]int64) bool {
	if len(s.cp) > 0 {
		return false
	}
	for k, e := range end {
		if s.reads(k.topic) && e > 0 {
			return true
		}
	}
	return false
}

// reloadIfEmpty reloads the checkpoints when a projection's tables look
// empty, so that no other runner on this store has filled them since: a
// load from zero must not start over rows.
func (r *Runner) reloadIfEmpty(ctx context.Context, end map[tp]int64) error {
	for _, s := range r.all() {
		if startsEmpty(s, end) {
			return r.reloadCheckpoints(ctx)
		}
	}
	return nil
}
