package simledger

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Config shapes a simulated ledger.
type Config struct {
	// DAAPerSecond is how fast the DAA score grows (Kaspa: 10).
	DAAPerSecond uint64
	// StartDAA is the DAA score at time zero.
	StartDAA uint64
	// Group is the group whose outputs views report and payouts spend.
	Group twophase.Group
	// Keys check payout signatures.
	Keys  *Keys
	Rules Rules
	// CoinbaseMaturity: a coinbase output is spendable once its DAA score
	// plus this is below the virtual DAA score (default 100, simnet's).
	CoinbaseMaturity uint64
}

// ErrRefused wraps every refusal of a submitted payout.
var ErrRefused = errors.New("payout refused by the ledger")

type output struct {
	u        twophase.UTXO
	spentDAA uint64 // 0: unspent
	spentBy  twophase.Hash
	gone     bool   // taken away by a reorg
	goneDAA  uint64 // when
}

type pendingTx struct {
	id       twophase.Hash
	t        twophase.Template
	received uint64 // DAA score at submission
}

// Accepted is a payout the ledger took: its id, template and the DAA
// score of the block that accepted it.
type Accepted struct {
	TxID     twophase.Hash
	Template twophase.Template
	DAAScore uint64
}

// Ledger is the simulated ledger. It is not safe for concurrent use: the
// simulator drives it from one goroutine; wrap it for anything else.
type Ledger struct {
	cfg      Config
	start    time.Time
	daa      uint64
	outs     map[twophase.Outpoint]*output
	order    []twophase.Outpoint // creation order, for stable views
	mempool  []*pendingTx
	accepted map[twophase.Hash]Accepted
	log      []Accepted
	version  uint64 // bumps on every change, keys the view cache
	views    map[uint64]twophase.LedgerView
	viewsVer uint64
	viewsDAA uint64
}

// New returns a ledger at DAA score cfg.StartDAA at time start.
func New(cfg Config, start time.Time) *Ledger {
	if cfg.DAAPerSecond == 0 {
		cfg.DAAPerSecond = 10
	}
	if cfg.CoinbaseMaturity == 0 {
		cfg.CoinbaseMaturity = 100
	}
	return &Ledger{cfg: cfg, start: start, daa: cfg.StartDAA, outs: map[twophase.Outpoint]*output{},
		accepted: map[twophase.Hash]Accepted{}, views: map[uint64]twophase.LedgerView{}}
}

// Fund adds an output of the group created at DAA score daa.
func (l *Ledger) Fund(op twophase.Outpoint, amount, daa uint64, coinbase bool) {
	l.outs[op] = &output{u: twophase.UTXO{Outpoint: op, Amount: amount, Script: l.cfg.Group.ChangeScript, DAAScore: daa, Coinbase: coinbase}}
	l.order = append(l.order, op)
	l.version++
}

// DAA is the virtual DAA score.
func (l *Ledger) DAA() uint64 { return l.daa }

// AdvanceTo moves time to now: the DAA score grows, and each new score is
// a block that accepts every pending payout whose inputs are still
// unspent (a payout whose input went elsewhere is dropped). It returns
// how many payouts were accepted.
func (l *Ledger) AdvanceTo(now time.Time) int {
	before := len(l.log)
	target := l.cfg.StartDAA + uint64(now.Sub(l.start).Seconds()*float64(l.cfg.DAAPerSecond))
	for l.daa < target {
		l.daa++
		l.mine()
	}
	return len(l.log) - before
}

func (l *Ledger) mine() {
	if len(l.mempool) == 0 {
		return
	}
	keep := l.mempool[:0]
	for _, p := range l.mempool {
		if p.received >= l.daa {
			keep = append(keep, p)
			continue
		}
		if !l.spendable(p.t, p.id) {
			continue // an input was spent by another payout or reorganised away
		}
		for _, in := range p.t.Inputs {
			o := l.outs[in.Outpoint]
			o.spentDAA, o.spentBy = l.daa, p.id
		}
		for i, out := range p.t.Outputs {
			if out.Script.Equal(l.cfg.Group.ChangeScript) {
				l.Fund(twophase.Outpoint{TxID: p.id, Index: uint32(i)}, out.Amount, l.daa, false)
			}
		}
		a := Accepted{TxID: p.id, Template: p.t, DAAScore: l.daa}
		l.accepted[p.id] = a
		l.log = append(l.log, a)
	}
	l.mempool = keep
	l.version++
}

func (l *Ledger) spendable(t twophase.Template, by twophase.Hash) bool {
	for _, in := range t.Inputs {
		o, ok := l.outs[in.Outpoint]
		if !ok || o.gone || (o.spentDAA != 0 && o.spentBy != by) || o.u.Amount != in.Amount {
			return false
		}
	}
	return true
}

