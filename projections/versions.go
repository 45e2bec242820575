package projections

import (
	"context"
	"errors"
	"fmt"
)

// plan decides which versions run, creating tables and registering
// versions as needed.
func (r *Runner) plan(ctx context.Context, tx Tx, all []Projection, recorded []VersionState) ([]*state, error) {
	live := map[string]int{}
	known := map[string]string{} // name@v → state
	for _, v := range recorded {
		known[fmt.Sprintf("%s@v%d", v.Projection, v.Version)] = v.State
		if v.State == StateLive {
			live[v.Projection] = v.Version
		}
	}
	target := map[string]int{}
	for _, p := range all {
		target[p.Name()] = max(target[p.Name()], p.Version())
	}
	var out []*state
	for _, p := range all {
		name, v := p.Name(), p.Version()
		L, T := live[name], target[name]
		if L > T {
			return nil, fmt.Errorf("%w: %s is live at v%d in %s, this binary has up to v%d",
				ErrStoreNewer, name, L, r.store.Where(), T)
		}
		s := &state{p: p}
		if ts := p.Topics(); ts != nil {
			s.topics = map[string]bool{}
			for _, t := range ts {
				s.topics[t] = true
			}
		}
		if f, ok := p.(SessionFolder); ok {
			s.folder = f
		}
		_, s.everyVerdict = p.(EveryVerdict)
		switch {
		case v == T && (L == 0 || L == v):
			s.status = StateLive
		case v == T:
			s.status = StateBuilding
		case v == L:
			s.status = StateLive // the old version keeps serving until the new one is level
		default:
			continue // an older, retired version: its code is not run
		}
		if err := createTables(ctx, tx, p); err != nil {
			return nil, fmt.Errorf("store %s: create tables of %s: %w", r.store.Where(), s.label(), err)
		}
		id := s.label()
		if known[id] != s.status {
			if err := setVersionState(ctx, tx, name, v, s.status); err != nil {
				return nil, err
			}
			if s.status == StateBuilding {
				r.cfg.logger.Info("projection version building beside the live one",
					"projection", name, "version", v, "live_version", L)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func createTables(ctx context.Context, tx Tx, p Projection) error {
	for _, t := range p.Tables() {
		for _, q := range t.DDL(tx.Dialect()) {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+tablesTable+` (projection, version, table_name) VALUES (?, ?, ?)
			ON CONFLICT (projection, version, table_name) DO NOTHING`, p.Name(), p.Version(), t.Name); err != nil {
			return err
		}
	}
	return nil
}

func dropTables(ctx context.Context, tx Tx, p Projection) error {
	for _, t := range p.Tables() {
		if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+t.Name); err != nil {
			return err
		}
	}
	return nil
}

// switchLevel makes every building version whose checkpoints reached end
// live, retiring the version it replaces.
func (r *Runner) switchLevel(ctx context.Context, end map[tp]int64, sum *Summary) error {
	for _, s := range r.all() {
		if s.status != StateBuilding {
			continue
		}
		level := true
		for k, e := range end {
			if s.reads(k.topic) && s.cp[k] < e {
				level = false
			}
		}
		if !level {
			continue
		}
		tx, err := r.store.Begin(ctx)
		if err != nil {
			return err
		}
		old, err := LiveVersion(ctx, tx, s.p.Name())
		if err != nil && !errors.Is(err, ErrNoLiveVersion) {
			tx.Rollback()
			return err
		}
		if old != 0 {
			if err := setVersionState(ctx, tx, s.p.Name(), old, StateRetired); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := setVersionState(ctx, tx, s.p.Name(), s.p.Version(), StateLive); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		s.status = StateLive
		// The replaced version stops here: its code may still be
		// registered, but readers have moved on.
		kept := r.states[:0]
		for _, o := range r.states {
			if !(o.p.Name() == s.p.Name() && o.p.Version() == old) {
				kept = append(kept, o)
			}
		}
		r.states = kept
		sum.Switched = append(sum.Switched, s.label())
		r.cfg.logger.Info("projection version switched", "projection", s.p.Name(),
			"version", s.p.Version(), "retired_version", old)
	}
	return nil
}
