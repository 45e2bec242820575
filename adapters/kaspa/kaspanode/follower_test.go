package kaspanode

import (
	"encoding/hex"
	"testing"

	"github.com/kaspanet/kaspad/app/appmessage"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// chain is a stretch of the selected chain as the node reports it: each
// added block with the transactions it accepted.
func chain(removed []string, added ...[2]string) *appmessage.GetVirtualSelectedParentChainFromBlockResponseMessage {
	r := &appmessage.GetVirtualSelectedParentChainFromBlockResponseMessage{RemovedChainBlockHashes: removed}
	for _, a := range added {
		r.AddedChainBlockHashes = append(r.AddedChainBlockHashes, a[0])
		acc := &appmessage.AcceptedTransactionIDs{AcceptingBlockHash: a[0]}
		if a[1] != "" {
			acc.AcceptedTransactionIDs = []string{a[1]}
		}
		r.AcceptedTransactionIDs = append(r.AcceptedTransactionIDs, acc)
	}
	return r
}

// Reorgs are rare on simnet with one miner, so the follower's handling of
// removed chain blocks is checked on reported chains.
func TestFollowerUndoesAcceptanceOfRemovedBlocks(t *testing.T) {
	var f follower
	f.init(10)
	payout := twophase.Hash{7}
	id := hex.EncodeToString(payout[:])
	w := f.watch(payout, false)

	f.apply(chain(nil, [2]string{"a", ""}, [2]string{"b", id}))
	if w.block != "b" || f.cursor != "b" {
		t.Fatalf("after a, b(accepts): block %q, cursor %q", w.block, f.cursor)
	}
	w.daa = 42

	f.apply(chain([]string{"b"}, [2]string{"b2", ""}))
	if w.block != "" || w.daa != 0 || f.cursor != "b2" {
		t.Fatalf("b reorganised away: block %q daa %d cursor %q; want unaccepted at cursor b2", w.block, w.daa, f.cursor)
	}

	f.apply(chain(nil, [2]string{"c", id}))
	if w.block != "c" || f.cursor != "c" {
		t.Fatalf("accepted again by c: block %q cursor %q", w.block, f.cursor)
	}

	f.apply(chain([]string{"c"}))
	if w.block != "" || f.cursor != "" || !f.needsHistory() {
		t.Fatalf("chain only shrank: block %q cursor %q; want unaccepted and a full scan next", w.block, f.cursor)
	}
}

func TestFollowerForgetsTheLeastRecentlyAsked(t *testing.T) {
	var f follower
	f.init(2)
	a, b, c := twophase.Hash{1}, twophase.Hash{2}, twophase.Hash{3}
	f.watch(a, false)
	f.watch(b, false)
	f.watch(a, false) // a asked again: b is now the oldest
	f.watch(c, true)
	if len(f.watched) != 2 {
		t.Fatalf("%d watched, want 2", len(f.watched))
	}
	for h, want := range map[twophase.Hash]bool{a: true, b: false, c: true} {
		if _, ok := f.watched[hex.EncodeToString(h[:])]; ok != want {
			t.Errorf("%s watched = %v, want %v", h.Short(), ok, want)
		}
	}
	f.cursor = "x"
	if !f.needsHistory() {
		t.Fatal("c, first asked, may have been accepted before the cursor: a scan from the pruning point is due")
	}
}
