package projections

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A projection that writes through SQL builds its statements from its
// tables' declarations, once, when the package is initialised: the
// columns an INSERT writes and a SELECT reads are the declaration's, in
// its order, and every column a statement names (a SET, a condition, an
// ORDER BY) is checked against it. A misspelt or dropped column is a
// panic at start-up, not an SQL error on the first event that reaches it.
//
//	var setStatus = fooTable.updateSQL("status", "updated_at")
//	// UPDATE foo_v1 SET status = ?, updated_at = ? WHERE id = ?

// insertSQL inserts a row, every column in table order (the order of
// [rowTable.args]); a row whose key is stored already is an error.
func (t Table) insertSQL() string {
	return "INSERT INTO " + t.Name + " (" + strings.Join(t.ColumnNames(), ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(t.Columns)), ", ") + ")"
}

// insertNewSQL is insertSQL keeping a row whose key is stored already.
func (t Table) insertNewSQL() string {
	return t.insertSQL() + " " + conflictSQL(t.Name, t.PrimaryKey, nil, nil)
}

// upsertSQL is insertSQL where a row whose key is stored already takes
// the columns set from the new row, and adds the new row's value to each
// column of add (a counter).
func (t Table) upsertSQL(set []string, add ...string) string {
	t.mustHave(set...)
	t.mustHave(add...)
	return t.insertSQL() + " " + conflictSQL(t.Name, t.PrimaryKey, set, add)
}

// conflictSQL is the ON CONFLICT clause on key of an insert into table:
// DO NOTHING, or set columns taken from the new row and add columns
// added to.
func conflictSQL(table string, key, set, add []string) string {
	on := "ON CONFLICT (" + strings.Join(key, ", ") + ") "
	if len(set)+len(add) == 0 {
		return on + "DO NOTHING"
	}
	parts := make([]string, 0, len(set)+len(add))
	for _, c := range set {
		parts = append(parts, c+" = excluded."+c)
	}
	for _, c := range add {
		parts = append(parts, c+" = "+table+"."+c+" + excluded."+c)
	}
	return on + "DO UPDATE SET " + strings.Join(parts, ", ")
}

// updateSQL sets the columns set of the row with a key: its arguments
// are set's values, then the key's in primary-key order.
func (t Table) updateSQL(set ...string) string {
	key := make([]string, len(t.PrimaryKey))
	for i, c := range t.PrimaryKey {
		key[i] = c + " = ?"
	}
	return t.updateWhereSQL(strings.Join(key, " AND "), set...)
}

// updateWhereSQL sets the columns set of the rows that match where (a
// condition on t's columns): set's values are the first arguments.
func (t Table) updateWhereSQL(where string, set ...string) string {
	if len(set) == 0 {
		panic(fmt.Sprintf("projections: table %s: an update that sets no column", t.Name))
	}
	t.mustHave(set...)
	parts := make([]string, len(set))
	for i, c := range set {
		parts[i] = c + " = ?"
	}
	return "UPDATE " + t.Name + " SET " + strings.Join(parts, ", ") + " WHERE " + t.clause(where)
}

// selectSQL reads cols (every column, in table order, if none) of the
// rows that match where, which may go on with ORDER BY and LIMIT.
func (t Table) selectSQL(where string, cols ...string) string {
	return t.selectFrom(t.Name, where, cols...)
}

// selectFrom is selectSQL on table live, the live version of t that a
// reader finds when it reads (see [LiveVersion]).
func (t Table) selectFrom(live, where string, cols ...string) string {
	return t.selectLive(where, cols...).on(live)
}

// liveSQL is a statement on tables whose names are known only when it
// runs: the live versions a reader finds (see [LiveVersion]). It is
// built, and the columns it names checked, when the package loads; a
// read only puts the names in (see on). It is text, a table's name,
// text, and so on.
type liveSQL []string

// on is q on tables, in the order of its slots.
func (q liveSQL) on(tables ...string) string {
	if len(tables) != len(q)-1 {
		panic(fmt.Sprintf("projections: a statement on %d tables given %d", len(q)-1, len(tables)))
	}
	var b strings.Builder
	n := 0
	for _, s := range q {
		n += len(s)
	}
	for _, t := range tables {
		n += len(t)
	}
	b.Grow(n)
	for i, s := range q {
		b.WriteString(s)
		if i < len(tables) {
			b.WriteString(tables[i])
		}
	}
	return b.String()
}

