// Package gethtest starts a geth --dev node for a test.
package gethtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/evm/gethproc"
)

// Dev builds geth (once per machine) and starts a geth --dev node for
// the test, stopped when it ends (its log shown when the test failed).
// Building takes minutes the first time: give ctx room for it.
func Dev(t testing.TB, ctx context.Context) *gethproc.Dev {
	t.Helper()
	bin, err := gethproc.Build(ctx, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := bin.StartDev(ctx, filepath.Join(t.TempDir(), "geth"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("geth --dev:\n%s", dev.OutputTail(40))
		}
		if err := dev.Stop(); err != nil {
			t.Error(err)
		}
	})
	return dev
}
