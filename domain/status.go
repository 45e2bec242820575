package domain

// Status is a lifecycle state of a deposit, withdrawal or batch, with the
// seed's names.
type Status string

// Statuses, as seed 000 names them.
const (
	StatusDetected  Status = "DETECTED"
	StatusConfirmed Status = "CONFIRMED"
	StatusMinted    Status = "MINTED"
	StatusBatched   Status = "BATCHED"
	StatusExecuted  Status = "EXECUTED"
	StatusFailed    Status = "FAILED"
)

// rank orders statuses along their lifecycle. Projections fold events
// from several partitions whose relative order differs between a live run
// and a replay; applying a status only when it ranks higher makes the fold
// independent of that order, so replay equals live. Success on chain
// (minted, executed) outranks a failure decision: the chain is the fact.
func rank(s Status) int {
	switch s {
	case StatusDetected:
		return 1
	case StatusConfirmed:
		return 2
	case StatusBatched:
		return 3
	case StatusFailed:
		return 4
	case StatusMinted, StatusExecuted:
		return 5
	}
	return 0
}

// Advances reports whether moving from cur to next goes forward.
func Advances(cur, next Status) bool { return rank(next) > rank(cur) }