// selectLive is selectSQL on the live version of t, named when it runs.
func (t Table) selectLive(where string, cols ...string) liveSQL {
	return t.queryLive("WHERE "+where, cols...)
}

// queryLive reads cols (every column, in table order, if none) of the
// live version of t; rest (a WHERE, an ORDER BY, a GROUP BY) follows the
// table's name.
func (t Table) queryLive(rest string, cols ...string) liveSQL {
	return liveSQL{"SELECT " + t.list(cols...) + " FROM ", " " + t.clause(rest)}
}

// countBy counts the rows of the live version of t by their value of
// col: rows of (value, count).
func (t Table) countBy(col string) liveSQL {
	return t.queryLive("GROUP BY "+col, col, "COUNT(*)")
}

// deleteSQL deletes the rows that match where.
func (t Table) deleteSQL(where string) string {
	return "DELETE FROM " + t.Name + " WHERE " + t.clause(where)
}

// list joins cols (every column, in table order, if none) for a SELECT;
// a col may be an expression of t's columns, such as count(*).
func (t Table) list(cols ...string) string {
	if len(cols) == 0 {
		return strings.Join(t.ColumnNames(), ", ")
	}
	return t.clause(strings.Join(cols, ", "))
}

// sqlWord is a lower-case word of a clause and what follows it: SQL's
// key words are upper case in this package, so such a word is a column,
// or a function if "(" follows. Quoted text is matched to be skipped.
var sqlWord = regexp.MustCompile(`'[^']*'|\b([a-z_][a-z0-9_]*)\b(\s*\()?`)

// clause returns c, a fragment of SQL about t (a condition, an ORDER BY),
// after checking that every column it names is one of t's.
func (t Table) clause(c string) string {
	for _, m := range sqlWord.FindAllStringSubmatch(c, -1) {
		if m[1] != "" && m[2] == "" {
			t.mustHave(m[1])
		}
	}
	return c
}

// named returns names after checking that each is a column of t.
func (t Table) named(names ...string) []string {
	t.mustHave(names...)
	return names
}

// col returns name after checking that it is a column of t: how SQL
// that no builder here writes (an aggregate, a staged counter) names a
// column, in a package-level variable so that the check runs at load.
func (t Table) col(name string) string {
	t.mustHave(name)
	return name
}

// except is every column of t but names, in table order.
func (t Table) except(names ...string) []string {
	t.mustHave(names...)
	var out []string
	for _, c := range t.Columns {
		if !slices.Contains(names, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// aliased is t under an alias, in SQL that reads several tables (a
// join): its col and list qualify the names they check.
type aliased struct {
	table Table
	alias string
}

func (t Table) as(alias string) aliased { return aliased{table: t, alias: alias} }

// col is alias.name, after checking that name is a column of the table.
func (a aliased) col(name string) string { return a.alias + "." + a.table.col(name) }

// list joins the qualified names of cols (see col).
func (a aliased) list(cols ...string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = a.col(c)
	}
	return strings.Join(q, ", ")
}

// mustHave panics unless every name is a column of t.
func (t Table) mustHave(names ...string) {
	for _, n := range names {
		if !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Name == n }) {
			panic(fmt.Sprintf("projections: table %s has no column %s", t.Name, n))
		}
	}
}

// rowUpdate sets some columns of a [rowTable]'s row, found by its key,
// to a row's values.
type rowUpdate[T any] struct {
	sql   string
	table *rowTable[T]
	cols  []int // the columns set, then the key's
}

// update sets the columns set of a row from a row T (see updateSQL).
func (t *rowTable[T]) update(set ...string) rowUpdate[T] {
	u := rowUpdate[T]{sql: t.updateSQL(set...), table: t}
	names := t.ColumnNames()
	for _, c := range append(slices.Clip(set), t.PrimaryKey...) {
		u.cols = append(u.cols, slices.Index(names, c))
	}
	return u
}

// args are r's values of the columns u sets, then of its key.
func (u rowUpdate[T]) args(r *T) []any {
	all := u.table.args(r, nil, false)
	out := make([]any, len(u.cols))
	for i, col := range u.cols {
		out[i] = all[col]
	}
	return out
}
