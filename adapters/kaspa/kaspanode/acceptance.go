package kaspanode

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kaspanet/kaspad/app/appmessage"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// How PayoutStatus learns that a payout was accepted, and at which DAA
// score. kaspad has no transaction index, so the candidates were:
//
//   - the UTXO index for the payout's outputs: an output's BlockDAAScore is
//     the DAA score of the virtual that first accepted the transaction (at
//     or a block below the accepting chain block's), but the output is
//     gone as soon as its owner spends it (a recipient sweeping its
//     withdrawal, the group spending its change in the next payout), and
//     the payout would then look unaccepted with its inputs gone: the
//     signer would fail the round and pay again;
//   - GetMempoolEntry: says "pending", never "accepted" (a transaction
//     leaves the mempool also when it is dropped);
//   - GetVirtualSelectedParentChainFromBlock with accepted transaction ids:
//     the chain blocks added since a given block, each with the ids of the
//     transactions it accepted, and the chain blocks removed by a reorg.
//     It does not depend on who spent what afterwards.
//
// The client uses the last: it follows the chain from a cursor, recording
// for each payout it watches the chain block that accepted it (undone when
// that block leaves the chain), and reads that block's DAA score once with
// GetBlock. A payout first asked about after it may have been accepted
// (after a restart, or one submitted by another member) needs the history:
// the chain is then scanned again from the node's pruning point, the
// oldest block whose acceptance data the node still has. A payout the
// client submitted itself, and the node took into its mempool, cannot have
// been accepted before, so following from the cursor suffices.
//
// The chain lags the UTXO index by one block: the virtual block already
// accepts the transactions of the blocks it merges (the UTXO index shows
// their outputs, and their inputs gone), while no chain block lists them
// as accepted until the next block is mined on top. A payout not found on
// the chain is therefore looked for in those blocks (GetBlocks from the
// cursor: the selected tip and its anticone); found there, PayoutStatus
// answers ErrUnsettled instead of "not accepted", which would make a
// signer take the payout for dead (its inputs gone) and pay again.
//
// The answer never says "not accepted" for a payout that was: a payout
// accepted before the node's pruning point (days) is the one it cannot see.

// follower is the chain-following state; its mutex is held for a whole
// PayoutStatus, across its calls to the node.
type follower struct {
	mu      sync.Mutex
	max     int
	cursor  string            // last chain block applied; "" before the first scan
	watched map[string]*watch // by transaction id, hex as the node writes it
	uses    uint64
}

// watch is one payout's acceptance as far as the chain was followed.
type watch struct {
	block   string // the accepting chain block; "" while not accepted
	daa     uint64 // block's DAA score once read (0: not yet; genesis accepts nothing)
	history bool   // may have been accepted before the cursor
	used    uint64
}

func (f *follower) init(max int) {
	f.max = max
	f.watched = map[string]*watch{}
}

// watch returns id's record, adding it (and forgetting the least recently
// used record beyond max).
func (f *follower) watch(id twophase.Hash, history bool) *watch {
	key := hex.EncodeToString(id[:])
	f.uses++
	w := f.watched[key]
	if w == nil {
		if len(f.watched) >= f.max {
			var oldest string
			for k, o := range f.watched {
				if oldest == "" || o.used < f.watched[oldest].used {
					oldest = k
				}
			}
			delete(f.watched, oldest)
		}
		w = &watch{history: history}
		f.watched[key] = w
	}
	w.used = f.uses
	return w
}

// pending records that the node took id into its mempool: it was not
// accepted before now.
func (f *follower) pending(id twophase.Hash) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watch(id, false).history = false
}

func (f *follower) needsHistory() bool {
	if f.cursor == "" {
		return true
	}
	for _, w := range f.watched {
		if w.history {
			return true
		}
	}
	return false
}

// apply records a stretch of the chain: acceptances in removed blocks are
// undone, those in added blocks recorded, and the cursor moves to the last
// added block.
func (f *follower) apply(r *appmessage.GetVirtualSelectedParentChainFromBlockResponseMessage) {
	if len(r.RemovedChainBlockHashes) > 0 {
		removed := make(map[string]bool, len(r.RemovedChainBlockHashes))
		for _, h := range r.RemovedChainBlockHashes {
			removed[h] = true
		}
		for _, w := range f.watched {
			if removed[w.block] {
				w.block, w.daa = "", 0
			}
		}
	}
	for _, a := range r.AcceptedTransactionIDs {
		for _, id := range a.AcceptedTransactionIDs {
			if w := f.watched[id]; w != nil {
				w.block, w.daa = a.AcceptingBlockHash, 0
			}
		}
	}
	if n := len(r.AddedChainBlockHashes); n > 0 {
		f.cursor = r.AddedChainBlockHashes[n-1]
	} else if len(r.RemovedChainBlockHashes) > 0 {
		f.cursor = "" // the chain only shrank: where it ends now is unknown, scan again
	}
}

