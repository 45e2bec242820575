package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
)

// TestScratchStoreHashesRowsWhenAsked: verify's scratch store keeps the
// digests of the rows it writes unless --read-back asks for the rows to
// be read back.
func TestScratchStoreHashesRowsWhenAsked(t *testing.T) {
	ctx := context.Background()
	lg, err := embeddedlog.Open(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	if _, err := synth.Generate(ctx, lg, synth.Config{Events: 500, Seed: 3}, nil); err != nil {
		t.Fatal(err)
	}
	for _, hash := range []bool{true, false} {
		st, done, err := openScratchStore(ctx, hash)
		if err != nil {
			t.Fatal(err)
		}
		r, err := projections.NewRunner(ctx, lg, st, projectionSet())
		if err == nil {
			_, err = r.CatchUp(ctx)
		}
		if err != nil {
			done()
			t.Fatal(err)
		}
		tx, err := st.Begin(ctx)
		if err != nil {
			done()
			t.Fatal(err)
		}
		w, isW := tx.(projections.WrittenDigests)
		kept := false
		if isW {
			_, kept = w.WrittenDigest("deposits_v1")
		}
		tx.Rollback()
		done()
		if !isW || kept != hash {
			t.Fatalf("hashRows %v: %T keeps written digests: %v", hash, tx, kept)
		}
	}
}
