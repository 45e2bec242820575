package projections

import (
	"flag"
	"os"
	"testing"
)

// TestMain makes every test read the log through small read slabs that
// are overwritten when they are given back, so any use of an event's
// memory after its batch was folded changes a digest or fails a check.
// Benchmarks keep the real sizes.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		readSlabSize, readEventSlab, poisonReadSlabs = 16<<10, 64, true
	}
	os.Exit(m.Run())
}

// SetMaxHeldRows lowers how many rows a lifecycle session holds between
// flushes, so small tests cross the bound; call the result to restore it.
func SetMaxHeldRows(n int) (restore func()) {
	old := maxHeldRows
	maxHeldRows = n
	return func() { maxHeldRows = old }
}

// WithReadChunk sets how many records one read of a partition asks for
// (default 4096), so small tests interleave partitions within a batch.
func WithReadChunk(n int) Option { return func(cfg *config) { cfg.readChunk = n } }

// FormatTimeForTest exposes the fixed-layout time formatter.
var FormatTimeForTest = formatTime

// SetKeyHash replaces the source key hash (processed_events.source_hash),
// so tests can make keys collide; call the result to restore it.
func SetKeyHash(f func(string) int64) (restore func()) {
	old := keyHash
	keyHash = f
	return func() { keyHash = old }
}

// AppendIntentJSONForTest exposes the tx_intents JSON encoder.
var AppendIntentJSONForTest = appendIntentJSON
