package devchain

import (
	"context"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/domain"
)

// Audit is what a dev bridge's chain itself shows of its flows, read
// without the relay's log or store: every lock and burn its users sent,
// every mint and claim the relay sent, and the balances they must add up
// to. [Audit.Problems] judges it. Burns toward Kaspa are paid on Kaspa,
// which the audit does not read; a refused one's refund is read.
type Audit struct {
	Locks      []Transfer // DepositLocked, keyed by the token's deposit key
	Mints      []Transfer // DepositMinted, keyed by deposit key
	Burns      []Transfer // WithdrawalBurned, keyed by the burn's id
	Claims     []Transfer // Claimed, keyed by the burn's id (the leaf's txId)
	KaspaBurns []Transfer // WithdrawalToKaspa, keyed by the burn's id
	Refunds    []Transfer // Refunded, keyed by the refund key (see Transfer.RefundKey)
	Supply     *big.Int   // the token's total supply
	Locked     *big.Int   // the distributor's locked pool
	// Balances are the token balances of every mint recipient and burner.
	Balances map[common.Address]*big.Int
}

// Counts are how many user transactions of each kind were sent.
type Counts struct {
	Locks      int // deposits, Kaspa payouts' own included
	Burns      int // withdrawals paid on the lock side
	KaspaBurns int // burns toward Kaspa
}

// Transfer is one lock, mint, burn or claim. Key pairs a lock with its
// mint and a burn with its claim.
type Transfer struct {
	Key            common.Hash
	Tx             common.Hash
	From           common.Address // the depositor or burner; zero for mints and claims
	To             common.Address // zero for a burn toward Kaspa
	KaspaRecipient string         // a burn toward Kaspa's payee
	Amount         *big.Int
	// RefundKey is a burn toward Kaspa's refund guard key: a refund of
	// it is logged under that key.
	RefundKey common.Hash
}

// ReadAudit reads every bridge log of u's contracts and the balances.
func ReadAudit(ctx context.Context, u Users) (Audit, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var a Audit
	id, err := u.Backend.ChainID(ctx)
	if err != nil {
		return a, fmt.Errorf("chain id: %w", err)
	}
	d, t := contracts.NewBatchDistributor(), contracts.NewBridgeToken()
	type source struct {
		contract common.Address
		event    abi.Event
		into     *[]Transfer
		decode   func(*types.Log) (Transfer, error)
	}
	for _, s := range []source{
		{u.Bridge.Distributor, d.GetABI().Events[contracts.BatchDistributorDepositLockedEventName], &a.Locks, func(l *types.Log) (Transfer, error) {
			ev, err := d.UnpackDepositLockedEvent(l)
			if err != nil {
				return Transfer{}, err
			}
			ref := domain.LogRef{ChainID: id.Uint64(), TxHash: domain.Hash32(l.TxHash), LogIndex: uint32(l.Index)}
			return Transfer{Key: evmchain.DepositKey(ref), From: ev.Depositor, To: ev.Recipient, Amount: ev.Amount}, nil
		}},
		{u.Bridge.Token, t.GetABI().Events[contracts.BridgeTokenDepositMintedEventName], &a.Mints, func(l *types.Log) (Transfer, error) {
			ev, err := t.UnpackDepositMintedEvent(l)
			if err != nil {
				return Transfer{}, err
			}
			return Transfer{Key: ev.DepositKey, To: ev.To, Amount: ev.Amount}, nil
		}},
		{u.Bridge.Token, t.GetABI().Events[contracts.BridgeTokenWithdrawalBurnedEventName], &a.Burns, func(l *types.Log) (Transfer, error) {
			ev, err := t.UnpackWithdrawalBurnedEvent(l)
			if err != nil {
				return Transfer{}, err
			}
			return Transfer{Key: common.BigToHash(ev.Id), From: ev.Withdrawer, To: ev.Recipient, Amount: ev.Amount}, nil
		}},
		{u.Bridge.Token, t.GetABI().Events[contracts.BridgeTokenWithdrawalToKaspaEventName], &a.KaspaBurns, func(l *types.Log) (Transfer, error) {
			ev, err := t.UnpackWithdrawalToKaspaEvent(l)
			if err != nil {
				return Transfer{}, err
			}
			ref := domain.LogRef{ChainID: id.Uint64(), TxHash: domain.Hash32(l.TxHash), LogIndex: uint32(l.Index)}
			return Transfer{Key: common.BigToHash(ev.Id), From: ev.Withdrawer, KaspaRecipient: ev.KaspaRecipient, Amount: ev.Amount,
				RefundKey: common.Hash(domain.RefundKeyOf(ref))}, nil
		}},
		{u.Bridge.Token, t.GetABI().Events[contracts.BridgeTokenRefundedEventName], &a.Refunds, func(l *types.Log) (Transfer, error) {
			ev, err := t.UnpackRefundedEvent(l)
			if err != nil {
				return Transfer{}, err
			}
			return Transfer{Key: ev.RefundKey, To: ev.Burner, Amount: ev.Amount}, nil
		}},
		{u.Bridge.Distributor, d.GetABI().Events[contracts.BatchDistributorClaimedEventName], &a.Claims, func(l *types.Log) (Transfer, error) {
			ev, err := d.UnpackClaimedEvent(l)
			if err != nil {
				return Transfer{}, err
			}
			return Transfer{Key: common.BigToHash(ev.TxId), To: ev.Recipient, Amount: ev.Amount}, nil
		}},
	} {
		logs, err := u.Backend.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{s.contract},
			Topics: [][]common.Hash{{s.event.ID}}})
		if err != nil {
			return a, fmt.Errorf("%s logs: %w", s.event.Name, err)
		}
		for i := range logs {
			tr, err := s.decode(&logs[i])
			if err != nil {
				return a, fmt.Errorf("%s log in tx %s: %w", s.event.Name, logs[i].TxHash, err)
			}
			tr.Tx = logs[i].TxHash
			*s.into = append(*s.into, tr)
		}
	}
	if a.Supply, err = bind.Call(t.Instance(u.Backend, u.Bridge.Token), &bind.CallOpts{Context: ctx}, t.PackTotalSupply(),
		t.UnpackTotalSupply); err != nil {
		return a, fmt.Errorf("token supply: %w", err)
	}
	if a.Locked, err = u.TotalLocked(ctx); err != nil {
		return a, fmt.Errorf("locked pool: %w", err)
	}
	a.Balances = map[common.Address]*big.Int{}
	for _, tr := range slices.Concat(a.Mints, a.Burns, a.KaspaBurns, a.Refunds) {
		holder := tr.To
		if tr.From != (common.Address{}) {
			holder = tr.From
		}
		if _, ok := a.Balances[holder]; ok {
			continue
		}
		if a.Balances[holder], err = u.TokenBalance(ctx, holder); err != nil {
			return a, fmt.Errorf("token balance of %s: %w", holder, err)
		}
	}
	return a, nil
}

