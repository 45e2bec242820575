package domain

// DefaultConfirmationDepth is seed 000's rule: act only on logs at least 5
// blocks deep.
const DefaultConfirmationDepth = 5

// ConfirmationDepth is depth, or DefaultConfirmationDepth when depth is 0.
func ConfirmationDepth(depth uint64) uint64 {
	if depth == 0 {
		return DefaultConfirmationDepth
	}
	return depth
}

// Confirmation is the verdict on one observed log.
type Confirmation int

const (
	// Pending: not deep enough yet; do nothing.
	Pending Confirmation = iota
	// Confirmed: deep enough and its block is still canonical.
	Confirmed
	// Reorged: the block the log was seen in is no longer canonical (its
	// hash changed or the chain is now shorter); never act on it.
	Reorged
)

func (c Confirmation) String() string {
	switch c {
	case Confirmed:
		return "confirmed"
	case Reorged:
		return "reorged"
	}
	return "pending"
}

// CanonicalView is what a confirmer knows of the chain now: the tip, and
// the canonical hash at the log's height (zero when the chain no longer
// reaches that height).
type CanonicalView struct {
	Tip            uint64
	HashAtLogBlock Hash32
}

// Confirm decides whether a log seen in block (number, hash) may be acted
// on. depth 0 means DefaultConfirmationDepth. A log is confirmed when
// tip - number >= depth and the canonical hash at number is still hash.
func Confirm(number uint64, hash Hash32, view CanonicalView, depth uint64) Confirmation {
	depth = ConfirmationDepth(depth)
	if view.HashAtLogBlock.IsZero() && view.Tip < number {
		return Reorged // the chain shrank below the log
	}
	if !view.HashAtLogBlock.IsZero() && view.HashAtLogBlock != hash {
		return Reorged
	}
	if view.Tip < number || view.Tip-number < depth {
		return Pending
	}
	if view.HashAtLogBlock.IsZero() {
		return Pending // deep enough but hash unknown: ask again
	}
	return Confirmed
}
