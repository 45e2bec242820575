package projections

// Metrics counts what the runner does. Implementations must be safe for
// concurrent use; the zero configuration uses [NopMetrics].
type Metrics interface {
	// Applied counts First events folded by a projection.
	Applied(projection string, n int)
	// Duplicate counts events with a known source key and the same content.
	Duplicate(n int)
	// Conflict counts events with a known source key and other content.
	Conflict(n int)
	// Skipped counts envelopes passed over under the Skip policy, by
	// reason ("malformed", "unknown_type", "schema_too_new").
	Skipped(reason string, n int)
	// Error counts failed batches of a projection.
	Error(projection string)
}

// NopMetrics discards everything.
type NopMetrics struct{}

func (NopMetrics) Applied(string, int) {}
func (NopMetrics) Duplicate(int)       {}
func (NopMetrics) Conflict(int)        {}
func (NopMetrics) Skipped(string, int) {}
func (NopMetrics) Error(string)        {}
