package devchain

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

func TestServedOverHTTPAndReorg(t *testing.T) {
	c, err := Start(Config{BlockInterval: -1, Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	id, err := cl.ChainID(ctx)
	if err != nil || id.Int64() != ChainID {
		t.Fatalf("chain id %v %v", id, err)
	}
	from := crypto.PubkeyToAddress(c.Keys()[0].PublicKey)
	to := crypto.PubkeyToAddress(c.Keys()[1].PublicKey)
	for i := 0; i < 3; i++ {
		c.Commit()
	}
	// A transfer mined at the tip, then reorged out and mined again.
	tip, _ := cl.HeaderByNumber(ctx, nil)
	tx, _ := types.SignNewTx(c.Keys()[0], types.LatestSignerForChainID(big.NewInt(ChainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(ChainID), Nonce: 0, GasTipCap: big.NewInt(1e9), GasFeeCap: new(big.Int).Mul(tip.BaseFee, big.NewInt(3)),
		Gas: 21000, To: &to, Value: big.NewInt(1),
	})
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	c.Commit()
	r1, err := cl.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reorg(ctx, 2); err != nil {
		t.Fatal(err)
	}
	c.Commit()
	h, err := cl.HeaderByNumber(ctx, r1.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if h.Hash() == r1.BlockHash {
		t.Fatal("block hash unchanged after reorg")
	}
	r2, err := cl.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("transfer not re-mined after reorg: %v", err)
	}
	if r2.BlockHash == r1.BlockHash {
		t.Fatal("receipt still in the orphaned block")
	}
	if n, _ := cl.NonceAt(ctx, from, nil); n != 1 {
		t.Fatalf("sender nonce %d after reorg", n)
	}
}

// TestReorgMovesTransactions: a reorg with a delay mines the replaced
// blocks' transactions again that many blocks later; without one, in the
// first new block, lower than where they were. Pending transactions are
// sealed before the reorg, and a chain with none is not sealed first.
func TestReorgMovesTransactions(t *testing.T) {
	c, err := Start(Config{BlockInterval: -1, Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl := c.Client()
	to := crypto.PubkeyToAddress(c.Keys()[1].PublicKey)
	nonce := uint64(0)
	send := func() common.Hash {
		t.Helper()
		head, err := cl.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, _ := types.SignNewTx(c.Keys()[0], types.LatestSignerForChainID(big.NewInt(ChainID)), &types.DynamicFeeTx{
			ChainID: big.NewInt(ChainID), Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: new(big.Int).Mul(head.BaseFee, big.NewInt(3)),
			Gas: 21000, To: &to, Value: big.NewInt(1),
		})
		if err := cl.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		nonce++
		return tx.Hash()
	}
	tip := func() uint64 {
		t.Helper()
		n, err := cl.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	minedIn := func(h common.Hash) uint64 {
		t.Helper()
		r, err := cl.TransactionReceipt(ctx, h)
		if err != nil {
			t.Fatalf("receipt of %s: %v", h, err)
		}
		return r.BlockNumber.Uint64()
	}
	for i := 0; i < 3; i++ {
		c.Commit()
	}
	tx := send()
	c.Commit()
	at := tip()
	if err := c.ReorgWith(ctx, ReorgOptions{Depth: 1, Delay: 2}); err != nil {
		t.Fatal(err)
	}
	if got := minedIn(tx); got != at+2 || tip() != at+2 {
		t.Fatalf("delayed 2: mined in %d, tip %d; want %d and %d", got, tip(), at+2, at+2)
	}
	for n := at; n < at+2; n++ {
		if b, err := cl.BlockByNumber(ctx, new(big.Int).SetUint64(n)); err != nil || len(b.Transactions()) != 0 {
			t.Fatalf("block %d: %v, want empty", n, err)
		}
	}
	// Without a delay, into the first new block: down from at+2 to at.
	if err := c.ReorgWith(ctx, ReorgOptions{Depth: 3}); err != nil {
		t.Fatal(err)
	}
	if got := minedIn(tx); got != at || tip() != at+3 {
		t.Fatalf("depth 3: mined in %d, tip %d; want %d and %d", got, tip(), at, at+3)
	}
	// A pending transaction is sealed first (block at+4), then replaced.
	pending := send()
	if err := c.Reorg(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if got := minedIn(pending); got != at+4 || tip() != at+5 {
		t.Fatalf("pending: mined in %d, tip %d; want %d and %d", got, tip(), at+4, at+5)
	}
}
