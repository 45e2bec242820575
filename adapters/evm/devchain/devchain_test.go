package devchain

import (
	"context"
	"math/big"
	"testing"
	"time"

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