// Problems lists every way the chain differs from what was sent, none
// when every deposit was minted once and every withdrawal paid once, to
// the right account and amount, the burns toward Kaspa are numbered from
// 1 without gaps or repeats, each refund returns a burn toward Kaspa
// once, to its burner, and the supply, the locked pool and each
// holder's balance add up. sent's counts, where not negative, are checked
// against the logs.
func (a Audit) Problems(sent Counts) []string {
	var out []string
	for _, c := range []struct {
		sent, got int
		what      string
	}{
		{sent.Locks, len(a.Locks), "deposits locked"},
		{sent.Burns, len(a.Burns), "withdrawals burned"},
		{sent.KaspaBurns, len(a.KaspaBurns), "burns toward Kaspa"},
	} {
		if c.sent >= 0 && c.got != c.sent {
			out = append(out, fmt.Sprintf("%d %s on chain, %d sent", c.got, c.what, c.sent))
		}
	}
	out = append(out, paidOnce("deposit", "minted", a.Locks, a.Mints)...)
	out = append(out, paidOnce("withdrawal", "claimed", a.Burns, a.Claims)...)
	out = append(out, numberedOnce(a.KaspaBurns)...)
	out = append(out, a.refundedOnce()...)
	burned := new(big.Int).Add(total(a.Burns), total(a.KaspaBurns))
	minted := new(big.Int).Add(total(a.Mints), total(a.Refunds))
	if want := new(big.Int).Sub(minted, burned); a.Supply.Cmp(want) != 0 {
		out = append(out, fmt.Sprintf("token supply %s, want %s (minted and refunded less burned)", a.Supply, want))
	}
	if want := new(big.Int).Sub(total(a.Locks), total(a.Claims)); a.Locked.Cmp(want) != 0 {
		out = append(out, fmt.Sprintf("locked pool %s, want %s (locked less claimed)", a.Locked, want))
	}
	want := map[common.Address]*big.Int{}
	for _, m := range slices.Concat(a.Mints, a.Refunds) {
		add(want, m.To, m.Amount)
	}
	for _, b := range slices.Concat(a.Burns, a.KaspaBurns) {
		add(want, b.From, new(big.Int).Neg(b.Amount))
	}
	holders := make([]common.Address, 0, len(want))
	for h := range want {
		holders = append(holders, h)
	}
	sort.Slice(holders, func(i, j int) bool { return holders[i].Cmp(holders[j]) < 0 })
	for _, h := range holders {
		if got := a.Balances[h]; got == nil || got.Cmp(want[h]) != 0 {
			out = append(out, fmt.Sprintf("token balance of %s is %v, want %s (minted and refunded to it less burned by it)", h, got, want[h]))
		}
	}
	return out
}

