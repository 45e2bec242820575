package sqlitefile

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestDeferredIndexesState: Commit refuses indexes left unattached (and
// the file is left as it was), and a second Attach is refused.
func TestDeferredIndexesState(t *testing.T) {
	path := newDB(t, 4096, "DELETE")
	before := fileBytes(t, path)
	finishDeferred := func(a *Appender) *PendingIndexes {
		t.Helper()
		tw, err := addRows(t, a, filler("f", 100))
		if err != nil {
			t.Fatal(err)
		}
		_, ix, err := tw.FinishDeferred()
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	finishDeferred(a)
	if err := a.Commit(); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "not attached") {
		t.Fatalf("commit with unattached indexes: %v, want ErrState", err)
	}
	if !bytes.Equal(fileBytes(t, path), before) {
		t.Fatal("file changed by a refused commit")
	}

	a, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ix := finishDeferred(a)
	if _, err := ix.Attach(); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Attach(); !errors.Is(err, ErrState) {
		t.Fatalf("second attach: %v, want ErrState", err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
}
