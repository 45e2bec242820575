package kaspanode

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kaspanet/kaspad/app/appmessage"
	"github.com/kaspanet/kaspad/cmd/kaspawallet/libkaspawallet/serialization"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// RefusedError is the node's refusal of a submitted transaction, with its
// reason as the node gave it.
type RefusedError struct {
	TxID   twophase.Hash
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("kaspa node refused transaction %s: %s", e.TxID.Short(), e.Reason)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// View returns the group's unspent outputs, the outpoints pending
// transactions spend and the virtual DAA score. The mempool is read
// first, then the UTXO index: an output spent by a transaction accepted
// in between is gone from the second answer, so an output a pending
// transaction spends is never taken for unspent.
func (c *Client) View(ctx context.Context) (twophase.LedgerView, error) {
	spent, err := c.mempoolSpends(ctx)
	if err != nil {
		return twophase.LedgerView{}, err
	}
	utxos, err := c.utxos(ctx)
	if err != nil {
		return twophase.LedgerView{}, err
	}
	info, err := c.blockDAGInfo(ctx)
	if err != nil {
		return twophase.LedgerView{}, err
	}
	view := twophase.LedgerView{VirtualDAAScore: info.VirtualDAAScore, UTXOs: utxos, MempoolSpent: map[twophase.Outpoint]twophase.Hash{}}
	// Only the group's outputs matter to the group: a pending spend of
	// anything else is left out, which also bounds the map when the whole
	// mempool was read.
	for _, u := range utxos {
		if by, ok := spent[u.Outpoint]; ok {
			view.MempoolSpent[u.Outpoint] = by
		}
	}
	return view, nil
}

// mempoolSpends maps each outpoint that a pending transaction (orphans
// included) spends to that transaction's id, when a pending transaction
// spends from the group address; else it is empty.
//
// kaspad v0.12.23's GetMempoolEntriesByAddresses cannot list them all: it
// keeps one sending and one receiving transaction per address and pool
// (a map keyed by script), and with includeOrphanPool it returns the
// orphan pool's spends in place of the transaction pool's. So it serves
// only as a probe, once per pool (which each pool answers right); when
// it shows a spend from the group address, the whole mempool is read
// (GetMempoolEntries), which lists every pending transaction.
func (c *Client) mempoolSpends(ctx context.Context) (map[twophase.Outpoint]twophase.Hash, error) {
	spending, err := c.groupSpendPending(ctx)
	if err != nil || !spending {
		return nil, err
	}
	const name = "get_mempool_entries"
	r, err := call[*appmessage.GetMempoolEntriesResponseMessage](ctx, c, name, appmessage.NewGetMempoolEntriesRequestMessage(true, false))
	if err != nil {
		return nil, err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return nil, err
	}
	spent := map[twophase.Outpoint]twophase.Hash{}
	for _, e := range r.Entries {
		id, err := mempoolTxID(e.Transaction)
		if err != nil {
			return nil, err
		}
		for _, in := range e.Transaction.Inputs {
			o, err := outpoint(in.PreviousOutpoint)
			if err != nil {
				return nil, err
			}
			spent[o] = id
		}
	}
	return spent, nil
}

// groupSpendPending reports whether a pending transaction, in the
// transaction pool or the orphan pool, spends from the group address.
func (c *Client) groupSpendPending(ctx context.Context) (bool, error) {
	const name = "get_mempool_entries_by_addresses"
	for _, orphans := range []bool{false, true} {
		// orphans: the orphan pool alone (includeOrphanPool, filterTransactionPool).
		r, err := call[*appmessage.GetMempoolEntriesByAddressesResponseMessage](ctx, c, name,
			appmessage.NewGetMempoolEntriesByAddressesRequestMessage([]string{c.address}, orphans, orphans))
		if err != nil {
			return false, err
		}
		if err := c.nodeError(name, r.Error); err != nil {
			return false, err
		}
		for _, e := range r.Entries {
			if len(e.Sending) > 0 {
				return true, nil
			}
		}
	}
	return false, nil
}

// mempoolTxID is the id of a pending transaction: the node sends it in
// the verbose data, or it is computed.
func mempoolTxID(tx *appmessage.RPCTransaction) (twophase.Hash, error) {
	if tx.VerboseData != nil && tx.VerboseData.TransactionID != "" {
		return parseHash("transaction id", tx.VerboseData.TransactionID)
	}
	d, err := appmessage.RPCTransactionToDomainTransaction(tx)
	if err != nil {
		return twophase.Hash{}, fmt.Errorf("kaspanode: pending transaction from the node: %w", err)
	}
	return txID(d), nil
}

// utxos lists the group address's outputs from the node's UTXO index,
// ordered by outpoint.
func (c *Client) utxos(ctx context.Context) ([]twophase.UTXO, error) {
	const name = "get_utxos_by_addresses"
	r, err := call[*appmessage.GetUTXOsByAddressesResponseMessage](ctx, c, name, appmessage.NewGetUTXOsByAddressesRequestMessage([]string{c.address}))
	if err != nil {
		return nil, err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return nil, err
	}
	return utxoList(name, r.Entries)
}

// utxoList converts the entries of a get_utxos_by_addresses answer,
// ordered by outpoint.
func utxoList(name string, entries []*appmessage.UTXOsByAddressesEntry) ([]twophase.UTXO, error) {
	out := make([]twophase.UTXO, 0, len(entries))
	for _, e := range entries {
		if e.UTXOEntry == nil || e.UTXOEntry.ScriptPublicKey == nil {
			return nil, fmt.Errorf("kaspanode: %s: entry without its output", name)
		}
		o, err := outpoint(e.Outpoint)
		if err != nil {
			return nil, err
		}
		script, err := hex.DecodeString(e.UTXOEntry.ScriptPublicKey.Script)
		if err != nil {
			return nil, fmt.Errorf("kaspanode: %s: script of %s: %w", name, o, err)
		}
		out = append(out, twophase.UTXO{Outpoint: o, Amount: e.UTXOEntry.Amount,
			Script:   twophase.Script{Version: e.UTXOEntry.ScriptPublicKey.Version, Bytes: script},
			DAAScore: e.UTXOEntry.BlockDAAScore, Coinbase: e.UTXOEntry.IsCoinbase})
	}
	slices.SortFunc(out, func(a, b twophase.UTXO) int {
		if a.Outpoint == b.Outpoint {
			return 0
		}
		if a.Outpoint.Less(b.Outpoint) {
			return -1
		}
		return 1
	})
	return out, nil
}

// txID is a transaction's id (which leaves its signatures out).
func txID(tx *externalapi.DomainTransaction) twophase.Hash {
	return twophase.Hash(*consensushashing.TransactionID(tx).ByteArray())
}

func outpoint(o *appmessage.RPCOutpoint) (twophase.Outpoint, error) {
	if o == nil {
		return twophase.Outpoint{}, errors.New("kaspanode: the node sent an input without its outpoint")
	}
	id, err := parseHash("outpoint", o.TransactionID)
	return twophase.Outpoint{TxID: id, Index: o.Index}, err
}

// parseHash reads a hash the node sent as hex (kaspad writes a hash's
// bytes in order, so the hex is the id's bytes).
func parseHash(what, s string) (twophase.Hash, error) {
	h, err := twophase.ParseHash(s)
	if err != nil {
		return h, fmt.Errorf("kaspanode: %s from the node: %w", what, err)
	}
	return h, nil
}

// Submit hands a signed transaction (serialization.SerializeDomainTransaction
// bytes) to the node. nil when the node took it, or already had it in its
// mempool, or had already accepted it; a *RefusedError with the node's
// reason when it refused it.
//
// kaspad does not say "already accepted": an accepted transaction's inputs
// are spent, so the node calls it an orphan. On that answer Submit looks
// the transaction up among the accepted ones (as PayoutStatus does) before
// calling it refused.
func (c *Client) Submit(ctx context.Context, raw []byte) error {
	tx, err := serialization.DeserializeDomainTransaction(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	id := txID(tx)
	const name = "submit_transaction"
	r, err := call[*appmessage.SubmitTransactionResponseMessage](ctx, c, name,
		appmessage.NewSubmitTransactionRequestMessage(appmessage.DomainTransactionToRPCTransaction(tx), false))
	if err != nil {
		return err
	}
	err = submitted(name, id, r)
	var refused *RefusedError
	if errors.As(err, &refused) && strings.Contains(refused.Reason, "is an orphan") {
		st, err := c.PayoutStatus(ctx, id)
		if err != nil {
			return fmt.Errorf("kaspanode: transaction %s: the node calls it an orphan, and whether it was accepted is unknown: %w", id.Short(), err)
		}
		if st.Accepted {
			return nil
		}
		return refused
	}
	if err == nil {
		c.chain.pending(id) // in the mempool now: not accepted before
		c.log.Debug("kaspa transaction submitted", "node", c.cfg.Node, "tx", id.Hex())
	}
	return err
}

// submitted reads the node's answer to the submission of transaction id:
// nil when it took the transaction or had it in its mempool already, a
// *RefusedError with its reason when it refused it.
func submitted(name string, id twophase.Hash, r *appmessage.SubmitTransactionResponseMessage) error {
	if r.Error == nil {
		if r.TransactionID != "" && r.TransactionID != hex.EncodeToString(id[:]) {
			return fmt.Errorf("kaspanode: %s: the node answered for transaction %s, not %s", name, r.TransactionID, id.Hex())
		}
		return nil
	}
	if strings.Contains(r.Error.Message, "is already in the mempool") {
		return nil
	}
	return &RefusedError{TxID: id, Reason: r.Error.Message}
}

// InputStatus says what the node shows of one of the group's outpoints:
// unspent (in the UTXO index), or gone since the virtual DAA score at
// which this client first found it missing. kaspad keeps no index of the
// transaction that spent an output, so a spend by another transaction is
// reported as gone too: the signer's proof that a signed payout can never
// confirm then waits payoutDepth from the first miss, and the signer
// reads the payout's own acceptance after this (a payout that spent the
// input itself shows as accepted and is never voided). A restart forgets
// the first misses, which only makes the wait longer.
func (c *Client) InputStatus(ctx context.Context, op twophase.Outpoint) (twophase.InputStatus, error) {
	utxos, err := c.utxos(ctx)
	if err != nil {
		return twophase.InputStatus{}, err
	}
	info, err := c.blockDAGInfo(ctx)
	if err != nil {
		return twophase.InputStatus{}, err
	}
	st := twophase.InputStatus{VirtualDAAScore: info.VirtualDAAScore}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.ContainsFunc(utxos, func(u twophase.UTXO) bool { return u.Outpoint == op }) {
		delete(c.missing, op)
		st.Unspent = true
		return st, nil
	}
	if c.missing == nil {
		c.missing = map[twophase.Outpoint]uint64{}
	}
	since, ok := c.missing[op]
	if !ok {
		since = info.VirtualDAAScore
		c.missing[op] = since
	}
	st.GoneSince = since
	return st, nil
}
