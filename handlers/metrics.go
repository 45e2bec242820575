package handlers

// Each component says which metrics it records through an interface of its
// own; adapters/metrics implements them all and names the series, so a
// series' name and labels are spelled in one place. [NopMetrics] discards
// everything and is what a nil Metrics field means.

// IndexerMetrics receives an indexer's metrics; every one is by chain.
type IndexerMetrics interface {
	IndexerRPCError(chainID uint64)
	// IndexerLag is how many blocks the indexer's scan is behind the tip.
	IndexerLag(chainID, blocks uint64)
	ChainEventsAppended(chainID uint64, n int)
	LogRejected(chainID uint64)
	ReorgDetected(chainID uint64)
	ReorgBeyondWindow(chainID uint64)
	// StoppedBeyondWindow says whether the indexer is stopped by a reorg
	// deeper than its window.
	StoppedBeyondWindow(chainID uint64, stopped bool)
}

// ConfirmerMetrics receives a confirmer's metrics, by chain.
type ConfirmerMetrics interface {
	ObservationsConfirmed(chainID uint64, n int)
	ObservationReorged(chainID uint64)
}

// BatcherMetrics receives the batcher's metrics.
type BatcherMetrics interface {
	// OldestUnbatched is how long the oldest confirmed withdrawal has
	// waited for a batch.
	OldestUnbatched(seconds float64)
	BatchCreated()
	BatchLost()
	BatchRecovered()
}

// AnchorerMetrics receives the anchorer's metrics.
type AnchorerMetrics interface {
	BatchAnchored(gasUsed uint64)
	AnchorFailed()
}

// MinterMetrics receives the minter's metrics.
type MinterMetrics interface {
	DepositMinted(gasUsed uint64)
	DepositFailed()
}

// ClaimMetrics receives a claim executor's metrics.
type ClaimMetrics interface {
	ClaimRecordUndecodable()
	ClaimAttemptFailed()
	ClaimProofInvalid()
	WithdrawalExecuted()
	WithdrawalFailed()
}

// StepMetrics receives the failures of a relay loop's steps.
type StepMetrics interface {
	StepFailed(step string)
}

// TxMetrics receives what the transaction driver sees of the contracts:
// a call the contract's rate limit deferred (reason "rate_limited": the
// bucket refills by itself; "over_capacity": more than the bucket holds).
type TxMetrics interface {
	RateLimited(purpose, reason string)
}

// Metrics is every handler's metrics: what a process wiring the whole
// relay passes around.
type Metrics interface {
	TxMetrics
	IndexerMetrics
	ConfirmerMetrics
	BatcherMetrics
	AnchorerMetrics
	MinterMetrics
	ClaimMetrics
	StepMetrics
}

// NopMetrics discards every metric.
type NopMetrics struct{}

func (NopMetrics) IndexerRPCError(uint64)            {}
func (NopMetrics) IndexerLag(uint64, uint64)         {}
func (NopMetrics) ChainEventsAppended(uint64, int)   {}
func (NopMetrics) LogRejected(uint64)                {}
func (NopMetrics) ReorgDetected(uint64)              {}
func (NopMetrics) ReorgBeyondWindow(uint64)          {}
func (NopMetrics) StoppedBeyondWindow(uint64, bool)  {}
func (NopMetrics) ObservationsConfirmed(uint64, int) {}
func (NopMetrics) ObservationReorged(uint64)         {}
func (NopMetrics) OldestUnbatched(float64)           {}
func (NopMetrics) BatchCreated()                     {}
func (NopMetrics) BatchLost()                        {}
func (NopMetrics) BatchRecovered()                   {}
func (NopMetrics) BatchAnchored(uint64)              {}
func (NopMetrics) AnchorFailed()                     {}
func (NopMetrics) DepositMinted(uint64)              {}
func (NopMetrics) DepositFailed()                    {}
func (NopMetrics) ClaimRecordUndecodable()           {}
func (NopMetrics) ClaimAttemptFailed()               {}
func (NopMetrics) ClaimProofInvalid()                {}
func (NopMetrics) WithdrawalExecuted()               {}
func (NopMetrics) WithdrawalFailed()                 {}
func (NopMetrics) StepFailed(string)                 {}
func (NopMetrics) RateLimited(string, string)        {}

// metricsOr is m, or NopMetrics when m is nil.
func metricsOr[M any](m M) M {
	if any(m) == nil {
		return any(NopMetrics{}).(M)
	}
	return m
}