// PayoutStatus says whether the transaction txID was accepted, the DAA
// score of the chain block that accepted it, and the virtual DAA score.
// An error when the node cannot be asked: never "not accepted" then.
func (c *Client) PayoutStatus(ctx context.Context, txID twophase.Hash) (twophase.PayoutStatus, error) {
	f := &c.chain
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.watch(txID, true)
	if err := c.follow(ctx); err != nil {
		return twophase.PayoutStatus{}, err
	}
	if w.block == "" {
		if err := c.unsettled(ctx, txID); err != nil {
			return twophase.PayoutStatus{}, err
		}
	}
	if w.block != "" && w.daa == 0 {
		daa, err := c.blockDAAScore(ctx, w.block)
		if err != nil {
			return twophase.PayoutStatus{}, err
		}
		w.daa = daa
	}
	info, err := c.blockDAGInfo(ctx)
	if err != nil {
		return twophase.PayoutStatus{}, err
	}
	return twophase.PayoutStatus{Accepted: w.block != "", DAAScore: w.daa, VirtualDAAScore: info.VirtualDAAScore}, nil
}

// follow brings the watched payouts' acceptance up to the chain's tip:
// from the cursor when it can, else from the pruning point.
func (c *Client) follow(ctx context.Context) error {
	f := &c.chain
	if !f.needsHistory() {
		r, err := c.chainFrom(ctx, f.cursor)
		if err == nil {
			f.apply(r)
			return nil
		}
		if !errors.Is(err, ErrNode) {
			return err
		}
		// The node no longer knows the cursor (its data was replaced, or
		// the block pruned): start over.
		c.log.Warn("kaspa chain cursor unknown to the node, scanning from the pruning point", "node", c.cfg.Node, "cursor", f.cursor, "err", err)
	}
	info, err := c.blockDAGInfo(ctx)
	if err != nil {
		return err
	}
	r, err := c.chainFrom(ctx, info.PruningPointHash)
	if err != nil {
		return err
	}
	for _, w := range f.watched {
		w.block, w.daa, w.history = "", 0, false
	}
	f.cursor = info.PruningPointHash
	f.apply(r)
	c.log.Debug("kaspa chain scanned from the pruning point", "node", c.cfg.Node,
		"chain_blocks", len(r.AddedChainBlockHashes), "watched", len(f.watched))
	return nil
}

// chainFrom is the virtual selected parent chain's change since block
// start, with the ids of the transactions each added block accepted.
func (c *Client) chainFrom(ctx context.Context, start string) (*appmessage.GetVirtualSelectedParentChainFromBlockResponseMessage, error) {
	const name = "get_virtual_selected_parent_chain_from_block"
	r, err := call[*appmessage.GetVirtualSelectedParentChainFromBlockResponseMessage](ctx, c, name,
		appmessage.NewGetVirtualSelectedParentChainFromBlockRequestMessage(start, true))
	if err != nil {
		return nil, err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return nil, err
	}
	return r, nil
}

// blockDAAScore reads a block's DAA score from its header.
func (c *Client) blockDAAScore(ctx context.Context, hash string) (uint64, error) {
	const name = "get_block"
	r, err := call[*appmessage.GetBlockResponseMessage](ctx, c, name, appmessage.NewGetBlockRequestMessage(hash, false))
	if err != nil {
		return 0, err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return 0, err
	}
	if r.Block == nil || r.Block.Header == nil {
		return 0, fmt.Errorf("kaspanode: %s %s: answer without a header", name, hash)
	}
	return r.Block.Header.DAAScore, nil
}

// unsettled returns ErrUnsettled when txID is in a block past the
// cursor: merged by the virtual (so its inputs are spent in the UTXO
// index) but accepted by no chain block yet.
func (c *Client) unsettled(ctx context.Context, txID twophase.Hash) error {
	const name = "get_blocks"
	r, err := call[*appmessage.GetBlocksResponseMessage](ctx, c, name, appmessage.NewGetBlocksRequestMessage(c.chain.cursor, true, false))
	if err != nil {
		return err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return err
	}
	id := hex.EncodeToString(txID[:])
	for _, b := range r.Blocks {
		if b.VerboseData == nil {
			return fmt.Errorf("kaspanode: %s: block without its transaction ids", name)
		}
		if slices.Contains(b.VerboseData.TransactionIDs, id) {
			return fmt.Errorf("%w: transaction %s is in block %s", ErrUnsettled, txID.Short(), b.VerboseData.Hash)
		}
	}
	return nil
}
