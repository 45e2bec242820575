package projections

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