// Submit takes a signed payout into the mempool. A payout already in the
// mempool or accepted is taken again without error (as a node answers
// "already known"); anything else that is wrong is refused.
func (l *Ledger) Submit(raw []byte) (twophase.Hash, error) {
	t, sigs, err := decodeTx(raw)
	if err != nil {
		return twophase.Hash{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	id := l.cfg.Rules.TxID(t)
	if _, ok := l.accepted[id]; ok {
		return id, nil
	}
	for _, p := range l.mempool {
		if p.id == id {
			return id, nil
		}
	}
	if err := l.check(t, id, sigs); err != nil {
		return id, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	l.mempool = append(l.mempool, &pendingTx{id: id, t: t, received: l.daa})
	l.version++
	return id, nil
}

func (l *Ledger) check(t twophase.Template, id twophase.Hash, sigs []twophase.MemberSignature) error {
	if _, err := l.cfg.Rules.Mass(t); err != nil {
		return err
	}
	if _, err := t.Fee(); err != nil {
		return err
	}
	for _, in := range t.Inputs {
		o, ok := l.outs[in.Outpoint]
		switch {
		case !ok || o.gone:
			return fmt.Errorf("input %s does not exist", in.Outpoint)
		case o.spentDAA != 0:
			return fmt.Errorf("input %s already spent", in.Outpoint)
		case o.u.Amount != in.Amount || !o.u.Script.Equal(in.Script):
			return fmt.Errorf("input %s differs from its output", in.Outpoint)
		case o.u.Coinbase && o.u.DAAScore+l.cfg.CoinbaseMaturity >= l.daa:
			return fmt.Errorf("input %s is an immature coinbase output", in.Outpoint)
		}
		for _, p := range l.mempool {
			if slices.Contains(p.t.Outpoints(), in.Outpoint) {
				return fmt.Errorf("input %s is spent by pending %s", in.Outpoint, p.id.Short())
			}
		}
	}
	valid := map[twophase.PeerID]bool{}
	for _, s := range sigs {
		m, ok := l.cfg.Group.Member(s.Signer)
		if !ok || l.cfg.Keys.VerifySignature(t, m, s.Signature) != nil {
			return fmt.Errorf("signature of %q does not check", s.Signer)
		}
		valid[s.Signer] = true
	}
	if len(valid) < l.cfg.Group.Quorum {
		return fmt.Errorf("%d valid signatures, the multisig needs %d", len(valid), l.cfg.Group.Quorum)
	}
	return nil
}

// Invalidate takes an unspent output away, as a reorg that drops the
// block which created it; pending payouts spending it will never be
// accepted. False when the output is spent or unknown.
func (l *Ledger) Invalidate(op twophase.Outpoint) bool {
	o, ok := l.outs[op]
	if !ok || o.gone || o.spentDAA != 0 {
		return false
	}
	o.gone, o.goneDAA = true, l.daa
	l.version++
	return true
}

// SpendElsewhere spends an unspent output by a transaction that is not a
// payout (a conflicting spend mined first), in a block at the current DAA
// score; pending payouts spending it will never be accepted. It returns
// that transaction's id, zero when the output is spent or unknown.
func (l *Ledger) SpendElsewhere(op twophase.Outpoint) twophase.Hash {
	o, ok := l.outs[op]
	if !ok || o.gone || o.spentDAA != 0 {
		return twophase.Hash{}
	}
	by := twophase.Hash(sha256.Sum256(append([]byte("conflict"), op.TxID[:]...)))
	o.spentDAA, o.spentBy = max(l.daa, 1), by
	l.version++
	return by
}

// Drop takes a payout out of the mempool, as a node that evicts it (or
// never relayed it); it can be submitted again. False when it is not
// pending.
func (l *Ledger) Drop(id twophase.Hash) bool {
	for i, p := range l.mempool {
		if p.id == id {
			l.mempool = slices.Delete(l.mempool, i, i+1)
			l.version++
			return true
		}
	}
	return false
}

// Input reports an outpoint as a node lagging lag behind sees it. An
// outpoint the ledger never had is neither unspent nor spent nor gone.
func (l *Ledger) Input(op twophase.Outpoint, lag uint64) twophase.InputStatus {
	at := l.daa - min(lag, l.daa)
	st := twophase.InputStatus{VirtualDAAScore: at}
	o, ok := l.outs[op]
	switch {
	case !ok || o.u.DAAScore > at:
	case o.gone && o.goneDAA <= at:
		st.GoneSince = o.goneDAA
	case o.spentDAA != 0 && o.spentDAA <= at:
		st.SpentBy, st.SpentDAA = o.spentBy, o.spentDAA
	default:
		st.Unspent = true
	}
	return st
}

// View is the ledger as a node lagging lag DAA scores behind sees it:
// outputs created by then and not yet spent by then, none taken away by
// a reorg; the mempool as it is now.
func (l *Ledger) View(lag uint64) twophase.LedgerView {
	if l.viewsVer != l.version || l.viewsDAA != l.daa {
		// Views are cached until the ledger changes or a block passes.
		clear(l.views)
		l.viewsVer, l.viewsDAA = l.version, l.daa
	}
	if v, ok := l.views[lag]; ok {
		return v
	}
	at := l.daa - min(lag, l.daa)
	v := twophase.LedgerView{VirtualDAAScore: at, MempoolSpent: map[twophase.Outpoint]twophase.Hash{}}
	for _, op := range l.order {
		o := l.outs[op]
		if o.gone || o.u.DAAScore > at || (o.spentDAA != 0 && o.spentDAA <= at) {
			continue
		}
		v.UTXOs = append(v.UTXOs, o.u)
	}
	for _, p := range l.mempool {
		for _, op := range p.t.Outpoints() {
			v.MempoolSpent[op] = p.id
		}
	}
	l.views[lag] = v
	return v
}

// Status reports a payout: accepted, at which DAA score, seen by a node
// lagging lag behind.
func (l *Ledger) Status(id twophase.Hash, lag uint64) twophase.PayoutStatus {
	at := l.daa - min(lag, l.daa)
	a, ok := l.accepted[id]
	if !ok || a.DAAScore > at {
		return twophase.PayoutStatus{VirtualDAAScore: at}
	}
	return twophase.PayoutStatus{Accepted: true, DAAScore: a.DAAScore, VirtualDAAScore: at}
}

// AcceptedPayouts lists every accepted payout in acceptance order.
func (l *Ledger) AcceptedPayouts() []Accepted { return slices.Clone(l.log) }

// Pending counts payouts in the mempool.
func (l *Ledger) Pending() int { return len(l.mempool) }

func encodeTx(t twophase.Template, sigs []twophase.MemberSignature) []byte {
	b := t.Encode()
	out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
	out = append(out, b...)
	out = binary.AppendUvarint(out, uint64(len(sigs)))
	for _, s := range sigs {
		out = binary.AppendUvarint(out, uint64(len(s.Signer)))
		out = append(out, s.Signer...)
		out = binary.AppendUvarint(out, uint64(len(s.Signature)))
		out = append(out, s.Signature...)
	}
	return out
}

func decodeTx(b []byte) (twophase.Template, []twophase.MemberSignature, error) {
	bad := errors.New("malformed transaction")
	if len(b) < 4 {
		return twophase.Template{}, nil, bad
	}
	n := int(binary.BigEndian.Uint32(b))
	if n > len(b)-4 {
		return twophase.Template{}, nil, bad
	}
	t, err := twophase.DecodeTemplate(b[4:4+n], 1000, 1000)
	if err != nil {
		return twophase.Template{}, nil, err
	}
	rest := b[4+n:]
	readBytes := func() ([]byte, bool) {
		l, k := binary.Uvarint(rest)
		if k <= 0 || l > uint64(len(rest)-k) {
			return nil, false
		}
		v := rest[k : k+int(l)]
		rest = rest[k+int(l):]
		return v, true
	}
	cnt, k := binary.Uvarint(rest)
	if k <= 0 || cnt > 64 {
		return twophase.Template{}, nil, bad
	}
	rest = rest[k:]
	var sigs []twophase.MemberSignature
	for i := uint64(0); i < cnt; i++ {
		id, ok1 := readBytes()
		sig, ok2 := readBytes()
		if !ok1 || !ok2 {
			return twophase.Template{}, nil, bad
		}
		sigs = append(sigs, twophase.MemberSignature{Signer: twophase.PeerID(id), Signature: sig})
	}
	if len(rest) != 0 {
		return twophase.Template{}, nil, bad
	}
	return t, sigs, nil
}

// Decode reads a signed payout as Submit does: its id and template.
func (l *Ledger) Decode(raw []byte) (twophase.Hash, twophase.Template, error) {
	t, _, err := decodeTx(raw)
	if err != nil {
		return twophase.Hash{}, twophase.Template{}, err
	}
	return l.cfg.Rules.TxID(t), t, nil
}

// Dead reports whether t can never be accepted: an input was taken away
// by a reorg or spent by another transaction. The simulator's invariants
// use it to tell a template given up for cause from a split commit.
func (l *Ledger) Dead(t twophase.Template) bool {
	id := l.cfg.Rules.TxID(t)
	if _, ok := l.accepted[id]; ok {
		return false
	}
	for _, in := range t.Inputs {
		o, ok := l.outs[in.Outpoint]
		if !ok || o.gone || (o.spentDAA != 0 && o.spentBy != id) {
			return true
		}
	}
	return false
}

// AcceptedSince returns the payouts accepted at DAA score since or later,
// in acceptance order; the slice is the ledger's own: do not change it.
func (l *Ledger) AcceptedSince(since uint64) []Accepted {
	i := sort.Search(len(l.log), func(i int) bool { return l.log[i].DAAScore >= since })
	return l.log[i:]
}
