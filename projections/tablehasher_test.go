package projections_test

import (
	"errors"
	"testing"

	"github.com/bridgelog/bridgelog/projections"
)

// TestTableHasherRefusesMisfits: a value of the wrong type for its
// column, a value past the last column and a short row are
// ErrDigestValue; rows that fit are counted and change the digest.
func TestTableHasherRefusesMisfits(t *testing.T) {
	tbl := projections.Table{Name: "t_v1", Columns: []projections.Column{
		{Name: "id", Type: projections.Integer}, {Name: "s", Type: projections.Text, Nullable: true}}}
	th := projections.NewTableHasher(tbl)
	empty := th.Digest()
	if err := th.Text("x"); !errors.Is(err, projections.ErrDigestValue) {
		t.Fatalf("text in an INTEGER column: %v", err)
	}
	th = projections.NewTableHasher(tbl)
	if err := th.Int(1); err != nil {
		t.Fatal(err)
	}
	if err := th.Int(2); !errors.Is(err, projections.ErrDigestValue) {
		t.Fatalf("an integer in a TEXT column: %v", err)
	}
	th = projections.NewTableHasher(tbl)
	if err := th.Int(1); err != nil {
		t.Fatal(err)
	}
	if err := th.EndRow(); !errors.Is(err, projections.ErrDigestValue) {
		t.Fatalf("a row one value short: %v", err)
	}
	th = projections.NewTableHasher(tbl)
	if err := th.Int(1); err != nil {
		t.Fatal(err)
	}
	th.Null()
	if err := th.TextBytes([]byte("x")); !errors.Is(err, projections.ErrDigestValue) {
		t.Fatalf("a value past the last column: %v", err)
	}
	th = projections.NewTableHasher(tbl)
	for _, s := range []string{"a", ""} {
		if err := th.Int(7); err != nil {
			t.Fatal(err)
		}
		if err := th.Text(s); err != nil {
			t.Fatal(err)
		}
		if err := th.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	d := th.Digest()
	if d.Rows != 2 || d.Table != "t_v1" || d.SHA == empty.SHA || len(d.SHA) != 64 {
		t.Fatalf("digest %+v (empty table %s)", d, empty.SHA)
	}
}
