package domain

import "time"

// KaspaChainChange is what the virtual selected parent chain did since
// the indexer's cursor: the chain blocks it dropped and those it added,
// oldest first, each with the transactions it accepted. VirtualDAAScore
// was read before the change, so a depth judged on it is never overstated.
type KaspaChainChange struct {
	Removed         []Hash32
	Added           []KaspaChainBlock
	VirtualDAAScore uint64
}

// KaspaChainBlock is a chain block and the transactions it accepted.
type KaspaChainBlock struct {
	Hash     Hash32
	DAAScore uint64
	Time     time.Time // the block header's timestamp
	Accepted []KaspaTx
}

// KaspaTx is an accepted transaction as deposit detection needs it.
// GroupSpend: an input spends from the group (its change and sweeps are
// the group's own money, not deposits); the adapter that knows the
// group's scripts decides it.
type KaspaTx struct {
	ID         Hash32
	Coinbase   bool
	GroupSpend bool
	Outputs    []KaspaTxOutput // by output index
}

// KaspaTxOutput is an output's value and script public key.
type KaspaTxOutput struct {
	Amount        uint64
	ScriptVersion uint16
	Script        []byte
}

// KaspaDepositWatch is what the indexer looks for: the script public keys
// of the registered deposit addresses and their recipients, the group's
// own script (KAS sent there names no recipient), the least amount minted
// and the depth in DAA score.
type KaspaDepositWatch struct {
	Recipients  map[string]Address // by script (string of its bytes)
	GroupScript []byte
	MinSompi    uint64
	Depth       uint64
}

// KaspaDepositSighting is a deposit as recorded: where it was accepted,
// and whether its verdict (confirmed or refused) is in.
type KaspaDepositSighting struct {
	Outpoint KaspaOutpoint
	Block    Hash32
	DAAScore uint64
	Refusal  string
	Final    bool
}

// DetectKaspaDeposits turns a chain change into deposit events, in this
// order: the recorded sightings (known) whose accepting block was
// removed are reorged; each output of an added block's accepted
// transactions that pays a watched script is detected (coinbases and the
// group's own spends are not deposits; an output to the group's own
// address has no recipient, one under the minimum is too small: both are
// detected with their refusal); then every sighting not final and still
// on the chain that is Depth deep at the change's virtual DAA score is
// confirmed, or refused when it has a refusal. A sighting in known is
// not detected again, and a final one not judged again: given what it
// recorded, a change read twice appends nothing twice. Pure; the same
// input gives the same events, and each event's source key makes a
// repeat a no-op anyway.
func DetectKaspaDeposits(c KaspaChainChange, w KaspaDepositWatch, known []KaspaDepositSighting) []Event {
	var out []Event
	removed := make(map[Hash32]bool, len(c.Removed))
	for _, h := range c.Removed {
		removed[h] = true
	}
	var open []KaspaDepositSighting
	recorded := map[KaspaDepositSighting]bool{} // by outpoint and block (the rest zeroed)
	for _, s := range known {
		recorded[KaspaDepositSighting{Outpoint: s.Outpoint, Block: s.Block}] = true
		if removed[s.Block] {
			out = append(out, KaspaDepositReorged{Outpoint: s.Outpoint, Block: s.Block, WasFinal: s.Final})
		} else if !s.Final {
			open = append(open, s)
		}
	}
	seen := map[KaspaOutpoint]bool{}
	for _, b := range c.Added {
		for _, tx := range b.Accepted {
			if tx.Coinbase || tx.GroupSpend {
				continue
			}
			for i, o := range tx.Outputs {
				d, ok := w.deposit(tx.ID, uint32(i), o, b)
				if !ok || seen[d.Outpoint] {
					continue
				}
				seen[d.Outpoint] = true
				// A sighting already recorded (a change read again after
				// a crash) is not detected again; its record is judged.
				if recorded[KaspaDepositSighting{Outpoint: d.Outpoint, Block: b.Hash}] {
					continue
				}
				out = append(out, d)
				open = append(open, KaspaDepositSighting{Outpoint: d.Outpoint, Block: b.Hash, DAAScore: b.DAAScore, Refusal: d.Refusal})
			}
		}
	}
	for _, s := range open {
		if !KaspaDeep(s.DAAScore, c.VirtualDAAScore, w.Depth) {
			continue
		}
		if s.Refusal != "" {
			out = append(out, KaspaDepositRefused{Outpoint: s.Outpoint, Block: s.Block, Reason: s.Refusal, VirtualDAAScore: c.VirtualDAAScore})
		} else {
			out = append(out, KaspaDepositConfirmed{Outpoint: s.Outpoint, Block: s.Block, VirtualDAAScore: c.VirtualDAAScore, Depth: w.Depth})
		}
	}
	return out
}

// KaspaDeep says whether a block of DAA score at is depth deep under the
// virtual's score virtual (the signers' rule for their inputs).
func KaspaDeep(at, virtual, depth uint64) bool { return at+depth <= virtual && at+depth >= at }

// deposit is the sighting of output i of tx when it pays a watched
// script; false when it pays anything else.
func (w KaspaDepositWatch) deposit(id Hash32, i uint32, o KaspaTxOutput, b KaspaChainBlock) (KaspaDepositDetected, bool) {
	if o.ScriptVersion != 0 {
		return KaspaDepositDetected{}, false
	}
	d := KaspaDepositDetected{Outpoint: KaspaOutpoint{TxID: id, Index: i}, Amount: o.Amount, Block: b.Hash, DAAScore: b.DAAScore}
	if r, ok := w.Recipients[string(o.Script)]; ok {
		d.Recipient = r
	} else if len(w.GroupScript) > 0 && string(o.Script) == string(w.GroupScript) {
		d.Refusal = KaspaRefusalNoRecipient
	} else {
		return KaspaDepositDetected{}, false
	}
	if d.Refusal == "" && o.Amount < w.MinSompi {
		d.Refusal = KaspaRefusalBelowMinimum
	}
	return d, true
}
