package projections

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/bridgelog/bridgelog/topics"
)

// ColumnType is a portable column type. Integers are 64-bit everywhere;
// amounts and times are Text (decimal strings; times from [FormatTime]) so
// that both engines store and digest exactly the same bytes.
type ColumnType int

const (
	Text    ColumnType = iota + 1 // TEXT (COLLATE "C" on PostgreSQL: byte order, like SQLite)
	Integer                       // BIGINT
)

// Column is one column of a [Table].
type Column struct {
	Name     string
	Type     ColumnType
	Nullable bool // default NOT NULL
}

// Index is a secondary index of a [Table].
type Index struct {
	Columns []string
	Unique  bool
}

// Table declares one table of a projection version. The store creates it
// with the dialect's DDL; the digest reads it in primary-key order.
type Table struct {
	Name       string // e.g. Versioned("deposits", 1)
	Columns    []Column
	PrimaryKey []string
	Indexes    []Index
}

var identRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Validate checks the declaration: identifiers, a primary key made of
// declared columns, indexes on declared columns.
func (t Table) Validate() error {
	if !identRE.MatchString(t.Name) {
		return fmt.Errorf("table %q: name must match %s", t.Name, identRE)
	}
	if len(t.Columns) == 0 || len(t.PrimaryKey) == 0 {
		return fmt.Errorf("table %s: needs columns and a primary key", t.Name)
	}
	cols := map[string]Column{}
	for _, c := range t.Columns {
		if !identRE.MatchString(c.Name) {
			return fmt.Errorf("table %s: column %q: name must match %s", t.Name, c.Name, identRE)
		}
		if c.Type != Text && c.Type != Integer {
			return fmt.Errorf("table %s: column %s: unknown type %d", t.Name, c.Name, c.Type)
		}
		if _, dup := cols[c.Name]; dup {
			return fmt.Errorf("table %s: column %s declared twice", t.Name, c.Name)
		}
		cols[c.Name] = c
	}
	check := func(what string, names []string) error {
		for _, n := range names {
			c, ok := cols[n]
			if !ok {
				return fmt.Errorf("table %s: %s names unknown column %s", t.Name, what, n)
			}
			if what == "primary key" && c.Nullable {
				return fmt.Errorf("table %s: primary key column %s is nullable", t.Name, n)
			}
		}
		return nil
	}
	if err := check("primary key", t.PrimaryKey); err != nil {
		return err
	}
	for _, ix := range t.Indexes {
		if len(ix.Columns) == 0 {
			return fmt.Errorf("table %s: empty index", t.Name)
		}
		if err := check("index", ix.Columns); err != nil {
			return err
		}
	}
	return nil
}

// DDL returns the statements that create t (if absent) in dialect d.
func (t Table) DDL(d Dialect) []string {
	// A single integer key is SQLite's rowid: one b-tree instead of a
	// WITHOUT ROWID table keyed by several columns, which is much slower
	// to insert into.
	rowid := len(t.PrimaryKey) == 1 && t.column(t.PrimaryKey[0]).Type == Integer
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (", t.Name)
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
		switch {
		case rowid && c.Name == t.PrimaryKey[0] && d == SQLite:
			b.WriteString(" INTEGER") // exactly INTEGER: an alias of the rowid
		case c.Type == Integer:
			b.WriteString(" BIGINT")
		case d == Postgres:
			// Byte order, as SQLite's BINARY collation: primary-key order
			// (and so the digest) is the same on both engines.
			b.WriteString(` TEXT COLLATE "C"`)
		default:
			b.WriteString(" TEXT")
		}
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
	}
	fmt.Fprintf(&b, ", PRIMARY KEY (%s))", strings.Join(t.PrimaryKey, ", "))
	if d == SQLite && !rowid {
		// The primary key is the row's identity; no hidden rowid b-tree.
		b.WriteString(" WITHOUT ROWID")
	}
	return append([]string{b.String()}, t.IndexDDL()...)
}

// IndexDDL returns the statements that create t's secondary indexes (if
// absent); the same in both dialects.
func (t Table) IndexDDL() []string {
	var out []string
	for _, ix := range t.Indexes {
		u := ""
		if ix.Unique {
			u = "UNIQUE "
		}
		out = append(out, fmt.Sprintf("CREATE %sINDEX IF NOT EXISTS %s ON %s (%s)",
			u, t.IndexName(ix), t.Name, strings.Join(ix.Columns, ", ")))
	}
	return out
}

// DropIndexDDL returns the statements that drop t's secondary indexes.
func (t Table) DropIndexDDL() []string {
	var out []string
	for _, ix := range t.Indexes {
		out = append(out, "DROP INDEX IF EXISTS "+t.IndexName(ix))
	}
	return out
}

// ColumnNames lists the columns' names in table order, the order rows
// are written and digested in.
func (t Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// IndexName is the name of t's index ix.
func (t Table) IndexName(ix Index) string { return t.Name + "_" + strings.Join(ix.Columns, "_") }

func (t Table) column(name string) Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return Column{}
}

// Bounds of [PositionID].
const (
	maxIDOffset    = 1<<40 - 1
	maxIDPartition = 1<<12 - 1
	maxIDTopic     = 1<<11 - 1
)

// PositionID packs a log position into one non-negative integer: topic
// (its index in [topics.Topics]) in the top 11 bits, partition in the next
// 12, offset in the low 40. Rows keyed by the position of the event that
// created them get a compact, deterministic primary key, the same on every
// rebuild (a SERIAL would depend on how partitions interleave).
func PositionID(p topics.Position) (int64, error) {
	ti, ok := topicIndex[p.Topic]
	if !ok || ti > maxIDTopic || p.Partition < 0 || p.Partition > maxIDPartition || p.Offset < 0 || p.Offset > maxIDOffset {
		return 0, fmt.Errorf("position %s cannot be packed into an id (known topic, partition < 4096, offset < 2^40)", FormatPosition(p))
	}
	return int64(ti)<<52 | int64(p.Partition)<<40 | p.Offset, nil
}

var topicIndex = func() map[string]int {
	m := map[string]int{}
	for i, s := range topics.Topics() {
		m[s.Name] = i
	}
	return m
}()