// Summary is one line of what the chain shows.
func (a Audit) Summary() string {
	refunds := ""
	if len(a.Refunds) > 0 {
		refunds = fmt.Sprintf(", %d refunded", len(a.Refunds))
	}
	return fmt.Sprintf("%d deposits locked, %d mints; %d withdrawals burned, %d claims; %d burns toward Kaspa%s; token supply %s wei, locked %s wei",
		len(a.Locks), len(a.Mints), len(a.Burns), len(a.Claims), len(a.KaspaBurns), refunds, a.Supply, a.Locked)
}

// RefundsOf are the refunds logged for burn, a burn toward Kaspa: one
// once the group's refusal of it was refunded, none before (the token's
// guard allows no second).
func (a Audit) RefundsOf(burn Transfer) []Transfer {
	var out []Transfer
	for _, r := range a.Refunds {
		if r.Key == burn.RefundKey {
			out = append(out, r)
		}
	}
	return out
}

// refundedOnce checks that every refund returns a burn toward Kaspa, to
// its burner and of its amount, and no burn is refunded twice.
func (a Audit) refundedOnce() []string {
	var out []string
	burns := map[common.Hash]Transfer{}
	for _, b := range a.KaspaBurns {
		burns[b.RefundKey] = b
	}
	times := map[common.Hash]int{}
	for _, r := range a.Refunds {
		b, ok := burns[r.Key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("refund in tx %s (key %s) returns no burn toward Kaspa", r.Tx, r.Key))
			continue
		case r.To != b.From || r.Amount.Cmp(b.Amount) != 0:
			out = append(out, fmt.Sprintf("burn toward Kaspa in tx %s of %s by %s refunded as %s to %s", b.Tx, b.Amount, b.From,
				r.Amount, r.To))
		}
		if times[r.Key]++; times[r.Key] == 2 {
			out = append(out, fmt.Sprintf("burn toward Kaspa in tx %s refunded more than once", b.Tx))
		}
	}
	return out
}

// paidOnce checks that each request (lock, burn) has exactly one payment
// (mint, claim) of its amount to its recipient, and no payment is for
// something never requested.
func paidOnce(what, paid string, requests, payments []Transfer) []string {
	byKey := map[common.Hash][]Transfer{}
	for _, p := range payments {
		byKey[p.Key] = append(byKey[p.Key], p)
	}
	var out []string
	for _, r := range requests {
		ps := byKey[r.Key]
		delete(byKey, r.Key)
		switch {
		case len(ps) != 1:
			out = append(out, fmt.Sprintf("%s in tx %s %s %d times, want once", what, r.Tx, paid, len(ps)))
		case ps[0].To != r.To || ps[0].Amount.Cmp(r.Amount) != 0:
			out = append(out, fmt.Sprintf("%s in tx %s of %s to %s %s as %s to %s", what, r.Tx, r.Amount, r.To, paid,
				ps[0].Amount, ps[0].To))
		}
	}
	var strays []string
	for _, ps := range byKey {
		for _, p := range ps {
			strays = append(strays, p.Tx.Hex())
		}
	}
	if len(strays) > 0 {
		sort.Strings(strays)
		out = append(out, fmt.Sprintf("%s for no %s sent: in tx %s", paid, what, strings.Join(strays, ", ")))
	}
	return out
}

// numberedOnce checks that the burns toward Kaspa have ids
// [domain.FirstBurnID] on, each once: the signing group pays them in id
// order, so a gap stalls its stream, and a repeated id pays two burns once.
func numberedOnce(burns []Transfer) []string {
	times := map[uint64]int{}
	var out []string
	for _, b := range burns {
		id := new(big.Int).SetBytes(b.Key[:])
		if !id.IsUint64() || id.Uint64() < domain.FirstBurnID {
			out = append(out, fmt.Sprintf("burn toward Kaspa in tx %s has id %s; ids count from %d", b.Tx, id, domain.FirstBurnID))
			continue
		}
		times[id.Uint64()]++
	}
	ids := slices.Sorted(maps.Keys(times))
	var missing []string
	skipped := uint64(0)
	next := uint64(domain.FirstBurnID)
	for _, id := range ids {
		if times[id] > 1 {
			out = append(out, fmt.Sprintf("burn toward Kaspa id %d logged %d times, want once", id, times[id]))
		}
		// Name the first few missing ids; a bogus huge id must not make
		// the list as long as the gap.
		for ; next < id && len(missing) < 5; next++ {
			missing = append(missing, strconv.FormatUint(next, 10))
		}
		skipped += id - next
		next = id + 1
	}
	if len(missing) > 0 {
		gap := strings.Join(missing, ", ")
		if skipped > 0 {
			gap += fmt.Sprintf(" and %d more", skipped)
		}
		out = append(out, fmt.Sprintf("burns toward Kaspa lack ids %s (the highest is %d)", gap, ids[len(ids)-1]))
	}
	return out
}

func total(ts []Transfer) *big.Int {
	n := new(big.Int)
	for _, t := range ts {
		n.Add(n, t.Amount)
	}
	return n
}

func add(m map[common.Address]*big.Int, a common.Address, v *big.Int) {
	if m[a] == nil {
		m[a] = new(big.Int)
	}
	m[a].Add(m[a], v)
}
