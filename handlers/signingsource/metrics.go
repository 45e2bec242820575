package signingsource

import "github.com/bridgelog/bridgelog/handlers"

// HandoverMetrics receives the handover's metrics, by stream.
type HandoverMetrics interface {
	SourceHanded(stream string)
	SourceInvalid(stream string)
}

// Metrics receives a source's metrics: those of the indexer, confirmer and
// steps it runs, its handover's, and the requests it refuses.
type Metrics interface {
	handlers.IndexerMetrics
	handlers.ConfirmerMetrics
	handlers.StepMetrics
	HandoverMetrics
	// RequestRefused counts a signing event request refused, by the way
	// it came (ViaRPC, ViaSource) and the reason's label ([ReasonLabel]).
	RequestRefused(via, reason string)
}

// NopMetrics discards every metric.
type NopMetrics struct{ handlers.NopMetrics }

func (NopMetrics) SourceHanded(string)           {}
func (NopMetrics) SourceInvalid(string)          {}
func (NopMetrics) RequestRefused(string, string) {}
