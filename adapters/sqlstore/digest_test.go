package sqlstore

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// oddTable holds values at the edges of what the digest encodes: NULLs,
// empty text, NUL bytes and bytes that are not UTF-8, the extreme
// integers, a long text.
type oddTable struct{}

func (oddTable) Name() string     { return "odd" }
func (oddTable) Version() int     { return 1 }
func (oddTable) Topics() []string { return nil }
func (oddTable) Tables() []projections.Table {
	return []projections.Table{{
		Name: "odd_v1",
		Columns: []projections.Column{
			{Name: "id", Type: projections.Integer},
			{Name: "s", Type: projections.Text, Nullable: true},
			{Name: "n", Type: projections.Integer, Nullable: true},
		},
		PrimaryKey: []string{"id"},
		Indexes:    []projections.Index{{Columns: []string{"s"}}},
	}}
}
func (oddTable) Apply(context.Context, projections.Tx, *projections.Event) error { return nil }

// sqlOnly hides everything of a transaction but its SQL.
type sqlOnly struct{ projections.Tx }

// TestWrittenDigestsOfOddValues: the digest a bulk load takes of the rows
// it writes equals the digest read back through SQLite, for values at
// the edges of the encoding.
func TestWrittenDigestsOfOddValues(t *testing.T) {
	ctx := context.Background()
	st, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "odd.db"), WithBulkLoad(), WithWrittenDigests())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := oddTable{}
	tbl := p.Tables()[0]
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range tbl.DDL(projections.SQLite) {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.(projections.BulkLoader).Stage(ctx, p.Tables()); err != nil {
		t.Fatal(err)
	}
	rows := []any{
		int64(1), nil, nil,
		int64(2), "", int64(0),
		int64(3), "a\x00b", int64(1),
		int64(4), "\xff\xfe not UTF-8", int64(math.MinInt64),
		int64(5), strings.Repeat("long ", 2000), int64(math.MaxInt64),
		int64(1) << 41, "ünïcödé", int64(-1),
	}
	tx, err = st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stage := tx.(projections.StagingTx).Staged(tbl.Name)
	if stage == nil {
		t.Fatal("the table is not staged")
	}
	if err := stage.Put(tbl.ColumnNames(), rows, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.(projections.BulkLoader).Materialize(ctx); err != nil {
		t.Fatal(err)
	}
	tx, err = st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	written, ok := tx.(projections.WrittenDigests).WrittenDigest(tbl.Name)
	if !ok {
		t.Fatal("no written digest after the load")
	}
	read, err := projections.DigestOf(ctx, sqlOnly{tx}, p)
	if err != nil {
		t.Fatal(err)
	}
	if written.Rows != 6 || written != read.Tables[0] {
		t.Fatalf("written %+v, read back %+v", written, read.Tables[0])
	}
}
