package projections

import (
	"context"
	"fmt"
	"strings"
)

// Projections lists the projection versions the runner drives, the
// built-in processed_events first.
func (r *Runner) Projections() []Projection {
	var out []Projection
	for _, s := range r.all() {
		out = append(out, s.p)
	}
	return out
}

// Rebuild empties the named projections (every one, with processed_events,
// when names is empty) so that the next catch-up rebuilds them from offset
// 0. Only the versions this binary runs are touched.
func (r *Runner) Rebuild(ctx context.Context, names ...string) error {
	targets, err := r.select_(names, true)
	if err != nil {
		return err
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range targets {
		if err := dropTables(ctx, tx, s.p); err != nil {
			return err
		}
		if err := createTables(ctx, tx, s.p); err != nil {
			return err
		}
		if err := deleteCheckpoint(ctx, tx, s.p.Name(), s.p.Version()); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, s := range targets {
		s.cp = checkpoint{}
		if s == r.judge {
			r.cache = newDedupCache(true, r.cfg.cacheMax)
		}
		r.cfg.logger.Debug("projection emptied for rebuild", "projection", s.p.Name(), "version", s.p.Version())
	}
	return nil
}

// Rewind moves the named projections' checkpoints back to offset (in every
// partition), so the next catch-up folds those events again over the
// existing rows. Only projections whose Apply is idempotent for a repeated
// First event may be rewound (all built-in ones are); processed_events
// cannot be (use Rebuild), as its duplicate counts would be counted twice.
func (r *Runner) Rewind(ctx context.Context, offset int64, names ...string) error {
	targets, err := r.select_(names, false)
	if err != nil {
		return err
	}
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	next := map[*state]checkpoint{}
	for _, s := range targets {
		cp := s.cp.clone()
		for _, t := range r.read {
			if !s.reads(t) {
				continue
			}
			ends, err := r.log.EndOffsets(ctx, t)
			if err != nil {
				return err
			}
			for p := range ends {
				k := tp{t, int32(p)}
				if cur, ok := cp[k]; !ok || cur > offset {
					cp[k] = offset
					if err := saveCheckpoint(ctx, tx, s.p.Name(), s.p.Version(), k, offset); err != nil {
						return err
					}
				}
			}
		}
		next[s] = cp
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for s, cp := range next {
		s.cp = cp
		r.cfg.logger.Debug("projection rewound", "projection", s.p.Name(), "version", s.p.Version(), "offset", offset)
	}
	return nil
}

// select_ resolves projection names; empty means all (with the judge only
// when withJudge).
func (r *Runner) select_(names []string, withJudge bool) ([]*state, error) {
	if len(names) == 0 {
		out := append([]*state{}, r.states...)
		if withJudge {
			out = append([]*state{r.judge}, out...)
		}
		return out, nil
	}
	var out []*state
	for _, n := range names {
		found := false
		if n == ProcessedEventsName {
			if !withJudge {
				return nil, fmt.Errorf("%w: %s cannot be rewound, only rebuilt", ErrBadProjection, n)
			}
			out = append(out, r.judge)
			continue
		}
		for _, s := range r.states {
			if s.p.Name() == n {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: no projection named %q (have %s)", ErrBadProjection, n, strings.Join(r.names(), ", "))
		}
	}
	return out, nil
}

// all lists every projection version the runner drives, processed_events
// first.
func (r *Runner) all() []*state { return append([]*state{r.judge}, r.states...) }

func (r *Runner) names() []string {
	out := []string{ProcessedEventsName}
	for _, s := range r.states {
		out = append(out, s.p.Name())
	}
	return out
}

// Digests computes the digest of every projection the runner drives.
func (r *Runner) Digests(ctx context.Context) ([]Digest, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var out []Digest
	for _, p := range r.Projections() {
		d, err := DigestOf(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Checkpoints returns, per topic, the next offset per partition that every
// projection the runner drives has committed (the lowest of them). They
// are read from the store, so commits of other runners on it count too:
// an idle runner can watch busy ones.
func (r *Runner) Checkpoints(ctx context.Context) (map[string][]int64, error) {
	committed, err := r.committedCheckpoints(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]int64{}
	for _, t := range r.read {
		ends, err := r.log.EndOffsets(ctx, t)
		if err != nil {
			return nil, err
		}
		offs := make([]int64, len(ends))
		for p := range ends {
			k := tp{t, int32(p)}
			low := int64(-1)
			for s, cp := range committed {
				if s.reads(t) && (low < 0 || cp[k] < low) {
					low = cp[k]
				}
			}
			offs[p] = max(low, 0)
		}
		out[t] = offs
	}
	return out, nil
}
