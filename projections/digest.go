package projections

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
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

func digestTable(ctx context.Context, tx Tx, t Table) (TableDigest, error) {
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
	h := sha256.New()
	fmt.Fprintf(h, "table %s\n", t.Name)
	var n int64
	var buf []byte
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return TableDigest{}, fmt.Errorf("digest %s: %w", t.Name, err)
		}
		buf = buf[:0]
		for i, c := range t.Columns {
			buf = encodeValue(buf, c.Type, ints[i], texts[i])
		}
		buf = append(buf, '\n')
		h.Write(buf)
		n++
	}
	if err := rows.Err(); err != nil {
		return TableDigest{}, fmt.Errorf("digest %s: %w", t.Name, err)
	}
	return TableDigest{Table: t.Name, Rows: n, SHA: sum(h)}, nil
}

func encodeValue(buf []byte, typ ColumnType, i sql.NullInt64, s sql.NullString) []byte {
	switch {
	case typ == Integer && i.Valid:
		buf = append(buf, 'i')
		buf = strconv.AppendInt(buf, i.Int64, 10)
	case typ == Text && s.Valid:
		buf = append(buf, 's')
		buf = strconv.AppendInt(buf, int64(len(s.String)), 10)
		buf = append(buf, ':')
		buf = append(buf, s.String...)
	default:
		buf = append(buf, 'N')
	}
	return append(buf, ';')
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
