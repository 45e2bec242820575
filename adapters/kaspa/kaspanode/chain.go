package kaspanode

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/kaspanet/kaspad/app/appmessage"
	"github.com/kaspanet/kaspad/domain/consensus/model/externalapi"
	"github.com/kaspanet/kaspad/domain/consensus/utils/consensushashing"
)

// How the relay reads what the virtual selected parent chain accepted
// (the Kaspa indexer's source): GetVirtualSelectedParentChainFromBlock
// from its cursor gives the chain blocks removed since (a
// reorganisation), those added, and the ids of the transactions each
// added block accepted. A chain block accepts the transactions of its
// merge set (its selected parent and the other blocks it merges), so for
// each added block that accepted anything the client reads the block
// (GetBlock: its DAA score, time and merge set) and the merge set's
// blocks with their transactions, and keeps the accepted ones. Nothing
// polls balances or asks the UTXO index.

// ChainBlock is a chain block and the transactions it accepted, in the
// order of its acceptance data.
type ChainBlock struct {
	Hash     string
	DAAScore uint64
	Time     time.Time
	Accepted []*externalapi.DomainTransaction
}

// ChainChange is the virtual chain's change since a block: the chain
// blocks removed (newest first, as the node lists them) and the first
// blocks added, oldest first. More is the count of added blocks left out
// (past the bound): ask again from the last one.
type ChainChange struct {
	Removed []string
	Added   []ChainBlock
	More    int
}

// ChainFrom reads the virtual chain's change since block start (a chain
// block hash as the node writes it) with what each added block accepted,
// at most maxAdded added blocks (0: 200). A start the node does not know
// (pruned, or another network's) is a NodeError.
func (c *Client) ChainFrom(ctx context.Context, start string, maxAdded int) (ChainChange, error) {
	if maxAdded <= 0 {
		maxAdded = 200
	}
	r, err := c.chainFrom(ctx, start)
	if err != nil {
		return ChainChange{}, err
	}
	out := ChainChange{Removed: r.RemovedChainBlockHashes}
	added := r.AddedChainBlockHashes
	if len(added) > maxAdded {
		out.More, added = len(added)-maxAdded, added[:maxAdded]
	}
	accepted := make(map[string][]string, len(r.AcceptedTransactionIDs))
	for _, a := range r.AcceptedTransactionIDs {
		if a != nil {
			accepted[a.AcceptingBlockHash] = a.AcceptedTransactionIDs
		}
	}
	for _, h := range added {
		b, err := c.chainBlock(ctx, h, accepted[h])
		if err != nil {
			return ChainChange{}, err
		}
		out.Added = append(out.Added, b)
	}
	return out, nil
}

// chainBlock reads chain block hash and the transactions it accepted
// (ids), from the blocks of its merge set.
func (c *Client) chainBlock(ctx context.Context, hash string, ids []string) (ChainBlock, error) {
	blk, err := c.block(ctx, hash, false)
	if err != nil {
		return ChainBlock{}, err
	}
	out := ChainBlock{Hash: hash, DAAScore: blk.Header.DAAScore, Time: time.UnixMilli(blk.Header.Timestamp).UTC()}
	if len(ids) == 0 {
		return out, nil
	}
	want := make(map[string]int, len(ids))
	for i, id := range ids {
		want[id] = i
	}
	found := make([]*externalapi.DomainTransaction, len(ids))
	merged := append(append([]string(nil), blk.VerboseData.MergeSetBluesHashes...), blk.VerboseData.MergeSetRedsHashes...)
	n := 0
	for _, m := range merged {
		mb, err := c.block(ctx, m, true)
		if err != nil {
			return ChainBlock{}, err
		}
		for _, rt := range mb.Transactions {
			tx, err := appmessage.RPCTransactionToDomainTransaction(rt)
			if err != nil {
				return ChainBlock{}, fmt.Errorf("kaspanode: block %s: a transaction that does not convert: %w", m, err)
			}
			id := consensushashing.TransactionID(tx).String()
			if i, ok := want[id]; ok && found[i] == nil {
				found[i], n = tx, n+1
			}
		}
	}
	if n != len(ids) {
		return ChainBlock{}, fmt.Errorf("kaspanode: chain block %s accepted %d transactions, %d found in its merge set", hash, len(ids), n)
	}
	out.Accepted = found
	return out, nil
}

// block reads a block with its verbose data (and its transactions when
// txs), refusing an answer without the parts used.
func (c *Client) block(ctx context.Context, hash string, txs bool) (*appmessage.RPCBlock, error) {
	const name = "get_block"
	r, err := call[*appmessage.GetBlockResponseMessage](ctx, c, name, appmessage.NewGetBlockRequestMessage(hash, txs))
	if err != nil {
		return nil, err
	}
	if err := c.nodeError(name, r.Error); err != nil {
		return nil, err
	}
	if r.Block == nil || r.Block.Header == nil || r.Block.VerboseData == nil {
		return nil, fmt.Errorf("kaspanode: %s %s: answer without header or verbose data", name, hash)
	}
	return r.Block, nil
}

// VirtualDAAScore is the node's virtual DAA score now.
func (c *Client) VirtualDAAScore(ctx context.Context) (uint64, error) {
	info, err := c.blockDAGInfo(ctx)
	if err != nil {
		return 0, err
	}
	return info.VirtualDAAScore, nil
}

// PruningPoint is the node's pruning point: the oldest chain block whose
// acceptance data it keeps, where following the chain can start.
func (c *Client) PruningPoint(ctx context.Context) (string, error) {
	info, err := c.blockDAGInfo(ctx)
	if err != nil {
		return "", err
	}
	return info.PruningPointHash, nil
}

// blockHash reads a block hash as the node writes it (64 hex digits).
func blockHash(s string) ([32]byte, error) {
	var h [32]byte
	if len(s) != 64 {
		return h, fmt.Errorf("kaspanode: block hash %q: want 64 hex digits", s)
	}
	_, err := hex.Decode(h[:], []byte(s))
	if err != nil {
		return h, fmt.Errorf("kaspanode: block hash %q: %w", s, err)
	}
	return h, nil
}
