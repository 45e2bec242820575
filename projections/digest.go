package projections

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// TableDigest is the digest of one table.
type TableDigest struct {
	Table string
	Rows  int64
	SHA   string // hex sha256 of the canonical encoding
}

// Digest is the digest of every table of a projection version.
type Digest struct {
	Projection string
	Version    int
	Tables     []TableDigest
	SHA        string // over the table digests, in declaration order
}

// Rows is the total row count.
func (d Digest) Rows() int64 {
	var n int64
	for _, t := range d.Tables {
		n += t.Rows
	}
	return n
}

// DigestOf computes the digest of p's tables: sha256 over the rows in
// primary-key order, each value encoded canonically (N; for NULL,
// i<decimal>; for integers, s<len>:<bytes>; for text, a newline per row).
// Text keys are byte-ordered on both engines (COLLATE "C" on PostgreSQL),
// so SQLite and PostgreSQL give the same digest for the same rows.
func DigestOf(ctx context.Context, tx Tx, p Projection) (Digest, error) {
	d := Digest{Projection: p.Name(), Version: p.Version()}
	all := sha256.New()
	for _, t := range p.Tables() {
		td, err := digestTable(ctx, tx, t)
		if err != nil {
			return d, err
		}
		d.Tables = append(d.Tables, td)
		fmt.Fprintf(all, "%s %d %s\n", td.Table, td.Rows, td.SHA)
	}
	d.SHA = hex.EncodeToString(all.Sum(nil))
	return d, nil
}

// WrittenDigests is a transaction of a store that wrote tables itself (a
// bulk load) and hashed their rows as it wrote them: DigestOf takes those
// digests instead of reading the rows back. ok is false for a table the
// store did not write so, or has written to since.
type WrittenDigests interface {
	WrittenDigest(table string) (d TableDigest, ok bool)
}

func digestTable(ctx context.Context, tx Tx, t Table) (TableDigest, error) {
	if w, isW := tx.(WrittenDigests); isW {
		if d, ok := w.WrittenDigest(t.Name); ok {
			return d, nil
		}
	}
	q := `SELECT ` + strings.Join(t.ColumnNames(), ", ") + ` FROM ` + t.Name + ` ORDER BY ` + strings.Join(t.PrimaryKey, ", ")
	rows, err := tx.Query(ctx, q)
	if err != nil {
		return TableDigest{}, fmt.Errorf("digest %s: %w", t.Name, err)
	}
	defer rows.Close()
	ints := make([]sql.NullInt64, len(t.Columns))
	texts := make([]sql.NullString, len(t.Columns))
	dest := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		if c.Type == Integer {
			dest[i] = &ints[i]
		} else {
			dest[i] = &texts[i]
		}
	}
	th := NewTableHasher(t)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return TableDigest{}, fmt.Errorf("digest %s: %w", t.Name, err)
		}
		for i, c := range t.Columns {
			switch {
			case c.Type == Integer && ints[i].Valid:
				err = th.Int(ints[i].Int64)
			case c.Type == Text && texts[i].Valid:
				err = th.Text(texts[i].String)
			default:
				th.Null()
			}
			if err != nil {
				return TableDigest{}, err
			}
		}
		if err := th.EndRow(); err != nil {
			return TableDigest{}, err
		}
	}
	if err := rows.Err(); err != nil {
		return TableDigest{}, fmt.Errorf("digest %s: %w", t.Name, err)
	}
	return th.Digest(), nil
}

// TableHasher computes a table's digest (see [DigestOf]) from its rows,
// given value by value in primary-key order: DigestOf feeds it the rows
// it reads, and a store that writes a table's rows itself can feed it the
// rows as it writes them.
type TableHasher struct {
	t   Table
	h   hash.Hash
	n   int64
	col int
	buf []byte
}

// NewTableHasher starts the digest of table t.
func NewTableHasher(t Table) *TableHasher {
	th := &TableHasher{t: t, h: sha256.New()}
	fmt.Fprintf(th.h, "table %s\n", t.Name)
	return th
}

// ErrDigestValue: a value that does not fit its column's type.
var ErrDigestValue = errors.New("value does not fit its column")

func (th *TableHasher) next(typ ColumnType, what string) error {
	if th.col >= len(th.t.Columns) {
		return fmt.Errorf("digest %s: %w: more values than the %d columns", th.t.Name, ErrDigestValue, len(th.t.Columns))
	}
	if c := th.t.Columns[th.col]; c.Type != typ {
		return fmt.Errorf("digest %s: %w: %s in column %s", th.t.Name, ErrDigestValue, what, c.Name)
	}
	th.col++
	return nil
}

// Int adds the next column's value, an integer.
func (th *TableHasher) Int(v int64) error {
	if err := th.next(Integer, "an integer"); err != nil {
		return err
	}
	th.buf = append(strconv.AppendInt(append(th.buf, 'i'), v, 10), ';')
	return nil
}

// Text adds the next column's value, a text.
func (th *TableHasher) Text(v string) error { return hashText(th, v) }

// TextBytes is Text for a value held as bytes.
func (th *TableHasher) TextBytes(v []byte) error { return hashText(th, v) }

func hashText[T string | []byte](th *TableHasher, v T) error {
	if err := th.next(Text, "a text"); err != nil {
		return err
	}
	th.buf = append(strconv.AppendInt(append(th.buf, 's'), int64(len(v)), 10), ':')
	th.buf = append(append(th.buf, v...), ';')
	return nil
}

// Null adds the next column's value, NULL. (A value past the last
// column is reported by EndRow.)
func (th *TableHasher) Null() {
	th.col++
	th.buf = append(th.buf, 'N', ';')
}

// EndRow ends a row, which must have had a value for every column.
func (th *TableHasher) EndRow() error {
	if th.col != len(th.t.Columns) {
		return fmt.Errorf("digest %s: %w: a row of %d values for %d columns", th.t.Name, ErrDigestValue, th.col, len(th.t.Columns))
	}
	th.buf = append(th.buf, '\n')
	th.h.Write(th.buf)
	th.buf, th.col = th.buf[:0], 0
	th.n++
	return nil
}

// Digest is the digest of the rows so far.
func (th *TableHasher) Digest() TableDigest {
	return TableDigest{Table: th.t.Name, Rows: th.n, SHA: sum(th.h)}
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
