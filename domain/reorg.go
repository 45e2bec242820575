package domain

// The indexer keeps the hash of every block it scanned within its reorg
// window: the chain's confirmation depth, the depth past which the relay
// holds a block final and acts on its logs. When the block under its
// cursor was replaced, [FindForkPoint] says from which block to scan
// again, or that the chain reorganised deeper than the window.

// legacyScanWindow is the window of scans recorded before scans carried
// one: the indexer then rewound a fixed 2x the default depth.
const legacyScanWindow = 2 * DefaultConfirmationDepth

// ReorgWindow is the reorg window of a chain with the given confirmation
// depth (0: [DefaultConfirmationDepth], as the confirmer applies).
func ReorgWindow(confirmations uint64) uint64 {
	return ConfirmationDepth(confirmations)
}

// ScannedBlock is a block as the indexer scanned it: its number and the
// hash it had then.
type ScannedBlock struct {
	Number uint64
	Hash   Hash32
}

// ScanHashesFrom is the first block of a scan of [from, to] whose hash
// the scan records: the blocks within window of the tip, and at least
// to. Older blocks are final already; a catch-up far behind the tip
// reads one hash per range, not one per block.
func ScanHashesFrom(from, to, tip, window uint64) uint64 {
	first := from
	if tip > window {
		first = max(first, tip-window)
	}
	return min(first, to)
}

// Blocks are the blocks whose hashes the scan recorded, oldest first:
// PriorHashes, then To. Prior hashes that would number below block 0 (a
// malformed scan) are left out.
func (e ChainScanned) Blocks() []ScannedBlock {
	prior := e.PriorHashes
	if uint64(len(prior)) > e.To {
		prior = prior[uint64(len(prior))-e.To:]
	}
	first := e.To - uint64(len(prior))
	out := make([]ScannedBlock, 0, len(prior)+1)
	for i, h := range prior {
		out = append(out, ScannedBlock{Number: first + uint64(i), Hash: h})
	}
	return append(out, ScannedBlock{Number: e.To, Hash: e.ToHash})
}

// KeepFrom is the oldest block whose hash is kept once this scan is the
// cursor: To-Window (Window 0 is a scan recorded before scans carried
// one).
func (e ChainScanned) KeepFrom() uint64 {
	w := e.Window
	if w == 0 {
		w = legacyScanWindow
	}
	if e.To < w {
		return 0
	}
	return e.To - w
}

// ForkVerdict says how the indexer's kept blocks and the chain part.
type ForkVerdict int

const (
	// ForkFound: a kept block is still canonical; the blocks above the
	// highest such block are scanned again.
	ForkFound ForkVerdict = iota + 1
	// ForkBeforeStart: no kept block is canonical, but they go back to
	// the indexer's first block: everything is scanned again from it.
	ForkBeforeStart
	// ForkBeyondWindow: no kept block is canonical, and blocks older than
	// the kept ones were scanned: the chain reorganised past the window,
	// past what the relay holds final. Scanning on would skip whatever the
	// new chain holds below the kept blocks.
	ForkBeyondWindow
)

func (v ForkVerdict) String() string {
	switch v {
	case ForkFound:
		return "found"
	case ForkBeforeStart:
		return "before_start"
	case ForkBeyondWindow:
		return "beyond_window"
	}
	return "unknown"
}

// ForkPoint is where to scan again from after a reorg.
type ForkPoint struct {
	Verdict ForkVerdict
	// RewindTo is the last block that stays scanned: the cursor moves
	// there and scanning goes on at RewindTo+1 (not for ForkBeyondWindow).
	RewindTo uint64
	// RewindHash is RewindTo's hash, still canonical (ForkFound only).
	RewindHash Hash32
	// OldestKept is the oldest kept block: how deep the indexer could
	// look.
	OldestKept uint64
}

// FindForkPoint finds the highest kept block whose hash is still the
// chain's. kept are the blocks the indexer kept, in any order; canonical
// holds the chain's hash now at their numbers (zero or absent: the chain
// does not reach that block); start is the first block the indexer scans.
// A block's hash commits to every block below it, so every kept block
// under a canonical one is canonical too.
func FindForkPoint(kept []ScannedBlock, canonical map[uint64]Hash32, start uint64) ForkPoint {
	if len(kept) == 0 {
		return ForkPoint{Verdict: ForkBeyondWindow}
	}
	var best *ScannedBlock
	oldest := kept[0].Number
	for i := range kept {
		b := &kept[i]
		oldest = min(oldest, b.Number)
		if h := canonical[b.Number]; !h.IsZero() && h == b.Hash && (best == nil || b.Number > best.Number) {
			best = b
		}
	}
	switch {
	case best != nil:
		return ForkPoint{Verdict: ForkFound, RewindTo: best.Number, RewindHash: best.Hash, OldestKept: oldest}
	case oldest <= start:
		rewind := start
		if rewind > 0 {
			rewind-- // scanning goes on at start
		}
		return ForkPoint{Verdict: ForkBeforeStart, RewindTo: rewind, OldestKept: oldest}
	}
	return ForkPoint{Verdict: ForkBeyondWindow, OldestKept: oldest}
}
