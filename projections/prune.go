package projections

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Retired is a retired projection version and the tables of it that are
// still in the store.
type Retired struct {
	Projection string
	Version    int
	Tables     []string
}

func (v Retired) String() string { return fmt.Sprintf("%s@v%d", v.Projection, v.Version) }

// Prune lists the retired projection versions and their tables; with
// drop it drops those tables and their checkpoints in one transaction and
// marks the versions "dropped" (the row stays, so the store still says
// the version existed). Live and building versions are never touched.
//
// A version's tables are the ones it recorded when it created them; for
// a version retired by a binary that did not record them, they are the
// names of the registered version's tables with the retired version's
// suffix, where such a table exists. Prune only after every process on
// the store runs a binary whose live version is the new one: an older
// process would still be writing the retired tables.
func (r *Runner) Prune(ctx context.Context, drop bool) ([]Retired, error) {
	tx, err := r.store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	states, err := Versions(ctx, tx)
	if err != nil {
		return nil, err
	}
	existing, err := storeTables(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("store %s: list tables: %w", r.store.Where(), err)
	}
	var out []Retired
	for _, st := range states {
		if st.State != StateRetired {
			continue
		}
		tables, err := r.retiredTables(ctx, tx, st, existing)
		if err != nil {
			return nil, err
		}
		out = append(out, Retired{Projection: st.Projection, Version: st.Version, Tables: tables})
	}
	if !drop || len(out) == 0 {
		return out, nil
	}
	for _, v := range out {
		for _, t := range v.Tables {
			if _, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
				return nil, fmt.Errorf("store %s: drop %s of %s: %w", r.store.Where(), t, v, err)
			}
		}
		if err := deleteCheckpoint(ctx, tx, v.Projection, v.Version); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM `+tablesTable+` WHERE projection = ? AND version = ?`, v.Projection, v.Version); err != nil {
			return nil, err
		}
		if err := setVersionState(ctx, tx, v.Projection, v.Version, StateDropped); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for _, v := range out {
		r.cfg.logger.Info("retired projection version dropped", "projection", v.Projection, "version", v.Version,
			"tables", strings.Join(v.Tables, ","))
	}
	return out, nil
}

// retiredTables names the tables of a retired version that exist.
func (r *Runner) retiredTables(ctx context.Context, tx Tx, v VersionState, existing map[string]bool) ([]string, error) {
	names, err := stringSet(ctx, tx, `SELECT table_name FROM `+tablesTable+` WHERE projection = ? AND version = ?`, v.Projection, v.Version)
	if err != nil {
		return nil, err
	}
	// Recorded or not, the registered version's tables renamed to the
	// retired suffix are the retired version's if they exist (validate
	// makes every table end in its version's suffix).
	for _, p := range r.Projections() {
		if p.Name() != v.Projection || p.Version() == v.Version {
			continue
		}
		suffix := fmt.Sprintf("_v%d", p.Version())
		for _, t := range p.Tables() {
			names[Versioned(strings.TrimSuffix(t.Name, suffix), v.Version)] = true
		}
	}
	var out []string
	for t := range names {
		if existing[t] && !r.ownsTable(t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ownsTable reports whether a version this runner drives (live or
// building) declares table t: such a table is never dropped.
func (r *Runner) ownsTable(t string) bool {
	for _, p := range r.Projections() {
		for _, own := range p.Tables() {
			if own.Name == t {
				return true
			}
		}
	}
	return false
}

// storeTables lists the store's tables.
func storeTables(ctx context.Context, tx Tx) (map[string]bool, error) {
	q := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if tx.Dialect() == Postgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	return stringSet(ctx, tx, q)
}

// stringSet runs a query of one text column and returns its values.
func stringSet(ctx context.Context, tx Tx, q string, args ...any) (map[string]bool, error) {
	out := map[string]bool{}
	err := queryEach(ctx, tx, q, args, func(rows RowScanner) error {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		out[s] = true
		return nil
	})
	return out, err
}
